/* race_point.c — the spin behind RL_RACE_POINT() in the teaching build. */
#include "race_point.h"

#ifdef RL_TEACH
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Spin, then yield once. The spin opens the window while the other thread
 * runs on the other core; the yield opens it when both threads share one
 * core (another process holds the second), by handing the core to the other
 * thread. On an idle machine the yield returns at once. A sleep would hand
 * the core away for far longer than the window. RATELAB_RACE_NS overrides
 * the spin's 3000 ns. */
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

static _Thread_local bool muted;
static bool muted_all; /* read and written with __atomic builtins */

void rl_race_mute(bool on)
{
    muted = on;
}

void rl_race_mute_all(bool on)
{
    __atomic_store_n(&muted_all, on, __ATOMIC_RELAXED);
}

void rl_race_widen(void)
{
    if (muted || __atomic_load_n(&muted_all, __ATOMIC_RELAXED))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t until = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + race_spin_ns();
    do
        clock_gettime(CLOCK_MONOTONIC, &ts);
    while ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec < until);
    sched_yield();
}
#else
/* ISO C forbids an empty translation unit. */
typedef int rl_race_point_unused;
#endif
