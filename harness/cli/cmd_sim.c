/* cmd_sim.c — `ratelab sim`: replay a trace or workload through algorithms
 * in virtual time and check every decision. */
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "table.h"
#include "harness/run/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sim_help(void)
{
    printf("usage: ratelab sim --algo A[,B...|all] [--limit L --interval DUR] [--burst B]\n"
           "                   (--trace FILE | --workload W [workload options])\n"
           "                   [--unsorted] [--decisions FILE] [--expiry E] [--format F]\n"
           "                   [--out FILE.csv] [--redis ADDR] [--on-error admit|reject]\n\n"
           "Replays every attempt on one thread in virtual time (deterministic), one limiter\n"
           "instance per key, and checks the decisions: max admitted cost in any sliding\n"
           "window and in any aligned window against L, false admits and rejects against the\n"
           "ideal strong oracle, utilization, and whether the algorithm's promise held.\n\n"
           "  --algo LIST       algorithms to run (see ratelab list), or all\n"
           "  --trace FILE      a trace CSV with header t_ns,key,n\n"
           "  --unsorted        accept a trace whose times go back (as when threads read the\n"
           "                    clock, then call the limiter): decided in file order\n"
           "  --decisions FILE  write every decision (t_ns,key,n,admitted,thread); one --algo\n"
           "  --expiry E        idle keys: never (default: independent limiters), lazy or\n"
           "                    sweeper (expired after I·(1 + max(2, B/L)) idle)\n"
           "%s\n%s\n%s\n%s\n%s",
           rl_cli_output_help, rl_cli_limiter_help, rl_cli_workload_help, rl_cli_remote_help,
           rl_cli_exit_help);
}

int rl_cmd_sim(int argc, char **argv)
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
                                            RL_CLI_REMOTE_OPTIONS,
                                            {0}};
    const char *cmd = "sim", *algo_list = NULL, *trace_path = NULL, *decisions_path = NULL;
    struct rl_cli_output output = {.format = RL_FORMAT_TABLE};
    bool unsorted = false;
    struct rl_sim_options sim_options = {.expiry = RL_EXPIRE_NEVER};
    const char *redis = NULL;
    struct rl_config cfg;
    rl_cli_limiter_defaults(&cfg);
    struct rl_cli_workload workload = {0};
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            sim_help();
            return 0;
        case OPT_ALGO:
            algo_list = optarg;
            break;
        case OPT_TRACE:
            trace_path = optarg;
            break;
        case OPT_UNSORTED:
            unsorted = true;
            break;
        case OPT_DECISIONS:
            decisions_path = optarg;
            break;
        case OPT_EXPIRY:
            sim_options.expiry = rl_cli_parse_expiry(cmd, optarg);
            break;
        case OPT_REDIS:
            redis = optarg;
            break;
        case OPT_ON_ERROR:
            sim_options.error_admits = rl_cli_parse_on_error(cmd, optarg);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &cfg) &&
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
    if (decisions_path)
        rl_cli_require_writable(cmd, "--decisions", decisions_path);
    const struct rl_cli_file files[] = {{"--out", output.out_path, true},
                                        {"--decisions", decisions_path, true},
                                        {"--trace", trace_path, false}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    if ((trace_path != NULL) == workload.named)
        rl_cli_usage_error(cmd, "give exactly one of --trace FILE or --workload W");
    if (trace_path && workload.set)
        rl_cli_usage_error(cmd, "workload options need --workload, not --trace");

    const struct rl_algo *algos[RL_CLI_MAX_ALGOS];
    size_t algo_count = rl_cli_parse_algos(cmd, algo_list, algos, RL_CLI_MAX_ALGOS);
    if (decisions_path && algo_count != 1)
        rl_cli_usage_error(cmd, "--decisions writes one algorithm's decisions: give one --algo");

    char err[512];
    algo_count = rl_cli_prepare_remote(cmd, algos, algo_count, redis, false, &cfg);
    cfg.virtual_time = true;
    for (size_t i = 0; i < algo_count; i++) { /* bad configuration is bad input: exit 2 */
        void *probe = algos[i]->create(&cfg, err, sizeof err);
        if (probe == NULL)
            rl_cli_usage_error(cmd, "%s: %s", algos[i]->name, err);
        algos[i]->destroy(probe);
    }

    struct rl_trace trace = {0};
    struct rl_workload_params params = {.seed = 0};
    char trace_name[256];
    if (trace_path) {
        if (rl_trace_read_csv_order(trace_path, unsorted, &trace, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        const char *slash = strrchr(trace_path, '/'); /* the file's name is the workload */
        snprintf(trace_name, sizeof trace_name, "%s", slash ? slash + 1 : trace_path);
    } else {
        rl_cli_workload_build(cmd, &workload, &cfg, &params, &trace);
        snprintf(trace_name, sizeof trace_name, "%s", params.name);
    }

    struct rl_result *rows = calloc(algo_count, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    for (size_t i = 0; i < algo_count; i++) {
        rl_cli_progress("sim: %zu/%zu %s", i + 1, algo_count, algos[i]->name);
        struct rl_event_log log;
        if (rl_measure_sim(algos[i], &cfg, &sim_options, &trace, trace_name, params.seed, &rows[i],
                           decisions_path ? &log : NULL, err, sizeof err) != 0)
            rl_cli_run_error(cmd, "%s: %s", algos[i]->name, err);
        if (decisions_path) {
            if (rl_event_log_write_csv(&log, decisions_path, err, sizeof err) != 0)
                rl_cli_run_error(cmd, "%s", err);
            rl_event_log_free(&log);
        }
    }
    rl_cli_progress_done();

    if (rl_cli_output_view(&output) == RL_FORMAT_TABLE) {
        char interval[RL_DURATION_BUF_LEN], shown[1024];
        printf("sim: L=%llu per %s, %s: %zu attempts over %u key%s\n\n",
               (unsigned long long)cfg.limit,
               rl_format_duration_ns(cfg.interval_ns, interval, sizeof interval),
               rl_table_text(shown, sizeof shown, trace_name), trace.len, trace.key_count,
               trace.key_count == 1 ? "" : "s");
        rl_table_accuracy(stdout, rows, algo_count);
    }
    rl_cli_write_rows(cmd, &output, rows, algo_count);
    int status = rl_cli_errors_status(cmd, rows, algo_count);
    free(rows);
    rl_trace_free(&trace);
    return status;
}
