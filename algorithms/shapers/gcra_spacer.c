/* gcra_spacer.c — the exact virtual-scheduling spacer: GCRA that delays a
 * non-conforming cell to the time it would conform instead of rejecting it.
 * The reference every shaped stream is compared with (check --promise shape
 * computes the same schedule).
 *
 * Promise: bucket. Its releases are the earliest causal ones within the
 * curve B + L·u/I (the greedy shaper's output, Le Boudec & Thiran), so any
 * window of length I holds at most B + L of released cost.
 *
 * State: GCRA's theoretical arrival time TAT in exact ticks, the word,
 * bound and horizon of tb_cas and gcra_cas (tb_tat.h); T = I/L, τ = (B − 1)·T.
 *
 * Decision: an attempt of cost n arriving at a is released at
 * r = max(a, TAT + (n − 1)·T − τ), when its last cell conforms, and then
 * TAT = max(a, TAT) + n·T (ITU-T I.371's virtual scheduling with the cell
 * held back instead of dropped). r is rounded up to a whole ns, never early.
 * When r − a exceeds the caller's max wait the attempt is rejected and
 * nothing changes; acquire is the max wait 0 (exactly gcra_cas). n > B can
 * never be released and is rejected. RL_ERROR past the horizon, or when
 * the waits have pushed TAT out of the 64-bit word.
 *
 * Cancellation, in the manner of x/time/rate's CancelAt: a reservation
 * keeps the TAT it left (its ticket). Cancelled before its release, it
 * gives back its n·T less what reservations made after it took (TAT now −
 * ticket): all of it when it was the last, nothing when later ones used
 * n·T or more; at or after its release it gives back nothing. TAT then
 * moves back by that much, so cancellation is the one step that lowers
 * TAT (never below now: a bucket is never more than full).
 *
 * Rate change (set_rate to L' per I' at t), the natural rule for a
 * virtual-scheduling spacer: what is owed stays owed, in tokens. The debt
 * TAT − t, in tokens, is kept and TAT' = t + debt·T' (rounded up to a tick
 * of the new rate), B is kept; releases already promised keep their times.
 * It is x/time's SetLimitAt in TAT form, and it is the greedy shaper of
 * the piecewise curve B + ∫ rate (check --promise shape --set-rate)
 * for every arrival after the change: that curve's allowance from t on is
 * the same bucket refilled at the new rate. A reservation made before the
 * change is not cancelled after it (the harness refuses a trace with
 * both).
 *
 * Memory orders: acq_rel, as gcra_cas (an acquire load, an acq_rel CAS on
 * success and acquire on failure): one word, decided and written by one CAS.
 *
 * Races accepted: a stale clock read is released as of its own time, never
 * earlier than the schedule allows (tb_tat.h).
 *
 * Sources: ITU-T Recommendation I.371 (GCRA, virtual scheduling); Le Boudec
 * and Thiran, Network Calculus, LNCS 2050 (greedy shapers).
 */
#include "algorithms/buckets/tb_tat.h"

#include <stdlib.h>

static void *gcra_spacer_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return tb_tat_create(cfg, "gcra_spacer", err, err_len);
}

static enum rl_decision gcra_spacer_shape(void *state, struct rl_clock *clock, uint64_t key,
                                          uint64_t n, uint64_t max_wait_ns,
                                          struct rl_reservation *reservation)
{
    (void)key;
    struct tb_tat_state *s = state;
    if (n > s->burst)
        return RL_REJECT;
    uint64_t read = rl_clock_now(clock);
    uint64_t since = tb_since_epoch(read, s->epoch_ns);
    if (since > s->horizon_ns)
        return RL_ERROR;
    uint64_t now = since * s->ticks.per_ns;
    uint64_t cost = n * s->ticks.per_token; /* ≤ capacity: n ≤ B */
    uint64_t may_lack = s->capacity - cost; /* τ − (n − 1)·T */
    uint64_t tat = atomic_load_explicit(&s->tat, memory_order_acquire);
    for (;;) {
        uint64_t lacking = tat > now ? tat - now : 0;
        uint64_t wait_ticks = lacking > may_lack ? lacking - may_lack : 0;
        uint64_t wait_ns = wait_ticks / s->ticks.per_ns + (wait_ticks % s->ticks.per_ns != 0);
        if (wait_ns > max_wait_ns)
            return RL_REJECT;
        uint64_t base = now + lacking; /* max(a, TAT) */
        if (base > UINT64_MAX - cost)
            return RL_ERROR;
        if (atomic_compare_exchange_weak_explicit(&s->tat, &tat, base + cost, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            reservation->release_ns = (read > s->epoch_ns ? read : s->epoch_ns) + wait_ns;
            reservation->ticket = base + cost; /* TAT right after it: what cancel needs */
            return RL_ADMIT;
        }
    }
}

static bool gcra_spacer_cancel(void *state, struct rl_clock *clock, uint64_t key, uint64_t n,
                               const struct rl_reservation *reservation)
{
    (void)key;
    struct tb_tat_state *s = state;
    uint64_t read = rl_clock_now(clock);
    if (read >= reservation->release_ns || n > s->burst)
        return false; /* released already: nothing to give back */
    uint64_t since = tb_since_epoch(read, s->epoch_ns);
    if (since > s->horizon_ns)
        return false;
    uint64_t now = since * s->ticks.per_ns;
    uint64_t cost = n * s->ticks.per_token;
    uint64_t tat = atomic_load_explicit(&s->tat, memory_order_acquire);
    for (;;) {
        if (tat < reservation->ticket)
            return false; /* not a reservation of this state's, or given back already */
        uint64_t later = tat - reservation->ticket;
        if (later >= cost)
            return false;
        uint64_t back = tat - (cost - later);
        uint64_t next = back > now ? back : now;
        if (atomic_compare_exchange_weak_explicit(&s->tat, &tat, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return true;
    }
}

static bool gcra_spacer_set_rate(void *state, struct rl_clock *clock, uint64_t limit,
                                 uint64_t interval_ns)
{
    struct tb_tat_state *s = state;
    struct tb_ticks to = tb_ticks_of(limit, interval_ns);
    uint64_t since = tb_since_epoch(rl_clock_now(clock), s->epoch_ns);
    if (since > s->horizon_ns || s->burst > UINT64_MAX / to.per_token)
        return false;
    uint64_t capacity = s->burst * to.per_token;
    uint64_t horizon_ns = (UINT64_MAX - capacity) / to.per_ns;
    if (since > horizon_ns)
        return false;
    uint64_t now = since * s->ticks.per_ns, now_to = since * to.per_ns;
    /* set_rate runs alone on the state (rl.h): a plain read-modify-write */
    uint64_t tat = atomic_load_explicit(&s->tat, memory_order_acquire);
    rl_u128 debt_to;
    if (!tb_ticks_rescale(tat > now ? tat - now : 0, s->ticks.per_token, to.per_token, true,
                          &debt_to) ||
        debt_to > UINT64_MAX - now_to)
        return false;
    atomic_store_explicit(&s->tat, now_to + (uint64_t)debt_to, memory_order_release);
    s->capacity = capacity;
    s->horizon_ns = horizon_ns;
    s->ticks = to;
    return true;
}

static enum rl_decision gcra_spacer_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                            uint64_t n)
{
    struct rl_reservation reservation;
    return gcra_spacer_shape(state, clock, key, n, 0, &reservation);
}

const struct rl_algo rl_gcra_spacer_algo = {
    .name = "gcra_spacer",
    .family = "shaper",
    .summary = "GCRA virtual scheduling as a spacer: delays to the earliest conforming time",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "acq_rel",
    .create = gcra_spacer_create,
    .destroy = free,
    .acquire = gcra_spacer_acquire,
    .shape = gcra_spacer_shape,
    .cancel = gcra_spacer_cancel,
    .set_rate = gcra_spacer_set_rate,
};
