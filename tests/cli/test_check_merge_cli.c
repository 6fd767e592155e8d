/* test_check_merge_cli.c — `ratelab check` on several logs (one per node)
 * as a user meets it: hand-made logs with known answers, merged with and
 * without a clock skew; equal times merged in list order; a folder of
 * logs; a dead node's cut last line; and bad input, one line and exit 2.
 * RATELAB_BIN names the binary under test. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

/* name in this suite's own directory (made on first use), holding text. */
static const char *put(const char *name, const char *text)
{
    static char paths[8][192];
    static int next;
    if (dir[0] == '\0') {
        strcpy(dir, "/tmp/ratelab-test-merge-cli-XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    }
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    if (text != NULL) {
        FILE *f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(text, f);
        CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    }
    return path;
}

static void clean(void)
{
    if (dir[0] != '\0') {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        EXPECT(system(cmd) == 0, "%s", cmd);
    }
    dir[0] = '\0';
}

/* The json field "name": of o's output as text (a number or a "word"). */
static const char *json_field(const char *out, const char *name, char *buf, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    buf[0] = '\0';
    const char *at = out ? strstr(out, key) : NULL;
    if (at == NULL)
        return buf;
    at += strlen(key);
    at += *at == '"';
    snprintf(buf, len, "%.*s", (int)strcspn(at, "\",\n}"), at);
    return buf;
}

/* `check ARGS --format json`: exits want, and its held is held. */
static void expect_held(const char *args, const char *held, int want)
{
    static struct rl_cli_outcome o;
    char cmd[1024], got[32];
    snprintf(cmd, sizeof cmd, "check %s --format json", args);
    rl_cli_run(&o, cmd);
    EXPECT(o.status == want, "%s: exit %d, want %d: %s", cmd, o.status, want, o.err);
    EXPECT(strcmp(json_field(o.out, "held", got, sizeof got), held) == 0,
           "%s: held '%s', want %s: %s", cmd, got, held, o.out);
}

/* L = 2 per 100 ns. Each node admits 2 of key a within 100 ns, within L
 * alone; merged at their stamps, [0, 100) holds 4 of them. A at 0 and 10,
 * B at 95 and 97: every clock shift up to ±s keeps the three at 10, 95 and
 * 97 in one window while 97 − 10 < I − 2s, that is up to s = 6 ns (windows
 * of 88 ns); from s = 7 ns no window of I − 2s holds more than 2, while one
 * of I + 2s holds all 4: uncertain. */
#define NODE_A "t_ns,key,n,admitted,thread\n0,a,1,1,0\n10,a,1,1,0\n"
#define NODE_B "t_ns,key,n,admitted,thread\n95,a,1,1,1\n97,a,1,1,1\n"
#define WINDOW "--limit 2 --interval 100ns --promise strong"

static void test_nodes_within_together_broken(void)
{
    const char *a = put("node-0.csv", NODE_A), *b = put("node-1.csv", NODE_B);
    char args[512];
    snprintf(args, sizeof args, "--events %s " WINDOW, a);
    expect_held(args, "yes", 0);
    snprintf(args, sizeof args, "--events %s " WINDOW, b);
    expect_held(args, "yes", 0);
    snprintf(args, sizeof args, "--events %s --events %s " WINDOW, a, b);
    expect_held(args, "no", 1);
    /* the folder: its *.csv by name, the same verdict; a file of another
     * kind beside them is not a log */
    put("notes.txt", "not a log\n");
    snprintf(args, sizeof args, "--events %s " WINDOW, dir);
    expect_held(args, "no", 1);

    /* each node's own figure beside the global one, in every format */
    static struct rl_cli_outcome o;
    char cmd[1024], got[32];
    snprintf(cmd, sizeof cmd, "check --events %s --events %s " WINDOW, a, b);
    rl_cli_run(&o, cmd);
    EXPECT(strstr(o.out, "\nmax_sliding                       4   (2.000 L)") != NULL,
           "global max_sliding: %s", o.out);
    const char *line = strstr(o.out, "node-0.csv ");
    unsigned long long decisions = 0, admits = 0, sliding = 0, aligned = 0;
    EXPECT(line &&
               sscanf(line, "%*s %llu %llu %llu %llu", &decisions, &admits, &sliding, &aligned) ==
                   4 &&
               decisions == 2 && admits == 2 && sliding == 2,
           "node-0's line: %s", o.out);
    EXPECT(strstr(o.out, "from 2 logs merged") != NULL, "%s", o.out);
    strncat(cmd, " --format csv", sizeof cmd - strlen(cmd) - 1);
    rl_cli_run(&o, cmd);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\n*,*,") + 1, "max_sliding"), 4);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "node-1.csv,*,"), "max_sliding"), 2);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "node-1.csv,*,"), "admits"), 2);
    snprintf(cmd, sizeof cmd, "check --events %s --events %s " WINDOW " --format json", a, b);
    rl_cli_run(&o, cmd);
    const char *second = strstr(o.out, "node-1.csv");
    EXPECT(second != NULL && strcmp(json_field(second, "max_sliding", got, sizeof got), "2") == 0,
           "json node-1: %s", o.out);
    EXPECT(strcmp(json_field(o.out, "max_sliding", got, sizeof got), "4") == 0, "%s", o.out);
    clean();
}

static void test_skew_edges(void)
{
    const char *a = put("a.csv", NODE_A), *b = put("b.csv", NODE_B);
    char args[512];
    static const struct {
        const char *skew, *held;
        int status;
    } steps[] = {
        {"0ns", "no", 1}, {"6ns", "no", 1}, {"7ns", "uncertain", 0}, {"49ns", "uncertain", 0}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        snprintf(args, sizeof args, "--events %s --events %s " WINDOW " --skew %s", a, b,
                 steps[i].skew);
        expect_held(args, steps[i].held, steps[i].status);
    }
    /* Kept for certain: one admit each at 0 and 150 with L = 1. They meet
     * in a window of I only if the clocks are more than 50 ns apart, 2s:
     * held at s = 25 ns, uncertain at 26 ns (one of I + 2s holds both). */
    a = put("a.csv", "t_ns,key,n,admitted,thread\n0,a,1,1,0\n");
    b = put("b.csv", "t_ns,key,n,admitted,thread\n150,a,1,1,0\n");
    snprintf(args, sizeof args,
             "--events %s --events %s --limit 1 --interval 100ns --promise strong --skew 25ns", a,
             b);
    expect_held(args, "yes", 0);
    snprintf(args, sizeof args,
             "--events %s --events %s --limit 1 --interval 100ns --promise strong --skew 26ns", a,
             b);
    expect_held(args, "uncertain", 0);
    /* One node that breaks L alone breaks it whatever its clock. */
    a = put("a.csv", "t_ns,key,n,admitted,thread\n0,a,1,1,0\n90,a,1,1,0\n");
    snprintf(args, sizeof args,
             "--events %s --events %s --limit 1 --interval 100ns --promise strong --skew 45ns", a,
             b);
    expect_held(args, "no", 1);
    clean();
}

/* Equal times merge in the order the logs are listed (then each log's own
 * order), as the logs concatenated and sorted stably: with L = 1, node A's
 * admit and node B's reject both at 0 agree with the oracle in that order,
 * and are a false reject and a false admit in the other. */
static void test_equal_times_in_list_order(void)
{
    const char *a = put("a.csv", "t_ns,key,n,admitted,thread\n0,a,1,1,0\n");
    const char *b = put("b.csv", "t_ns,key,n,admitted,thread\n0,a,1,0,1\n");
    const char *ab = put("ab.csv", "t_ns,key,n,admitted,thread\n0,a,1,1,0\n0,a,1,0,1\n");
    const char *ba = put("ba.csv", "t_ns,key,n,admitted,thread\n0,a,1,0,1\n0,a,1,1,0\n");
    const char *order[][3] = {{a, b, ab}, {b, a, ba}};
    unsigned long want[] = {0, 1};
    static struct rl_cli_outcome merged, single;
    for (int i = 0; i < 2; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 "check --events %s --events %s --limit 1 --interval 100ns --format csv",
                 order[i][0], order[i][1]);
        rl_cli_run(&merged, cmd);
        snprintf(cmd, sizeof cmd, "check --events %s --limit 1 --interval 100ns --format csv",
                 order[i][2]);
        rl_cli_run(&single, cmd);
        const char *m = strstr(merged.out, "\n*,*,") + 1, *s = strstr(single.out, "\n*,") + 1;
        EXPECT_EQ(rl_cli_csv_number(merged.out, m, "false_admits"), want[i]);
        EXPECT_EQ(rl_cli_csv_number(merged.out, m, "false_rejects"), want[i]);
        EXPECT_EQ(rl_cli_csv_number(single.out, s, "false_admits"), want[i]);
        EXPECT_EQ(rl_cli_csv_number(single.out, s, "false_rejects"), want[i]);
    }
    clean();
}

/* A node that died mid-write: its last line, cut short, is dropped with a
 * note naming the log and the line, and what it wrote before is checked. A
 * bad line anywhere else is bad input. */
static void test_cut_last_line(void)
{
    const char *a = put("a.csv", NODE_A);
    const char *b = put("b.csv", "t_ns,key,n,admitted,thread\n95,a,1,1,1\n97,a,1,1,1\n99,a,1");
    static struct rl_cli_outcome o;
    char cmd[512], got[32];
    snprintf(cmd, sizeof cmd, "check --events %s --events %s " WINDOW " --format json", a, b);
    rl_cli_run(&o, cmd);
    EXPECT(o.status == 1 && o.err_lines == 1, "exit %d: %s", o.status, o.err);
    EXPECT(strstr(o.err, "b.csv: its last line 4, cut short") != NULL, "note: %s", o.err);
    EXPECT(strcmp(json_field(o.out, "attempts", got, sizeof got), "4") == 0, "%s", o.out);
    EXPECT(strcmp(json_field(o.out, "dropped_line", got, sizeof got), "null") == 0, "%s", o.out);
    EXPECT(strcmp(json_field(strstr(o.out, "b.csv"), "dropped_line", got, sizeof got), "4") == 0,
           "%s", o.out);
    b = put("b.csv", "t_ns,key,n,admitted,thread\n95,a,1,1,1\n97,a,1\n99,a,1,1,1\n");
    snprintf(cmd, sizeof cmd, "check --events %s --events %s " WINDOW, a, b);
    rl_cli_expect_usage_error(cmd, "b.csv:3: expected 5 fields");
    clean();
}

static void test_bad_input(void)
{
    const char *a = put("a.csv", NODE_A), *b = put("b.csv", NODE_B);
    const char *four = put("four.csv", "t_ns,key,n,admitted\n1,a,1,1\n");
    char cmd[768];
    static const struct {
        const char *extra, *needle;
    } bad[] = {
        {"--skew -1ns", "--skew: duration '-1ns' is not valid"},
        {"--skew soon", "--skew: duration 'soon' is not valid"},
        {"--skew 50ns", "--skew 50ns must be under half of --interval 100ns"},
        {"--skew 1s", "must be under half of --interval"},
        {"--promise shape", "--promise shape checks one shaped log"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "check --events %s --events %s --limit 2 --interval 100ns %s", a,
                 b, bad[i].extra);
        rl_cli_expect_usage_error(cmd, bad[i].needle);
    }
    snprintf(cmd, sizeof cmd, "check --events %s --events %s/./a.csv --limit 2 --interval 100ns", a,
             dir);
    rl_cli_expect_usage_error(cmd, "--events names one log twice");
    snprintf(cmd, sizeof cmd, "check --events %s --events %s/none.csv --limit 2 --interval 100ns",
             a, dir);
    rl_cli_expect_usage_error(cmd, "none.csv: cannot open");
    snprintf(cmd, sizeof cmd, "check --events %s --events %s --limit 2 --interval 100ns", a, four);
    rl_cli_expect_usage_error(cmd, "four.csv:1: header has 4 fields where");
    snprintf(cmd, sizeof cmd, "check --events %s --events %s --limit 2 --interval 100ns --out %s",
             a, b, b);
    rl_cli_expect_usage_error(cmd, "name the same file");
    char empty[256];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(empty, 0700), 0);
    snprintf(cmd, sizeof cmd, "check --events %s --limit 2 --interval 100ns", empty);
    rl_cli_expect_usage_error(cmd, "a folder with no *.csv log in it");
    clean();
}

static void test_help(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "check --help");
    EXPECT(o.status == 0 && strstr(o.out, "--skew DUR") != NULL, "%s", o.out);
    EXPECT(strstr(o.out, "--events DIR") != NULL, "%s", o.out);
}

RL_TEST_SUITE("check_merge_cli",
              {"two nodes within L break it together", test_nodes_within_together_broken},
              {"a skew: certain, uncertain and held at the edges", test_skew_edges},
              {"equal times merge in list order", test_equal_times_in_list_order},
              {"a cut last line is dropped with a note", test_cut_last_line},
              {"bad input exits 2 with one line", test_bad_input},
              {"--help tells of several logs and --skew", test_help})
