/* perf_clock.c — the clock goal of the perf suite (issue 15): NOT MEASURED YET.
 * Its owner replaces this with the real measurement. */
#include "perf.h"

#include <stdio.h>

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    (void)opts, (void)rows, (void)cap;
    snprintf(err, err_len, "not measured yet");
    return -1;
}

const struct rl_perf_goal rl_perf_clock_goal = {"clock", "not measured yet", measure};
