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
 * repetition's peak RSS at N over its peak at N/10.
 *
 * Two more rows, on logs written here: one line of LONG_LINE_MB megabytes
 * (a key that long, which check takes) read through a pipe against the
 * same file read directly (a line's cost must not grow with the square of
 * its length when a pipe hands it over 64 KiB at a time), and 10^6 keys of
 * one line each streamed against the same log checked in memory (--reorder
 * 0 on a copy with its first two lines swapped: read whole, sorted, keys
 * one at a time, as the checker did before it streamed), peak RSS over
 * peak RSS: the memory a key costs the streaming checker. */
#include "harness/report/stats.h"
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DECISIONS     10000000u /* N: about 1 s of sim, 0.3 s of md5sum */
#define KEYS          "1000"
#define MAX_REPS      64
#define LONG_LINE_MB  64u     /* the long line: about 0.5 s a read from a file */
#define ONE_LINE_KEYS 1000000 /* keys of one line each */

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

/* A decision log of one line whose key is `mb` megabytes. */
static int write_long_line(const char *path, unsigned mb, char *err, size_t err_len)
{
    FILE *f = fopen(path, "w");
    char block[1 << 16];
    memset(block, 'k', sizeof block);
    bool ok = f != NULL && fputs("t_ns,key,n,admitted,thread\n0,", f) >= 0;
    for (size_t i = 0; ok && i < (size_t)mb * 1000000 / sizeof block; i++)
        ok = fwrite(block, 1, sizeof block, f) == sizeof block;
    ok = ok && fputs(",1,1,0\n", f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(err, err_len, "cannot write the long-line log %s", path);
    return ok ? 0 : -1;
}

/* A decision log of `keys` keys of one line each, in time order, or with
 * its first two lines swapped (the in-memory checker's input). */
static int write_one_line_keys(const char *path, unsigned keys, bool swapped, char *err,
                               size_t err_len)
{
    FILE *f = fopen(path, "w");
    bool ok = f != NULL && fputs("t_ns,key,n,admitted,thread\n", f) >= 0;
    for (unsigned i = 0; ok && i < keys; i++) {
        unsigned k = swapped && i < 2 ? 1 - i : i;
        ok = fprintf(f, "%u,key%u,1,1,0\n", k, k) > 0;
    }
    if (f != NULL && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(err, err_len, "cannot write the one-line-keys log %s", path);
    return ok ? 0 : -1;
}

/* check on path through /bin/sh: directly, or piped from cat. */
static int run_check_sh(const char *ratelab, const char *path, bool piped, struct timed *t,
                        char *err, size_t err_len)
{
    char *script = piped ? "cat \"$0\" | \"$1\" check --events /dev/stdin --limit 1 --interval 1s"
                         : "\"$1\" check --events \"$0\" --limit 1 --interval 1s";
    char *argv[] = {"/bin/sh", "-c", script, (char *)path, (char *)ratelab, NULL};
    return rl_perf_run_child(argv, NULL, &t->wall_s, &t->rss, err, err_len);
}

static int run_check_keys(const char *ratelab, const char *path, bool in_memory, struct timed *t,
                          char *err, size_t err_len)
{
    char *argv[] = {(char *)ratelab, "check", "--events",  (char *)path, "--limit", "1",
                    "--interval",    "1s",    "--reorder", "0",          NULL};
    if (!in_memory)
        argv[8] = NULL; /* the default depth: streamed */
    return rl_perf_run_child(argv, NULL, &t->wall_s, &t->rss, err, err_len);
}

static double mb(uint64_t bytes);

/* The long line through a pipe against the file (row 0) and the memory of
 * one-line keys streamed against in memory (row 1). */
static int measure_long_line_and_keys(const struct rl_perf_options *opts, unsigned reps,
                                      const char *dir, struct rl_perf_row *rows, char *err,
                                      size_t err_len)
{
    char line[600], keys[600], swapped[600];
    snprintf(line, sizeof line, "%s/long-line.csv", dir);
    snprintf(keys, sizeof keys, "%s/one-line-keys.csv", dir);
    snprintf(swapped, sizeof swapped, "%s/one-line-keys-swapped.csv", dir);
    double pipe_ratio[MAX_REPS], pipe_s[MAX_REPS], file_s[MAX_REPS];
    double key_ratio[MAX_REPS], streamed_rss[MAX_REPS], in_memory_rss[MAX_REPS];
    struct timed warm, a, b;
    int rc = write_long_line(line, LONG_LINE_MB, err, err_len);
    if (rc == 0)
        rc = write_one_line_keys(keys, ONE_LINE_KEYS, false, err, err_len);
    if (rc == 0)
        rc = write_one_line_keys(swapped, ONE_LINE_KEYS, true, err, err_len);
    if (rc == 0) /* untimed: the page cache warm */
        rc = run_check_sh(opts->ratelab, line, false, &warm, err, err_len);
    for (unsigned r = 0; rc == 0 && r < reps; r++) {
        rc = run_check_sh(opts->ratelab, line, true, &a, err, err_len);
        if (rc == 0)
            rc = run_check_sh(opts->ratelab, line, false, &b, err, err_len);
        if (rc != 0)
            break;
        pipe_s[r] = a.wall_s;
        file_s[r] = b.wall_s;
        pipe_ratio[r] = a.wall_s / b.wall_s;
        rc = run_check_keys(opts->ratelab, keys, false, &a, err, err_len);
        if (rc == 0)
            rc = run_check_keys(opts->ratelab, swapped, true, &b, err, err_len);
        if (rc != 0)
            break;
        streamed_rss[r] = (double)a.rss;
        in_memory_rss[r] = (double)b.rss;
        key_ratio[r] = (double)a.rss / (double)b.rss;
    }
    unlink(line);
    unlink(keys);
    unlink(swapped);
    if (rc != 0)
        return -1;

    struct rl_perf_row *row = &rows[0];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "checker one %u MB line, pipe vs file", LONG_LINE_MB);
    snprintf(row->measured, sizeof row->measured,
             "ratelab check wall time on a log of one %u MB line (its key) read from a pipe",
             LONG_LINE_MB);
    snprintf(row->floor, sizeof row->floor,
             "the same log read from the file: a pipe's 64 KiB reads must not cost more");
    row->ratio = rl_median(pipe_ratio, reps);
    row->at_most = true;
    row->target = 1.5;
    snprintf(row->detail, sizeof row->detail, "pipe %.3f s, file %.3f s (medians)",
             rl_median(pipe_s, reps), rl_median(file_s, reps));
    snprintf(row->command, sizeof row->command,
             "cat d | ratelab check --events /dev/stdin --limit 1 --interval 1s; ratelab check "
             "--events d --limit 1 --interval 1s (d: one line, a %u MB key)",
             LONG_LINE_MB);

    row = &rows[1];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "checker memory, 10^6 one-line keys, vs in memory");
    snprintf(row->measured, sizeof row->measured,
             "ratelab check peak RSS streaming a log of 10^6 keys of one line each");
    snprintf(row->floor, sizeof row->floor,
             "its peak RSS checking the same log in memory (--reorder 0, first two lines "
             "swapped), as the checker before streaming did");
    row->ratio = rl_median(key_ratio, reps);
    row->at_most = true;
    row->target = 1.0;
    snprintf(row->detail, sizeof row->detail,
             "streamed %.0f B/key (%.1f MB), in memory %.0f B/key (%.1f MB)",
             rl_median(streamed_rss, reps) / ONE_LINE_KEYS,
             mb((uint64_t)rl_median(streamed_rss, reps)),
             rl_median(in_memory_rss, reps) / ONE_LINE_KEYS,
             mb((uint64_t)rl_median(in_memory_rss, reps)));
    snprintf(row->command, sizeof row->command,
             "/usr/bin/time -v ratelab check --events k --limit 1 --interval 1s [--reorder 0] "
             "(k: line i is i,key<i>,1,1,0)");
    return 0;
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

/* Writes the two logs in dir, times check against md5sum on them (after one
 * untimed pass each), and removes them. -1 with err. */
static int time_checker(const struct rl_perf_options *opts, const char *md5sum, const char *dir,
                        struct checker_timings *out, char *err, size_t err_len)
{
    char big[600], small[600];
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
    row->ratio = rl_median(t->time_ratio, reps);
    row->at_most = true;
    row->target = 1.0;
    snprintf(row->detail, sizeof row->detail, "check %.3f s, md5sum %.3f s on %.0f MB",
             rl_median(t->check_s, reps), rl_median(t->md5_s, reps), mb((uint64_t)t->big_bytes));
    snprintf(row->command, sizeof row->command,
             "%s; ratelab check --events d --limit 50 --interval 100ms; md5sum d", log_cmd);

    row = &rows[1];
    memset(row, 0, sizeof *row);
    snprintf(row->goal, sizeof row->goal, "checker peak memory, 10^7 vs 10^6 decisions");
    snprintf(row->measured, sizeof row->measured, "ratelab check peak RSS on 10^7 decisions");
    snprintf(row->floor, sizeof row->floor,
             "its peak RSS on 10^6 decisions of the same run: flat means memory bounded by the "
             "window, not the log");
    row->ratio = rl_median(t->rss_ratio, reps);
    row->at_most = true;
    row->target = 1.25;
    snprintf(row->detail, sizeof row->detail, "peak RSS %.1f MB at 10^7, %.1f MB at 10^6",
             mb((uint64_t)rl_median(t->big_rss, reps)),
             mb((uint64_t)rl_median(t->small_rss, reps)));
    snprintf(row->command, sizeof row->command,
             "the same at --duration 10s and 1s; /usr/bin/time -v ratelab check --events d "
             "--limit 50 --interval 100ms");
}

/* The goal's measure: its four rows (returns 4), or -1 with one line in err. */
static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < 4) {
        snprintf(err, err_len, "no room for the checker's 4 rows");
        return -1;
    }
    char md5sum[512];
    if (!find_on_path("md5sum", md5sum, sizeof md5sum)) {
        snprintf(err, err_len, "md5sum (the floor) is not on PATH");
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ratelab-perf-checker-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        snprintf(err, err_len, "cannot make a folder for the logs under %s",
                 tmp && *tmp ? tmp : "/tmp");
        return -1;
    }
    struct checker_timings t = {.reps = opts->reps < 1          ? 1
                                        : opts->reps > MAX_REPS ? MAX_REPS
                                                                : opts->reps};
    int rc = time_checker(opts, md5sum, dir, &t, err, err_len);
    if (rc == 0)
        rc = measure_long_line_and_keys(opts, t.reps, dir, rows + 2, err, err_len);
    rmdir(dir);
    if (rc != 0)
        return -1;
    fill_rows(&t, rows);
    for (int i = 0; i < 4; i++)
        if (!isfinite(rows[i].ratio)) {
            snprintf(err, err_len, "no repetition finished");
            return -1;
        }
    return 4;
}

const struct rl_perf_goal rl_perf_checker_goal = {
    "checker", "ratelab check against md5sum of the same log, and its memory at 10x the log",
    measure};
