/* run_clock.h — the clock of a real-time run (stress, replay): started once,
 * by name, with the virtual clock refused in one place and one wording. */
#ifndef RL_RUN_CLOCK_H
#define RL_RUN_CLOCK_H

#include "algorithms/rl.h"

#include <stddef.h>

/* Starts the named clock for `mode` ("stress", "replay"); virtual is sim's.
 * -1 with one line in err, worded for the --clock option. */
int rl_run_clock_start(const char *name, const char *mode, struct rl_clock *clock, char *err,
                       size_t err_len);

#endif
