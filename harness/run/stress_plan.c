/* stress_plan.c — run a grid of stress measurements, interleaved. */
#include "stress_plan.h"

#include "measure.h"
#include "harness/sys/interrupt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rl_stress_plan_rows(const struct rl_stress_plan *plan)
{
    return plan->algo_count * plan->thread_count * plan->reps * (plan->record ? 2 : 1);
}

size_t rl_stress_plan_run(const struct rl_stress_plan *plan, const char *label,
                          struct rl_result *rows, bool *interrupted, bool *failed, char *err,
                          size_t err_len)
{
    size_t total = rl_stress_plan_rows(plan), done = 0;
    double seconds_each = (double)plan->duration_ns / 1e9;
    *interrupted = *failed = false;
    for (unsigned rep = 1; rep <= plan->reps; rep++)
        for (size_t t = 0; t < plan->thread_count; t++)
            for (size_t a = 0; a < plan->algo_count; a++)
                for (int recorded = 0; recorded <= (plan->record ? 1 : 0); recorded++) {
                    if (rl_interrupted) {
                        *interrupted = true;
                        goto out;
                    }
                    if (plan->progress) {
                        char line[256];
                        snprintf(line, sizeof line, "%s: %zu/%zu %s x%llu rep %u%s, ~%.0f s left",
                                 label, done + 1, total, plan->algos[a]->name,
                                 (unsigned long long)plan->threads[t], rep,
                                 recorded ? " (recorded)" : "",
                                 seconds_each * (double)(total - done));
                        plan->progress(line);
                    }
                    struct rl_stress_params params = {
                        .algo = plan->algos[a],
                        .cfg = plan->cfg,
                        .threads = (unsigned)plan->threads[t],
                        .duration_ns = plan->duration_ns,
                        .clock = plan->clock,
                        .record = recorded,
                        .pin = plan->pin,
                        .hold_ns = plan->hold_ns,
                        .keys = plan->keys,
                        .zipf_s = plan->zipf_s,
                        .expiry = plan->expiry,
                        .error_admits = plan->error_admits,
                        .client_skew_ns = plan->client_skew_ns,
                    };
                    struct rl_event_log kept = {0};
                    bool keep = recorded && plan->keep_log;
                    if (rl_measure_stress(&params, rep, &rows[done], keep ? &kept : NULL, err,
                                          err_len) != 0) {
                        if (rl_interrupted)
                            *interrupted = true;
                        else
                            *failed = true;
                        goto out;
                    }
                    if (keep) {
                        rl_event_log_free(plan->keep_log);
                        *plan->keep_log = kept;
                    }
                    done++;
                }
out:
    if (plan->progress)
        plan->progress(NULL);
    rl_results_fill_ratio_faa(rows, done);
    return done;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rl_stress_plan_print_overhead(FILE *out, const struct rl_result *rows, size_t count)
{
    double *ratios = malloc((count ? count : 1) * sizeof *ratios);
    if (ratios == NULL)
        return;
    fprintf(out, "\nrecorder overhead (recorded ns/op ÷ unrecorded ns/op, paired runs, median):\n");
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
        qsort(ratios, n, sizeof *ratios, compare_double);
        fprintf(out, "  %-29s x%-3u %6.2f\n", lead->algo->name, lead->threads, ratios[n / 2]);
    }
    free(ratios);
}
