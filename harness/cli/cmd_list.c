/* cmd_list.c — `ratelab list`: one algorithm per line, its name first. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

int rl_cmd_list(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION, {0}};
    int code;
    while ((code = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab list\n\n"
                   "One algorithm per line: name, family, promise, where it runs (thread-safe,\n"
                   "one-thread, or remote: on a Redis server), summary.\n"
                   "Promises: strong (≤ L in every sliding window), weak (≤ L in every\n"
                   "epoch-aligned window), window (≤ L in each of its own windows, so ≤ 2L\n"
                   "sliding), bucket (≤ B + L sliding), approx, none.\n");
            return 0;
        }
        rl_cli_bad_option("list", code, argv);
    }
    if (optind < argc)
        rl_cli_usage_error("list", "unexpected argument '%s'", argv[optind]);
    int width = 0;
    for (const struct rl_algo *const *a = rl_registry; *a; a++)
        width = (int)strlen((*a)->name) > width ? (int)strlen((*a)->name) : width;
    for (const struct rl_algo *const *a = rl_registry; *a; a++)
        printf("%-*s %-16s %-11s %-11s %s\n", width, (*a)->name, (*a)->family,
               rl_promise_name((*a)->promise),
               ((*a)->flags & RL_REMOTE)        ? "remote"
               : ((*a)->flags & RL_THREAD_SAFE) ? "thread-safe"
                                                : "one-thread",
               (*a)->summary);
    return 0;
}
