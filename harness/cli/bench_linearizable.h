/* bench_linearizable.h — `ratelab bench --suite linearizable` (harness/
 * experiments/suite_linearizable.h): its runs, its table and its rows. */
#ifndef RL_BENCH_LINEARIZABLE_H
#define RL_BENCH_LINEARIZABLE_H

#include "output.h"

/* Records and judges every algorithm of the suite and writes its rows where
 * output says; the exit status. */
int rl_cli_bench_linearizable(const struct rl_cli_output *output);

#endif
