/* cmd_bench.c — `ratelab bench --suite NAME`: a named suite of sim and
 * stress measurements into one tidy CSV, with the tables printed. */
#include "cli.h"
#include "commands.h"
#include "measure.h"
#include "outfile.h"
#include "parse.h"
#include "stress.h"
#include "stress_plan.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bench_help(void)
{
    printf("usage: ratelab bench --suite NAME [--reps R] [--out FILE.csv]\n\n"
           "Suites:\n"
           "  quick   sim of every algorithm on every workload (L=1000 per 100ms, 2 s, seed 1;\n"
           "          the Redis algorithms on the boundary workload only), then stress of\n"
           "          every thread-safe algorithm at 1 and 2 threads, 200 ms a run, each run\n"
           "          paired with a recorded one (accuracy, recorder overhead); about 2 min\n"
           "          on 2 cores\n\n"
           "The Redis algorithms run against a private redis-server (or --redis ADDR);\n"
           "without redis-server they are skipped, and a line on stderr says so.\n\n"
           "  --reps R   stress repetitions (default 3)\n"
           "  --out FILE the results CSV (default: results/<suite>-<host>.csv), written whole:\n"
           "             an interrupted suite writes the rows it finished\n");
}

/* Each Redis decision is a round trip (about 55 us on a 2-core VM), so in
 * the quick suite the Redis algorithms see one workload in sim. */
#define QUICK_REMOTE_WORKLOAD "boundary"

/* Every algorithm on every workload in sim (Redis ones: one), appended to rows. */
static size_t run_sim_grid(const struct rl_config *cfg, const struct rl_algo **algos,
                           size_t algo_count, struct rl_result *rows)
{
    size_t count = 0, total = 0;
    size_t remote = 0;
    for (size_t i = 0; i < algo_count; i++)
        remote += (algos[i]->flags & RL_REMOTE) != 0;
    for (const char *const *w = rl_workload_names; *w; w++)
        total += strcmp(*w, QUICK_REMOTE_WORKLOAD) == 0 ? algo_count : algo_count - remote;
    for (const char *const *w = rl_workload_names; *w; w++) {
        struct rl_workload_params params;
        rl_workload_defaults(&params, cfg->limit, cfg->interval_ns);
        params.name = *w;
        struct rl_trace trace = {0};
        char err[512];
        if (rl_workload_generate(&params, &trace, err, sizeof err) != 0)
            rl_cli_run_error("bench", "%s", err);
        for (const struct rl_algo **a = algos; a < algos + algo_count && !rl_interrupted; a++) {
            if (((*a)->flags & RL_REMOTE) && strcmp(*w, QUICK_REMOTE_WORKLOAD) != 0)
                continue;
            rl_cli_progress("bench quick: sim %zu/%zu %s on %s", count + 1, total, (*a)->name, *w);
            static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
            if (rl_measure_sim(*a, cfg, &independent, &trace, *w, params.seed, &rows[count],
                               NULL, err, sizeof err) != 0)
                rl_cli_run_error("bench", "%s on %s: %s", (*a)->name, *w, err);
            count++;
        }
        rl_trace_free(&trace);
    }
    rl_cli_progress_done();
    return count;
}

static void write_csv(const char *path, const struct rl_result *rows, size_t count)
{
    struct rl_context ctx;
    rl_context_init(&ctx);
    struct rl_outfile out;
    char err[512];
    if (rl_outfile_open(&out, path, err, sizeof err) != 0)
        rl_cli_run_error("bench", "%s", err);
    rl_result_csv_header(out.fp);
    for (size_t i = 0; i < count; i++)
        rl_result_csv_row(out.fp, &rows[i], &ctx);
    if (rl_outfile_commit(&out, err, sizeof err) != 0)
        rl_cli_run_error("bench", "%s", err);
}

int rl_cmd_bench(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            {"suite", required_argument, NULL, OPT_SUITE},
                                            {"reps", required_argument, NULL, OPT_REPS},
                                            {"out", required_argument, NULL, OPT_OUT},
                                            {"redis", required_argument, NULL, OPT_REDIS},
                                            {0}};
    const char *cmd = "bench", *suite = NULL, *out_path = NULL, *redis = NULL;
    uint64_t reps = 3;
    char err[512];
    int code;
    while ((code = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (code) {
        case OPT_HELP: bench_help(); return 0;
        case OPT_SUITE: suite = optarg; break;
        case OPT_OUT: out_path = optarg; break;
        case OPT_REDIS: redis = optarg; break;
        case OPT_REPS:
            if (rl_parse_u64(optarg, 1, 1000, &reps, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--reps: %s", err);
            break;
        default: rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (suite == NULL)
        rl_cli_usage_error(cmd, "--suite is required (accepted: quick)");
    if (strcmp(suite, "quick") != 0)
        rl_cli_usage_error(cmd, "unknown suite '%s' (accepted: quick)", suite);

    struct rl_context ctx;
    rl_context_init(&ctx);
    char default_path[256];
    if (out_path == NULL) {
        snprintf(default_path, sizeof default_path, "results/%s-%s.csv", suite, ctx.host);
        out_path = default_path;
    }

    struct rl_config cfg;
    rl_cli_limiter_defaults(&cfg);
    const struct rl_algo *all[RL_CLI_MAX_ALGOS];
    size_t all_count = rl_cli_parse_algos(cmd, "all", all, RL_CLI_MAX_ALGOS);
    all_count = rl_cli_prepare_remote(cmd, all, all_count, redis, true, &cfg);
    const struct rl_algo *safe[RL_CLI_MAX_ALGOS];
    size_t safe_count = 0, sim_rows = 0;
    for (size_t i = 0; i < all_count; i++) {
        for (const char *const *w = rl_workload_names; *w; w++)
            sim_rows++;
        /* faa leads, as in `stress`, so every row has its floor */
        if (all[i]->flags & RL_THREAD_SAFE)
            safe[safe_count++] = all[i];
    }
    for (size_t i = 0; i < safe_count; i++)
        if (strcmp(safe[i]->name, "faa") == 0) {
            const struct rl_algo *first = safe[0];
            safe[0] = safe[i];
            safe[i] = first;
        }
    static const uint64_t threads[] = {1, 2};
    struct rl_stress_plan plan = {
        .algos = safe,
        .algo_count = safe_count,
        .threads = threads,
        .thread_count = 2,
        .reps = (unsigned)reps,
        .duration_ns = 200000000u,
        .clock = "monotonic",
        .cfg = cfg,
        .record = true,
    };
    size_t planned = sim_rows + rl_stress_plan_rows(&plan);
    struct rl_result *rows = calloc(planned, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");

    rl_stress_install_signals();
    size_t done = run_sim_grid(&cfg, all, all_count, rows);
    bool interrupted = rl_interrupted, failed = false;
    if (!interrupted)
        done += rl_stress_plan_run(&plan, "bench quick: stress", rows + done, &interrupted,
                                   &failed, err, sizeof err);
    write_csv(out_path, rows, done);

    char interval[32];
    printf("bench quick on %s (%s, %u cpus), git %s\n", ctx.host, ctx.cpu_model, ctx.cores,
           ctx.git_rev);
    printf("L=%llu per %s; reproduce: build/ratelab bench --suite quick --out %s\n\n",
           (unsigned long long)cfg.limit,
           rl_format_duration(cfg.interval_ns, interval, sizeof interval), out_path);
    printf("accuracy (sim, virtual time):\n");
    rl_table_accuracy(stdout, rows, done);
    printf("\nspeed (stress, closed loop, 200 ms a run, median of %llu):\n",
           (unsigned long long)reps);
    rl_table_speed(stdout, rows, done);
    rl_stress_plan_print_overhead(stdout, rows, done);
    printf("\nwrote %zu rows to %s\n", done, out_path);
    free(rows);
    if (interrupted || failed) {
        fprintf(stderr, "ratelab bench: %s%s; the %zu finished rows were written to %s\n",
                failed ? "a run failed: " : "interrupted", failed ? err : "", done, out_path);
        return 1;
    }
    return 0;
}
