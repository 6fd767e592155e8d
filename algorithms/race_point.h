/* race_point.h — marked race windows, widened only in the teaching build.
 *
 * RL_RACE_POINT() marks the instant between two steps of an algorithm where
 * another thread can slip in. In `make teach` (RL_TEACH defined) it spins for
 * a few microseconds so that a race that needs nanosecond-precise luck on a
 * 2-core machine shows up within seconds; in every other build it is nothing.
 */
#ifndef RL_RACE_POINT_H
#define RL_RACE_POINT_H

#include <stdbool.h>

#ifdef RL_TEACH
void rl_race_widen(void);
/* Makes the calling thread's race points do nothing (on) or spin again
 * (off): a sequential replay of an algorithm (the linearizability checker's
 * model) has no other thread to let in, and spinning there only slows it. */
void rl_race_mute(bool on);
/* The same for every thread of the process: a recorded history for the
 * linearizability checker, whose calls the spin would stretch past the
 * limiter's whole interval (then any order explains every answer). */
void rl_race_mute_all(bool on);
#define RL_RACE_POINT() rl_race_widen()
#else
static inline void rl_race_mute(bool on)
{
    (void)on;
}
static inline void rl_race_mute_all(bool on)
{
    (void)on;
}
#define RL_RACE_POINT() ((void)0)
#endif

#endif
