/* stress_plan.h — a grid of stress measurements (algorithms × thread counts
 * × repetitions), prepared once and run with repetitions interleaved across
 * algorithms so a slow spell of the machine does not land on one algorithm
 * only. Shared by `ratelab stress`, `ratelab bench` and the claims. */
#ifndef RL_STRESS_PLAN_H
#define RL_STRESS_PLAN_H

#include "faults.h"
#include "stress.h"
#include "harness/keyed/keyed.h"
#include "harness/report/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_stress_plan {
    const struct rl_algo **algos;
    size_t algo_count;
    const uint64_t *threads;
    size_t thread_count;
    unsigned reps;
    /* What every run of the plan shares, as the run takes it: the plan sets
     * algo, threads, record and started_clock per run. Here, run.record
     * means each run is paired with a recorded one (accuracy and overhead). */
    struct rl_stress_params run;
    /* Started once by rl_stress_plan_prepare (clock_started); an unprepared
     * plan (bench's suites) starts it once when it runs. */
    struct rl_clock clock;
    bool clock_started;
    /* --decisions: the admits of the plan's one recorded run of its chosen
     * algorithm are handed back in `decisions` (free with rl_stress_plan_free). */
    bool keep_decisions;
    struct rl_event_log decisions;
    /* Where progress goes: called with one line per run, then with NULL when
     * the plan ends. NULL: silent. The CLI passes its terminal line, so this
     * layer never includes the CLI. */
    void (*progress)(const char *line);
    /* --fault: every run of a Redis algorithm on the private `cluster` gets
     * these faults (a fresh cluster of the same shape for each run after
     * the first) and is recorded once, not paired with an unrecorded one:
     * its row carries the fault, the outage and the lost admits. */
    const struct rl_faults *faults;
    struct rl_redis_cluster *cluster;
    bool cluster_used; /* a faulted run has changed it */
    /* > 0 (bench's cluster suites): the plan runs on a private cluster of
     * this shape in `cluster`, started when the plan begins unless one of
     * that shape is running and unfaulted, and run.cfg.remote set to it. */
    unsigned cluster_primaries, cluster_replicas;
};

/* The algorithms a user asked for, before the plan adds its reference rows. */
struct rl_stress_asked {
    const struct rl_algo *const *algos;
    size_t count;
    bool all;    /* "all": leave out what cannot run here instead of refusing it */
    bool unsafe; /* allow algorithms that are not thread-safe with > 1 thread */
};

/* Prepares plan (its threads, reps and run already set) for `ratelab
 * stress`: starts the clock (refusing virtual), checks each asked algorithm
 * (thread-safe for the thread counts, creatable with run.cfg), puts faa
 * first and, when a Redis algorithm is asked for, redis_noop next (the
 * floors every row is compared with, measured in the same run), and with
 * keep_decisions applies the --decisions rule (one algorithm, one thread
 * count, one repetition; recorded). The list goes into `list` (room for
 * `room`, at least asked->count + 1). -1 with one line in err. */
int rl_stress_plan_prepare(struct rl_stress_plan *plan, const struct rl_stress_asked *asked,
                           const struct rl_algo **list, size_t room, char *err, size_t err_len);

/* Rows the plan produces. */
size_t rl_stress_plan_rows(const struct rl_stress_plan *plan);

/* Runs the plan into rows (room for rl_stress_plan_rows), showing progress
 * labelled with `label`. Returns how many rows were filled; fewer than
 * planned when interrupted (*interrupted set) or when a run failed (a lost
 * Redis server, say: *failed set and err says why). The finished rows are
 * whole either way, so the caller can still write them. ratio_faa is
 * filled. */
size_t rl_stress_plan_run(struct rl_stress_plan *plan, const char *label, struct rl_result *rows,
                          bool *interrupted, bool *failed, char *err, size_t err_len);

/* Frees what a run handed back (the decisions). */
void rl_stress_plan_free(struct rl_stress_plan *plan);

#endif
