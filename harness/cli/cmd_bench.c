/* cmd_bench.c — `ratelab bench --suite NAME`: run a named suite (suites.c)
 * of sim and stress measurements into one tidy CSV, with the tables printed.
 * The CSV is written whole, also when the suite is interrupted or a run
 * fails: the finished rows are kept. */
#include "bench_nodes.h"
#include "bench_linearizable.h"
#include "bench_shaping.h"
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "table.h"
#include "fault_table.h"
#include "perf_table.h"
#include "stress_print.h"
#include "harness/run/measure.h"
#include "harness/run/stress.h"
#include "harness/experiments/perf.h"
#include "harness/experiments/cluster_floor.h"
#include "harness/experiments/suites.h"
#include "harness/sys/clock.h"
#include "harness/sys/interrupt.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_GOAL = 1000 }; /* bench's own option: beyond cli.h's codes */

/* Prints text from column `indent` on, broken at spaces before `width`. */
static void print_wrapped(const char *text, int indent, int width)
{
    int column = indent;
    putchar(' ');
    while (*text) {
        int word = (int)strcspn(text, " ");
        if (column > indent && column + 1 + word > width) {
            printf("\n%*s", indent, "");
            column = indent;
        } else if (column > indent) {
            putchar(' ');
            column++;
        }
        printf("%.*s", word, text);
        column += word;
        text += word;
        text += strspn(text, " ");
    }
    putchar('\n');
}

static void bench_help(void)
{
    printf("usage: ratelab bench --suite NAME [--reps R] [--out FILE.csv] [--format F]\n"
           "                     [--redis ADDR | --redis-cluster NxR|HOST:PORT,...]\n"
           "                     [--goal NAME]\n\n"
           "Runs a suite and writes one CSV (columns: results/README.md; every row carries\n"
           "host, CPU, cores, compiler, flags, allocator, clock, git revision and date).\n"
           "Repetitions are interleaved across algorithms; tables give the median with\n"
           "min-max. Progress goes to stderr on a terminal.\n\nSuites:\n");
    for (const struct rl_suite *const *s = rl_suites; *s; s++) {
        printf("  %-13s", (*s)->name);
        print_wrapped((*s)->summary, 16, 80);
    }
    printf("  %-13s", "nodes");
    print_wrapped("many nodes sharing one limit, simulated (docs/nodes.md): each coordination "
                  "strategy's overshoot and store calls per decision against T, N and skew; a "
                  "demand step to 10x L; DRL's two limiters at demand 7:3; the simulator's "
                  "speed (1000 nodes, 10^7 decisions, its wall time printed). Its own columns "
                  "(results/README.md, Many-nodes rows); --reps does not apply; about 10 s",
                  16, 80);
    printf("  %-13s", "shaping");
    print_wrapped("every shaper's distance from the ideal schedule (late p50/p99/max behind "
                  "GCRA virtual scheduling, check --promise shape) on six workloads in sim, "
                  "and its cost per decision (the shape call without the sleep, 1 thread, "
                  "tb_cas's admit path beside it; --reps repetitions). Its own columns "
                  "(results/README.md, Shaping rows); a few seconds",
                  16, 80);
    printf("  %-13s", "linearizable");
    print_wrapped("each thread-safe in-process limiter recorded at 2 threads (every call, as "
                  "stress records a history; L = 2 per 20 us) and judged by the linearizability "
                  "checker, retried up to 12 times until a race shows; a run is counted only "
                  "when both threads have operations that overlap (others are recorded again, "
                  "up to 36 more; a row without one says \"no concurrent history\"): "
                  "operations, each thread's, overlapping operations, verdict, mode, overshoot "
                  "score, false rejects (exact or an upper bound), check time, tries. Its own "
                  "columns (results/README.md, Linearizability rows); --reps does not apply; "
                  "about a minute",
                  16, 80);
    printf("\nThe Redis algorithms run against a private redis-server (or --redis ADDR, or\n"
           "a Redis Cluster: --redis-cluster as for stress); without redis-server they are\n"
           "skipped, and a line on stderr says so.\n\n"
           "  --reps R          stress repetitions (default 3)\n"
           "  --out FILE        the results CSV (default: results/<suite>-<host>.csv), under a\n"
           "                    temporary name, then renamed; a suite with replays also writes\n"
           "                    their whole latency distributions beside it, as latency-FILE;\n"
           "                    - writes the rows to standard output in place of the tables\n"
           "                    (and no latency file)\n"
           "  --format F        standard output: table (default), csv or json\n"
           "  --goal NAME       the perf suite only: run that one goal's rows (recorder,\n"
           "                    keyed, checker, redis, clock, sharded, many_cores,\n"
           "                    shaping, linearizable)\n"
           "Each option with a value is given once (a repeat: exit 2).\n\n"
           "%s\n%s",
           rl_cli_load_help, rl_cli_exit_help);
}

/* floor-NAME beside the CSV at path; false when it does not fit. */
static bool rl_floor_path(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    int n = snprintf(out, len, "%.*sfloor-%s", (int)dir, path, path + dir);
    return n > 0 && (size_t)n < len;
}

/* Entries of a NULL-terminated list; 0 for NULL. */
static size_t count_names(const char *const *names)
{
    size_t n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* The sim grid: each algorithm on each workload (a Redis one on one
 * workload only: each of its decisions is a round trip), appended to rows. */
static size_t run_sim_grid(const struct rl_suite_run *run, const struct rl_config *cfg,
                           struct rl_result *rows)
{
    size_t planned = 0, count = 0;
    for (const char *const *w = run->sim_workloads; w && *w; w++)
        for (size_t i = 0; i < run->sim_count; i++)
            planned += !(run->sim_algos[i]->flags & RL_REMOTE) ||
                       strcmp(*w, run->sim_remote_workload) == 0;
    double start = (double)rl_monotonic_ns() / 1e9;
    for (const char *const *w = run->sim_workloads; w && *w; w++) {
        struct rl_workload_params params;
        rl_workload_defaults(&params, cfg->limit, cfg->interval_ns);
        params.name = *w;
        struct rl_trace trace = {0};
        char err[512];
        if (rl_workload_generate(&params, &trace, err, sizeof err) != 0)
            rl_cli_run_error("bench", "%s", err);
        for (size_t i = 0; i < run->sim_count && !rl_interrupted; i++) {
            const struct rl_algo *a = run->sim_algos[i];
            if ((a->flags & RL_REMOTE) && strcmp(*w, run->sim_remote_workload) != 0)
                continue;
            /* sims differ in length: the time left is extrapolated from those done */
            double each = count ? ((double)rl_monotonic_ns() / 1e9 - start) / (double)count : 0;
            rl_cli_progress("bench: sim %zu/%zu %s on %s, ~%.0f s left", count + 1, planned,
                            a->name, *w, each * (double)(planned - count));
            static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
            if (rl_measure_sim(a, cfg, &independent, &trace, *w, params.seed, &rows[count], NULL,
                               err, sizeof err) != 0)
                rl_cli_run_error("bench", "%s on %s: %s", a->name, *w, err);
            count++;
        }
        rl_trace_free(&trace);
    }
    rl_cli_progress_done();
    return count;
}

/* Each replay algorithm on each replay workload, once, on one clock (a
 * replay takes the trace's own time: 2 s here), into rows from rows[done]
 * on, with each run's latency distribution in the same place of cdfs.
 * Returns the rows filled in all. */
static size_t run_replays_on(const struct rl_suite_run *run, const struct rl_config *cfg,
                             const char *clock, size_t done, size_t planned, struct rl_result *rows,
                             struct rl_latency_cdf *cdfs)
{
    size_t count = done;
    for (const char *const *w = run->replay_workloads; w && *w && !rl_interrupted; w++) {
        struct rl_workload_params params;
        rl_workload_defaults(&params, cfg->limit, cfg->interval_ns);
        params.name = *w;
        struct rl_trace trace = {0};
        char err[512];
        if (rl_workload_generate(&params, &trace, err, sizeof err) != 0)
            rl_cli_run_error("bench", "%s", err);
        for (size_t i = 0; i < run->replay_count && !rl_interrupted; i++) {
            /* a replay lasts its trace's span */
            double span_s = trace.len ? (double)trace.attempts[trace.len - 1].t_ns / 1e9 : 0;
            rl_cli_progress("bench: replay %zu/%zu %s on %s, %s, ~%.0f s left", count + 1, planned,
                            run->replay_algos[i]->name, *w, clock,
                            span_s * (double)(planned - count));
            struct rl_replay_params rp = {.algo = run->replay_algos[i],
                                          .cfg = *cfg,
                                          .trace = &trace,
                                          .threads = run->replay_threads,
                                          .speed = 1,
                                          .clock = clock};
            if (rl_measure_replay(&rp, *w, params.seed, 1, &rows[count], &cdfs[count], NULL, err,
                                  sizeof err) != 0) {
                if (rl_interrupted)
                    break;
                rl_cli_run_error("bench", "replay %s on %s: %s", rp.algo->name, *w, err);
            }
            count++;
        }
        rl_trace_free(&trace);
    }
    return count;
}

/* run_replays_on each of the suite's replay clocks (monotonic when it names
 * none), one after the other. */
static size_t run_replays(const struct rl_suite_run *run, const struct rl_config *cfg,
                          struct rl_result *rows, struct rl_latency_cdf *cdfs)
{
    static const char *const monotonic_only[] = {"monotonic", NULL};
    const char *const *clocks = run->replay_clocks ? run->replay_clocks : monotonic_only;
    size_t count = 0,
           planned = run->replay_count * count_names(run->replay_workloads) * count_names(clocks);
    for (const char *const *c = clocks; *c && !rl_interrupted; c++) {
        count = run_replays_on(run, cfg, *c, count, planned, rows, cdfs);
        rl_clock_cached_stop(); /* a cached clock's publisher ends with its runs */
    }
    rl_cli_progress_done();
    return count;
}

/* The tables of a finished suite, each with its footer (table.c). */
static void print_tables(const struct rl_suite *suite, const struct rl_suite_run *run,
                         const struct rl_context *ctx, unsigned reps, const struct rl_config *cfg,
                         const char *out_path, const struct rl_result *rows, size_t sim_done,
                         size_t replay_done, const size_t *plan_start, size_t plans)
{
    printf("bench %s on %s (%s, %u cpus), git %s\n", suite->name, ctx->host, ctx->cpu_model,
           ctx->cores, ctx->git_rev);
    printf("reproduce: build/ratelab bench --suite %s --reps %u --out %s\n", suite->name, reps,
           out_path);
    if (sim_done) {
        char interval[RL_DURATION_BUF_LEN];
        printf("\naccuracy (sim, virtual time, L=%llu per %s):\n", (unsigned long long)cfg->limit,
               rl_format_duration_ns(cfg->interval_ns, interval, sizeof interval));
        rl_table_accuracy(stdout, rows, sim_done);
    }
    /* one table a clock: the replay rows of a clock are together */
    size_t replay_end = sim_done + replay_done;
    for (size_t i = sim_done, end; i < replay_end; i = end) {
        end = i + 1;
        while (end < replay_end && strcmp(rows[end].clock, rows[i].clock) == 0)
            end++;
        printf("\nreplay (open loop, %u threads, clock %s; latency from each attempt's due "
               "time):\n",
               run->replay_threads, rows[i].clock);
        rl_table_replay(stdout, rows + i, end - i);
    }
    if (run->note && run->note[0])
        printf("\nnote: %s\n", run->note);
    for (size_t i = 0; i < plans; i++) {
        printf("\nspeed: %s (median of %u):\n", run->plan_labels[i], reps);
        rl_table_speed(stdout, rows + plan_start[i], plan_start[i + 1] - plan_start[i]);
        if (run->plans[i].run.record && run->plans[i].faults == NULL)
            rl_print_recorder_overhead(stdout, rows + plan_start[i],
                                       plan_start[i + 1] - plan_start[i]);
        if (run->plans[i].faults)
            rl_table_faults(stdout, rows + plan_start[i], plan_start[i + 1] - plan_start[i]);
    }
}

/* The claims suite is `ratelab claims` with bench's --out (its default
 * results/claims-<host>.csv), --format and --redis: its rows are the
 * claims' own columns, not result rows. */
static int bench_claims(const struct rl_cli_output *output, const char *redis)
{
    static const char *const formats[] = {"table", "csv", "json"};
    char *args[10];
    int n = 0;
    args[n++] = "claims";
    args[n++] = "--out";
    args[n++] = (char *)output->out_path;
    if (output->format_given && output->format <= RL_FORMAT_JSON) {
        args[n++] = "--format";
        args[n++] = (char *)formats[output->format];
    }
    if (redis) {
        args[n++] = "--redis";
        args[n++] = (char *)redis;
    }
    args[n] = NULL;
    optind = 0; /* getopt starts afresh on the new arguments */
    return rl_cmd_claims(n, args);
}

/* A suite's run, from the options to the report: each step below reads and
 * fills it. */
struct bench {
    const char *suite_name, *redis, *goal;
    struct rl_cli_output output;
    uint64_t reps;
    const struct rl_suite *suite;
    struct rl_context ctx;
    char default_path[256];
    struct rl_config cfg;
    const struct rl_algo *all[RL_CLI_MAX_ALGOS]; /* the plan's algorithms: run points into it */
    struct rl_suite_run run;
    struct rl_result *rows;
    struct rl_latency_cdf *cdfs;
    char latency_path[PATH_MAX];
    bool to_stdout, replays_cdf;
    size_t sim_done, replay_done, done;                   /* rows filled: sims, replays, all */
    size_t plan_start[RL_SUITE_MAX_PLANS + 1], plans_run; /* each stress plan's first row */
    struct rl_cluster_floor floors[RL_SUITE_MAX_PLANS];   /* cluster suite: after plan p */
    bool has_floor[RL_SUITE_MAX_PLANS];
    char floor_err[RL_SUITE_MAX_PLANS][160];
    char floor_path[PATH_MAX];
    bool interrupted, failed;
    char err[512];
};

/* The options into b, and the suite they name; false when --help was asked
 * (and shown). */
static bool parse_options(const char *cmd, int argc, char **argv, struct bench *b)
{
    static const struct option options[] = {
        RL_CLI_HELP_OPTION,
        {"suite", required_argument, NULL, OPT_SUITE},
        {"reps", required_argument, NULL, OPT_REPS},
        RL_CLI_OUTPUT_OPTIONS,
        {"redis", required_argument, NULL, OPT_REDIS},
        {"redis-cluster", required_argument, NULL, OPT_REDIS_CLUSTER},
        {"goal", required_argument, NULL, OPT_GOAL},
        {0}};
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            bench_help();
            return false;
        case OPT_SUITE:
            b->suite_name = optarg;
            break;
        case OPT_REDIS:
            b->redis = optarg;
            break;
        case OPT_REDIS_CLUSTER:
            rl_cli_redis_cluster_option(cmd, optarg);
            break;
        case OPT_GOAL:
            b->goal = optarg;
            break;
        case OPT_REPS:
            if (rl_parse_u64(optarg, 1, 1000, &b->reps, b->err, sizeof b->err) != 0)
                rl_cli_usage_error(cmd, "--reps: %s", b->err);
            break;
        default:
            if (!rl_cli_output_option(cmd, code, optarg, &b->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    const char *accepted =
        "quick, threads, memory-order, accuracy, clocks, pareto, keys, redis, claims, perf, "
        "sharded, nodes, shaping, linearizable, cluster, cluster-faults";
    if (b->suite_name == NULL)
        rl_cli_usage_error(cmd, "--suite is required (accepted: %s)", accepted);
    if (strcmp(b->suite_name, "nodes") == 0 || strcmp(b->suite_name, "shaping") == 0 ||
        strcmp(b->suite_name, "linearizable") == 0)
        return true; /* its own runner (bench_nodes.c, bench_shaping.c, bench_linearizable.c) */
    b->suite = rl_suite_find(b->suite_name);
    if (b->suite == NULL)
        rl_cli_usage_error(cmd, "unknown suite '%s' (accepted: %s)", b->suite_name, accepted);
    if (b->goal && !rl_suite_runs_perf(b->suite))
        rl_cli_usage_error(cmd, "--goal is for --suite perf only");
    if (b->goal && rl_perf_goal_find(b->goal) == NULL)
        rl_cli_usage_error(cmd, "unknown perf goal '%s' (see ratelab bench --help)", b->goal);
    return true;
}

/* The suite's plan over every algorithm, room for every row it plans, and
 * the outputs checked (exit 2) before anything runs. */
static void plan_suite(const char *cmd, struct bench *b)
{
    b->to_stdout = strcmp(b->output.out_path, "-") == 0;
    rl_cli_limiter_defaults(&b->cfg);
    size_t all_count = rl_cli_parse_algos(cmd, "all", b->all, RL_CLI_MAX_ALGOS);
    all_count = rl_cli_prepare_remote(cmd, b->all, all_count, b->redis, true, &b->cfg);

    b->suite->plan(&b->run, b->all, all_count, (unsigned)b->reps, &b->cfg);
    size_t replays = b->run.replay_count * count_names(b->run.replay_workloads) *
                     (b->run.replay_clocks ? count_names(b->run.replay_clocks) : 1);
    size_t planned = b->run.sim_count * count_names(b->run.sim_workloads) + replays;
    for (size_t p = 0; p < b->run.plan_count; p++)
        planned += rl_stress_plan_rows(&b->run.plans[p]);
    b->rows = calloc(planned ? planned : 1, sizeof *b->rows);
    b->cdfs = calloc(replays ? replays : 1, sizeof *b->cdfs);
    b->replays_cdf = true;
    if (b->rows == NULL || b->cdfs == NULL)
        rl_cli_run_error(cmd, "out of memory");
    if (b->to_stdout) /* nothing to put the latency distributions beside */
        b->replays_cdf = false;
    else if (rl_latency_cdf_path(b->output.out_path, b->latency_path, sizeof b->latency_path) != 0)
        rl_cli_usage_error(cmd, "--out: path too long");
    rl_cli_output_check(cmd, &b->output);
    const struct rl_cli_file files[] = {
        {"--out", b->output.out_path, true},
        {"--out's latency file", b->replays_cdf ? b->latency_path : NULL, true}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
}

/* The sims, then the replays, then the stress plans, until the end, an
 * interrupt or a failed stress run. */
static void run_suite(struct bench *b)
{
    rl_interrupt_install();
    b->sim_done = b->done = run_sim_grid(&b->run, &b->cfg, b->rows);
    b->replay_done = rl_interrupted ? 0 : run_replays(&b->run, &b->cfg, b->rows + b->done, b->cdfs);
    b->done += b->replay_done;
    b->interrupted = rl_interrupted;
    size_t p = 0;
    for (; p < b->run.plan_count && !b->interrupted && !b->failed; p++) {
        char label[64];
        snprintf(label, sizeof label, "bench %s: %zu/%zu", b->suite->name, p + 1,
                 b->run.plan_count);
        b->plan_start[p] = b->done;
        b->run.plans[p].progress = rl_cli_progress_line;
        b->done += rl_stress_plan_run(&b->run.plans[p], label, b->rows + b->done, &b->interrupted,
                                      &b->failed, b->err, sizeof b->err);
        rl_clock_cached_stop(); /* a cached clock's publisher ends with its runs */
        if (b->run.plan_floor[p] && !b->interrupted && !b->failed) {
            rl_cli_progress("%s: redis-benchmark --cluster floor", label);
            b->has_floor[p] =
                rl_cluster_floor_measure(b->run.plans[p].cluster, 10, 200000, &b->floors[p],
                                         b->floor_err[p], sizeof b->floor_err[p]) == 0;
            rl_cli_progress_done();
        }
    }
    b->plan_start[p] = b->done;
    b->plans_run = p;
}

/* The cluster suite's floors: a line each on the table view, and
 * floor-FILE beside --out (primaries,replicas,clients,requests,rps,cpus,
 * command,host,git_rev,date: the run's, so the file names its revision as
 * every results CSV does), whole or not at all. */
static void print_floors(struct bench *b)
{
    bool any = false;
    for (size_t p = 0; p < b->plans_run; p++)
        any |= b->run.plan_floor[p];
    if (!any)
        return;
    bool table = rl_cli_output_view(&b->output) == RL_FORMAT_TABLE;
    if (table)
        printf("\nthe engine's floor (%s):\n",
               "redis-benchmark --cluster, EVALSHA of 'return 1', 10 clients");
    FILE *f = NULL;
    char tmp[PATH_MAX + 8];
    if (!b->to_stdout && rl_floor_path(b->output.out_path, b->floor_path, sizeof b->floor_path)) {
        snprintf(tmp, sizeof tmp, "%s.tmp", b->floor_path);
        f = fopen(tmp, "w");
        if (f)
            fprintf(f, "primaries,replicas,clients,requests,rps,cpus,command,host,git_rev,date\n");
    }
    for (size_t p = 0; p < b->plans_run; p++) {
        if (!b->run.plan_floor[p])
            continue;
        const struct rl_cluster_floor *fl = &b->floors[p];
        if (!b->has_floor[p]) {
            fprintf(stderr, "ratelab bench: no floor after '%s': %s\n", b->run.plan_labels[p],
                    b->floor_err[p]);
            continue;
        }
        if (table)
            printf("  %ux%u: %.0f EVALSHA a second (%u cpus)\n", fl->primaries, fl->replicas,
                   fl->rps, b->ctx.cores);
        if (f) {
            fprintf(f, "%u,%u,%u,%lu,%.1f,%u,", fl->primaries, fl->replicas, fl->clients,
                    fl->requests, fl->rps, b->ctx.cores);
            rl_csv_field(f, fl->command);
            fputc(',', f);
            rl_csv_field(f, b->ctx.host);
            fputc(',', f);
            rl_csv_field(f, b->ctx.git_rev);
            fprintf(f, ",%s\n", b->ctx.date);
        }
    }
    if (f && fclose(f) == 0 && rename(tmp, b->floor_path) == 0) {
        if (table)
            printf("wrote the floors to %s\n", b->floor_path);
    } else if (f)
        remove(tmp);
}

/* The rows (also after an interrupt or a failure), the latency file, the
 * tables and the warnings; the exit status. */
static int report(const char *cmd, struct bench *b)
{
    const char *out_path = b->output.out_path;
    rl_cli_write_rows(cmd, &b->output, b->rows, b->done);
    if (b->replay_done && b->replays_cdf &&
        rl_latency_cdf_write(b->latency_path, b->rows + b->sim_done, b->cdfs, b->replay_done,
                             b->err, sizeof b->err) != 0)
        rl_cli_run_error(cmd, "%s", b->err);
    if (rl_cli_output_view(&b->output) == RL_FORMAT_TABLE) {
        print_tables(b->suite, &b->run, &b->ctx, (unsigned)b->reps, &b->cfg, out_path, b->rows,
                     b->sim_done, b->replay_done, b->plan_start, b->plans_run);
        printf("\nwrote %zu rows to %s\n", b->done, out_path);
        if (b->replay_done)
            printf("wrote the latency distributions of the %zu replays to %s\n", b->replay_done,
                   b->latency_path);
    }
    print_floors(b);
    rl_cli_warn_dropped(cmd, b->rows, b->done);
    int status = rl_cli_errors_status(cmd, b->rows, b->done);
    /* errors in a run the suite faulted on purpose are its measurement */
    bool only_faulted = true;
    for (size_t i = 0; i < b->done; i++)
        only_faulted &= b->rows[i].errors == 0 || b->rows[i].fault != NULL;
    if (status == RL_EXIT_ERRORS && only_faulted)
        status = 0;
    rl_cli_warn_load(cmd, b->rows, b->done); /* last: the errors line stays first */
    if (b->interrupted || b->failed) {
        fprintf(stderr, "ratelab bench: %s%s; the %zu finished rows were written to %s\n",
                b->failed ? "a run failed: " : "interrupted", b->failed ? b->err : "", b->done,
                b->to_stdout ? "standard output" : out_path);
        return 1;
    }
    return status;
}

int rl_cmd_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    struct bench b = {.output = {.format = RL_FORMAT_TABLE}, .reps = 3};
    if (!parse_options(cmd, argc, argv, &b))
        return 0;
    rl_context_init(&b.ctx);
    if (b.output.out_path == NULL) {
        snprintf(b.default_path, sizeof b.default_path, "results/%s-%s.csv",
                 b.suite ? b.suite->name : b.suite_name, b.ctx.host);
        b.output.out_path = b.default_path;
    }
    if (b.suite == NULL && strcmp(b.suite_name, "shaping") == 0)
        return rl_cli_bench_shaping(&b.output, (unsigned)b.reps);
    if (b.suite == NULL && strcmp(b.suite_name, "linearizable") == 0)
        return rl_cli_bench_linearizable(&b.output);
    if (b.suite == NULL)
        return rl_cli_bench_nodes(&b.output);
    if (rl_suite_runs_claims(b.suite))
        return bench_claims(&b.output, b.redis);
    if (rl_suite_runs_perf(b.suite))
        return rl_cli_bench_perf(&b.output, b.redis, b.goal, (unsigned)b.reps);
    plan_suite(cmd, &b);
    run_suite(&b);
    int status = report(cmd, &b);
    free(b.cdfs);
    free(b.rows);
    return status;
}
