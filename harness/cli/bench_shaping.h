/* bench_shaping.h — `ratelab bench --suite shaping` (harness/experiments/
 * suite_shaping.h): its runs, its table and its rows. */
#ifndef RL_BENCH_SHAPING_H
#define RL_BENCH_SHAPING_H

#include "output.h"

/* Runs the suite (cost rows: reps repetitions) and writes its rows where
 * output says; the exit status. */
int rl_cli_bench_shaping(const struct rl_cli_output *output, unsigned reps);

#endif
