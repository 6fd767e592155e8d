/* run_clock.c — start a real-time run's clock, refusing the virtual one. */
#include "run_clock.h"

#include "harness/sys/clock.h"

#include <stdio.h>
#include <string.h>

int rl_run_clock_start(const char *name, const char *mode, struct rl_clock *clock, char *err,
                       size_t err_len)
{
    char why[400];
    if (rl_clock_init(clock, name, why, sizeof why) != 0) {
        snprintf(err, err_len, "--clock: %s", why);
        return -1;
    }
    if (strcmp(clock->name, "virtual") == 0) {
        snprintf(err, err_len,
                 "--clock virtual is for sim; %s needs monotonic, coarse, tsc or cached", mode);
        return -1;
    }
    return 0;
}
