/* test_stress_history_cli.c — `ratelab stress --history`: the cost of
 * recording printed beside the plain and --record runs, a history file the
 * checker takes (streamed), and what it refuses with exit 2 and no file. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdbool.h>
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

/* path's text with the first line starting with `from` replaced by to
 * (written to out); false when no line starts so. */
static bool rewrite_line(const char *path, const char *from, const char *to, const char *out)
{
    static char text[8 << 20];
    rl_cli_slurp(path, text, sizeof text);
    char *at = strstr(text, from);
    if (at == NULL || (at != text && at[-1] != '\n'))
        return false;
    char *end = strchr(at, '\n');
    FILE *f = fopen(out, "w");
    EXPECT_FATAL(f != NULL, "%s", out);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(to, f);
    fputs(end ? end : "\n", f);
    fclose(f);
    return true;
}

/* stress --history-windows: a file of 2 windows, each after its line with
 * its start and state, every thread's count in the header; check judges
 * each window linearizable from its state; a window whose state is
 * tampered (a bucket emptied far into the future) is not; malformed window
 * lines and a window option it cannot honour: one line, exit 2. */
/* Whether the window whose line starts at w (after its '\n') holds an
 * admit: an operation line (thread,key,cost,call,return,answer,witness)
 * whose answer is 1, before the next window's line. */
static bool window_admits(const char *w)
{
    for (const char *line = strchr(w + 1, '\n'); line && line[1] && line[1] != '#';
         line = strchr(line + 1, '\n')) {
        const char *f = line + 1;
        for (int i = 0; i < 5 && f; i++) {
            f = strchr(f, ',');
            f = f ? f + 1 : NULL;
        }
        if (f && f[0] == '1' && f[1] == ',')
            return true;
    }
    return false;
}

static void test_windows(void)
{
    char dir[] = "/tmp/ratelab-shw-XXXXXX", path[64], bad[64], cmd[512];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/h.csv", dir);
    snprintf(bad, sizeof bad, "%s/bad.csv", dir);
    static struct rl_cli_outcome o;
    snprintf(cmd, sizeof cmd,
             "stress --algo tb_cas --threads 2 --duration 40ms --limit 2 --interval 20us "
             "--history %s --history-max 300 --history-windows 2",
             path);
    static char text[8 << 20];
    const char *w1 = NULL;
    /* the tampered state below shows only through an admit of window 1: a
     * loaded machine may end the run before window 1 admitted, so record
     * again (a few times) until it has one */
    for (int run = 0; run < 8 && !(w1 && window_admits(w1)); run++) {
        rl_cli_run(&o, cmd);
        EXPECT_FATAL(o.status == 0, "exit %d: %s", o.status, o.err);
        rl_cli_slurp(path, text, sizeof text);
        w1 = strstr(text, "\n# window 1 start_ns=");
    }
    EXPECT(strstr(o.out, "in 2 windows") && strstr(o.out, "ops by thread"), "%s", o.out);
    EXPECT(strstr(text, " windows=2 ops_by_thread=") != NULL, "header: %.200s", text);
    EXPECT(strstr(text, "\n# window 0 start_ns=") != NULL, "no window 0 line");
    EXPECT_FATAL(w1 && window_admits(w1), "window 1 admitted nothing in 8 runs");
    EXPECT_FATAL(w1 && strstr(w1, " state=") && strstr(w1, " state=") < strchr(w1 + 1, '\n'),
                 "window 1 without its state");

    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 2 --interval 20us --events %s", path);
    rl_cli_run(&o, cmd);
    EXPECT(o.status == 0 && strstr(o.out, "every window linearizable") &&
               strstr(o.out, "verdict          linearizable"),
           "exit %d:\n%s%s", o.status, o.out, o.err);

    /* window 1 from a bucket whose next token comes 2^55 ns from the
     * epoch: its admits no order explains */
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(strstr(w1, " state=") - w1 - 1), w1 + 1);
    char tampered[300];
    snprintf(tampered, sizeof tampered, "%s state=0000000000000080", line);
    EXPECT_FATAL(rewrite_line(path, "# window 1 ", tampered, bad), "no window 1 line");
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 2 --interval 20us --events %s", bad);
    rl_cli_run(&o, cmd);
    EXPECT(o.status == 1 && strstr(o.out, "not linearizable") &&
               strstr(o.out, "window 1 decides") && strstr(o.out, "counterexample in window 1"),
           "exit %d:\n%s%s", o.status, o.out, o.err);

    static const char *const malformed[][2] = {
        {"# window 1 start_ns=5", "no state=HEX"},
        {"# window 1 start_ns=5 state=abc", "hex byte pairs"},
        {"# window 1 start_ns=5 state=zz00000000000000", "not hex"},
        {"# window 7 start_ns=5 state=0000000000000000", "window number 7"},
        {"# window 1 state=0000000000000000", "no start_ns"},
        {"# window 1 start_ns=x state=0000000000000000", "start_ns is not"},
        {"# window 1 start_ns=99999999999999999 state=0000000000000000",
         "before its window 1 started"},
        {"# a note", "must be a window"},
    };
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        EXPECT_FATAL(rewrite_line(path, "# window 1 ", malformed[i][0], bad), "rewrite");
        snprintf(cmd, sizeof cmd,
                 "check --linearizable --algo tb_cas --limit 2 --interval 20us --events %s", bad);
        rl_cli_expect_usage_error(cmd, malformed[i][1]);
    }
    /* a state tb_cas did not take */
    char odd[300];
    snprintf(odd, sizeof odd, "%s state=00", line);
    EXPECT_FATAL(rewrite_line(path, "# window 1 ", odd, bad), "rewrite");
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 2 --interval 20us --events %s", bad);
    rl_cli_expect_usage_error(cmd, "cannot start from a state of 1 bytes");
    /* window 0's line after an operation */
    FILE *f = fopen(bad, "w");
    EXPECT_FATAL(f != NULL, "%s", bad);
    fputs("thread,key,cost,call_ns,return_ns,answer,witness_ns\n0,0,1,10,20,1,15\n"
          "# window 0 start_ns=1\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 2 --interval 20us --events %s", bad);
    rl_cli_expect_usage_error(cmd, "before every operation");

    static const char *const refused[][2] = {
        {"--algo tb_mutex --history-windows 2", "neither snapshot nor a one-word"},
        {"--algo sliding_log_sweeper --history-windows 2", "a thread of its own"},
        {"--algo tb_cas --keys 4 --history-windows 2", "keyed run"},
        {"--algo tb_cas --history-windows 0", "--history-windows"},
        {"--algo tb_cas --history-windows 64 --history-max 1000000", "2^25"},
    };
    unlink(path);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(cmd, sizeof cmd, "stress %s --threads 2 --duration 10ms --history %s",
                 refused[i][0], path);
        rl_cli_expect_usage_error(cmd, refused[i][1]);
        EXPECT(access(path, F_OK) != 0, "%s wrote %s", cmd, path);
    }
    rl_cli_expect_usage_error("stress --algo tb_cas --threads 2 --history-windows 2",
                              "needs --history");
    unlink(bad);
    rmdir(dir);
}

RL_TEST_SUITE("stress_history_cli", {"records, checks, refuses", test_records_and_checks},
              {"windows: recorded, judged each from its state, malformed refused", test_windows})
