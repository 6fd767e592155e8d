/* perf_many_cores.c — the many-core goal of the perf suite (issue 27, item 5;
 * docs/performance.md): thread scaling on the admit path, Mops/s at 16
 * threads ÷ at 1, tb_sharded (goal ≥ 8) with faa beside it as the contended
 * floor. Those rows need a machine with 16 CPUs or more; on a smaller one
 * (every machine this project has measured on so far) they are printed as
 * not measured, with the CPU count, never estimated: a scaling figure taken
 * with more threads than CPUs would measure the scheduler, not the limiter.
 * Measuring them belongs here once such a machine is lent (the threads
 * suite's admit path, L = 4e9 per 10 s, as perf_sharded.c runs it). */
#include "harness/sys/cpus.h"
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SCALING_THREADS 16

static const struct {
    const char *algo;
    bool goal; /* else reported beside it */
    const char *floor;
} scaling[] = {
    {"tb_sharded", true, "tb_sharded at 1 thread, same run: a sharded bucket should scale"},
    {"faa", false, "faa at 1 thread: one contended word, the floor beside tb_sharded (reported)"},
};

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    (void)opts;
    size_t n = sizeof scaling / sizeof *scaling;
    if (cap < n) {
        snprintf(err, err_len, "room for %zu rows, %zu needed", cap, n);
        return -1;
    }
    long cpus = rl_cpu_count();
    for (size_t i = 0; i < n; i++) {
        struct rl_perf_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        snprintf(r->goal, sizeof r->goal, "many cores %s 16 / 1 threads admit", scaling[i].algo);
        snprintf(r->measured, sizeof r->measured,
                 "%s Mops/s at %d threads on the admit path (L = 4e9 per 10 s)", scaling[i].algo,
                 SCALING_THREADS);
        snprintf(r->floor, sizeof r->floor, "%s", scaling[i].floor);
        r->ratio = NAN;
        r->target = 8;
        r->reported = !scaling[i].goal;
        snprintf(r->detail, sizeof r->detail,
                 "not measured (no many-core machine lent): this machine has %ld cpus, the row "
                 "needs %d",
                 cpus, SCALING_THREADS);
        snprintf(r->command, sizeof r->command,
                 "build/ratelab bench --suite perf --goal many_cores (on a machine with %d cpus)",
                 SCALING_THREADS);
    }
    return (int)n;
}

const struct rl_perf_goal rl_perf_many_cores_goal = {
    "many_cores",
    "thread scaling at 16 threads / 1 on the admit path (tb_sharded, faa beside it): not "
    "measured on a machine with fewer than 16 cpus",
    measure};
