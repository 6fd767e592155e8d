/* stamp.c — which clock sources a stamp must fence (stamp.h says why). */
#include "stamp.h"

#include "clock.h"

#include <string.h>

/* Sources whose reads on one thread never go backwards in program order
 * without help: the kernel orders these (stamp.h). A source not listed is
 * fenced, which costs time, never soundness. */
static const char *const ordered_sources[] = {"monotonic", "coarse", NULL};

void rl_stamp_clock_init(struct rl_stamp_clock *stamp, const struct rl_clock *run_clock)
{
    stamp->clock = *run_clock;
    stamp->clock.reads = 0;
    rl_clock_set_skew(&stamp->clock, 0);
    stamp->fenced = true;
    for (const char *const *name = ordered_sources; *name; name++)
        if (strcmp(run_clock->name, *name) == 0)
            stamp->fenced = false;
}
