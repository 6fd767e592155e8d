/* shape_check.h — judging a shaped stream: a decision log with release
 * times (sim with a shaper or --max-wait writes one), against the arrival
 * curve σ(u) = B + L·u/I (docs/design.md, Shaping).
 *
 * Per key, in one pass over arrivals and one over releases (plus the sorts
 * that put them in those orders):
 *   causal      every release ≥ its arrival;
 *   curve       the released cost between any two releases r_i ≤ r_j,
 *               both included, is ≤ B + L·(r_j − r_i)/I, checked exactly in
 *               integers with the release's rounding to a whole ns allowed
 *               (< B + L·(r_j − r_i + 1)/I): with prefix costs P, that is
 *               P_j·I − L·r_j − min_{i ≤ j}(P_{i−1}·I − L·r_i) < (B·I + L),
 *               a running minimum, O(n);
 *   ideal       the greedy schedule of the admitted attempts in arrival
 *               order (GCRA virtual scheduling, ITU-T I.371: release at
 *               max(a, TAT − τ), TAT = max(a, TAT) + T, in exact ticks,
 *               rounded up to a ns): each release's distance from it;
 *   delay       release − arrival ≤ D when a max wait D is given;
 *   spurious    a reject the ideal schedule would have released within D
 *               (within any time when no D is given), for an n ≤ B;
 *   fifo        releases that come before an earlier arrival's (reported;
 *               not every shaper promises FIFO);
 *   cancel      a reservation cancelled before its release (cancel_ns)
 *               never went: it is out of the curve, the delay and FIFO;
 *               at its cancel time the ideal schedule is recomputed
 *               without it (GCRA over the key's admits so far, less every
 *               one cancelled by then: O(n) a cancellation), and the next
 *               arrival's distance from that schedule, less the distance
 *               the latest release before it kept from its own ideal,
 *               reports the tokens the shaper gave back beyond it
 *               (gained) or short of it (lost), in units of n.
 * Rate changes (check --set-rate, sim --set-rate): the rate in force is
 * piecewise, and the curve is that of a bucket of B refilled at it: the
 * cost released in any span [s, e] is ≤ B + R(e) − R(s), R(t) the
 * allowance ∫ L(u)/I(u) du from 0 to t; a span crossing a change is
 * allowed the sum of the two pieces' allowances. Sound because it is the
 * greedy shaper's bound for a time-varying rate (the level of a bucket
 * refilled at r(t) follows Lindley's recursion with R in place of L·t),
 * and it reduces to B + L·u/I with one rate. Exact in integers: R is kept
 * ×D, D the lcm of the intervals. The ideal schedule is GCRA on R's scale
 * (virtual time R(t): TAT += n·D, release at R⁻¹(max(R(a), TAT − B·D)),
 * rounded up): the greedy shaper that knows the schedule of rates. A
 * shaper cannot: what it promised before a change it may release after at
 * the old rate, and those releases are counted apart (old_rate_releases).
 * Held (verdict.h, rl_shape_verdict): causal, within the curve, delay
 * bound kept and no spurious reject.
 */
#ifndef RL_SHAPE_CHECK_H
#define RL_SHAPE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One decision of a shaped log. */
struct rl_shaped_event {
    uint64_t t_ns;       /* arrival */
    uint64_t release_ns; /* admits only */
    uint64_t cancel_ns;  /* cancelled only: when the reservation was given up */
    uint32_t key, n;
    bool admitted;
    bool cancelled; /* given up before its release (admits only) */
};

struct rl_shaped_log {
    struct rl_shaped_event *events;
    size_t len;
    char **key_names; /* key_count names, owned */
    uint32_t key_count;
};

/* Reads a decision log CSV whose header names t_ns, key, n, admitted and
 * release_ns, maybe cancel_ns (thread, woke_ns and other columns
 * ignored). -1 with one line in err: a missing file, no release_ns column
 * ("not a shaped log"), a malformed line with its number, an admit without
 * a release or a reject with one, a cancellation of a reject, or one at or
 * after its reservation's release (nothing was left to cancel). */
int rl_shaped_log_read_csv(const char *path, struct rl_shaped_log *out, char *err, size_t err_len);

void rl_shaped_log_free(struct rl_shaped_log *log);

/* One rate change of a run (sim --set-rate, check --set-rate): from at_ns
 * on (the log's time base) the rate is limit per interval_ns. */
struct rl_rate_change {
    uint64_t at_ns;
    uint64_t limit, interval_ns;
};

#define RL_MAX_RATE_CHANGES 16

struct rl_shape_params {
    uint64_t limit;       /* L: cost per interval, > 0 */
    uint64_t interval_ns; /* I, > 0 */
    uint64_t burst;       /* B, > 0 */
    bool max_wait_set;    /* D given */
    uint64_t max_wait_ns; /* D */
    /* Rate changes (none: rate_count 0, and every answer is as without
     * them): from rates[k].at_ns on the rate is rates[k].limit per
     * rates[k].interval_ns; B is kept. */
    const struct rl_rate_change *rates;
    size_t rate_count;
};

struct rl_shape_result {
    uint64_t attempts, admits, rejects;
    uint64_t noncausal;        /* releases before their arrival */
    uint64_t curve_violations; /* releases at which the curve was exceeded */
    double worst_excess;       /* the most cost beyond the curve at one release */
    uint64_t over_wait;        /* admits released more than D after arrival */
    uint64_t spurious_rejects; /* rejects the ideal schedule would have released in time */
    uint64_t fifo_inversions;  /* releases before an earlier arrival's */
    uint64_t early;            /* releases before the ideal schedule's */
    uint64_t late_p50_ns, late_p99_ns, late_max_ns; /* release − ideal, over admits, ≥ 0 */
    uint64_t delay_max_ns;                          /* the longest release − arrival */
    uint64_t cancellations;                         /* reservations given up before release */
    /* At the first arrival after each cancellation: its release against the
     * recomputed ideal, less the lag the shaper kept before it, in tokens
     * (ns × L/I), summed: earlier is gained (the shaper gave back more than
     * the schedule without the request), later is lost. */
    double cancel_tokens_gained, cancel_tokens_lost;
    /* With rate changes: releases after a change at which the curve is
     * exceeded and would not be had that change not been made (the old
     * rate kept): pending reservations released at the old rate, x/time's
     * "may be violated". Counted in curve_violations too. */
    uint64_t old_rate_releases;
};

/* Judges log (reordered in place: by key, then arrival) against params.
 * -1 with one line in err for bad params (zero L, I or B) or ENOMEM. */
int rl_shape_check(struct rl_shaped_log *log, const struct rl_shape_params *params,
                   struct rl_shape_result *out, char *err, size_t err_len);

#endif
