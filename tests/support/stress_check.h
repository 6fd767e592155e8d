/* stress_check.h — runs a recorded closed-loop stress and checks the
 * accounting and the sound consequences of an algorithm's promise. */
#ifndef RL_TEST_STRESS_CHECK_H
#define RL_TEST_STRESS_CHECK_H

#include "harness/check/checker.h"

#include <stdbool.h>
#include <stdint.h>

struct rl_stress_verdict {
    uint64_t attempts, admits, rejects, errors;
    uint64_t recorded, dropped, uncertainty_ns;
    uint64_t last_stamp_ns;       /* latest recorded admit, since the epoch */
    uint64_t first_window_admits; /* admits stamped in [0, I) */
    uint64_t window_bound; /* L·(⌊last_stamp/I⌋ + 1): most any `window` limiter may admit */
    uint64_t certain_max_aligned; /* rl_certain_max_aligned of the log */
    struct rl_key_metrics m;
};

/* The most admits any key has in one aligned window, counting only admits
 * stamped at least their own gap_ns after the window's start: a stamp is
 * taken after the decision, at most gap_ns later than the algorithm's own
 * clock read, so those admits certainly belong to the window their stamp
 * is in. The log must be sorted by time. */
uint64_t rl_certain_max_aligned(const struct rl_event_log *log, uint64_t interval_ns);

/* Runs algo recorded with `threads` threads for duration_ns at (limit,
 * interval_ns) on the monotonic clock; asserts it ran and that the counts
 * add up (attempts = admits + rejects + errors, every admit recorded). */
void rl_stress_checked(const char *algo, unsigned threads, uint64_t limit, uint64_t interval_ns,
                       uint64_t duration_ns, struct rl_stress_verdict *v);

#endif
