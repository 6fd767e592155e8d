/* load.c — the load average and runnable threads from /proc/loadavg. */
#include "load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool rl_load_parse(const char *text, struct rl_load *out)
{
    double avg_1m, avg_5m, avg_15m;
    unsigned long running, total;
    if (text == NULL ||
        sscanf(text, "%lf %lf %lf %lu/%lu", &avg_1m, &avg_5m, &avg_15m, &running, &total) != 5 ||
        !isfinite(avg_1m) || avg_1m < 0 || running > UINT32_MAX)
        return false;
    out->avg_1m = avg_1m;
    out->runnable = (uint32_t)running;
    return true;
}

bool rl_load_read(struct rl_load *out)
{
    const char *path = getenv("RATELAB_LOADAVG");
    FILE *f = fopen(path && *path ? path : "/proc/loadavg", "r");
    if (f == NULL)
        return false;
    char text[256];
    bool ok = fgets(text, sizeof text, f) != NULL && rl_load_parse(text, out);
    fclose(f);
    return ok;
}
