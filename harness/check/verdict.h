/* verdict.h — the one rule for a promise: the bound it sets for a
 * configuration, and whether a run kept it (docs/design.md, Definitions).
 *
 * Result rows, tables, `check`, `teach` and the claims all ask here, so the
 * rule is written once. The checker judges logs from any system, not only
 * ratelab's algorithms, so this layer does not know algorithms/rl.h: a
 * promise comes in as the kind of bound it sets (enum rl_bound_kind), and
 * report/result.c (rl_promised_of) is the one place that maps rl.h's
 * promise and configuration onto it. */
#ifndef RL_VERDICT_H
#define RL_VERDICT_H

#include "checker.h"
#include "shape_check.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a promise bounds, and with what (rl.h, enum rl_promise). */
enum rl_bound_kind {
    RL_BOUND_NONE,        /* approx and none: nothing promised, never judged */
    RL_BOUND_STRONG,      /* certain_max_sliding ≤ L */
    RL_BOUND_WEAK,        /* certain_max_aligned ≤ L */
    RL_BOUND_WINDOW,      /* certain_max_sliding ≤ 2L and window_excess = 0 */
    RL_BOUND_BUCKET,      /* certain_max_sliding ≤ B + L + the algorithm's stated excess */
    RL_BOUND_CONCURRENCY, /* max_in_flight ≤ L */
    RL_BOUND_GIVEN,       /* certain_max_sliding ≤ L + excess: a bound derived for the
                             run elsewhere (a coordination strategy's, docs/nodes.md) */
    RL_BOUND_SHAPE,       /* a shaped stream: releases causal, within B + L·u/I in any span
                             u, delay bound and no spurious reject (rl_shape_verdict) */
};

/* A promise for one configuration. */
struct rl_promised {
    enum rl_bound_kind kind;
    uint64_t limit;  /* L */
    uint64_t burst;  /* B, bucket only: the capacity, its default already applied */
    uint64_t excess; /* bucket: what the algorithm states beyond B + L for the run's
                        threads (rl_algo.bucket_excess; tb_sharded's per-thread caches);
                        given: the bound's excess over L */
};

/* What a run measured that the verdict reads. */
struct rl_run_facts {
    bool checked;                   /* the metrics below were computed from a log */
    const struct rl_key_metrics *m; /* read only when checked */
    uint64_t dropped;               /* events a full recorder could not keep */
    uint64_t errors;                /* decisions the limiter could not make */
    bool has_in_flight;             /* max_in_flight was measured (stress) */
    uint64_t max_in_flight;
    /* The largest certainty gap of one recorded call (stress, replay; 0 for
     * sim and check) and the interval I it is weighed against: see
     * RL_UNCERTAIN_SHARE below. */
    uint64_t uncertainty_ns, interval_ns;
    /* Logs merged from clocks that may disagree (check --skew, check_merge.h):
     * m's certain maxima (and window_excess) are then lower bounds on the
     * true ones, and possible's max_sliding, max_aligned and window_excess
     * upper bounds. A promise broken on m is broken for certain; one kept
     * on possible is kept for certain; between the two it is uncertain.
     * NULL for every other run. */
    const struct rl_key_metrics *possible;
};

/* RL_HELD_UNCERTAIN: no violation among the admits certainly inside a
 * window, but the stamps are too uncertain for that to be a yes. */
enum rl_held { RL_HELD_NA, RL_HELD_YES, RL_HELD_NO, RL_HELD_UNCERTAIN };

/* A run whose largest gap is more than I / RL_UNCERTAIN_SHARE is too
 * uncertain for a yes (docs/design.md, Promises): the certain maxima count
 * an admit only where its whole interval [stamp − gap, stamp] fits in the
 * window, so with gaps that long a window may be credited with much less
 * than it held, and a violation the true decision times would show may go
 * unseen. No violation seen is then "uncertain", not "yes". */
#define RL_UNCERTAIN_SHARE 10

/* "yes", "no", "n/a" or "uncertain": the word every output prints. */
const char *rl_held_name(enum rl_held held);

/* The maximum the verdict compares with the bound (certain_max_aligned for
 * a weak promise, certain_max_sliding for the others; max_in_flight is not
 * a maximum of m), for tables that show it beside the plain one. */
uint64_t rl_verdict_measure(const struct rl_promised *p, const struct rl_key_metrics *m);

/* The bound the promise sets on what its kind measures (comments above);
 * 0 when it promises nothing. */
uint64_t rl_promised_bound(const struct rl_promised *p);

/* Whether the run kept the promise. n/a: nothing promised; nothing
 * measured (not checked, or no max_in_flight for concurrency); events
 * dropped without a violation among those kept; or errors without a
 * violation among the decisions made (errors are never yes). Judged on the
 * certain maxima (checker.h): a late stamp from a preempted thread is not a
 * broken promise. uncertain: what would be yes, with an uncertainty above
 * I / RL_UNCERTAIN_SHARE (a concurrency promise, judged on max_in_flight,
 * not on stamps, never is). A violation among the certain admits is no
 * whatever the uncertainty. */
enum rl_held rl_verdict(const struct rl_promised *p, const struct rl_run_facts *run);

/* How far the run went past the promise, in admitted cost: max(0, the
 * certain maximum the verdict compares − the bound), and for a window
 * promise the larger of that and window_excess. 0 when nothing is
 * promised (none, concurrency). A fault's lost writes show here: a counter
 * that went back admits that much more (the row's lost_admits). */
uint64_t rl_verdict_excess(const struct rl_promised *p, const struct rl_key_metrics *m);

/* What the verdict compares, for a reader: "max_sliding <= 20, window_excess
 * = 0". Returns what snprintf returns. */
int rl_verdict_rule(const struct rl_promised *p, char *buf, size_t len);

/* Whether a shaped stream kept the shape promise (shape_check.h): no when
 * a release came before its arrival, the releases exceeded the curve, an
 * admit waited past the max wait or a reject was spurious; n/a when the
 * log holds no attempt; else yes. The distance from the ideal schedule is
 * reported, never judged. */
enum rl_held rl_shape_verdict(const struct rl_shape_result *shaped);

/* The verdict of several runs of one configuration (a stress table's line
 * over its repetitions): no if any run broke the promise; else yes if a run
 * kept it before any checked run gave n/a; else n/a if a checked run gave
 * it; "-" when no run gave a verdict. Never yes when any run had errors;
 * uncertain rather than yes when any run kept it only uncertainly. */
struct rl_held_tally {
    bool any; /* a run has given a verdict */
    enum rl_held held;
    uint64_t errors; /* over every run added */
};

/* Adds one run's verdict; checked: its metrics were computed (only then
 * does its n/a count). */
void rl_held_tally_add(struct rl_held_tally *t, enum rl_held held, bool checked, uint64_t errors);

/* The tally's word, "-" when no run gave a verdict. */
const char *rl_held_tally_name(const struct rl_held_tally *t);

#endif
