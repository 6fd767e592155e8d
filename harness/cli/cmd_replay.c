/* cmd_replay.c — `ratelab replay`: send a trace or workload open loop from
 * T threads, at its own times on the wall clock, and report decision
 * latency from the due time together with the accuracy of every decision. */
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "table.h"
#include "harness/run/measure.h"
#include "harness/run/replay.h"
#include "harness/sys/clock.h"
#include "harness/sys/interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREAD_COUNTS 32

static void replay_help(void)
{
    printf("usage: ratelab replay --algo A[,B...|all] [--threads 1,2,4]\n"
           "                      (--trace FILE | --workload W [workload options])\n"
           "                      [--speed X] [--limit L --interval DUR] [--burst B]\n"
           "                      [--clock C] [--reps R] [--expiry E] [--client-skew DUR]\n"
           "                      [--redis ADDR] [--on-error admit|reject]\n"
           "                      [--out FILE.csv] [--latency-out FILE.csv]\n"
           "                      [--decisions FILE.csv] [--format F]\n\n"
           "Open loop: attempt i of the trace is due at t0 + t_i / X on the wall clock and is\n"
           "sent by thread i mod T, whatever the limiter's speed. A thread that falls behind\n"
           "sends at once, and the decision's latency still counts from the due time (no\n"
           "coordinated omission, as wrk2 does it). Prints per algorithm the p50, p90, p99,\n"
           "p99.9 and max of that latency (histogram error under 0.8%%, max exact), the\n"
           "latest send after its due time, the call's own p99, and the accuracy of every\n"
           "decision, measured at the times the limiter decided them (stamps, not trace\n"
           "times). The limiter's interval is wall time: at --speed 2 the same trace arrives\n"
           "twice as densely. Repetitions are interleaved across algorithms and thread\n"
           "counts, as in stress.\n\n"
           "  --algo LIST       algorithms to run (see ratelab list), or all (the thread-safe\n"
           "                    ones when a thread count is above 1)\n"
           "  --threads LIST    sending thread counts, one row each (default 1)\n"
           "  --trace FILE      a trace CSV with header t_ns,key,n\n"
           "  --speed X         divide the trace's times by X > 0 (default 1; 2 = twice as fast)\n"
           "  --clock C         monotonic (default), coarse, tsc or cached[:T] (as in stress):\n"
           "                    the limiter's and the stamps'\n"
           "  --reps R          repetitions (default 1)\n"
           "  --expiry E        traces of several keys: never (default), lazy or sweeper\n"
           "  --client-skew DUR thread i's clock is off by −DUR + 2·DUR·i/(T−1), as in stress\n"
           "  --latency-out FILE  write each run's whole latency distribution: percentiles\n"
           "                    from 0 to the max, 5 to every halving of the tail (columns:\n"
           "                    results/README.md)\n"
           "  --decisions FILE  write every decision (t_ns,key,n,admitted,thread; t_ns from the\n"
           "                    epoch t0, stamped when the decision was known) for ratelab\n"
           "                    check; one --algo, one thread count and --reps 1\n"
           "%s\n"
           "%s\n%s\n%s\n%s\n%s",
           rl_cli_output_help, rl_cli_load_help, rl_cli_limiter_help, rl_cli_workload_help,
           rl_cli_remote_help, rl_cli_exit_help);
}

/* Keeps the algorithms that can run with these threads and this
 * configuration: exits 2 for one named explicitly that cannot; "all" means
 * all that can. */
static size_t usable_algos(const char *cmd, const struct rl_algo **algos, size_t count, bool all,
                           unsigned threads, const struct rl_config *cfg)
{
    size_t kept = 0;
    char err[512];
    for (size_t i = 0; i < count; i++) {
        if (!(algos[i]->flags & RL_THREAD_SAFE) && threads > 1) {
            if (all)
                continue;
            rl_cli_usage_error(cmd, "%s is not thread-safe: use --threads 1", algos[i]->name);
        }
        void *probe = algos[i]->create(cfg, err, sizeof err);
        if (probe == NULL)
            rl_cli_usage_error(cmd, "%s: %s", algos[i]->name, err);
        algos[i]->destroy(probe);
        algos[kept++] = algos[i];
    }
    if (kept == 0)
        rl_cli_usage_error(cmd, "no algorithm left to run");
    return kept;
}

static void print_table(const struct rl_replay_params *p, const char *trace_name,
                        const uint64_t *threads, size_t thread_count, const struct rl_result *rows,
                        size_t count)
{
    char interval[RL_DURATION_BUF_LEN], shown[1024];
    const struct rl_trace *trace = p->trace;
    double last_s = trace->len ? (double)trace->attempts[trace->len - 1].t_ns / 1e9 : 0;
    char thread_list[MAX_THREAD_COUNTS * 6] = "";
    for (size_t t = 0, used = 0; t < thread_count && used < sizeof thread_list; t++)
        used += (size_t)snprintf(thread_list + used, sizeof thread_list - used, "%s%llu",
                                 t ? "," : "", (unsigned long long)threads[t]);
    bool one = thread_count == 1 && threads[0] == 1;
    printf("replay: L=%llu per %s, %s: %zu attempts over %u key%s due within %.3f s, "
           "%s thread%s, speed %g, clock %s, %ld cpus\n\n",
           (unsigned long long)p->cfg.limit,
           rl_format_duration_ns(p->cfg.interval_ns, interval, sizeof interval),
           rl_table_text(shown, sizeof shown, trace_name), trace->len, trace->key_count,
           trace->key_count == 1 ? "" : "s", last_s / p->speed, thread_list, one ? "" : "s",
           p->speed, p->clock, sysconf(_SC_NPROCESSORS_ONLN));
    rl_table_replay(stdout, rows, count);
}

int rl_cmd_replay(int argc, char **argv)
{
    static const struct option options[] = {
        RL_CLI_HELP_OPTION,
        RL_CLI_LIMITER_OPTIONS,
        RL_CLI_WORKLOAD_OPTIONS,
        RL_CLI_REMOTE_OPTIONS,
        {"algo", required_argument, NULL, OPT_ALGO},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"speed", required_argument, NULL, OPT_SPEED},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"reps", required_argument, NULL, OPT_REPS},
        {"expiry", required_argument, NULL, OPT_EXPIRY},
        {"client-skew", required_argument, NULL, OPT_CLIENT_SKEW},
        RL_CLI_OUTPUT_OPTIONS,
        {"latency-out", required_argument, NULL, OPT_LATENCY_OUT},
        {"decisions", required_argument, NULL, OPT_DECISIONS},
        {0}};
    const char *cmd = "replay", *algo_list = NULL, *trace_path = NULL;
    const char *latency_path = NULL, *decisions_path = NULL;
    const char *redis = NULL;
    uint64_t threads[MAX_THREAD_COUNTS] = {1}, reps = 1, most_threads = 1;
    size_t thread_count = 1;
    struct rl_cli_output output = {.format = RL_FORMAT_TABLE};
    struct rl_replay_params params = {.speed = 1.0, .clock = "monotonic"};
    rl_cli_limiter_defaults(&params.cfg);
    struct rl_cli_workload workload = {0};
    char err[512];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            replay_help();
            return 0;
        case OPT_ALGO:
            algo_list = optarg;
            break;
        case OPT_TRACE:
            trace_path = optarg;
            break;
        case OPT_THREADS:
            if (rl_parse_u64_list(optarg, 1, 1024, threads, MAX_THREAD_COUNTS, &thread_count, err,
                                  sizeof err) != 0)
                rl_cli_usage_error(cmd, "--threads: %s", err);
            break;
        case OPT_SPEED:
            if (rl_parse_double(optarg, 0.0, &params.speed, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--speed: %s", err);
            break;
        case OPT_CLOCK:
            params.clock = optarg;
            break;
        case OPT_REPS:
            if (rl_parse_u64(optarg, 1, 1000, &reps, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--reps: %s", err);
            break;
        case OPT_EXPIRY:
            params.expiry = rl_cli_parse_expiry(cmd, optarg);
            break;
        case OPT_CLIENT_SKEW:
            if (rl_parse_duration_ns(optarg, &params.client_skew_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--client-skew: %s", err);
            break;
        case OPT_REDIS:
            redis = optarg;
            break;
        case OPT_ON_ERROR:
            params.error_admits = rl_cli_parse_on_error(cmd, optarg);
            break;
        case OPT_LATENCY_OUT:
            latency_path = optarg;
            break;
        case OPT_DECISIONS:
            decisions_path = optarg;
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &params.cfg) &&
                !rl_cli_workload_option(cmd, code, optarg, &workload) &&
                !rl_cli_output_option(cmd, code, optarg, &output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (algo_list == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list, or all)");
    rl_cli_output_check(cmd, &output);
    const char *out_path = output.out_path;
    if (latency_path)
        rl_cli_require_writable(cmd, "--latency-out", latency_path);
    if (decisions_path)
        rl_cli_require_writable(cmd, "--decisions", decisions_path);
    const struct rl_cli_file files[] = {{"--out", out_path, true},
                                        {"--latency-out", latency_path, true},
                                        {"--decisions", decisions_path, true},
                                        {"--trace", trace_path, false}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    if ((trace_path != NULL) == workload.named)
        rl_cli_usage_error(cmd, "give exactly one of --trace FILE or --workload W");
    if (trace_path && workload.set)
        rl_cli_usage_error(cmd, "workload options need --workload, not --trace");
    struct rl_clock probe_clock;
    if (rl_clock_init(&probe_clock, params.clock, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--clock: %s", err);
    if (strcmp(params.clock, "virtual") == 0)
        rl_cli_usage_error(
            cmd, "--clock virtual is for sim; replay needs monotonic, coarse, tsc or cached");
    for (size_t t = 0; t < thread_count; t++)
        most_threads = threads[t] > most_threads ? threads[t] : most_threads;

    const struct rl_algo *algos[RL_CLI_MAX_ALGOS];
    bool all = strcmp(algo_list, "all") == 0;
    size_t algo_count = rl_cli_parse_algos(cmd, algo_list, algos, RL_CLI_MAX_ALGOS);
    algo_count = rl_cli_prepare_remote(cmd, algos, algo_count, redis, all, &params.cfg);
    algo_count = usable_algos(cmd, algos, algo_count, all, (unsigned)most_threads, &params.cfg);
    if (decisions_path && (algo_count != 1 || thread_count != 1 || reps != 1))
        rl_cli_usage_error(cmd, "--decisions writes one run's decisions: give one --algo, one "
                                "--threads count and --reps 1");

    struct rl_trace trace = {0};
    struct rl_workload_params generated = {.seed = 0};
    char trace_name[256];
    if (trace_path) {
        if (rl_trace_read_csv(trace_path, &trace, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        const char *slash = strrchr(trace_path, '/'); /* the file's name is the workload */
        snprintf(trace_name, sizeof trace_name, "%s", slash ? slash + 1 : trace_path);
    } else {
        rl_cli_workload_build(cmd, &workload, &params.cfg, &generated, &trace);
        snprintf(trace_name, sizeof trace_name, "%s", generated.name);
    }
    if (trace.len == 0)
        rl_cli_usage_error(cmd, "the trace has no attempts");
    if (rl_replay_check_trace(&trace, params.speed, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    params.trace = &trace;

    size_t planned = algo_count * thread_count * reps, done = 0;
    struct rl_result *rows = calloc(planned, sizeof *rows);
    struct rl_latency_cdf *cdfs = latency_path ? calloc(planned, sizeof *cdfs) : NULL;
    if (rows == NULL || (latency_path && cdfs == NULL))
        rl_cli_run_error(cmd, "out of memory");
    rl_interrupt_install();
    struct rl_event_log log = {0};
    double seconds_each = (double)trace.attempts[trace.len - 1].t_ns / params.speed / 1e9;
    bool failed = false;
    /* interleaved as stress_plan.c does: each rep runs every thread count of every algorithm */
    for (unsigned rep = 1; rep <= reps && !failed && !rl_interrupted; rep++)
        for (size_t t = 0; t < thread_count && !failed && !rl_interrupted; t++)
            for (size_t a = 0; a < algo_count && !failed && !rl_interrupted; a++) {
                rl_cli_progress("replay: %zu/%zu %s x%llu rep %u, ~%.0f s left", done + 1, planned,
                                algos[a]->name, (unsigned long long)threads[t], rep,
                                seconds_each * (double)(planned - done));
                params.algo = algos[a];
                params.threads = (unsigned)threads[t];
                if (rl_measure_replay(&params, trace_name, generated.seed, rep, &rows[done],
                                      cdfs ? &cdfs[done] : NULL, decisions_path ? &log : NULL, err,
                                      sizeof err) != 0)
                    failed = true;
                else
                    done++;
            }
    rl_cli_progress_done();
    bool interrupted = rl_interrupted != 0;

    if (rl_cli_output_view(&output) == RL_FORMAT_TABLE)
        print_table(&params, trace_name, threads, thread_count, rows, done);
    rl_cli_write_rows(cmd, &output, rows, done);
    if (latency_path && rl_latency_cdf_write(latency_path, rows, cdfs, done, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    if (decisions_path && done == 1 &&
        rl_event_log_write_csv(&log, decisions_path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    rl_event_log_free(&log);
    int status = rl_cli_errors_status(cmd, rows, done);
    rl_cli_warn_load(cmd, rows, done); /* last: the errors line stays first */
    free(cdfs);
    free(rows);
    rl_trace_free(&trace);
    if (interrupted || failed) {
        fprintf(stderr, "ratelab replay: %s%s after %zu of %zu runs%s%s\n",
                interrupted ? "interrupted" : "a run failed: ", interrupted ? "" : err, done,
                planned, out_path ? "; the finished runs were written to " : "",
                out_path ? out_path : "");
        return 1;
    }
    return status;
}
