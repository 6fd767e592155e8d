/* cmd_clocks.c — `ratelab clocks`: each clock's measured cost and resolution. */
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "harness/sys/build_info.h"
#include "harness/sys/clock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_CLOCKS 16

struct measured {
    struct rl_clock_report report[MAX_CLOCKS];
    char err[MAX_CLOCKS][256]; /* "" when measured */
    size_t count;
    struct rl_context ctx;
};

/* clock,ns_per_read,resolution_ns,smallest_step_ns,error and the host's
 * context (results/README.md, clocks). */
static const char *const columns[] = {"clock", "ns_per_read", "resolution_ns", "smallest_step_ns",
                                      "error", "host",        "cpu_model",     "git_rev",
                                      "date",  NULL};

static void fill(struct rl_cli_sheet *s, const void *data)
{
    const struct measured *m = data;
    for (size_t i = 0; i < m->count; i++) {
        const struct rl_clock_report *r = &m->report[i];
        bool ok = m->err[i][0] == '\0';
        rl_cli_sheet_text(s, rl_clock_names[i]);
        rl_cli_sheet_real(s, ok ? r->cost_ns : NAN);
        if (ok) {
            rl_cli_sheet_u64(s, r->resolution_ns);
            rl_cli_sheet_u64(s, r->smallest_step_ns);
            rl_cli_sheet_empty(s);
        } else {
            rl_cli_sheet_empty(s);
            rl_cli_sheet_empty(s);
            rl_cli_sheet_text(s, m->err[i]);
        }
        rl_cli_sheet_text(s, m->ctx.host);
        rl_cli_sheet_text(s, m->ctx.cpu_model);
        rl_cli_sheet_text(s, m->ctx.git_rev);
        rl_cli_sheet_text(s, m->ctx.date);
    }
}

int rl_cmd_clocks(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION, RL_CLI_OUTPUT_OPTIONS, {0}};
    const char *cmd = "clocks";
    struct rl_cli_output output = {.format = RL_FORMAT_TABLE};
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab clocks [--format F] [--out FILE.csv]\n\n"
                   "Measures every clock source through the same handle the algorithms use:\n"
                   "mean cost of a read (2^20 reads), the resolution the source claims, and the\n"
                   "smallest nonzero step seen between consecutive reads.\n\n%s",
                   rl_cli_output_help);
            return 0;
        }
        if (!rl_cli_output_option(cmd, code, optarg, &output))
            rl_cli_bad_option(cmd, code, argv);
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    rl_cli_output_check(cmd, &output);

    static struct measured m;
    rl_context_init(&m.ctx);
    for (const char *const *name = rl_clock_names; *name && m.count < MAX_CLOCKS; name++) {
        size_t i = m.count++;
        if (rl_clock_measure(*name, &m.report[i], m.err[i], sizeof m.err[i]) == 0)
            m.err[i][0] = '\0';
        else if (m.err[i][0] == '\0')
            snprintf(m.err[i], sizeof m.err[i], "cannot be read here");
    }
    if (rl_cli_output_view(&output) == RL_FORMAT_TABLE) {
        printf("%-10s %12s %14s %16s\n", "clock", "ns/read", "resolution", "smallest_step");
        for (size_t i = 0; i < m.count; i++) {
            const struct rl_clock_report *r = &m.report[i];
            if (m.err[i][0] != '\0') {
                printf("%-10s %12s   (%s)\n", rl_clock_names[i], "-", m.err[i]);
                continue;
            }
            char resolution[RL_DURATION_BUF_LEN], step[RL_DURATION_BUF_LEN];
            printf("%-10s %12.1f %14s %16s\n", rl_clock_names[i], r->cost_ns,
                   rl_format_duration_human(r->resolution_ns, resolution, sizeof resolution),
                   rl_format_duration_human(r->smallest_step_ns, step, sizeof step));
        }
        printf("\nns/read: the mean cost of one read, in ns, over 2^20 reads; resolution: what\n"
               "the source claims (clock_getres, or the tick length); smallest_step: the smallest\n"
               "nonzero difference seen between consecutive reads.\n");
    }
    rl_cli_write_sheet(cmd, &output, columns, fill, &m);
    return 0;
}
