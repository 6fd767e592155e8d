/* stress_print.c — the stress run's header and the recorder's overhead
 * table, printed by the CLI (the run layer only fills rows). */
#include "harness/sys/cpus.h"
#include "harness/report/stats.h"
#include "stress_print.h"

#include "parse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rl_print_stress_header(FILE *out, const struct rl_stress_plan *plan,
                            const struct rl_clock_report *report)
{
    const struct rl_stress_params *run = &plan->run;
    char interval[RL_DURATION_BUF_LEN], duration[RL_DURATION_BUF_LEN];
    fprintf(out, "stress: L=%llu per %s, %s a run, %u reps, clock %s, %ld cpus%s\n",
            (unsigned long long)run->cfg.limit,
            rl_format_duration_ns(run->cfg.interval_ns, interval, sizeof interval),
            rl_format_duration_ns(run->duration_ns, duration, sizeof duration), plan->reps,
            run->clock, rl_cpu_count(), run->pin ? ", pinned" : "");
    char resolution[RL_DURATION_BUF_LEN];
    if (report->name)
        fprintf(out, "clock %s: %.1fns a read, resolution %s (measured at start)\n", report->name,
                report->cost_ns,
                rl_format_duration_human(report->resolution_ns, resolution, sizeof resolution));
    fprintf(out, "\n");
}

void rl_print_recorder_overhead(FILE *out, const struct rl_result *rows, size_t count)
{
    double *ratios = malloc((count ? count : 1) * sizeof *ratios);
    if (ratios == NULL)
        return;
    fprintf(out, "\nrecorder overhead (recorded ns/op ÷ unrecorded ns/op, paired runs: median "
                 "(min-max), pairs):\n");
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *lead = &rows[i];
        bool first = !lead->checked && strcmp(lead->mode, "stress") == 0;
        for (size_t j = 0; first && j < i; j++)
            first = !(rows[j].algo == lead->algo && rows[j].threads == lead->threads &&
                      !rows[j].checked);
        if (!first)
            continue;
        size_t n = 0;
        /* A recorded run directly follows its unrecorded twin. */
        for (size_t j = i; j + 1 < count; j++)
            if (rows[j].algo == lead->algo && rows[j].threads == lead->threads &&
                !rows[j].checked && rows[j + 1].checked && rows[j + 1].algo == lead->algo &&
                rows[j].ns_per_op > 0)
                ratios[n++] = rows[j + 1].ns_per_op / rows[j].ns_per_op;
        if (n == 0)
            continue;
        struct rl_spread spread = rl_spread_of(ratios, n);
        fprintf(out, "  %-29s x%-3u %6.2f (%.2f-%.2f) %zu\n", lead->algo->name, lead->threads,
                spread.median, spread.min, spread.max, spread.count);
    }
    free(ratios);
}
