/* cmd_replay.c — `ratelab replay`: send a trace or workload open loop from
 * T threads, at its own times on the wall clock, and report decision
 * latency from the due time together with the accuracy of every decision. */
#include "harness/sys/cpus.h"
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "table.h"
#include "harness/run/replay_plan.h"
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
           "                      [--redis ADDR | --redis-cluster C [--fault SPEC]]\n"
           "                      [--wait-replicas N] [--on-error admit|reject]\n"
           "                      [--out FILE.csv] [--latency-out FILE.csv]\n"
           "                      [--decisions FILE.csv] [--format F] [--max-wait DUR]\n\n"
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
           "  --trace FILE      a trace CSV with header t_ns,key,n (for shapers also\n"
           "                    t_ns,key,n,max_wait_ns[,cancel_ns]: each attempt's max wait\n"
           "                    and the trace time its reservation is cancelled at)\n"
           "  --max-wait DUR    shapers (family shaper): how long a caller waits for its\n"
           "                    release where the trace gives no max wait (0s to 86400s;\n"
           "                    default: as long as it takes). The sending thread sleeps\n"
           "                    until the release on the run's clock (more threads keep\n"
           "                    arrivals on time); the log adds release_ns (the promise),\n"
           "                    woke_ns (the wake-up) and cancel_ns; the timer's overshoot\n"
           "                    (woke - release) is printed and in the rows, the harness's\n"
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
           "                    check; one --algo, one thread count and --reps 1. A\n"
           "                    shaper's attempts are stamped at arrival, before the call\n"
           "%s\n"
           "%s\n%s\n%s\n%s%s\n%s",
           rl_cli_output_help, rl_cli_load_help, rl_cli_limiter_help, rl_cli_workload_help,
           rl_cli_remote_help, rl_cli_fault_help, rl_cli_exit_help);
}

/* The header line and the latency table. */
static void print_table(const struct rl_replay_params *p, const char *trace_name,
                        const struct rl_workload_params *generated, const uint64_t *threads,
                        size_t thread_count, const struct rl_result *rows, size_t count)
{
    char interval[RL_DURATION_BUF_LEN], shown[1024], offered[192];
    const struct rl_trace *trace = p->trace;
    double last_s = trace->len ? (double)trace->attempts[trace->len - 1].t_ns / 1e9 : 0;
    char thread_list[MAX_THREAD_COUNTS * 6] = "";
    for (size_t t = 0, used = 0; t < thread_count && used < sizeof thread_list; t++)
        used += (size_t)snprintf(thread_list + used, sizeof thread_list - used, "%s%llu",
                                 t ? "," : "", (unsigned long long)threads[t]);
    bool one = thread_count == 1 && threads[0] == 1;
    /* The rates offered in real time: --speed sends the trace that much faster. */
    printf("replay: L=%llu per %s, %s: %zu attempts over %u key%s%s due within %.3f s, "
           "%s thread%s, speed %g, clock %s, %ld cpus\n\n",
           (unsigned long long)p->cfg.limit,
           rl_format_duration_ns(p->cfg.interval_ns, interval, sizeof interval),
           rl_table_text(shown, sizeof shown, trace_name), trace->len, trace->key_count,
           trace->key_count == 1 ? "" : "s",
           rl_cli_offered_text(offered, sizeof offered, trace,
                               rl_cli_trace_span_ns(trace, generated ? generated->duration_ns : 0),
                               p->speed, generated, &p->cfg),
           last_s / p->speed, thread_list, one ? "" : "s", p->speed, p->clock, rl_cpu_count());
    rl_table_replay(stdout, rows, count);
    bool any = false;
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *r = &rows[i];
        if (!r->has_overshoot)
            continue;
        if (!any)
            printf("\ntimer overshoot (woke - release, the harness's, not the limiter's):\n");
        any = true;
        printf("  %s x%u rep %u: p50 %llu ns, p99 %llu ns, max %llu ns", r->algo->name, r->threads,
               r->rep, (unsigned long long)r->overshoot_p50_ns,
               (unsigned long long)r->overshoot_p99_ns, (unsigned long long)r->overshoot_max_ns);
        if (r->cancels_missed)
            printf("; %llu cancellations found nothing to cancel (a reject, or released first)",
                   (unsigned long long)r->cancels_missed);
        printf("\n");
    }
}

/* What the options say: the plan's shared run and grid, the trace or
 * workload, and what the CLI itself needs (the names, the outputs). */
struct replay_options {
    const char *algo_list, *trace_path, *latency_path, *decisions_path, *redis;
    uint64_t threads[MAX_THREAD_COUNTS], reps;
    struct rl_cli_output output;
    struct rl_cli_workload workload;
    struct rl_workload_params generated; /* from --workload (name NULL for --trace) */
    struct rl_replay_plan plan;
};

/* The options `ratelab replay` takes (--help lists them). */
static const struct option options[] = {RL_CLI_HELP_OPTION,
                                        RL_CLI_LIMITER_OPTIONS,
                                        RL_CLI_WORKLOAD_OPTIONS,
                                        RL_CLI_REMOTE_OPTIONS,
                                        {"fault", required_argument, NULL, OPT_FAULT},
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
                                        {"max-wait", required_argument, NULL, OPT_MAX_WAIT},
                                        {0}};

/* One case per option, so this reads as the option list; checks that need
 * every option come after it. False when --help was answered. */
static bool parse_options(int argc, char **argv, struct replay_options *o)
{
    const char *cmd = "replay";
    struct rl_replay_params *run = &o->plan.run;
    char err[512];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            replay_help();
            return false;
        case OPT_ALGO:
            o->algo_list = optarg;
            break;
        case OPT_TRACE:
            o->trace_path = optarg;
            break;
        case OPT_THREADS:
            if (rl_parse_u64_list(optarg, 1, 1024, o->threads, MAX_THREAD_COUNTS,
                                  &o->plan.thread_count, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--threads: %s", err);
            break;
        case OPT_SPEED:
            if (rl_parse_double(optarg, 0.0, &run->speed, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--speed: %s", err);
            break;
        case OPT_CLOCK:
            run->clock = optarg;
            break;
        case OPT_REPS:
            if (rl_parse_u64(optarg, 1, 1000, &o->reps, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--reps: %s", err);
            break;
        case OPT_EXPIRY:
            run->expiry = rl_cli_parse_expiry(cmd, optarg);
            break;
        case OPT_CLIENT_SKEW:
            if (rl_parse_duration_ns(optarg, &run->client_skew_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--client-skew: %s", err);
            break;
        case OPT_REDIS:
            o->redis = optarg;
            break;
        case OPT_REDIS_CLUSTER:
            rl_cli_redis_cluster_option(cmd, optarg);
            break;
        case OPT_FAULT:
            rl_cli_fault_option(cmd, optarg);
            break;
        case OPT_ON_ERROR:
            run->error_admits = rl_cli_parse_on_error(cmd, optarg);
            break;
        case OPT_LATENCY_OUT:
            o->latency_path = optarg;
            break;
        case OPT_MAX_WAIT:
            if (rl_parse_max_wait_ns(optarg, &run->max_wait_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--max-wait: %s", err);
            break;
        case OPT_DECISIONS:
            o->decisions_path = optarg;
            o->plan.keep_decisions = true;
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &run->cfg) &&
                !rl_cli_workload_option(cmd, code, optarg, &o->workload) &&
                !rl_cli_output_option(cmd, code, optarg, &o->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (o->algo_list == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list, or all)");
    return true;
}

/* Names to algorithms (the CLI's job: the list, Redis), then the plan
 * prepares itself: clock, checks, the --decisions rule. */
static void prepare_plan(struct replay_options *o, const struct rl_algo **algos)
{
    const char *cmd = "replay";
    bool all = strcmp(o->algo_list, "all") == 0;
    size_t count = rl_cli_parse_algos(cmd, o->algo_list, algos, RL_CLI_MAX_ALGOS);
    count = rl_cli_prepare_remote(cmd, algos, count, o->redis, all, &o->plan.run.cfg);
    o->plan.faults = rl_cli_faults();
    o->plan.cluster = rl_cli_cluster();
    o->plan.threads = o->threads;
    o->plan.reps = (unsigned)o->reps;
    char err[512];
    if (rl_replay_plan_prepare(&o->plan, algos, count, all, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
}

/* The trace from --trace FILE (named after the file) or generated from
 * --workload; exits 2 when it cannot be read or has no attempts. */
static void load_trace(struct replay_options *o, struct rl_trace *trace, char *name,
                       size_t name_len)
{
    const char *cmd = "replay";
    struct rl_workload_params *generated = &o->generated;
    char err[512];
    if (o->trace_path) {
        if (rl_trace_read_csv(o->trace_path, trace, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        for (size_t i = 0; trace->cancel_ns && i < o->plan.algo_count; i++)
            if (o->plan.algos[i]->cancel == NULL)
                rl_cli_usage_error(cmd,
                                   "%s: the trace cancels reservations, and %s cannot "
                                   "cancel one",
                                   o->trace_path, o->plan.algos[i]->name);
        const char *slash = strrchr(o->trace_path, '/'); /* the file's name is the workload */
        snprintf(name, name_len, "%s", slash ? slash + 1 : o->trace_path);
    } else {
        rl_cli_workload_build(cmd, &o->workload, &o->plan.run.cfg, generated, trace);
        snprintf(name, name_len, "%s", generated->name);
    }
    if (trace->len == 0)
        rl_cli_usage_error(cmd, "the trace has no attempts");
    if (rl_replay_check_trace(trace, o->plan.run.speed, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    o->plan.run.trace = trace;
    o->plan.workload = name;
    o->plan.seed = generated->seed;
}

/* The table (table view only), the rows, the latency distributions and the
 * decisions; returns the exit status the rows call for. */
static int report(struct replay_options *o, const struct rl_result *rows, size_t done)
{
    const char *cmd = "replay";
    const struct rl_replay_plan *plan = &o->plan;
    if (rl_cli_output_view(&o->output) == RL_FORMAT_TABLE)
        print_table(&plan->run, plan->workload, o->generated.name ? &o->generated : NULL,
                    plan->threads, plan->thread_count, rows, done);
    rl_cli_write_rows(cmd, &o->output, rows, done);
    char err[512];
    if (o->latency_path &&
        rl_latency_cdf_write(o->latency_path, rows, plan->cdfs, done, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    if (o->decisions_path && done == 1 &&
        rl_event_log_write_csv(&plan->decisions, o->decisions_path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    int status = rl_cli_errors_status(cmd, rows, done);
    rl_cli_warn_load(cmd, rows, done); /* last: the errors line stays first */
    return status;
}

/* options → plan → trace → run → print. */
int rl_cmd_replay(int argc, char **argv)
{
    const char *cmd = "replay";
    struct replay_options o = {
        .threads = {1},
        .reps = 1,
        .output = {.format = RL_FORMAT_TABLE},
        .plan = {.thread_count = 1,
                 .run = {.speed = 1.0, .clock = "monotonic", .max_wait_ns = UINT64_MAX},
                 .progress = rl_cli_progress_line}};
    rl_cli_limiter_defaults(&o.plan.run.cfg);
    if (!parse_options(argc, argv, &o))
        return 0; /* --help */
    /* Checks across options (the outputs), before anything is prepared. */
    rl_cli_output_check(cmd, &o.output);
    if (o.latency_path)
        rl_cli_require_writable(cmd, "--latency-out", o.latency_path);
    if (o.decisions_path)
        rl_cli_require_writable(cmd, "--decisions", o.decisions_path);
    const struct rl_cli_file files[] = {{"--out", o.output.out_path, true},
                                        {"--latency-out", o.latency_path, true},
                                        {"--decisions", o.decisions_path, true},
                                        {"--trace", o.trace_path, false}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    if ((o.trace_path != NULL) == o.workload.named)
        rl_cli_usage_error(cmd, "give exactly one of --trace FILE or --workload W");
    if (o.trace_path && o.workload.set)
        rl_cli_usage_error(cmd, "workload options need --workload, not --trace");

    const struct rl_algo *algos[RL_CLI_MAX_ALGOS];
    prepare_plan(&o, algos);
    struct rl_trace trace = {0};
    char trace_name[256];
    load_trace(&o, &trace, trace_name, sizeof trace_name);
    size_t planned = rl_replay_plan_rows(&o.plan);
    struct rl_result *rows = calloc(planned, sizeof *rows);
    o.plan.cdfs = o.latency_path ? calloc(planned, sizeof *o.plan.cdfs) : NULL;
    if (rows == NULL || (o.latency_path && o.plan.cdfs == NULL))
        rl_cli_run_error(cmd, "out of memory");
    rl_interrupt_install();
    bool failed;
    char err[512];
    size_t done = rl_replay_plan_run(&o.plan, cmd, rows, &failed, err, sizeof err);
    bool interrupted = rl_interrupted != 0;
    int status = report(&o, rows, done);
    rl_replay_plan_free(&o.plan);
    free(o.plan.cdfs);
    free(rows);
    rl_trace_free(&trace);
    if (interrupted || failed) {
        const char *out_path = o.output.out_path;
        fprintf(stderr, "ratelab replay: %s%s after %zu of %zu runs%s%s\n",
                interrupted ? "interrupted" : "a run failed: ", interrupted ? "" : err, done,
                planned, out_path ? "; the finished runs were written to " : "",
                out_path ? out_path : "");
        return 1;
    }
    return status;
}
