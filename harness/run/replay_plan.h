/* replay_plan.h — a grid of replay runs (algorithms × thread counts ×
 * repetitions) of one trace, prepared once (clock, algorithm checks, the
 * --decisions rule) and run with repetitions interleaved, as stress plans
 * are. Used by `ratelab replay`. */
#ifndef RL_REPLAY_PLAN_H
#define RL_REPLAY_PLAN_H

#include "faults.h"
#include "replay.h"
#include "harness/report/latency_cdf.h"
#include "harness/report/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_replay_plan {
    const struct rl_algo **algos;
    size_t algo_count;
    const uint64_t *threads;
    size_t thread_count;
    unsigned reps;
    /* What every run shares (trace, speed, clock, cfg, ...), as the run
     * takes it: the plan sets algo, threads and started_clock per run. */
    struct rl_replay_params run;
    const char *workload; /* the rows' workload name, and its seed (0: a file) */
    uint64_t seed;
    struct rl_clock clock; /* started by rl_replay_plan_prepare */
    /* --decisions: the one run's decisions are handed back in `decisions`
     * (free with rl_replay_plan_free). */
    bool keep_decisions;
    struct rl_event_log decisions;
    struct rl_latency_cdf *cdfs; /* NULL, or room for one a row */
    /* Progress, as in struct rl_stress_plan: a line a run, NULL at the end. */
    void (*progress)(const char *line);
    /* --fault: as in struct rl_stress_plan (a replay run is always checked) */
    const struct rl_faults *faults;
    struct rl_redis_cluster *cluster;
    bool cluster_used;
};

/* Prepares plan (threads, reps, run.clock and run.cfg set): starts the
 * clock (refusing virtual), keeps the algorithms (algos, count: in place)
 * that can run with its thread counts and config, refusing one named
 * explicitly that cannot (`all`: leaving it out), and with keep_decisions
 * applies the --decisions rule (one algorithm, one thread count, one
 * repetition). -1 with one line in err. */
int rl_replay_plan_prepare(struct rl_replay_plan *plan, const struct rl_algo **algos, size_t count,
                           bool all, char *err, size_t err_len);

/* Rows the plan produces. */
size_t rl_replay_plan_rows(const struct rl_replay_plan *plan);

/* Runs the plan (run.trace set) into rows, labelled `label` in progress;
 * returns how many were filled. It stops at the first run that fails or is
 * interrupted (*failed set, err says why) and when rl_interrupted is set. */
size_t rl_replay_plan_run(struct rl_replay_plan *plan, const char *label, struct rl_result *rows,
                          bool *failed, char *err, size_t err_len);

/* Frees what a run handed back (the decisions). */
void rl_replay_plan_free(struct rl_replay_plan *plan);

#endif
