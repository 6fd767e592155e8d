/* stress_plan.h — a grid of stress measurements (algorithms × thread counts
 * × repetitions), run with repetitions interleaved across algorithms so a
 * slow spell of the machine does not land on one algorithm only. Shared by
 * `ratelab stress` and `ratelab bench`. */
#ifndef RL_STRESS_PLAN_H
#define RL_STRESS_PLAN_H

#include "harness/keyed/keyed.h"
#include "harness/report/result.h"

struct rl_event_log;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_stress_plan {
    const struct rl_algo **algos;
    size_t algo_count;
    const uint64_t *threads;
    size_t thread_count;
    unsigned reps;
    uint64_t duration_ns;
    const char *clock;
    struct rl_config cfg;
    bool record; /* each run is paired with a recorded one: accuracy and overhead */
    bool pin;
    uint64_t hold_ns; /* limiters that need release hold each permit this long */
    uint32_t keys;    /* > 1: keyed, through the container */
    double zipf_s;
    enum rl_keyed_expiry expiry;
    bool error_admits;       /* fail-open on RL_ERROR */
    uint64_t client_skew_ns; /* clients' clocks spread over ±skew */
    /* When set, the admits of the recorded runs are handed here (each
     * replacing the one before: a plan of one recorded run keeps its own). */
    struct rl_event_log *keep_log;
    /* Where progress goes: called with one line per run, then with NULL when
     * the plan ends. NULL: silent. The CLI passes its terminal line, so this
     * layer never includes the CLI. */
    void (*progress)(const char *line);
};

/* Rows the plan produces. */
size_t rl_stress_plan_rows(const struct rl_stress_plan *plan);

/* Runs the plan into rows (room for rl_stress_plan_rows), showing progress
 * labelled with `label`. Returns how many rows were filled; fewer than
 * planned when interrupted (*interrupted set) or when a run failed (a lost
 * Redis server, say: *failed set and err says why). The finished rows are
 * whole either way, so the caller can still write them. ratio_faa is
 * filled. */
size_t rl_stress_plan_run(const struct rl_stress_plan *plan, const char *label,
                          struct rl_result *rows, bool *interrupted, bool *failed, char *err,
                          size_t err_len);

/* Prints the recorder's overhead: recorded ÷ unrecorded ns/op, median over
 * the paired runs of each algorithm and thread count. */
void rl_stress_plan_print_overhead(FILE *out, const struct rl_result *rows, size_t count);

#endif
