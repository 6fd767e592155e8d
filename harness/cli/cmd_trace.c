/* cmd_trace.c — `ratelab trace`: write a generated workload as a trace CSV. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>

int rl_cmd_trace(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_LIMITER_OPTIONS,
                                            RL_CLI_WORKLOAD_OPTIONS,
                                            {"out", required_argument, NULL, OPT_OUT},
                                            {0}};
    struct rl_config cfg;
    rl_cli_limiter_defaults(&cfg);
    struct rl_cli_workload workload = {0};
    const char *out_path = NULL;
    int code;
    while ((code = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab trace --workload W [workload options] [--limit L --interval "
                   "DUR] --out FILE\n\n"
                   "Writes the workload as CSV with header t_ns,key,n (written to a temporary\n"
                   "name and renamed). --limit and --interval only scale the defaults.\n\n%s\n%s",
                   rl_cli_workload_help, rl_cli_limiter_help);
            return 0;
        }
        if (code == OPT_OUT)
            out_path = optarg;
        else if (!rl_cli_limiter_option("trace", code, optarg, &cfg) &&
                 !rl_cli_workload_option("trace", code, optarg, &workload))
            rl_cli_bad_option("trace", code, argv);
    }
    if (optind < argc)
        rl_cli_usage_error("trace", "unexpected argument '%s'", argv[optind]);
    if (!workload.named)
        rl_cli_usage_error("trace", "--workload is required (uniform, poisson, onoff, boundary, "
                                    "flash)");
    if (out_path == NULL)
        rl_cli_usage_error("trace", "--out FILE is required");
    rl_cli_require_writable("trace", "--out", out_path);

    struct rl_workload_params params;
    struct rl_trace trace = {0};
    rl_cli_workload_build("trace", &workload, &cfg, &params, &trace);
    char err[512];
    if (rl_trace_write_csv(&trace, out_path, err, sizeof err) != 0)
        rl_cli_run_error("trace", "%s", err);
    fprintf(stderr, "wrote %zu attempts over %u keys to %s\n", trace.len, trace.key_count,
            out_path);
    rl_trace_free(&trace);
    return 0;
}
