/* bench_perf.c — the perf suite's table and CSV: one row per ratio, with
 * its target, whether it is met, the two numbers behind it, its floor and
 * the command that repeats it. Ratios are printed, never asserted: a goal
 * not met is a finding, not a failure (docs/design.md, Performance method). */
#include "perf_table.h"
#include "cli.h"
#include "harness/experiments/perf.h"
#include "harness/sys/build_info.h"
#include "harness/sys/interrupt.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_ROWS 96

struct perf_rows {
    struct rl_perf_row row[MAX_ROWS];
    size_t count;
    const struct rl_context *ctx;
};

static const char *const columns[] = {"goal",   "ratio",    "op",      "target",  "met",
                                      "detail", "measured", "floor",   "command", "host",
                                      "cpu",    "cores",    "git_rev", "date",    NULL};

static void fill(struct rl_cli_sheet *s, const void *data)
{
    const struct perf_rows *rows = data;
    for (size_t i = 0; i < rows->count; i++) {
        const struct rl_perf_row *r = &rows->row[i];
        rl_cli_sheet_text(s, r->goal);
        rl_cli_sheet_real(s, r->ratio);
        rl_cli_sheet_text(s, r->at_most ? "<=" : ">=");
        rl_cli_sheet_real(s, r->target);
        rl_cli_sheet_text(s, rl_perf_met(r));
        rl_cli_sheet_text(s, r->detail);
        rl_cli_sheet_text(s, r->measured);
        rl_cli_sheet_text(s, r->floor);
        rl_cli_sheet_text(s, r->command);
        rl_cli_sheet_text(s, rows->ctx->host);
        rl_cli_sheet_text(s, rows->ctx->cpu_model);
        rl_cli_sheet_u64(s, rows->ctx->cores);
        rl_cli_sheet_text(s, rows->ctx->git_rev);
        rl_cli_sheet_text(s, rows->ctx->date);
    }
}

int rl_cli_bench_perf(const struct rl_cli_output *output, const char *redis, const char *goal,
                      unsigned reps)
{
    const char *cmd = "bench";
    static struct perf_rows rows;
    struct rl_context ctx;
    rl_context_init(&ctx);
    rows.ctx = &ctx;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        rl_cli_run_error(cmd, "cannot find this binary's path (/proc/self/exe)");
    self[n] = '\0';
    struct rl_perf_options opts = {.redis = redis, .ratelab = self, .reps = reps};
    rl_cli_output_check(cmd, output);
    bool table = rl_cli_output_view(output) == RL_FORMAT_TABLE;
    bool failed = false;
    rl_interrupt_install();
    for (const struct rl_perf_goal *const *g = rl_perf_goals; *g && !rl_interrupted; g++) {
        char err[512] = "";
        if (goal && strcmp(goal, (*g)->name) != 0)
            continue;
        if (table) {
            fprintf(stderr, "bench perf: %s ...\n", (*g)->name);
            fflush(stderr);
        }
        int got =
            (*g)->measure(&opts, rows.row + rows.count, MAX_ROWS - rows.count, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "ratelab bench: perf goal %s: %s\n", (*g)->name, err);
            failed = true;
            continue;
        }
        rows.count += (size_t)got;
    }
    if (table) {
        printf("bench perf on %s (%s, %u cpus), git %s, %s\n", ctx.host, ctx.cpu_model, ctx.cores,
               ctx.git_rev, ctx.date);
        printf("reproduce: build/ratelab bench --suite perf%s%s --reps %u --out %s\n\n",
               goal ? " --goal " : "", goal ? goal : "", reps, output->out_path);
        printf("%-48s %8s %9s %8s  %s\n", "goal", "ratio", "target", "met", "detail");
        for (size_t i = 0; i < rows.count; i++) {
            const struct rl_perf_row *r = &rows.row[i];
            char target[16];
            snprintf(target, sizeof target, "%s %.2f", r->at_most ? "<=" : ">=", r->target);
            if (isfinite(r->ratio))
                printf("%-48s %8.2f %9s %8s  %s\n", r->goal, r->ratio, target, rl_perf_met(r),
                       r->detail);
            else
                printf("%-48s %8s %9s %8s  %s\n", r->goal, "-", target, rl_perf_met(r), r->detail);
        }
        printf("\nratio: measured / floor, both in this run; the median of %u repetitions.\n",
               reps);
        for (size_t i = 0; i < rows.count; i++)
            printf("  %s: %s, against %s\n      %s\n", rows.row[i].goal, rows.row[i].measured,
                   rows.row[i].floor, rows.row[i].command);
    }
    rl_cli_write_sheet(cmd, output, columns, fill, &rows);
    if (table)
        printf("\nwrote %zu rows to %s\n", rows.count, output->out_path);
    if (rl_interrupted || failed) {
        fprintf(stderr, "ratelab bench: %s; the %zu finished rows were written to %s\n",
                rl_interrupted ? "interrupted" : "a perf goal could not run", rows.count,
                output->out_path);
        return 1;
    }
    return 0;
}
