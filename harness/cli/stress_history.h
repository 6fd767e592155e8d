/* stress_history.h — `ratelab stress --history FILE`: one recorded run of
 * every operation, its cost beside the plain run and the admit recorder's,
 * and the history file for `check --linearizable`. */
#ifndef RL_STRESS_HISTORY_H
#define RL_STRESS_HISTORY_H

#include "harness/run/stress_plan.h"

#include <stddef.h>

/* The most operations a thread keeps by default (32 bytes each). */
#define RL_HISTORY_DEFAULT_MAX 1000000u

/* Runs the plan's one algorithm at its one thread count three times (plain,
 * --record, --history in `windows` windows of at most max_ops operations a
 * thread), prints the costs and each window and writes the history to path.
 * Returns the exit status (0, or 1 with one line on stderr when a run or the
 * write failed or a signal cut it short). */
int rl_stress_history(const struct rl_stress_plan *plan, const struct rl_algo *algo, size_t max_ops,
                      unsigned windows, const char *path);

#endif
