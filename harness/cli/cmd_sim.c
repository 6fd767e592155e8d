/* cmd_sim.c — `ratelab sim`: replay a trace or workload through algorithms
 * in virtual time and check every decision. */
#include "cli.h"
#include "cmd_sim_nodes.h"
#include "commands.h"
#include "parse.h"
#include "set_rate_option.h"
#include "table.h"
#include "harness/run/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sim_help(void)
{
    printf("usage: ratelab sim --algo A[,B...|all] [--limit L --interval DUR] [--burst B]\n"
           "                   (--trace FILE | --workload W [workload options])\n"
           "                   [--unsorted] [--decisions FILE] [--expiry E] [--max-wait DUR]\n"
           "                   [--set-rate AT:L[/I],...] [--format F]\n"
           "                   [--out FILE.csv] [--redis ADDR] [--on-error admit|reject]\n\n"
           "Replays every attempt on one thread in virtual time (deterministic), one limiter\n"
           "instance per key, and checks the decisions: max admitted cost in any sliding\n"
           "window and in any aligned window against L, false admits and rejects against the\n"
           "ideal strong oracle, utilization, and whether the algorithm's promise held.\n"
           "A run streams (generator -> limiter -> checker, memory flat in the attempts:\n"
           "10^9 of them in a few MB) unless it shapes (a shaper, --max-wait), writes its\n"
           "decisions, or reads an --unsorted trace or one with max_wait_ns/cancel_ns\n"
           "columns: those hold the attempts and the log (about 60 bytes an attempt).\n\n"
           "  --algo LIST       algorithms to run (see ratelab list), or all\n"
           "  --trace FILE      a trace CSV with header t_ns,key,n\n"
           "  --unsorted        accept a trace whose times go back (as when threads read the\n"
           "                    clock, then call the limiter): decided in file order\n"
           "  --decisions FILE  write every decision (t_ns,key,n,admitted,thread); one --algo\n"
           "  --expiry E        idle keys: never (default: independent limiters), lazy or\n"
           "                    sweeper (expired after I·(1 + max(2, B/L)) idle)\n"
           "  --max-wait DUR    how long a caller waits for its release (0s to 86400s): a\n"
           "                    shaper (family shaper) rejects what it would release later\n"
           "                    (a blocking one never rejects); without it a shaper waits\n"
           "                    as long as it takes. With a shaper or --max-wait the\n"
           "                    decisions gain a release_ns column (empty for rejects) and\n"
           "                    the limit is checked on release times\n" RL_SET_RATE_HELP
           "                    (a shaper with set_rate: xrate_wait, guava_bursty,\n"
           "                    guava_warmup, gcra_spacer; every key's state at AT).\n"
           "                    The table's row is judged at --limit; judge the\n"
           "                    decisions at each rate with ratelab check --promise\n"
           "                    shape --set-rate\n"
           "\n"
           "Many nodes sharing one limit: ratelab sim --nodes N --coord NAME ... (its options:\n"
           "ratelab sim --nodes 1 --help; docs/nodes.md)\n\n"
           "%s\n%s\n%s\n%s\n%s",
           rl_cli_output_help, rl_cli_limiter_help, rl_cli_workload_help, rl_cli_remote_help,
           rl_cli_exit_help);
}

/* Everything `sim` is asked, from its options to the run: parsed once, then
 * read by every step below (no copy under another name). */
struct sim_plan {
    const char *algo_list, *trace_path, *decisions_path, *redis, *set_rate;
    struct rl_rate_change rates[RL_MAX_RATE_CHANGES]; /* --set-rate, into sim.rates */
    bool unsorted;
    struct rl_cli_output output;
    struct rl_config cfg;      /* every algorithm's; sim.c puts it in virtual time */
    struct rl_sim_options sim; /* expiry and --on-error */
    struct rl_cli_workload workload;
    const struct rl_algo *algos[RL_CLI_MAX_ALGOS];
    size_t algo_count;
    struct rl_trace trace;
    bool held;     /* the trace is in memory; a streamed workload's is not (streams_all) */
    uint64_t seed; /* the workload's; 0 for a trace file */
    struct rl_workload_params params; /* the workload's (duration_ns 0 for a trace file) */
    char trace_name[256];             /* the workload's name, or the trace file's */
};

/* The options into plan; false when --help was asked (and shown). */
static bool parse_options(const char *cmd, int argc, char **argv, struct sim_plan *plan)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_LIMITER_OPTIONS,
                                            RL_CLI_WORKLOAD_OPTIONS,
                                            {"algo", required_argument, NULL, OPT_ALGO},
                                            {"trace", required_argument, NULL, OPT_TRACE},
                                            {"unsorted", no_argument, NULL, OPT_UNSORTED},
                                            {"decisions", required_argument, NULL, OPT_DECISIONS},
                                            RL_CLI_OUTPUT_OPTIONS,
                                            {"expiry", required_argument, NULL, OPT_EXPIRY},
                                            {"max-wait", required_argument, NULL, OPT_MAX_WAIT},
                                            {"set-rate", required_argument, NULL, OPT_SET_RATE},
                                            RL_CLI_REMOTE_OPTIONS,
                                            {0}};
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            sim_help();
            return false;
        case OPT_ALGO:
            plan->algo_list = optarg;
            break;
        case OPT_TRACE:
            plan->trace_path = optarg;
            break;
        case OPT_UNSORTED:
            plan->unsorted = true;
            break;
        case OPT_DECISIONS:
            plan->decisions_path = optarg;
            break;
        case OPT_EXPIRY:
            plan->sim.expiry = rl_cli_parse_expiry(cmd, optarg);
            break;
        case OPT_MAX_WAIT: {
            char err[256];
            if (rl_parse_max_wait_ns(optarg, &plan->sim.max_wait_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--max-wait: %s", err);
            plan->sim.max_wait_set = true;
            break;
        }
        case OPT_SET_RATE:
            plan->set_rate = optarg;
            break;
        case OPT_REDIS:
            plan->redis = optarg;
            break;
        case OPT_REDIS_CLUSTER:
            rl_cli_redis_cluster_option(cmd, optarg);
            break;
        case OPT_ON_ERROR:
            plan->sim.error_admits = rl_cli_parse_on_error(cmd, optarg);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &plan->cfg) &&
                !rl_cli_workload_option(cmd, code, optarg, &plan->workload) &&
                !rl_cli_output_option(cmd, code, optarg, &plan->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return true;
}

/* Refuses, with exit 2 and before any run, options that cannot go together
 * and outputs that would overwrite an input; starts the Redis server the
 * redis_* algorithms need; refuses a configuration an algorithm refuses. */
static void check_plan(const char *cmd, struct sim_plan *plan)
{
    if (plan->algo_list == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list, or all)");
    rl_cli_output_check(cmd, &plan->output);
    if (plan->decisions_path)
        rl_cli_require_writable(cmd, "--decisions", plan->decisions_path);
    const struct rl_cli_file files[] = {{"--out", plan->output.out_path, true},
                                        {"--decisions", plan->decisions_path, true},
                                        {"--trace", plan->trace_path, false}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    if ((plan->trace_path != NULL) == plan->workload.named)
        rl_cli_usage_error(cmd, "give exactly one of --trace FILE or --workload W");
    if (plan->trace_path && plan->workload.set)
        rl_cli_usage_error(cmd, "workload options need --workload, not --trace");

    if (plan->set_rate) { /* after --interval, which an item without /I takes */
        char perr[512];
        if (rl_parse_set_rate(plan->set_rate, plan->cfg.interval_ns, plan->rates,
                              &plan->sim.rate_count, perr, sizeof perr) != 0)
            rl_cli_usage_error(cmd, "--set-rate: %s", perr);
        plan->sim.rates = plan->rates;
    }
    plan->algo_count = rl_cli_parse_algos(cmd, plan->algo_list, plan->algos, RL_CLI_MAX_ALGOS);
    if (plan->decisions_path && plan->algo_count != 1)
        rl_cli_usage_error(cmd, "--decisions writes one algorithm's decisions: give one --algo");
    plan->algo_count =
        rl_cli_prepare_remote(cmd, plan->algos, plan->algo_count, plan->redis, false, &plan->cfg);
    char err[512];
    for (size_t i = 0; i < plan->algo_count; i++) /* bad configuration is bad input: exit 2 */
        if (rl_sim_check_config(plan->algos[i], &plan->cfg, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s: %s", plan->algos[i]->name, err);
}

/* Whether algo's run streams (sim.h, rl_sim_can_stream): not when its
 * decisions are written, nor for a trace read --unsorted or with max wait
 * or cancel columns; those hold the trace and the log. */
static bool streams(const struct sim_plan *plan, const struct rl_algo *algo)
{
    return plan->decisions_path == NULL && !plan->unsorted && plan->trace.max_wait_ns == NULL &&
           plan->trace.cancel_ns == NULL && rl_sim_can_stream(algo, &plan->sim);
}

/* A workload is generated anew for each run when every algorithm streams. */
static bool streams_all(const struct sim_plan *plan)
{
    for (size_t i = 0; i < plan->algo_count; i++)
        if (!streams(plan, plan->algos[i]))
            return false;
    return true;
}

/* The attempts to replay: the trace file (a bad one is bad input) or the
 * generated workload (held only when some run needs it), and the name the
 * table and rows give them. */
static void load_trace(const char *cmd, struct sim_plan *plan)
{
    if (plan->trace_path) {
        char err[512];
        if (rl_trace_read_csv_order(plan->trace_path, plan->unsorted, &plan->trace, err,
                                    sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        const char *slash = strrchr(plan->trace_path, '/'); /* the file's name is the workload */
        snprintf(plan->trace_name, sizeof plan->trace_name, "%s",
                 slash ? slash + 1 : plan->trace_path);
        plan->held = true;
    } else {
        struct rl_workload_params *params = &plan->params;
        rl_cli_workload_build(cmd, &plan->workload, &plan->cfg, params, NULL); /* checks it */
        plan->held = !streams_all(plan) || !rl_workload_can_stream(params);
        if (plan->held)
            rl_cli_workload_build(cmd, &plan->workload, &plan->cfg, params, &plan->trace);
        snprintf(plan->trace_name, sizeof plan->trace_name, "%s", params->name);
        plan->seed = params->seed;
    }
}

/* One checked row per algorithm (and its decisions in --decisions' file);
 * a failed run is a run error, exit 1. */
static struct rl_result *run_all(const char *cmd, const struct sim_plan *plan)
{
    struct rl_result *rows = calloc(plan->algo_count, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    char err[512];
    for (size_t i = 0; i < plan->algo_count; i++) {
        const struct rl_algo *algo = plan->algos[i];
        rl_cli_progress("sim: %zu/%zu %s", i + 1, plan->algo_count, algo->name);
        if (streams(plan, algo)) {
            if (rl_measure_sim_stream(algo, &plan->cfg, &plan->sim, &plan->params,
                                      plan->held ? &plan->trace : NULL, plan->trace_name,
                                      plan->seed, &rows[i], err, sizeof err) != 0)
                rl_cli_run_error(cmd, "%s: %s", algo->name, err);
            continue;
        }
        struct rl_event_log log;
        int rc =
            rl_measure_sim(algo, &plan->cfg, &plan->sim, &plan->trace, plan->trace_name, plan->seed,
                           &rows[i], plan->decisions_path ? &log : NULL, err, sizeof err);
        if (rc == -2) /* cancellations or --set-rate: bad input, nothing written yet */
            rl_cli_usage_error(cmd, "%s: %s", algo->name, err);
        if (rc != 0)
            rl_cli_run_error(cmd, "%s: %s", algo->name, err);
        if (plan->decisions_path) {
            if (rl_event_log_write_csv(&log, plan->decisions_path, err, sizeof err) != 0)
                rl_cli_run_error(cmd, "%s", err);
            rl_event_log_free(&log);
        }
    }
    rl_cli_progress_done();
    return rows;
}

/* The table's heading: the configuration and what was replayed, with the
 * rate each key was offered beside the limit (--rate is a total). */
static void print_heading(const struct sim_plan *plan, const struct rl_result *rows)
{
    char interval[RL_DURATION_BUF_LEN], shown[1024], offered[192];
    /* a streamed workload's count and keys, as its held trace would have them */
    struct rl_trace streamed = {.len = plan->algo_count ? rows[0].attempts : 0,
                                .key_count = plan->params.keys};
    const struct rl_trace *trace = plan->held ? &plan->trace : &streamed;
    printf("sim: L=%llu per %s, %s: %zu attempts over %u key%s%s\n\n",
           (unsigned long long)plan->cfg.limit,
           rl_format_duration_ns(plan->cfg.interval_ns, interval, sizeof interval),
           rl_table_text(shown, sizeof shown, plan->trace_name), trace->len, trace->key_count,
           trace->key_count == 1 ? "" : "s",
           rl_cli_offered_text(offered, sizeof offered, trace,
                               rl_cli_trace_span_ns(trace, plan->params.duration_ns), 1.0,
                               plan->trace_path ? NULL : &plan->params, &plan->cfg));
}

int rl_cmd_sim(int argc, char **argv)
{
    const char *cmd = "sim";
    if (rl_sim_wants_nodes(argc, argv))
        return rl_cmd_sim_nodes(argc, argv);
    struct sim_plan plan = {.output = {.format = RL_FORMAT_TABLE},
                            .sim = {.expiry = RL_EXPIRE_NEVER}};
    rl_cli_limiter_defaults(&plan.cfg);
    if (!parse_options(cmd, argc, argv, &plan))
        return 0;
    check_plan(cmd, &plan);
    load_trace(cmd, &plan);
    struct rl_result *rows = run_all(cmd, &plan);
    if (rl_cli_output_view(&plan.output) == RL_FORMAT_TABLE) {
        print_heading(&plan, rows);
        rl_table_accuracy(stdout, rows, plan.algo_count);
    }
    rl_cli_write_rows(cmd, &plan.output, rows, plan.algo_count);
    int status = rl_cli_errors_status(cmd, rows, plan.algo_count);
    free(rows);
    rl_trace_free(&plan.trace);
    return status;
}
