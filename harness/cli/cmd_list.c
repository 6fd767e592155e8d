/* cmd_list.c — `ratelab list`: one algorithm per line, its name first. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What the baselines of promise none do in sim, where they sit beside
 * limiters in the same table: their decisions are not a limit. */
static const char none_legend[] =
    "none: baselines that promise nothing. In sim (one instance per key) null and\n"
    "redis_noop admit every attempt; faa and clock_faa admit each key's first L of\n"
    "cost and reject every later attempt (their count never refills); held is n/a.\n";

/* Where an algorithm runs, as the list says it. */
static const char *runs(const struct rl_algo *a)
{
    return (a->flags & RL_REMOTE)        ? "remote"
           : (a->flags & RL_THREAD_SAFE) ? "thread-safe"
                                         : "one-thread";
}

/* name,family,promise,runs,orders,summary (results/README.md, list). */
static const char *const columns[] = {"name",   "family",  "promise", "runs",
                                      "orders", "summary", NULL};

static void fill(struct rl_cli_sheet *s, const void *data)
{
    (void)data;
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        rl_cli_sheet_text(s, (*a)->name);
        rl_cli_sheet_text(s, (*a)->family);
        rl_cli_sheet_text(s, rl_promise_name((*a)->promise));
        rl_cli_sheet_text(s, runs(*a));
        rl_cli_sheet_text(s, (*a)->orders ? (*a)->orders : "");
        rl_cli_sheet_text(s, (*a)->summary);
    }
}

int rl_cmd_list(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION, RL_CLI_OUTPUT_OPTIONS, {0}};
    const char *cmd = "list";
    struct rl_cli_output output = {.format = RL_FORMAT_TABLE};
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab list [--format F] [--out FILE.csv]\n\n"
                   "One algorithm per line: name, family, promise, where it runs (thread-safe,\n"
                   "one-thread, or remote: on a Redis server), summary. The table has no header,\n"
                   "and no footer unless standard output is a terminal, so that a script can\n"
                   "take the first word of every line; csv and json add the memory orders each\n"
                   "algorithm uses (orders).\n"
                   "Promises: strong (≤ L in every sliding window), weak (≤ L in every\n"
                   "epoch-aligned window), window (≤ L in each of its own windows, so ≤ 2L\n"
                   "sliding), bucket (≤ B + L sliding), concurrency (≤ L in flight), approx,\n"
                   "none.\n%s"
                   "At a terminal, the table is followed by that paragraph.\n\n%s",
                   none_legend, rl_cli_output_help);
            return 0;
        }
        if (!rl_cli_output_option(cmd, code, optarg, &output))
            rl_cli_bad_option(cmd, code, argv);
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    rl_cli_output_check(cmd, &output);
    if (rl_cli_output_view(&output) == RL_FORMAT_TABLE) {
        int width = 0;
        for (const struct rl_algo *const *a = rl_registry; *a; a++)
            width = (int)strlen((*a)->name) > width ? (int)strlen((*a)->name) : width;
        for (const struct rl_algo *const *a = rl_registry; *a; a++)
            printf("%-*s %-16s %-11s %-11s %s\n", width, (*a)->name, (*a)->family,
                   rl_promise_name((*a)->promise), runs(*a), (*a)->summary);
        /* For a person only: a script's lines each start with a name. */
        if (isatty(STDOUT_FILENO))
            printf("\n%s", none_legend);
    }
    rl_cli_write_sheet(cmd, &output, columns, fill, NULL);
    return 0;
}
