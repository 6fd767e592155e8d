/* clock_sleep.c — sleeping until a release on the run's clock
 * (clock_sleep.h). */
#include "clock_sleep.h"

#include "clock.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static void sleep_monotonic_until(uint64_t when_ns)
{
    struct timespec until = {(time_t)(when_ns / 1000000000u), (long)(when_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
        ; /* a signal: rl_interrupted is looked at by the caller once it returns */
}

void rl_clock_sleep_until(struct rl_clock *clock, uint64_t when_ns)
{
    if (strcmp(clock->name, "monotonic") == 0 && rl_clock_state(clock)->skew_ns == 0) {
        sleep_monotonic_until(when_ns); /* the run clock's own base */
        return;
    }
    for (;;) {
        uint64_t now = clock->read(clock);
        if (now >= when_ns)
            return;
        sleep_monotonic_until(rl_monotonic_ns() + (when_ns - now));
    }
}
