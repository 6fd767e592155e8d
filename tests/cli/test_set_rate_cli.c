/* test_set_rate_cli.c — a rate change mid-run as a user meets it: sim
 * --set-rate on every key's state (one seen first after the change too),
 * check --promise shape --set-rate on the log, and the bad input (exit 2,
 * one line, nothing written). */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static const char *in_dir(const char *name, char *buf, size_t len)
{
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/ratelab-set-rate-cli-%d", (int)getpid());
        char mk[128];
        snprintf(mk, sizeof mk, "mkdir -p %s", dir);
        CU_ASSERT_EQUAL_FATAL(system(mk), 0);
    }
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

static void remove_dir(void)
{
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(rm), 0);
    dir[0] = '\0';
}

/* Key a reserves three at 0 (10/s, B = 1), the rate drops to 1/s at 50 ms,
 * a reserves again then; key b first comes at 60 ms, after the change. */
static const char trace_text[] = "t_ns,key,n\n0,a,1\n0,a,1\n0,a,1\n50000000,a,1\n"
                                 "60000000,b,1\n60000000,b,1\n";

static void write_trace(const char *path)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(trace_text, f);
    fclose(f);
}

static void test_sim_and_check(void)
{
    char trace[128], log[128], args[768], text[4096];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    write_trace(in_dir("t.csv", trace, sizeof trace));
    in_dir("d.csv", log, sizeof log);
    snprintf(args, sizeof args,
             "sim --algo xrate_wait --limit 10 --interval 1s --burst 1 --trace %s "
             "--set-rate 50ms:1 --decisions %s",
             trace, log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    rl_cli_slurp(log, text, sizeof text);
    /* a's pending reservations keep 100 and 200 ms; its next waits out the
     * debt at 1/s (2.55 s); b starts full at 1/s: 60 ms, then 1.06 s */
    CU_ASSERT_STRING_EQUAL(text, "t_ns,key,n,admitted,thread,release_ns\n"
                                 "0,a,1,1,0,0\n0,a,1,1,0,100000000\n0,a,1,1,0,200000000\n"
                                 "50000000,a,1,1,0,2550000000\n60000000,b,1,1,0,60000000\n"
                                 "60000000,b,1,1,0,1060000000\n");
    snprintf(args, sizeof args,
             "check --events %s --limit 10 --interval 1s --burst 1 --promise shape "
             "--set-rate 50ms:1 --format csv",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 1); /* the pending reservations break the new curve */
    const char *row = strchr(o->out, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CU_ASSERT_EQUAL(rl_cli_csv_number(o->out, row + 1, "curve_violations"), 2);
    CU_ASSERT_EQUAL(rl_cli_csv_number(o->out, row + 1, "old_rate_releases"), 2);
    /* without --set-rate the columns are what they always were */
    snprintf(args, sizeof args,
             "check --events %s --limit 10 --interval 1s --burst 1 --promise shape --format csv",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_PTR_NULL(strstr(o->out, "old_rate_releases"));
    free(o);
    remove_dir();
}

static void test_bad_input(void)
{
    char trace[128], log[128], args[512];
    write_trace(in_dir("t.csv", trace, sizeof trace));
    unlink(in_dir("d.csv", log, sizeof log));
    const char *cases[][2] = {
        {"--algo tb_mutex --set-rate 50ms:1", "cannot change its rate"},
        {"--algo xrate_wait --set-rate 50ms:0", "--set-rate"},
        {"--algo xrate_wait --set-rate 5s:1", "after the trace's last attempt"},
        {"--algo xrate_wait --set-rate 50ms:1,40ms:2", "strictly increasing"},
        {"--algo xrate_wait --set-rate 50ms", "expected AT:L"},
        {"--algo xrate_wait --set-rate 50ms:1/0s", "at least 1ns"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, "sim %s --limit 10 --interval 1s --trace %s --decisions %s",
                 cases[i][0], trace, log);
        rl_cli_expect_usage_error(args, cases[i][1]);
        EXPECT(access(log, F_OK) != 0, "case %zu wrote %s", i, log);
    }
    rl_cli_expect_usage_error("check --events /dev/null --limit 10 --interval 1s --set-rate 1s:1",
                              "--promise shape");
    remove_dir();
}

RL_TEST_SUITE("cli_set_rate", {"sim --set-rate, then check --set-rate", test_sim_and_check},
              {"bad input: exit 2, one line, nothing written", test_bad_input})
