/* perf_linearizable.c — the linearizability checker's goals in the perf
 * suite (issue 26, docs/design.md, Histories and linearizability):
 *
 * - witness mode, streamed, on a history of 10^7 operations against
 *   `check --promise` on the decision log of the same operations (<= 2):
 *   the log is `sim --decisions` (tb_cas, Poisson over 1000 keys at
 *   10^6 a second for 10 s, L = 50 per 100 ms), and the history is written
 *   from it here, each decision an operation at its time (call = return =
 *   witness), threads alternating, in the log's (time) order;
 * - search mode on the first 10^5 operations of that log at 2 threads,
 *   overlapping, no witnesses (each call runs past the next call's start),
 *   partitioned per key by the checker, in seconds against the 10 s.
 *
 * Files live in a private folder under $TMPDIR (or /tmp) and are removed.
 * Each check is a child, run once untimed first (page cache warm); the time
 * ratio is the median of the repetitions' ratios. */
#include "harness/report/stats.h"
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPS   64
#define SEARCH_OPS 100000u

/* The decision log by sim, as perf_checker's. */
static int make_log(const char *ratelab, const char *path, char *err, size_t err_len)
{
    char *argv[] = {(char *)ratelab, "sim",         "--algo",     "tb_cas", "--workload",
                    "poisson",       "--keys",      "1000",       "--rate", "1000000",
                    "--duration",    "10s",         "--limit",    "50",     "--interval",
                    "100ms",         "--decisions", (char *)path, NULL};
    double wall;
    return rl_perf_run_child(argv, NULL, &wall, NULL, err, err_len);
}

/* The decision log's lines (t_ns,key,n,admitted,thread) as a history:
 * witnessed at their times (witness), or, for `search`, the first
 * SEARCH_OPS decisions (over the 1000 keys, partitioned per key by the
 * checker) with each call running to halfway between the next two calls
 * and no witness. */
static int write_history(const char *log_path, const char *path, bool search, char *err,
                         size_t err_len)
{
    FILE *in = fopen(log_path, "r"), *out = fopen(path, "w");
    bool ok = in && out;
    char line[256];
    ok = ok && fgets(line, sizeof line, in) != NULL; /* the header */
    ok = ok && fprintf(out, "# ratelab history algo=tb_cas epoch_ns=0\n"
                            "thread,key,cost,call_ns,return_ns,answer,witness_ns\n") > 0;
    unsigned long long t[3] = {0, 0, 0};
    int answer[3] = {0, 0, 0}, have = 0;
    char keys[3][64];
    unsigned long n = 0;
    while (ok && fgets(line, sizeof line, in)) {
        unsigned long long at, cost;
        char key[64];
        int admitted;
        if (sscanf(line, "%llu,%63[^,],%llu,%d", &at, key, &cost, &admitted) != 4) {
            ok = false;
            break;
        }
        if (!search) {
            ok = fprintf(out, "%lu,%s,%llu,%llu,%llu,%d,%llu\n", n % 2, key, cost, at, at, admitted,
                         at) > 0;
            n++;
            continue;
        }
        snprintf(keys[have], sizeof keys[have], "%s", key);
        t[have] = at;
        answer[have++] = admitted;
        if (have < 3)
            continue;
        /* t[0]'s call ends halfway from t[1] to t[2]: it overlaps the next
         * call, and its own thread's next (t[2]) starts after it */
        ok = fprintf(out, "%lu,%s,1,%llu,%llu,%d,\n", n % 2, keys[0], t[0],
                     t[1] + (t[2] - t[1]) / 2, answer[0]) > 0;
        n++;
        t[0] = t[1], t[1] = t[2], answer[0] = answer[1], answer[1] = answer[2];
        memcpy(keys[0], keys[1], sizeof keys[0]);
        memcpy(keys[1], keys[2], sizeof keys[0]);
        have = 2;
        if (n == SEARCH_OPS)
            break;
    }
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    if (ok && search && n < SEARCH_OPS)
        ok = false;
    if (!ok)
        snprintf(err, err_len, "cannot write the history %s from %s", path, log_path);
    return ok ? 0 : -1;
}

static int run_promise(const char *ratelab, const char *log, double *s, char *err, size_t len)
{
    char *argv[] = {(char *)ratelab, "check", "--events",  (char *)log, "--limit", "50",
                    "--interval",    "100ms", "--promise", "bucket",    NULL};
    return rl_perf_run_child(argv, NULL, s, NULL, err, len);
}

static int run_lin(const char *ratelab, const char *history, double *s, char *err, size_t len)
{
    char *argv[] = {(char *)ratelab, "check", "--linearizable", "--algo", "tb_cas",
                    "--limit",       "50",    "--interval",     "100ms",  "--events",
                    (char *)history, NULL};
    return rl_perf_run_child(argv, NULL, s, NULL, err, len);
}

struct lin_timings {
    unsigned reps;
    double ratio[MAX_REPS], lin_s[MAX_REPS], promise_s[MAX_REPS], search_s[MAX_REPS];
};

static int time_checks(const struct rl_perf_options *opts, const char *dir, struct lin_timings *t,
                       char *err, size_t err_len)
{
    char log[600], history[600], search[600];
    snprintf(log, sizeof log, "%s/decisions.csv", dir);
    snprintf(history, sizeof history, "%s/history.csv", dir);
    snprintf(search, sizeof search, "%s/search.csv", dir);
    double warm;
    int rc = make_log(opts->ratelab, log, err, err_len);
    if (rc == 0)
        rc = write_history(log, history, false, err, err_len);
    if (rc == 0)
        rc = write_history(log, search, true, err, err_len);
    if (rc == 0)
        rc = run_promise(opts->ratelab, log, &warm, err, err_len);
    if (rc == 0)
        rc = run_lin(opts->ratelab, history, &warm, err, err_len);
    for (unsigned r = 0; rc == 0 && r < t->reps; r++) {
        rc = run_lin(opts->ratelab, history, &t->lin_s[r], err, err_len);
        if (rc == 0)
            rc = run_promise(opts->ratelab, log, &t->promise_s[r], err, err_len);
        if (rc == 0)
            rc = run_lin(opts->ratelab, search, &t->search_s[r], err, err_len);
        if (rc == 0)
            t->ratio[r] = t->lin_s[r] / t->promise_s[r];
    }
    unlink(log);
    unlink(history);
    unlink(search);
    return rc;
}

static void fill_rows(struct lin_timings *t, struct rl_perf_row *rows)
{
    unsigned reps = t->reps;
    struct rl_perf_row *row = &rows[0];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "linearizable witness vs promise, 10^7 ops");
    snprintf(row->measured, sizeof row->measured,
             "check --linearizable wall time on a 10^7-operation history (witness mode, "
             "streamed)");
    snprintf(row->floor, sizeof row->floor,
             "check --promise bucket on the decision log of the same operations");
    row->ratio = rl_median(t->ratio, reps);
    row->at_most = true;
    row->target = 2.0;
    snprintf(row->detail, sizeof row->detail, "linearizable %.3f s, promise %.3f s (medians)",
             rl_median(t->lin_s, reps), rl_median(t->promise_s, reps));
    snprintf(row->command, sizeof row->command,
             "ratelab sim --algo tb_cas --workload poisson --keys 1000 --rate 1e6 --duration 10s "
             "--limit 50 --interval 100ms --decisions d; h: d's lines as operations");

    row = &rows[1];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "linearizable search, 10^5 ops, 2 threads");
    snprintf(row->measured, sizeof row->measured,
             "check --linearizable wall time, search mode: 10^5 overlapping operations over 1000 "
             "keys at 2 threads, no witnesses");
    snprintf(row->floor, sizeof row->floor, "the issue's 10 s (the ratio is seconds / 10)");
    row->ratio = rl_median(t->search_s, reps) / 10.0;
    row->at_most = true;
    row->target = 1.0;
    snprintf(row->detail, sizeof row->detail, "search %.3f s (median)",
             rl_median(t->search_s, reps));
    snprintf(row->command, sizeof row->command,
             "ratelab check --linearizable --algo tb_cas --limit 50 --interval 100ms --events s "
             "(s: d's first 10^5 lines, each call to halfway past the next)");
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < 2) {
        snprintf(err, err_len, "no room for the linearizable goal's 2 rows");
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ratelab-perf-lin-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        snprintf(err, err_len, "cannot make a folder for the logs under %s",
                 tmp && *tmp ? tmp : "/tmp");
        return -1;
    }
    struct lin_timings t = {.reps = opts->reps < 1          ? 1
                                    : opts->reps > MAX_REPS ? MAX_REPS
                                                            : opts->reps};
    int rc = time_checks(opts, dir, &t, err, err_len);
    rmdir(dir);
    if (rc != 0)
        return -1;
    fill_rows(&t, rows);
    return 2;
}

const struct rl_perf_goal rl_perf_linearizable_goal = {
    "linearizable",
    "check --linearizable: streamed witness mode against check --promise, search on 10^5 ops",
    measure};
