/* bench_linearizable.c — `ratelab bench --suite linearizable`: each
 * thread-safe in-process limiter recorded at 2 threads (stress --history)
 * and judged by the linearizability checker, retried until a race shows
 * (suite_linearizable.c); a table, and the rows in the suite's CSV with
 * the provenance every reference CSV carries. */
#include "bench_linearizable.h"
#include "cli.h"
#include "harness/experiments/suite_linearizable.h"
#include "harness/sys/build_info.h"
#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {
    "mode",        "algo",          "limit",     "interval_ns",
    "duration_ns", "history_max",   "budget",    "operations",
    "threads",     "overlapping",   "verdict",   "check_mode",
    "overshoot",   "false_rejects", "states",    "check_s",
    "tries",       "runs",          "unknown",   "host",
    "cpus",        "cpu_model",     "git_rev",   "date",
    "wall_s",      "thread_ops",    "solo_runs", "false_rejects_exact",
    NULL};

struct row {
    struct rl_lin_trial_params p;
    struct rl_lin_trial t; /* the history and counterexample freed after the run */
    double wall_s;
};

/* Each asked thread's operations, "a/b" (thread 0 first). */
static void thread_ops_text(const struct row *r, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < r->p.threads && i < RL_LIN_TRIAL_MAX_THREADS && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%zu", i ? "/" : "", r->t.thread_ops[i]);
}

struct rows {
    const struct row *rows;
    size_t count;
    const struct rl_context *ctx;
};

static void fill(struct rl_cli_sheet *s, const void *data)
{
    const struct rows *all = data;
    for (size_t i = 0; i < all->count; i++) {
        const struct row *r = &all->rows[i];
        const struct rl_lin_result *res = &r->t.result;
        rl_cli_sheet_text(s, "stress");
        rl_cli_sheet_text(s, r->p.algo);
        rl_cli_sheet_u64(s, r->p.limit);
        rl_cli_sheet_u64(s, r->p.interval_ns);
        rl_cli_sheet_u64(s, r->p.duration_ns);
        rl_cli_sheet_u64(s, r->p.max_ops);
        rl_cli_sheet_u64(s, r->p.budget);
        rl_cli_sheet_u64(s, r->t.ops);
        rl_cli_sheet_u64(s, r->t.threads);
        rl_cli_sheet_u64(s, r->t.overlapping);
        rl_cli_sheet_text(s, rl_lin_trial_verdict(&r->t));
        rl_cli_sheet_text(s, res->mode);
        if (res->overshoot_known) {
            rl_cli_sheet_u64(s, res->overshoot);
            rl_cli_sheet_u64(s, res->false_rejects);
        } else {
            rl_cli_sheet_text(s, "unknown");
            rl_cli_sheet_empty(s);
        }
        rl_cli_sheet_u64(s, res->states);
        rl_cli_sheet_real(s, r->t.check_s);
        rl_cli_sheet_u64(s, r->t.tries);
        rl_cli_sheet_u64(s, r->t.runs);
        rl_cli_sheet_u64(s, r->t.unknown);
        rl_cli_sheet_text(s, all->ctx->host);
        rl_cli_sheet_u64(s, all->ctx->cores);
        rl_cli_sheet_text(s, all->ctx->cpu_model);
        rl_cli_sheet_text(s, all->ctx->git_rev);
        rl_cli_sheet_text(s, all->ctx->date);
        rl_cli_sheet_real(s, r->wall_s);
        char ops[128];
        thread_ops_text(r, ops, sizeof ops);
        rl_cli_sheet_text(s, ops);
        rl_cli_sheet_u64(s, r->t.solo);
        if (res->overshoot_known)
            rl_cli_sheet_text(s, res->false_rejects_exact ? "yes" : "no");
        else
            rl_cli_sheet_empty(s);
    }
}

static void print_table(const struct row *rows, size_t count)
{
    printf("linearizable: 2 threads, L = %u per %u us, %u ms runs, at most %u operations a "
           "thread, budget %u states, up to %u tries (and %u runs more that are not "
           "concurrent)\n\n",
           RL_LIN_SUITE_LIMIT, RL_LIN_SUITE_INTERVAL / 1000, RL_LIN_SUITE_DURATION / 1000000,
           RL_LIN_SUITE_MAX_OPS, RL_LIN_SUITE_BUDGET, RL_LIN_SUITE_TRIES,
           RL_LIN_SUITE_SOLO_RETRIES);
    printf("%-20s %10s %11s %11s %-21s %-14s %9s %7s %9s %5s %5s %7s\n", "algo", "operations",
           "per thread", "overlapping", "verdict", "mode", "overshoot", "f.rej", "check s", "tries",
           "solo", "unknown");
    for (size_t i = 0; i < count; i++) {
        const struct row *r = &rows[i];
        const struct rl_lin_result *res = &r->t.result;
        char over[24] = "unknown", fr[24] = "-", ops[128];
        if (res->overshoot_known) {
            snprintf(over, sizeof over, "%llu", (unsigned long long)res->overshoot);
            snprintf(fr, sizeof fr, "%s%llu",
                     res->false_rejects_exact ? "" : "<=", (unsigned long long)res->false_rejects);
        }
        thread_ops_text(r, ops, sizeof ops);
        printf("%-20s %10zu %11s %11zu %-21s %-14s %9s %7s %9.3f %5u %5u %7u\n", r->p.algo,
               r->t.ops, ops, r->t.overlapping, rl_lin_trial_verdict(&r->t), res->mode, over, fr,
               r->t.check_s, r->t.tries, r->t.solo, r->t.unknown);
    }
    printf("\nA run is concurrent when both threads have operations and at least one was\n"
           "called while the other thread's was in flight (overlapping), its last call, which\n"
           "the recorder holds open until the other has called its last, left out; one that\n"
           "is not (a thread filled its window before the other got a core) is recorded again\n"
           "(solo: such runs). The row is the first concurrent history that is not\n"
           "linearizable, else the last decided concurrent one; \"no concurrent history\":\n"
           "every run was solo, and nothing was judged of a race. tries: the run kept;\n"
           "unknown: concurrent runs whose search ran out of budget (never a pass);\n"
           "f.rej <=N: the budget ran out before fewer false rejects were ruled out.\n"
           "Races vary from run to run (docs/design.md, Histories and linearizability).\n");
}

int rl_cli_bench_linearizable(const struct rl_cli_output *output)
{
    const char *cmd = "bench";
    rl_cli_output_check(cmd, output);
    size_t count = 0;
    while (rl_lin_suite_algos[count])
        count++;
    struct row *rows = calloc(count, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    struct rl_context ctx;
    rl_context_init(&ctx);
    char err[512];
    for (size_t i = 0; i < count; i++) {
        rl_cli_progress("bench linearizable: %zu/%zu %s", i + 1, count, rl_lin_suite_algos[i]);
        rows[i].p = rl_lin_suite_params(rl_lin_suite_algos[i]);
        uint64_t t0 = rl_monotonic_ns();
        if (rl_lin_trial_run(&rows[i].p, &rows[i].t, err, sizeof err) != 0)
            rl_cli_run_error(cmd, "%s", err);
        rows[i].wall_s = (double)(rl_monotonic_ns() - t0) / 1e9;
        /* keep the counts only: the counterexample's indices are not printed here */
        rl_history_free(&rows[i].t.history);
    }
    rl_cli_progress_done();
    if (rl_cli_output_view(output) == RL_FORMAT_TABLE) {
        print_table(rows, count);
        if (output->out_path)
            printf("wrote %zu rows to %s\n", count, output->out_path);
    }
    struct rows all = {rows, count, &ctx};
    rl_cli_write_sheet(cmd, output, columns, fill, &all);
    for (size_t i = 0; i < count; i++)
        rl_lin_trial_free(&rows[i].t);
    free(rows);
    return 0;
}
