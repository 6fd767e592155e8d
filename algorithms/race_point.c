/* race_point.c — the spin behind RL_RACE_POINT() in the teaching build. */
#include "race_point.h"

#ifdef RL_TEACH
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Spin rather than sleep: a sleep hands the core away for far longer than
 * the race window we want to open, and a yield returns at once when the
 * other core's thread is all there is. RATELAB_RACE_NS overrides 3000 ns. */
static uint64_t race_spin_ns(void)
{
    static uint64_t spin_ns;
    uint64_t cached = __atomic_load_n(&spin_ns, __ATOMIC_RELAXED);
    if (cached == 0) {
        const char *env = getenv("RATELAB_RACE_NS");
        cached = env ? strtoull(env, NULL, 10) : 3000;
        if (cached == 0)
            cached = 1;
        __atomic_store_n(&spin_ns, cached, __ATOMIC_RELAXED);
    }
    return cached;
}

void rl_race_widen(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t until = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + race_spin_ns();
    do
        clock_gettime(CLOCK_MONOTONIC, &ts);
    while ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec < until);
}
#else
/* ISO C forbids an empty translation unit. */
typedef int rl_race_point_unused;
#endif
