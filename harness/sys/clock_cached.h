/* clock_cached.h — the cached clock's publishers, for clock.c (the public
 * side, stats and stop, is in clock.h). */
#ifndef RL_CLOCK_CACHED_H
#define RL_CLOCK_CACHED_H

#include "clock.h"

/* The reader a cached handle's `read` points to. */
uint64_t rl_clock_cached_read(struct rl_clock *self);

/* Points clock at the publisher of the period `spec` names ("" for the
 * default, ":T" for T) and starts that publisher if it is not running.
 * -1 with one line in err for a bad period or a publisher that cannot start. */
int rl_clock_cached_attach(struct rl_clock *clock, const char *spec, char *err, size_t err_len);

#endif
