/* test_inputs_cli.c — honest inputs (issue 22, item 6): --rate is a total
 * and --rate-per-key offers each key its rate; the run headers say the
 * rate a key is offered beside L/I; options a workload ignores are refused;
 * stress shows which path it timed (rej%); list says what the none
 * baselines do in sim. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "algorithms/rl.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The case: 100 a second to each of 20 keys against L = 100 per
 * 1s is offered, and the header says so; --rate would have been 100 in all. */
static void test_rate_per_key(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo sliding_log --workload uniform --limit 100 --interval 1s --keys 20 "
                   "--rate-per-key 100 --duration 10s");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "20000 attempts over 20 keys (1000 a key; offered 100/s a key, against "
                         "L/I = 100/s)") != NULL,
           "header: %.200s", o.out);
    rl_cli_run(&o, "sim --algo sliding_log --workload uniform --limit 100 --interval 1s --keys 20 "
                   "--rate-per-key 100 --duration 10s --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *row = strstr(o.out, "\nsliding_log,") + 1;
    EXPECT_EQ(rl_cli_csv_number(o.out, row, "attempts"), 20000);
    EXPECT(rl_cli_csv_number(o.out, row, "rejects") > 0, "at the limit, keys drawn at random: "
                                                         "some windows hold more than L");
    /* --rate R·K is the same trace: the per-key form only multiplies. */
    rl_cli_run(&o, "sim --algo sliding_log --workload uniform --limit 100 --interval 1s --keys 20 "
                   "--rate 2000 --duration 10s --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\nsliding_log,") + 1, "attempts"), 20000);
    /* onoff: the rate while on, and the mean the silences bring it to. */
    rl_cli_run(&o, "sim --algo fw_cas --workload onoff --limit 100 --interval 1s --keys 20 "
                   "--rate-per-key 100 --duration 10s");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "4000 attempts over 20 keys (200 a key; offered 100/s a key while on, "
                         "20/s on average, against L/I = 100/s)") != NULL,
           "header: %.200s", o.out);
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --rate 5 --rate-per-key 5",
                              "not both");
    rl_cli_expect_usage_error("trace --workload uniform --rate-per-key 5 --rate 5 --out -",
                              "not both");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --rate-per-key 0", "greater");
}

/* Every header with a workload says the rate a key is offered: sim's (the
 * issue's 800 attempts over 20 keys), replay's, trace's line, a trace file's. */
static void test_headers_offer_a_key(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas --workload onoff --limit 100 --interval 1s --keys 20 "
                   "--duration 10s");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "sim: L=100 per 1s, onoff: 800 attempts over 20 keys (40 a key; offered "
                         "20/s a key while on, 4/s on average, against L/I = 100/s)\n") != NULL,
           "header: %.200s", o.out);
    rl_cli_run(&o, "sim --algo fw_cas --workload uniform");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "80000 attempts over 1 key (offered 40000/s, against L/I = 10000/s)\n") !=
               NULL,
           "header: %.200s", o.out);
    rl_cli_run(&o, "replay --algo fw_cas --workload uniform --keys 4 --rate-per-key 50 --limit 10 "
                   "--interval 1s --duration 200ms");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "40 attempts over 4 keys (10 a key; offered 50/s a key, against L/I = "
                         "10/s) due within") != NULL,
           "header: %.300s", o.out);
    /* --speed 2 sends the trace twice as fast: each key is offered twice as much */
    rl_cli_run(&o, "replay --algo fw_cas --workload uniform --keys 4 --rate-per-key 50 --limit 10 "
                   "--interval 1s --duration 200ms --speed 2");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "(10 a key; offered 100/s a key, against L/I = 10/s)") != NULL,
           "header: %.300s", o.out);
    rl_cli_run(&o, "trace --workload poisson --rate 5000 --keys 100 --out "
                   "/tmp/ratelab-inputs-t.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.err, "over 100 keys to /tmp/ratelab-inputs-t.csv (") != NULL &&
               strstr(o.err, "/s a key, against L/I = 10000/s)") != NULL,
           "trace: %s", o.err);
    rl_cli_run(&o, "sim --algo fw_cas --trace /tmp/ratelab-inputs-t.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "/s a key, against L/I = 10000/s)") != NULL, "header: %.200s", o.out);
    unlink("/tmp/ratelab-inputs-t.csv");
}

/* An option the workload does not use is refused in one line naming both,
 * in every command that builds a workload; the options it uses still pass. */
static void test_unused_options_refused(void)
{
    static const struct {
        const char *workload, *option;
    } unused[] = {{"boundary", "--rate 5"}, {"boundary", "--rate-per-key 5"},
                  {"uniform", "--on 1s"},   {"poisson", "--off 1s"},
                  {"flash", "--size 3"},    {"onoff", "--spread 1ms"},
                  {"uniform", "--at 1s"},   {"boundary", "--spike 1s"},
                  {"onoff", "--factor 3"},  {"poisson", "--on 10ms"}};
    static const char *const commands[] = {"sim --algo fw_cas", "replay --algo fw_cas",
                                           "trace --out /dev/null"};
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
        for (size_t i = 0; i < sizeof unused / sizeof *unused; i++) {
            char args[256], needle[96];
            snprintf(args, sizeof args, "%s --workload %s %s", commands[c], unused[i].workload,
                     unused[i].option);
            snprintf(needle, sizeof needle, "%.*s does nothing with --workload %s",
                     (int)strcspn(unused[i].option, " "), unused[i].option, unused[i].workload);
            rl_cli_expect_usage_error(args, needle);
        }
    static const char *const used[] = {
        "--workload uniform --rate 500",
        "--workload poisson --rate-per-key 500",
        "--workload onoff --on 10ms --off 20ms --rate 500",
        "--workload boundary --size 3 --spread 1ms",
        "--workload flash --at 1s --spike 10ms --factor 3 --rate 500",
        "--workload boundary --keys 3 --zipf 1.2 --cost 1-2 --seed 4 --duration 1s"};
    static struct rl_cli_outcome o;
    for (size_t i = 0; i < sizeof used / sizeof *used; i++) {
        char args[256];
        snprintf(args, sizeof args, "trace --out /dev/null %s", used[i]);
        rl_cli_run(&o, args);
        EXPECT(o.status == 0, "%s: %s", args, o.err);
    }
}

/* min and h wherever a duration is taken, shown back in the largest exact
 * unit the tables use. */
static void test_minutes_and_hours(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas --workload uniform --limit 100 --interval 1min --duration "
                   "0.05h --rate 2");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "sim: L=100 per 60s, uniform: 360 attempts") != NULL, "%.200s", o.out);
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --reps 1 --duration 0.0005min "
                   "--interval 1h");
    EXPECT(o.status == 0 && strstr(o.out, "L=1000 per 3600s, 30ms a run") != NULL, "%s%s", o.out,
           o.err);
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 1m", "unknown unit");
}

/* stress says which path it timed: rej% is all but a few calls at L = 100
 * per 1s, none at L = 2^32 - 1 per hour. */
static void test_stress_reject_share(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo fw_aligned --threads 1 --reps 1 --duration 20ms --limit 100 "
                   "--interval 1s");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, " rej% ") != NULL, "no rej%% column: %s", o.out);
    EXPECT(strstr(o.out, "\nrej%: the share of calls rejected") != NULL, "no footer: %s", o.out);
    /* 100 admits in at least 10^4 calls: all but a share under a percent */
    char rej[16] = "";
    const char *row = strstr(o.out, "\nfw_aligned ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    EXPECT(sscanf(row, " %*s %*u %*u %*f %*s %*f %*s %15s", rej) == 1 &&
               (strcmp(rej, ">99.99") == 0 || strncmp(rej, "99.", 3) == 0),
           "fw_aligned at L = 100 per 1s: rej%% '%s' in %.120s", rej, row);
    rl_cli_run(&o, "stress --algo fw_aligned --threads 1 --reps 1 --duration 20ms --limit "
                   "4294967295 --interval 1h");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    row = strstr(o.out, "\nfw_aligned ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    EXPECT(sscanf(row, " %*s %*u %*u %*f %*s %*f %*s %15s", rej) == 1 && strcmp(rej, "0.00") == 0,
           "fw_aligned admitting every call: rej%% '%s' in %.120s", rej, row);
    /* --keys: the rate each key was offered, beside L/I */
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --reps 1 --duration 20ms --keys 20 --limit "
                   "100 --interval 1s");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "\nfw_cas x1: offered ") != NULL && strstr(o.out, "/s a key (") != NULL &&
               strstr(o.out, " over 20 keys), against L/I = 100/s\n") != NULL,
           "%s", o.out);
}

/* list's legend names every baseline that promises nothing, and sim does
 * what it says: null admits all, faa and clock_faa L per key, once. */
static void test_list_none_legend(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "list --help");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *legend = strstr(o.out, "none: baselines");
    CU_ASSERT_PTR_NOT_NULL_FATAL(legend);
    for (const struct rl_algo *const *a = rl_registry; *a; a++)
        if ((*a)->promise == RL_PROMISE_NONE)
            EXPECT(strstr(legend, (*a)->name) != NULL, "%s is not in the legend", (*a)->name);
    rl_cli_run(&o, "list");
    EXPECT(strstr(o.out, "none: baselines") == NULL, "a footer for a script: %s", o.out);
    rl_cli_run(&o, "sim --algo null,faa,clock_faa --workload uniform --keys 3 --limit 10 "
                   "--interval 1s --duration 3s --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    unsigned long attempts = rl_cli_csv_number(o.out, strstr(o.out, "\nnull,") + 1, "attempts");
    EXPECT(attempts > 30, "%lu attempts", attempts);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\nnull,") + 1, "admits"), attempts);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\nfaa,") + 1, "admits"), 30);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\nclock_faa,") + 1, "admits"), 30);
}

RL_TEST_SUITE("cli_inputs", {"--rate-per-key offers each key its rate", test_rate_per_key},
              {"run headers say the rate a key is offered", test_headers_offer_a_key},
              {"options a workload ignores are refused", test_unused_options_refused},
              {"min and h are durations", test_minutes_and_hours},
              {"stress shows the reject share", test_stress_reject_share},
              {"list says what the none baselines do in sim", test_list_none_legend})
