/* cmd_clocks.c — `ratelab clocks`: each clock's measured cost and resolution. */
#include "cli.h"
#include "commands.h"
#include "harness/sys/clock.h"

#include <stdio.h>

int rl_cmd_clocks(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION, {0}};
    int code;
    while ((code = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab clocks\n\n"
                   "Measures every clock source through the same handle the algorithms use:\n"
                   "mean cost of a read (2^20 reads), the resolution the source claims, and the\n"
                   "smallest nonzero step seen between consecutive reads.\n");
            return 0;
        }
        rl_cli_bad_option("clocks", code, argv);
    }
    if (optind < argc)
        rl_cli_usage_error("clocks", "unexpected argument '%s'", argv[optind]);
    printf("%-10s %12s %14s %16s\n", "clock", "ns/read", "resolution_ns", "smallest_step_ns");
    for (const char *const *name = rl_clock_names; *name; name++) {
        struct rl_clock_report report;
        char err[256];
        if (rl_clock_measure(*name, &report, err, sizeof err) != 0) {
            printf("%-10s %12s   (%s)\n", *name, "-", err);
            continue;
        }
        printf("%-10s %12.1f %14llu %16llu\n", report.name, report.cost_ns,
               (unsigned long long)report.resolution_ns,
               (unsigned long long)report.smallest_step_ns);
    }
    return 0;
}
