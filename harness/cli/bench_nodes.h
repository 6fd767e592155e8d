/* bench_nodes.h — `ratelab bench --suite nodes` (harness/experiments/
 * suite_nodes.h): its runs, its tables and its rows. */
#ifndef RL_BENCH_NODES_H
#define RL_BENCH_NODES_H

#include "output.h"

/* Runs the suite and writes its rows where output says; the exit status. */
int rl_cli_bench_nodes(const struct rl_cli_output *output);

#endif
