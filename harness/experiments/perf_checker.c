/* perf_checker.c — the checker goal of the perf suite (docs/performance.md):
 * `ratelab check` on a decision log against md5sum reading the same file
 * (the floor: one pass over the bytes that does little with them), and
 * check's peak memory on a log ten times as long (the goal: memory bounded
 * by the keys and their windows, not by the log).
 *
 * The log is a real one: `ratelab sim --decisions`, tb_cas on a Poisson
 * trace over 1000 keys at L = 50 per 100 ms, about half of it rejects,
 * N = 10^7 decisions (about 220 MB) and N/10, written to a private folder
 * under $TMPDIR (or /tmp) and removed afterwards. Both are children run
 * after one untimed pass each (the file then in the page cache for both),
 * alternating check, md5sum, check, md5sum, ...; the time ratio is the
 * median of the pairs' ratios, the memory ratio the median of each
 * repetition's peak RSS at N over its peak at N/10. */
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DECISIONS 10000000u /* N: about 1 s of sim, 0.3 s of md5sum */
#define KEYS      "1000"
#define MAX_REPS  64

/* An executable called name on $PATH (for the floor, md5sum), into buf. */
static bool find_on_path(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/bin:/bin";
    while (*path) {
        size_t dir = strcspn(path, ":");
        snprintf(buf, len, "%.*s/%s", (int)dir, dir ? path : ".", name);
        if (access(buf, X_OK) == 0)
            return true;
        path += dir + (path[dir] == ':');
    }
    return false;
}

/* The decision log of `decisions` decisions into path, by sim. */
static int make_log(const char *ratelab, const char *path, unsigned decisions, char *err,
                    size_t err_len)
{
    char duration[32];
    /* 10^6 attempts a second: the duration sets the count */
    snprintf(duration, sizeof duration, "%ums", decisions / 1000);
    char *argv[] = {(char *)ratelab, "sim",         "--algo",     "tb_cas", "--workload",
                    "poisson",       "--keys",      KEYS,         "--rate", "1000000",
                    "--duration",    duration,      "--limit",    "50",     "--interval",
                    "100ms",         "--decisions", (char *)path, NULL};
    double wall;
    return rl_perf_run_child(argv, NULL, &wall, NULL, err, err_len);
}

struct timed {
    double wall_s;
    uint64_t rss;
};

static int run_check(const char *ratelab, const char *path, struct timed *t, char *err,
                     size_t err_len)
{
    char *argv[] = {(char *)ratelab, "check", "--events", (char *)path, "--limit", "50",
                    "--interval",    "100ms", NULL};
    return rl_perf_run_child(argv, NULL, &t->wall_s, &t->rss, err, err_len);
}

static int run_md5sum(const char *md5sum, const char *path, struct timed *t, char *err,
                      size_t err_len)
{
    char *argv[] = {(char *)md5sum, (char *)path, NULL};
    return rl_perf_run_child(argv, NULL, &t->wall_s, &t->rss, err, err_len);
}

static double mb(uint64_t bytes)
{
    return (double)bytes / 1e6;
}

/* What the repetitions measured, each repetition in its own place. */
struct checker_timings {
    unsigned reps;
    double time_ratio[MAX_REPS], rss_ratio[MAX_REPS], check_s[MAX_REPS], md5_s[MAX_REPS];
    double big_rss[MAX_REPS], small_rss[MAX_REPS];
    off_t big_bytes; /* the N-decision log's size */
};

/* Writes the two logs in a private folder, times check against md5sum on
 * them (after one untimed pass each), and removes them. -1 with err. */
static int time_checker(const struct rl_perf_options *opts, const char *md5sum,
                        struct checker_timings *out, char *err, size_t err_len)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], big[600], small[600];
    snprintf(dir, sizeof dir, "%s/ratelab-perf-checker-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        snprintf(err, err_len, "cannot make a folder for the logs under %s",
                 tmp && *tmp ? tmp : "/tmp");
        return -1;
    }
    snprintf(big, sizeof big, "%s/decisions-n.csv", dir);
    snprintf(small, sizeof small, "%s/decisions-n10.csv", dir);
    struct timed warm, c, m, s;
    struct stat st = {0};
    int rc = make_log(opts->ratelab, big, DECISIONS, err, err_len);
    if (rc == 0)
        rc = make_log(opts->ratelab, small, DECISIONS / 10, err, err_len);
    if (rc == 0)
        rc = stat(big, &st);
    /* one untimed pass of each: the page cache and the binaries warm */
    if (rc == 0)
        rc = run_md5sum(md5sum, big, &warm, err, err_len);
    if (rc == 0)
        rc = run_check(opts->ratelab, big, &warm, err, err_len);
    for (unsigned r = 0; rc == 0 && r < out->reps; r++) {
        rc = run_check(opts->ratelab, big, &c, err, err_len);
        if (rc == 0)
            rc = run_md5sum(md5sum, big, &m, err, err_len);
        if (rc == 0)
            rc = run_check(opts->ratelab, small, &s, err, err_len);
        if (rc != 0)
            break;
        out->check_s[r] = c.wall_s;
        out->md5_s[r] = m.wall_s;
        out->time_ratio[r] = c.wall_s / m.wall_s;
        out->big_rss[r] = (double)c.rss;
        out->small_rss[r] = (double)s.rss;
        out->rss_ratio[r] = (double)c.rss / (double)s.rss;
    }
    out->big_bytes = st.st_size;
    unlink(big);
    unlink(small);
    rmdir(dir);
    return rc != 0 ? -1 : 0;
}

/* The goal's two rows, time and memory, from the medians of t (which sorts its arrays). */
static void fill_rows(struct checker_timings *t, struct rl_perf_row *rows)
{
    unsigned reps = t->reps;
    const char *log_cmd = "ratelab sim --algo tb_cas --workload poisson --keys 1000 --rate 1e6 "
                          "--duration 10s --limit 50 --interval 100ms --decisions d";
    struct rl_perf_row *row = &rows[0];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "checker time vs md5sum, 10^7 decisions");
    snprintf(row->measured, sizeof row->measured,
             "ratelab check wall time on a decision log (streamed, all metrics)");
    snprintf(row->floor, sizeof row->floor,
             "md5sum wall time on the same file (one pass over its bytes, page cache warm)");
    row->ratio = rl_perf_median(t->time_ratio, reps);
    row->at_most = true;
    row->target = 1.0;
    snprintf(row->detail, sizeof row->detail, "check %.3f s, md5sum %.3f s on %.0f MB",
             rl_perf_median(t->check_s, reps), rl_perf_median(t->md5_s, reps),
             mb((uint64_t)t->big_bytes));
    snprintf(row->command, sizeof row->command,
             "%s; ratelab check --events d --limit 50 --interval 100ms; md5sum d", log_cmd);

    row = &rows[1];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "checker peak memory, 10^7 vs 10^6 decisions");
    snprintf(row->measured, sizeof row->measured, "ratelab check peak RSS on 10^7 decisions");
    snprintf(row->floor, sizeof row->floor,
             "its peak RSS on 10^6 decisions of the same run: flat means memory bounded by the "
             "window, not the log");
    row->ratio = rl_perf_median(t->rss_ratio, reps);
    row->at_most = true;
    row->target = 1.25;
    snprintf(row->detail, sizeof row->detail, "peak RSS %.1f MB at 10^7, %.1f MB at 10^6",
             mb((uint64_t)rl_perf_median(t->big_rss, reps)),
             mb((uint64_t)rl_perf_median(t->small_rss, reps)));
    snprintf(row->command, sizeof row->command,
             "the same at --duration 10s and 1s; /usr/bin/time -v ratelab check --events d "
             "--limit 50 --interval 100ms");
}

/* The goal's measure: its two rows (returns 2), or -1 with one line in err. */
static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < 2) {
        snprintf(err, err_len, "no room for the checker's 2 rows");
        return -1;
    }
    char md5sum[512];
    if (!find_on_path("md5sum", md5sum, sizeof md5sum)) {
        snprintf(err, err_len, "md5sum (the floor) is not on PATH");
        return -1;
    }
    struct checker_timings t = {.reps = opts->reps < 1          ? 1
                                        : opts->reps > MAX_REPS ? MAX_REPS
                                                                : opts->reps};
    if (time_checker(opts, md5sum, &t, err, err_len) != 0)
        return -1;
    fill_rows(&t, rows);
    if (!isfinite(rows[0].ratio) || !isfinite(rows[1].ratio)) {
        snprintf(err, err_len, "no repetition finished");
        return -1;
    }
    return 2;
}

const struct rl_perf_goal rl_perf_checker_goal = {
    "checker", "ratelab check against md5sum of the same log, and its memory at 10x the log",
    measure};
