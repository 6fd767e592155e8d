/* cmd_trace.c — `ratelab trace`: write a generated workload as a trace CSV. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

int rl_cmd_trace(int argc, char **argv)
{
    /* --burst and --slots build no trace: they are not in --help, but still
     * accepted, so that a script can pass one limiter's options to trace and
     * sim alike (tests/conformance/gen_traces.sh does). */
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_LIMITER_OPTIONS,
                                            RL_CLI_WORKLOAD_OPTIONS,
                                            {"out", required_argument, NULL, OPT_OUT},
                                            {0}};
    const char *cmd = "trace";
    struct rl_config cfg;
    rl_cli_limiter_defaults(&cfg);
    struct rl_cli_workload workload = {0};
    const char *out_path = NULL;
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab trace --workload W [workload options] [--limit L --interval "
                   "DUR]\n"
                   "                     --out FILE\n\n"
                   "Writes the workload as CSV with header t_ns,key,n: to FILE under a temporary\n"
                   "name, then renamed, or to standard output with --out -. A line on stderr\n"
                   "says how many attempts were written. Each option with a value is given\n"
                   "once (a repeat: exit 2).\n\n%s\n%s",
                   rl_cli_workload_help, rl_cli_trace_window_help);
            return 0;
        }
        if (code == OPT_OUT)
            out_path = optarg;
        else if (!rl_cli_limiter_option(cmd, code, optarg, &cfg) &&
                 !rl_cli_workload_option(cmd, code, optarg, &workload))
            rl_cli_bad_option(cmd, code, argv);
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!workload.named)
        rl_cli_usage_error(cmd, "--workload is required (uniform, poisson, onoff, boundary, "
                                "flash)");
    if (out_path == NULL)
        rl_cli_usage_error(cmd, "--out FILE is required (- for standard output)");
    rl_cli_require_writable(cmd, "--out", out_path);

    struct rl_workload_params params;
    struct rl_trace trace = {0};
    rl_cli_workload_build(cmd, &workload, &cfg, &params, &trace);
    char err[512];
    if (rl_trace_write_csv(&trace, out_path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    /* The rate each key is offered, after the file's name: --rate is a total. */
    char offered[192];
    rl_cli_offered_text(offered, sizeof offered, &trace, params.duration_ns, 1.0, &params, &cfg);
    fprintf(stderr, "wrote %zu attempts over %u key%s to %s%s\n", trace.len, trace.key_count,
            trace.key_count == 1 ? "" : "s",
            strcmp(out_path, "-") == 0 ? "standard output" : out_path, offered);
    rl_trace_free(&trace);
    return 0;
}
