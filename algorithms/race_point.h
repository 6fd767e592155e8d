/* race_point.h — marked race windows, widened only in the teaching build.
 *
 * RL_RACE_POINT() marks the instant between two steps of an algorithm where
 * another thread can slip in. In `make teach` (RL_TEACH defined) it spins for
 * a few microseconds so that a race that needs nanosecond-precise luck on a
 * 2-core machine shows up within seconds; in every other build it is nothing.
 */
#ifndef RL_RACE_POINT_H
#define RL_RACE_POINT_H

#ifdef RL_TEACH
void rl_race_widen(void);
#define RL_RACE_POINT() rl_race_widen()
#else
#define RL_RACE_POINT() ((void)0)
#endif

#endif
