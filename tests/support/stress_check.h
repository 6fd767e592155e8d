/* stress_check.h — runs a recorded closed-loop stress and checks the
 * accounting and the sound consequences of an algorithm's promise. */
#ifndef RL_TEST_STRESS_CHECK_H
#define RL_TEST_STRESS_CHECK_H

#include "harness/check/checker.h"
#include "harness/run/sim.h"
#include "harness/run/stress.h"

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
 * interval_ns) on the monotonic clock, counted (rl_stress_counted); asserts
 * it ran, that its totals are the counted acquires' and every admit was
 * recorded. */
void rl_stress_checked(const char *algo, unsigned threads, uint64_t limit, uint64_t interval_ns,
                       uint64_t duration_ns, struct rl_stress_verdict *v);

/* Counts kept apart from the harness's own: every acquire the run makes on
 * the wrapped algorithm, and what it answered, counted by the calling
 * thread in its own slot (plain memory, read after the run's join), so the
 * wrapper adds no shared write that could order the limiter's threads. */
struct rl_call_counts {
    uint64_t calls;
    uint64_t answers[3]; /* by enum rl_decision, before the caller's error policy */
};

/* params->algo replaced by a counting copy of it (every field the same but
 * acquire); the counts restart at zero. One wrapped run at a time. */
void rl_count_calls(struct rl_stress_params *params);
void rl_counted_calls(struct rl_call_counts *counts);

/* rl_stress_run with params->algo counted, then the run's totals asserted
 * against the counts: on one limiter, every attempt is one acquire and
 * attempts, admits, rejects and errors are exactly what the acquires
 * answered after the error policy; through the keyed container, a one-word
 * key's acquire may be retried after a lost commit, so each count is at
 * least the run's. Returns rl_stress_run's result. */
int rl_stress_counted(struct rl_stress_params *params, struct rl_stress_outcome *out, char *err,
                      size_t err_len);

/* A sim run's totals against its complete log, one line per attempt:
 * attempts = the trace's length = the log's lines, admits = its admitted
 * lines, rejects = the rest. */
void rl_sim_counts_match(const struct rl_sim_outcome *out, const struct rl_event_log *log,
                         size_t trace_len);

/* Runs name in sim over trace into log (trace order), asserts it ran and
 * its counts match the log (rl_sim_counts_match), and checks the log at
 * cfg's (L, I) into res. Returns the attempts it answered with RL_ERROR. */
uint64_t rl_sim_checked(const char *name, const struct rl_config *cfg, const struct rl_trace *trace,
                        struct rl_event_log *log, struct rl_check_result *res);

/* How many of a's lines b decided otherwise (admitted or not); b has at
 * least a's lines, as two sim logs of one trace do. */
size_t rl_logs_differ(const struct rl_event_log *a, const struct rl_event_log *b);

#endif
