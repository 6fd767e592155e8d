/* suites.h — the named benchmark suites of `ratelab bench`: what each one
 * measures, as a sim grid and a list of stress plans run in order. */
#ifndef RL_SUITES_H
#define RL_SUITES_H

#include "harness/run/stress_plan.h"

#include <stdbool.h>
#include <stddef.h>

#define RL_SUITE_MAX_PLANS 16

struct rl_suite_run {
    /* sim: these algorithms on these workloads (Redis ones: on sim_remote_workload only) */
    const struct rl_algo **sim_algos;
    size_t sim_count;
    const char *const *sim_workloads; /* NULL-terminated */
    const char *sim_remote_workload;
    /* replay: these algorithms on these workloads, open loop, `replay_threads` senders */
    const struct rl_algo **replay_algos;
    size_t replay_count;
    const char *const *replay_workloads; /* NULL-terminated, or NULL for none */
    unsigned replay_threads;
    const char *const *replay_clocks; /* NULL-terminated, each replay on each; NULL: monotonic */
    /* stress: plans run one after the other, each with a label for the tables */
    struct rl_stress_plan plans[RL_SUITE_MAX_PLANS];
    const char *plan_labels[RL_SUITE_MAX_PLANS];
    size_t plan_count;
    /* cluster suite: after these plans, the engine's floor on the plan's
     * cluster (redis-benchmark --cluster, cluster_floor.h) */
    bool plan_floor[RL_SUITE_MAX_PLANS];
    /* one line the tables print first ("" or NULL for none) */
    const char *note;
};

struct rl_suite {
    const char *name;
    const char *summary; /* for --help */
    /* Fills run from the available algorithms (Redis ones already dropped
     * when there is no server), the repetitions and the limiter config.
     * Arrays it points to must outlive the run: suites use static storage. */
    void (*plan)(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                 unsigned reps, const struct rl_config *cfg);
};

/* NULL-terminated. */
extern const struct rl_suite *const rl_suites[];

const struct rl_suite *rl_suite_find(const char *name);

/* True for the claims suite, which plans nothing: `bench` runs the
 * published claims (claims.h) instead, and its rows are the claims' own
 * (`ratelab claims`), not result rows. */
bool rl_suite_runs_claims(const struct rl_suite *suite);

/* True for the perf suite, which plans nothing either: `bench` runs the
 * performance goals (perf.h), one row per ratio, in their own columns. */
bool rl_suite_runs_perf(const struct rl_suite *suite);

#endif
