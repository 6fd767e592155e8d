/* bench_perf.h — `ratelab bench --suite perf`: runs the performance goals
 * (harness/experiments/perf.h) and shows each ratio beside its target. */
#ifndef RL_CLI_BENCH_PERF_H
#define RL_CLI_BENCH_PERF_H

#include "output.h"

/* The exit status: 0 (every goal ran, met or not), 1 when a goal could not
 * run or the run was interrupted. */
int rl_cli_bench_perf(const struct rl_cli_output *output, const char *redis, const char *goal,
                      unsigned reps);

#endif
