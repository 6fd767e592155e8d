/* test_stress_history_cli.c — `ratelab stress --history`: the cost of
 * recording printed beside the plain and --record runs, a history file the
 * checker takes (streamed), and what it refuses with exit 2 and no file. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_records_and_checks(void)
{
    char dir[] = "/tmp/ratelab-sh-XXXXXX", path[64], cmd[512];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/h.csv", dir);
    static struct rl_cli_outcome o;
    snprintf(cmd, sizeof cmd,
             "stress --algo tb_cas --threads 2 --duration 20ms --limit 10 --interval 1ms "
             "--history %s --history-max 2000",
             path);
    rl_cli_run(&o, cmd);
    EXPECT_FATAL(o.status == 0, "exit %d: %s", o.status, o.err);
    EXPECT(strstr(o.out, "  plain ") && strstr(o.out, "  --record ") &&
               strstr(o.out, "  --history "),
           "no cost table:\n%s", o.out);
    EXPECT(strstr(o.out, "history: "), "%s", o.out);
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 10 --interval 1ms --events %s", path);
    rl_cli_run(&o, cmd);
    EXPECT(o.status == 0 && strstr(o.out, "verdict          linearizable"), "exit %d:\n%s%s",
           o.status, o.out, o.err);

    static const char *const refused[][2] = {
        {"--algo tb_cas --threads 1,2", "one --threads"},
        {"--algo gcra_spacer --threads 2", "shaper"},
        {"--algo concurrency --threads 2", "needs release"},
        {"--algo tb_cas --threads 2 --client-skew 1ms", "--client-skew"},
        {"--algo tb_cas --threads 2 --record", "--record"},
        {"--algo tb_cas,fw_cas --threads 2", "one --algo"},
        {"--algo tb_cas --threads 2 --history-max 0", "--history-max"},
    };
    unlink(path);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(cmd, sizeof cmd, "stress %s --duration 10ms --history %s", refused[i][0], path);
        rl_cli_expect_usage_error(cmd, refused[i][1]);
        EXPECT(access(path, F_OK) != 0, "%s wrote %s", cmd, path);
    }
    rmdir(dir);
}

RL_TEST_SUITE("stress_history_cli", {"records, checks, refuses", test_records_and_checks})
