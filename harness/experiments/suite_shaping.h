/* suite_shaping.h — `bench --suite shaping`: every shaper's distance from
 * the ideal schedule against its cost per decision (docs/accuracy.md,
 * Shaping). Distance: sim in virtual time on each workload, judged by
 * check --promise shape (shape_check.h): how late each release is behind
 * the greedy shaper's (GCRA virtual scheduling), p50, p99 and max, and
 * whether the output stayed within B + L·u/I. Cost: the shape call alone
 * (the sleep left out, as the perf suite's shaping goal), 1 thread, on the
 * admit path, as ns per decision, median of the repetitions. */
#ifndef RL_SUITE_SHAPING_H
#define RL_SUITE_SHAPING_H

#include "algorithms/rl.h"
#include "harness/check/shape_check.h"
#include "workloads/trace.h"

#include <stddef.h>
#include <stdint.h>

/* The distance rows' configuration: L per I with B = L, one key, cost 1,
 * 10 s of each workload at twice the limit (idle_burst: its own shape),
 * seed 1, no max wait (acquire, Take, Wait: every caller waits). */
#define RL_SHAPING_LIMIT    100u
#define RL_SHAPING_INTERVAL 1000000000ull

struct rl_shaping_row {
    const char *experiment; /* "distance" or "cost" */
    const char *algo;
    const char *workload; /* distance; "" for cost */
    uint64_t limit, interval_ns, burst;
    struct rl_shape_result shape; /* distance */
    double ns_per_decision;       /* cost: median over the repetitions */
    double ns_min, ns_max;        /* cost: spread over the repetitions */
    unsigned reps;
    double wall_s;
};

/* Every row the suite makes (shapers from the registry, family "shaper",
 * and tb_cas's acquire as the cost floor), planned into rows (cap
 * entries); returns how many there are. */
size_t rl_shaping_suite_plan(struct rl_shaping_row *rows, size_t cap);

/* Runs one planned row, reps repetitions for a cost row. -1 with one line
 * in err. */
int rl_shaping_suite_run(struct rl_shaping_row *row, unsigned reps, char *err, size_t err_len);

/* sim of algo on trace with cfg (no max wait, keys never expire), the
 * log judged by the shaping checker at (cfg's L, I, judge_burst). -1 with
 * one line in err. Shared with the shaping claims. */
int rl_shaping_judge_sim(const struct rl_algo *algo, const struct rl_config *cfg,
                         const struct rl_trace *trace, uint64_t judge_burst,
                         struct rl_shape_result *res, char *err, size_t err_len);

/* The same with the rate changes of sim --set-rate, applied by sim and
 * told to the checker (rates NULL, rate_count 0: none). */
int rl_shaping_judge_sim_rates(const struct rl_algo *algo, const struct rl_config *cfg,
                               const struct rl_trace *trace, uint64_t judge_burst,
                               const struct rl_rate_change *rates, size_t rate_count,
                               struct rl_shape_result *res, char *err, size_t err_len);

#endif
