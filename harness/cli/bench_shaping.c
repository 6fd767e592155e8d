/* bench_shaping.c — `ratelab bench --suite shaping`: every shaper's
 * distance from the ideal schedule on each workload and its cost per
 * decision (suite_shaping.c), a table of both, and the rows in the suite's
 * CSV with the provenance every reference CSV carries. */
#include "bench_shaping.h"
#include "cli.h"
#include "harness/experiments/suite_shaping.h"
#include "harness/sys/build_info.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {"mode",
                                      "experiment",
                                      "algo",
                                      "workload",
                                      "limit",
                                      "interval_ns",
                                      "burst",
                                      "attempts",
                                      "admits",
                                      "rejects",
                                      "noncausal",
                                      "curve_violations",
                                      "worst_excess",
                                      "shape_held",
                                      "late_p50_ns",
                                      "late_p99_ns",
                                      "late_max_ns",
                                      "delay_max_ns",
                                      "fifo_inversions",
                                      "ns_per_decision",
                                      "ns_min",
                                      "ns_max",
                                      "reps",
                                      "host",
                                      "cpus",
                                      "cpu_model",
                                      "git_rev",
                                      "date",
                                      "wall_s",
                                      NULL};

struct rows {
    const struct rl_shaping_row *rows;
    size_t count;
    const struct rl_context *ctx;
};

static bool held(const struct rl_shape_result *r)
{
    return r->noncausal == 0 && r->curve_violations == 0 && r->over_wait == 0 &&
           r->spurious_rejects == 0;
}

static void fill(struct rl_cli_sheet *s, const void *data)
{
    const struct rows *all = data;
    for (size_t i = 0; i < all->count; i++) {
        const struct rl_shaping_row *r = &all->rows[i];
        const struct rl_shape_result *d = &r->shape;
        bool dist = strcmp(r->experiment, "distance") == 0;
        rl_cli_sheet_text(s, dist ? "sim" : "stress");
        rl_cli_sheet_text(s, r->experiment);
        rl_cli_sheet_text(s, r->algo);
        rl_cli_sheet_text(s, r->workload);
        rl_cli_sheet_u64(s, r->limit);
        rl_cli_sheet_u64(s, r->interval_ns);
        rl_cli_sheet_u64(s, r->burst);
        if (dist) {
            rl_cli_sheet_u64(s, d->attempts);
            rl_cli_sheet_u64(s, d->admits);
            rl_cli_sheet_u64(s, d->rejects);
            rl_cli_sheet_u64(s, d->noncausal);
            rl_cli_sheet_u64(s, d->curve_violations);
            rl_cli_sheet_real(s, d->worst_excess);
            rl_cli_sheet_text(s, held(d) ? "yes" : "no");
            rl_cli_sheet_u64(s, d->late_p50_ns);
            rl_cli_sheet_u64(s, d->late_p99_ns);
            rl_cli_sheet_u64(s, d->late_max_ns);
            rl_cli_sheet_u64(s, d->delay_max_ns);
            rl_cli_sheet_u64(s, d->fifo_inversions);
            for (int k = 0; k < 4; k++)
                rl_cli_sheet_empty(s);
        } else {
            for (int k = 0; k < 12; k++)
                rl_cli_sheet_empty(s);
            rl_cli_sheet_real(s, r->ns_per_decision);
            rl_cli_sheet_real(s, r->ns_min);
            rl_cli_sheet_real(s, r->ns_max);
            rl_cli_sheet_u64(s, r->reps);
        }
        rl_cli_sheet_text(s, all->ctx->host);
        rl_cli_sheet_u64(s, all->ctx->cores);
        rl_cli_sheet_text(s, all->ctx->cpu_model);
        rl_cli_sheet_text(s, all->ctx->git_rev);
        rl_cli_sheet_text(s, all->ctx->date);
        rl_cli_sheet_real(s, r->wall_s);
    }
}

/* The worst of a shaper's distance rows, for the table. */
static void worst(const struct rl_shaping_row *rows, size_t count, const char *algo, uint64_t *p50,
                  uint64_t *p99, uint64_t *max, unsigned *broken)
{
    *p50 = *p99 = *max = 0;
    *broken = 0;
    for (size_t i = 0; i < count; i++) {
        const struct rl_shaping_row *r = &rows[i];
        if (strcmp(r->experiment, "distance") != 0 || strcmp(r->algo, algo) != 0)
            continue;
        *p50 = r->shape.late_p50_ns > *p50 ? r->shape.late_p50_ns : *p50;
        *p99 = r->shape.late_p99_ns > *p99 ? r->shape.late_p99_ns : *p99;
        *max = r->shape.late_max_ns > *max ? r->shape.late_max_ns : *max;
        *broken += r->shape.curve_violations > 0 || r->shape.noncausal > 0;
    }
}

static void print_table(const struct rl_shaping_row *rows, size_t count)
{
    printf("shaping: L = %u per 1 s, B = L, 10 s of each workload at 2 L (idle_burst: its "
           "own), one key, no max wait; cost: the shape call alone, 1 thread\n\n",
           RL_SHAPING_LIMIT);
    printf("%-22s %12s %12s %12s %9s %13s\n", "algo", "late p50 ms", "late p99 ms", "late max ms",
           "broken", "ns/decision");
    for (size_t i = 0; i < count; i++) {
        const struct rl_shaping_row *r = &rows[i];
        if (strcmp(r->experiment, "cost") != 0)
            continue;
        uint64_t p50, p99, max;
        unsigned broken;
        worst(rows, count, r->algo, &p50, &p99, &max, &broken);
        if (rl_registry_find(r->algo)->shape == NULL)
            printf("%-22s %12s %12s %12s %9s %13.1f\n", r->algo, "-", "-", "-", "-",
                   r->ns_per_decision);
        else
            printf("%-22s %12.1f %12.1f %12.1f %7u/6 %13.1f\n", r->algo, (double)p50 / 1e6,
                   (double)p99 / 1e6, (double)max / 1e6, broken, r->ns_per_decision);
    }
    printf("\nlate: how far a release is behind the ideal greedy schedule (GCRA virtual\n"
           "scheduling of the same admits), the worst of the six workloads; broken: the\n"
           "workloads whose output left B + L·u/I or went before its arrival (rejects,\n"
           "as nginx_delay's beyond its burst, are in the CSV: shape_held counts them).\n");
}

int rl_cli_bench_shaping(const struct rl_cli_output *output, unsigned reps)
{
    const char *cmd = "bench";
    rl_cli_output_check(cmd, output);
    size_t count = rl_shaping_suite_plan(NULL, 0);
    struct rl_shaping_row *rows = calloc(count ? count : 1, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    rl_shaping_suite_plan(rows, count);
    struct rl_context ctx;
    rl_context_init(&ctx);
    char err[512];
    for (size_t i = 0; i < count; i++) {
        rl_cli_progress("bench shaping: %zu/%zu %s %s %s", i + 1, count, rows[i].experiment,
                        rows[i].algo, rows[i].workload);
        if (rl_shaping_suite_run(&rows[i], reps, err, sizeof err) != 0)
            rl_cli_run_error(cmd, "%s %s: %s", rows[i].algo, rows[i].workload, err);
    }
    rl_cli_progress_done();
    if (rl_cli_output_view(output) == RL_FORMAT_TABLE) {
        print_table(rows, count);
        if (output->out_path)
            printf("wrote %zu rows to %s\n", count, output->out_path);
    }
    struct rows all = {rows, count, &ctx};
    rl_cli_write_sheet(cmd, output, columns, fill, &all);
    free(rows);
    return 0;
}
