/* clock_sleep.h — sleeping until a time on a run's clock (a shaper's
 * release), for the real-clock modes (stress, replay). */
#ifndef RL_CLOCK_SLEEP_H
#define RL_CLOCK_SLEEP_H

#include "algorithms/rl.h"

#include <stdint.h>

/* Returns once clock (any source but virtual, with its skew) reads at least
 * when_ns. On an unskewed monotonic clock that is one clock_nanosleep with
 * TIMER_ABSTIME on CLOCK_MONOTONIC at when_ns itself; another source (coarse,
 * cached, tsc, a skewed client) sleeps on CLOCK_MONOTONIC for what its own
 * reading says is left, and again until it reads when_ns: a coarse clock
 * wakes at its first tick past when_ns. A time already passed returns at
 * once. Its reads are not counted in clock->reads (the limiter's). What it
 * overshoots is the harness's timer's, never the limiter's. */
void rl_clock_sleep_until(struct rl_clock *clock, uint64_t when_ns);

#endif
