/* cmd_stress.c — `ratelab stress`: closed-loop throughput per thread count,
 * with faa measured alongside, and accuracy when recorded. */
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "table.h"
#include "harness/run/stress.h"
#include "harness/run/stress_plan.h"
#include "harness/sys/clock.h"
#include "harness/sys/interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREAD_COUNTS 32

static void stress_help(void)
{
    printf("usage: ratelab stress --algo A[,B...|all] [--threads 1,2,4] [--duration DUR]\n"
           "                      [--reps R] [--clock C] [--record] [--pin] [--unsafe]\n"
           "                      [--hold DUR] [--keys K [--zipf S] [--expiry E]]\n"
           "                      [--redis ADDR] [--on-error admit|reject] [--client-skew DUR]\n"
           "                      [--limit L --interval DUR] [--out FILE.csv] [--format F]\n"
           "                      [--decisions FILE.csv]\n\n"
           "Threads start together and call acquire on one shared limiter as fast as they can\n"
           "(closed loop) until the duration ends. Prints median ns/op (per thread: time for\n"
           "one call) with min-max over repetitions, Mops/s (all threads), and the ratio to\n"
           "faa, which is measured in the same run whether asked for or not. Repetitions are\n"
           "interleaved across algorithms. A thread count above the CPUs is marked '!'.\n\n"
           "  --threads LIST    thread counts (default 1,2)\n"
           "  --duration DUR    per measurement (default 1s)\n"
           "  --reps R          repetitions (default 3)\n"
           "  --clock C         monotonic (default), coarse, tsc, or cached (cached:T: one\n"
           "                    thread publishes the time every T, default 100us; 10us..1s)\n"
           "  --record          also run each measurement recorded: every admit stamped and\n"
           "                    checked (sliding/aligned maxima, promise held, stamp\n"
           "                    uncertainty), and the recorder's overhead printed\n"
           "  --pin             pin thread i to CPU i mod cores\n"
           "  --hold DUR        limiters that need release (concurrency) hold each permit\n"
           "                    this long before releasing it (default 0ns); the harness\n"
           "                    counts permits held at once and reports the maximum\n"
           "  --keys K          each attempt draws a key, uniform over K (or --zipf S), and\n"
           "                    goes through the keyed container: open-addressing shards,\n"
           "                    looked up without a lock (docs/keys.md)\n"
           "  --expiry E        idle keys: never (default), lazy (each access looks at two\n"
           "                    other entries) or sweeper (a thread sweeps every idle/2)\n"
           "  --client-skew DUR each thread's clock is off by a share of ±DUR, spread evenly\n"
           "                    (thread i: −DUR + 2·DUR·i/(T−1)): clients that disagree on\n"
           "                    the time, for limiters that trust the client's clock\n"
           "  --unsafe          allow algorithms that are not thread-safe with > 1 thread\n"
           "  --decisions FILE  implies --record: write the recorded run's admits\n"
           "                    (t_ns,key,n,admitted,thread; t_ns from the limiter's epoch)\n"
           "                    for ratelab check --admits-only (stress counts rejects but\n"
           "                    does not log them); one --algo, one thread count, --reps 1\n"
           "%s\n"
           "%s\n%s\n%s\n%s",
           rl_cli_output_help, rl_cli_load_help, rl_cli_limiter_help, rl_cli_remote_help,
           rl_cli_exit_help);
}

int rl_cmd_stress(int argc, char **argv)
{
    static const struct option options[] = {
        RL_CLI_HELP_OPTION,
        RL_CLI_LIMITER_OPTIONS,
        {"algo", required_argument, NULL, OPT_ALGO},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"reps", required_argument, NULL, OPT_REPS},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"record", no_argument, NULL, OPT_RECORD},
        {"pin", no_argument, NULL, OPT_PIN},
        {"hold", required_argument, NULL, OPT_HOLD},
        {"keys", required_argument, NULL, OPT_KEYS},
        {"zipf", required_argument, NULL, OPT_ZIPF},
        {"expiry", required_argument, NULL, OPT_EXPIRY},
        {"client-skew", required_argument, NULL, OPT_CLIENT_SKEW},
        RL_CLI_REMOTE_OPTIONS,
        {"unsafe", no_argument, NULL, OPT_UNSAFE},
        RL_CLI_OUTPUT_OPTIONS,
        {"decisions", required_argument, NULL, OPT_DECISIONS},
        {0}};
    const char *cmd = "stress", *algo_list = NULL, *redis = NULL;
    const char *decisions_path = NULL;
    uint64_t threads[MAX_THREAD_COUNTS] = {1, 2}, reps = 3;
    size_t thread_count = 2;
    bool unsafe = false;
    struct rl_cli_output output = {.format = RL_FORMAT_TABLE};
    struct rl_stress_plan plan = {
        .duration_ns = 1000000000u, .clock = "monotonic", .progress = rl_cli_progress_line};
    rl_cli_limiter_defaults(&plan.cfg);
    char err[512];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            stress_help();
            return 0;
        case OPT_ALGO:
            algo_list = optarg;
            break;
        case OPT_THREADS:
            if (rl_parse_u64_list(optarg, 1, 1024, threads, MAX_THREAD_COUNTS, &thread_count, err,
                                  sizeof err) != 0)
                rl_cli_usage_error(cmd, "--threads: %s", err);
            break;
        case OPT_DURATION:
            if (rl_parse_duration_ns(optarg, &plan.duration_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--duration: %s", err);
            if (plan.duration_ns == 0)
                rl_cli_usage_error(cmd, "--duration must be greater than zero");
            break;
        case OPT_REPS:
            if (rl_parse_u64(optarg, 1, 1000, &reps, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--reps: %s", err);
            break;
        case OPT_CLOCK:
            plan.clock = optarg;
            break;
        case OPT_RECORD:
            plan.record = true;
            break;
        case OPT_PIN:
            plan.pin = true;
            break;
        case OPT_KEYS: {
            uint64_t keys;
            if (rl_parse_u64(optarg, 1, 100000000, &keys, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--keys: %s", err);
            plan.keys = (uint32_t)keys;
            break;
        }
        case OPT_ZIPF:
            if (rl_parse_double(optarg, 0.0, &plan.zipf_s, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--zipf: %s", err);
            break;
        case OPT_EXPIRY:
            plan.expiry = rl_cli_parse_expiry(cmd, optarg);
            break;
        case OPT_REDIS:
            redis = optarg;
            break;
        case OPT_ON_ERROR:
            plan.error_admits = rl_cli_parse_on_error(cmd, optarg);
            break;
        case OPT_CLIENT_SKEW:
            if (rl_parse_duration_ns(optarg, &plan.client_skew_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--client-skew: %s", err);
            break;
        case OPT_HOLD:
            if (rl_parse_duration_ns(optarg, &plan.hold_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--hold: %s", err);
            break;
        case OPT_UNSAFE:
            unsafe = true;
            break;
        case OPT_DECISIONS:
            decisions_path = optarg;
            plan.record = true;
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &plan.cfg) &&
                !rl_cli_output_option(cmd, code, optarg, &output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (algo_list == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list, or all)");
    rl_cli_output_check(cmd, &output);
    if (decisions_path)
        rl_cli_require_writable(cmd, "--decisions", decisions_path);
    const struct rl_cli_file files[] = {{"--out", output.out_path, true},
                                        {"--decisions", decisions_path, true}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    const char *out_path = output.out_path;
    bool table = rl_cli_output_view(&output) == RL_FORMAT_TABLE;

    struct rl_clock probe_clock;
    if (rl_clock_init(&probe_clock, plan.clock, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--clock: %s", err);
    if (strcmp(plan.clock, "virtual") == 0)
        rl_cli_usage_error(
            cmd, "--clock virtual is for sim; stress needs monotonic, coarse, tsc or cached");

    /* faa first, so every other row has its floor from the same run. */
    const struct rl_algo *algos[RL_CLI_MAX_ALGOS + 1];
    algos[0] = rl_registry_find("faa");
    size_t count = rl_cli_parse_algos(cmd, algo_list, algos + 1, RL_CLI_MAX_ALGOS);
    count = rl_cli_prepare_remote(cmd, algos + 1, count, redis, strcmp(algo_list, "all") == 0,
                                  &plan.cfg);
    size_t kept = 1;
    uint64_t most_threads = 0;
    for (size_t i = 0; i < thread_count; i++)
        most_threads = threads[i] > most_threads ? threads[i] : most_threads;
    for (size_t i = 1; i <= count; i++) {
        if (algos[i] == algos[0])
            continue;
        if (!(algos[i]->flags & RL_THREAD_SAFE) && most_threads > 1 && !unsafe) {
            if (strcmp(algo_list, "all") == 0)
                continue; /* "all" means all that can run here */
            rl_cli_usage_error(cmd,
                               "%s is not thread-safe: use --threads 1, or --unsafe to watch it "
                               "fail",
                               algos[i]->name);
        }
        void *probe = algos[i]->create(&plan.cfg, err, sizeof err);
        if (probe == NULL)
            rl_cli_usage_error(cmd, "%s: %s", algos[i]->name, err);
        algos[i]->destroy(probe);
        algos[kept++] = algos[i];
    }
    /* Redis algorithms get their own floor, the server's, in the same run. */
    const struct rl_algo *noop = rl_registry_find("redis_noop");
    bool any_remote = false, has_noop = false;
    for (size_t i = 1; i < kept; i++) {
        any_remote |= (algos[i]->flags & RL_REMOTE) != 0;
        has_noop |= algos[i] == noop;
    }
    if (noop && any_remote && !has_noop && kept < RL_CLI_MAX_ALGOS + 1) {
        memmove(algos + 2, algos + 1, (kept - 1) * sizeof *algos);
        algos[1] = noop;
        kept++;
    }
    plan.algos = algos;
    plan.algo_count = kept;
    plan.threads = threads;
    plan.thread_count = thread_count;
    plan.reps = (unsigned)reps;
    /* the chosen algorithm runs after its floors, so the last recorded run is its own */
    struct rl_event_log decisions = {0};
    if (decisions_path) {
        size_t floors = 1 + (any_remote && noop != NULL);
        if (kept > floors + 1 || thread_count != 1 || reps != 1)
            rl_cli_usage_error(cmd, "--decisions writes one run's admits: give one --algo, one "
                                    "--threads count and --reps 1");
        plan.keep_log = &decisions;
    }

    /* The clock is an experimental variable: measure it before the run. */
    struct rl_clock_report clock_report = {0};
    if (table)
        rl_clock_measure(plan.clock, &clock_report, err, sizeof err);
    size_t planned = rl_stress_plan_rows(&plan);
    struct rl_result *rows = calloc(planned, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    rl_interrupt_install();
    bool interrupted, failed;
    size_t done = rl_stress_plan_run(&plan, cmd, rows, &interrupted, &failed, err, sizeof err);

    if (table) {
        char interval[RL_DURATION_BUF_LEN], duration[RL_DURATION_BUF_LEN];
        printf("stress: L=%llu per %s, %s a run, %u reps, clock %s, %ld cpus%s\n",
               (unsigned long long)plan.cfg.limit,
               rl_format_duration_ns(plan.cfg.interval_ns, interval, sizeof interval),
               rl_format_duration_ns(plan.duration_ns, duration, sizeof duration), plan.reps,
               plan.clock, sysconf(_SC_NPROCESSORS_ONLN), plan.pin ? ", pinned" : "");
        char resolution[RL_DURATION_BUF_LEN];
        if (clock_report.name)
            printf("clock %s: %.1fns a read, resolution %s (measured at start)\n",
                   clock_report.name, clock_report.cost_ns,
                   rl_format_duration_human(clock_report.resolution_ns, resolution,
                                            sizeof resolution));
        printf("\n");
        rl_table_speed(stdout, rows, done);
        if (plan.record)
            rl_stress_plan_print_overhead(stdout, rows, done);
    }
    rl_cli_write_rows(cmd, &output, rows, done);
    if (decisions_path && decisions.len &&
        rl_event_log_write_csv(&decisions, decisions_path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    rl_event_log_free(&decisions);
    rl_cli_warn_dropped(cmd, rows, done);
    int status = rl_cli_errors_status(cmd, rows, done);
    rl_cli_warn_load(cmd, rows, done); /* last: the errors line stays first */
    free(rows);
    if (interrupted || failed) {
        fprintf(stderr, "ratelab stress: %s%s after %zu of %zu runs%s%s\n",
                failed ? "a run failed: " : "interrupted", failed ? err : "", done, planned,
                out_path ? "; the finished runs were written to " : "", out_path ? out_path : "");
        return 1;
    }
    return status;
}
