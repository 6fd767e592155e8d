/* checker.h — measures a decision log against the strong and weak
 * definitions and against ideal oracles (docs/design.md, Definitions).
 *
 * For each key, in one pass in time order: a queue of its admits in the
 * last interval gives the sliding-window maximum and the strong violations;
 * running sums give the aligned-window maximum; two oracles replay the same
 * attempts (an exact sliding log for strong, an exact aligned window for
 * weak) and every decision is compared with theirs.
 */
#ifndef RL_CHECKER_H
#define RL_CHECKER_H

#include "event_log.h"

#include <stdbool.h>
#include <stdint.h>

struct rl_check_params {
    uint64_t limit;       /* L */
    uint64_t interval_ns; /* I */
    uint64_t epoch_ns;    /* aligned windows are [epoch + k·I, epoch + (k+1)·I) */
};

struct rl_key_metrics {
    uint64_t attempts, admits, rejects;
    uint64_t attempted_cost, admitted_cost;
    uint64_t max_sliding;       /* max admitted cost in any [t, t+I) */
    uint64_t max_aligned;       /* max admitted cost in any aligned window */
    uint64_t strong_excess;     /* max(0, max_sliding − L) */
    uint64_t strong_violations; /* admits after which (t−I, t] held more than L */
    uint64_t weak_excess;       /* max(0, max_aligned − L) */
    /* Admitted cost by time t beyond L·(⌊(t − epoch)/I⌋ + 1), the most any
     * limiter whose windows are ≥ I long and start at or after the epoch
     * (strong, weak and `window` ones alike) can have admitted. Sound from
     * a log alone, and it catches a limiter that admits L per window in
     * windows that come too often, which max_sliding ≤ 2L cannot. */
    uint64_t window_excess;
    /* The same maxima counting only what certainly happened inside the
     * window: an admit stamped t with gap g (event_log.h) was decided in
     * [t − g, t], and counts only when that whole interval fits. These are
     * lower bounds on the true maxima, so a promise broken on them is
     * broken for certain, not by a preempted thread's late stamp. Equal to
     * max_sliding and max_aligned when every gap is 0 (sim, check). */
    uint64_t certain_max_sliding, certain_max_aligned;
    /* Admits the certain sums could not place in one window: those whose
     * [t − gap, t] reaches back across the start of their aligned window,
     * so certain_max_aligned leaves them out (0 when every gap is 0). */
    uint64_t uncertain_admits;
    /* Oracle comparisons: only when the log is complete (rejects present). */
    uint64_t false_admits, false_rejects;           /* against the strong oracle */
    uint64_t weak_false_admits, weak_false_rejects; /* against the weak oracle */
    uint64_t oracle_admitted_cost;                  /* what the strong oracle admits */
};

struct rl_check_result {
    struct rl_key_metrics total; /* counts summed over keys; max_* and excess: worst key */
    uint32_t worst_key;          /* key with the largest max_sliding (ties: lowest id) */
    struct rl_key_metrics *per_key;
    uint32_t key_count;
    bool complete; /* oracle fields and utilization are meaningful */
};

/* Runs every metric over a log in memory (stress, replay, sim, teach):
 * sorts the log by time if it is not sorted, groups it by key, and feeds
 * it key by key to the streaming core below (one key's state at a time in
 * the cache), so a log in memory and a file get the same numbers from the
 * same code. -1 with one line in err on ENOMEM or a zero limit or interval. */
int rl_check(struct rl_event_log *log, const struct rl_check_params *params,
             struct rl_check_result *out, char *err, size_t err_len);

/* admitted cost ÷ strong oracle's admitted cost; NAN when not complete or
 * when the oracle admitted nothing. */
double rl_check_utilization(const struct rl_key_metrics *m, bool complete);

void rl_check_result_free(struct rl_check_result *result);

/* ---- the streaming core ----------------------------------------------------
 * Every metric in one pass over the events, each key's in time order. What
 * it holds for a key is that key's metrics, its sums, and the admits (the
 * log's and the strong oracle's) still inside (t − I, t]: its memory is
 * bounded by the number of keys and what their windows hold, not by the
 * length of the log. */
struct rl_checker;

/* NULL with one line in err on a zero limit or interval, or ENOMEM.
 * complete: rejects are in the log too, so the oracles can replay it. */
struct rl_checker *rl_checker_new(const struct rl_check_params *params, bool complete, char *err,
                                  size_t err_len);

/* Adds events[0, len). Each key's events come in time order (across
 * calls), equal times in the order a stable sort by time leaves them: the
 * whole log sorted by time, or grouped by key and each key's run in time
 * order (keys interleave freely). -1 with one line in err on ENOMEM or an
 * event earlier than its key's last one. */
int rl_checker_add(struct rl_checker *c, const struct rl_event *events, size_t len, char *err,
                   size_t err_len);

/* The result over every event added, for keys 0 .. max(key_count, largest
 * key id + 1) − 1 (a key without events has zero metrics). -1 with err on
 * ENOMEM. The checker is spent afterwards: free it. */
int rl_checker_finish(struct rl_checker *c, uint64_t key_count, struct rl_check_result *out,
                      char *err, size_t err_len);

/* Takes key's metrics out, as rl_checker_finish would report them, and
 * starts the key afresh (as if it had seen no event): for a caller that
 * feeds a log key by key through one key id, so that the checker holds one
 * key's state at a time. A key never seen reads as zeros. */
void rl_checker_take_key(struct rl_checker *c, uint32_t key, struct rl_key_metrics *out);

/* Bytes the checker holds now: its per-key state and window queues. */
size_t rl_checker_bytes(const struct rl_checker *c);

void rl_checker_free(struct rl_checker *c);

#endif
