/* test_cli.c — build/ratelab as a user meets it: every bad input gets one
 * clear line on stderr and exit 2; good input exits 0; --help gives the
 * exit statuses; tables show user text escaped. RATELAB_BIN names
 * the binary under test (the Makefile sets it). */
#include "cli_run.h"
#include "test_util.h"
#include "algorithms/rl.h"
#include "harness/cli/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* An output that cannot be written is refused before the run, not after. */
static void test_unwritable_output(void)
{
    rl_cli_expect_usage_error("stress --algo fw_cas --out /nonexistent-dir/x.csv", "no folder");
    rl_cli_expect_usage_error("bench --suite quick --out /nonexistent-dir/q.csv", "no folder");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --decisions /tmp", "a folder");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --latency-out ''", "empty");
    rl_cli_expect_usage_error("trace --workload uniform --out /nonexistent-dir/t.csv", "no folder");
}

static void test_bad_algorithm(void)
{
    rl_cli_expect_usage_error("sim --algo nope --workload uniform", "unknown algorithm 'nope'");
    rl_cli_expect_usage_error("sim --algo nope --workload uniform", "fw_cas");
    rl_cli_expect_usage_error("stress --algo fw_cas,nope --duration 10ms", "unknown algorithm");
}

static void test_bad_durations_and_limits(void)
{
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 10parsecs", "unit");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 100", "no unit");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 0s",
                              "greater than zero");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval -5ms", "not valid");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --limit 0", "limit");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --limit -3", "limit");
    rl_cli_expect_usage_error("stress --algo fw_cas --duration 0ms", "greater than zero");
    rl_cli_expect_usage_error("check --events /dev/null --interval 1fortnight", "unit");
}

static void test_bad_traces(void)
{
    const char *bad = "/tmp/ratelab-cli-bad.csv", *unsorted = "/tmp/ratelab-cli-unsorted.csv";
    write_file(bad, "t_ns,key,n\n0,a,1\n10,a,x\n");
    write_file(unsorted, "t_ns,key,n\n0,a,1\n500,a,1\n100,a,1\n");
    rl_cli_expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-bad.csv", ":3:");
    rl_cli_expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-unsorted.csv",
                              "sim --unsorted");
    /* --unsorted decides in file order; the three exact buckets agree on
     * times that go back (a stale read refills nothing). */
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo tb_mutex,tb_cas,gcra_cas --limit 2 --interval 1us --unsorted "
                   "--trace /tmp/ratelab-cli-unsorted.csv --format csv");
    EXPECT_EQ(o.status, 0);
    const char *rows[] = {"tb_mutex,", "tb_cas,", "gcra_cas,"};
    for (int i = 0; i < 3; i++) {
        const char *row = strstr(o.out, rows[i]);
        EXPECT(row != NULL, "no %s row: %s", rows[i], o.out);
        if (row) {
            EXPECT_EQ(rl_cli_csv_number(o.out, row, "admits"), 2);
            EXPECT_EQ(rl_cli_csv_number(o.out, row, "attempts"), 3);
        }
    }
    rl_cli_expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-missing.csv",
                              "missing.csv");
    rl_cli_expect_usage_error("check --events /tmp/ratelab-cli-missing.csv", "missing.csv");
    rl_cli_expect_usage_error("check --events /tmp/ratelab-cli-bad.csv", ":1:"); /* wrong header */
    unlink(bad);
    unlink(unsorted);
}

static void test_bad_usage(void)
{
    rl_cli_expect_usage_error("frobnicate", "unknown command");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --no-such-option",
                              "unrecognized option");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload", "needs a value");
    rl_cli_expect_usage_error("sim --algo fw_cas", "--trace");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload zigzag", "unknown workload");
    rl_cli_expect_usage_error("stress --algo fw_plain --threads 2 --duration 10ms", "--unsafe");
    rl_cli_expect_usage_error("stress --algo fw_cas --clock sundial --duration 10ms",
                              "unknown clock");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --format yaml",
                              "unknown format");
    rl_cli_expect_usage_error("bench --suite nope", "unknown suite");
}

static void test_help_everywhere(void)
{
    static const char *const commands[] = {"list",  "sim",    "stress", "trace",
                                           "check", "clocks", "bench"};
    static struct rl_cli_outcome o;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        rl_cli_run(&o, args);
        CU_ASSERT_EQUAL(o.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "usage: ratelab"));
    }
    rl_cli_run(&o, "--help");
    CU_ASSERT_EQUAL(o.status, 0);
}

static void test_list_names_first(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "list");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        char line_start[80];
        snprintf(line_start, sizeof line_start, "\n%s ", (*a)->name);
        int first = strncmp(o.out, line_start + 1, strlen(line_start) - 1) == 0;
        CU_ASSERT(first || strstr(o.out, line_start) != NULL);
    }
}

/* The fixed columns (docs/design.md, Outputs) open every CSV, in order. */
static void test_sim_csv_columns(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas,fw_aligned --workload boundary --limit 10 --interval 1s "
                   "--format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *fixed = "algo,family,promise,mode,workload,clock,threads,cpus,rep,limit,"
                        "interval_ns,burst,attempts,admits,rejects,errors,ns_per_op,mops,"
                        "max_sliding,max_aligned,strong_excess,weak_excess,false_admits,"
                        "false_rejects,utilization,promise_held,host,git_rev,";
    CU_ASSERT_EQUAL(strncmp(o.out, fixed, strlen(fixed)), 0);
    int lines = 0;
    for (const char *c = o.out; *c; c++)
        lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "\nfw_aligned,fixed_window,weak,sim,boundary,"));
}

/* trace → sim --trace → --decisions → check: the pieces fit together. */
static void test_round_trip(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o,
               "trace --workload boundary --limit 10 --interval 1s --out /tmp/ratelab-cli-t.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    rl_cli_run(&o, "sim --algo fw_expiry --limit 10 --interval 1s --trace /tmp/ratelab-cli-t.csv "
                   "--decisions /tmp/ratelab-cli-d.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    rl_cli_run(&o, "check --events /tmp/ratelab-cli-d.csv --limit 10 --interval 1s --format csv");
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "key,attempts,admits,"));
    unlink("/tmp/ratelab-cli-t.csv");
    unlink("/tmp/ratelab-cli-d.csv");
}

/* stress --decisions writes the recorded admits; check --admits-only reads
 * back the row's max_sliding and leaves the oracle columns empty. */
static void test_stress_decisions(void)
{
    rl_cli_expect_usage_error("stress --algo fw_cas --threads 1,2 --decisions /tmp/x.csv",
                              "one --algo, one --threads count and --reps 1");
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo fw_cas --threads 2 --reps 1 --duration 100ms --limit 100 "
                   "--interval 10ms --decisions /tmp/ratelab-cli-sd.csv --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* the last row is fw_cas recorded */
    const char *row = o.out + strlen(o.out) - 1;
    while (row > o.out && row[-1] != '\n')
        row--;
    CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(row, "fw_cas,"));
    unsigned long max_sliding = rl_cli_csv_number(o.out, row, "max_sliding");
    CU_ASSERT(max_sliding >= 100);
    rl_cli_run(&o, "check --events /tmp/ratelab-cli-sd.csv --limit 100 --interval 10ms "
                   "--admits-only --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* key,attempts,admits,rejects,admitted_cost,max_sliding,…: "*,A,A,0,A,M," then
     * the oracle columns empty */
    unsigned long attempts, admits, rejects, cost, checked_max;
    const char *total = strstr(o.out, "\n*,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(total);
    CU_ASSERT_EQUAL_FATAL(sscanf(total, "\n*,%lu,%lu,%lu,%lu,%lu,", &attempts, &admits, &rejects,
                                 &cost, &checked_max),
                          5);
    CU_ASSERT_EQUAL(rejects, 0);
    CU_ASSERT_EQUAL(attempts, admits);
    CU_ASSERT_EQUAL(checked_max, max_sliding);
    CU_ASSERT_PTR_NOT_NULL(strstr(total, ",,,,")); /* false_admits … weak_false_rejects */
    unlink("/tmp/ratelab-cli-sd.csv");
}

/* sim, stress, replay and bench say what each exit status means. */
static void test_exit_status_help(void)
{
    static const char *const commands[] = {"sim", "stress", "replay", "bench"};
    static struct rl_cli_outcome o;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        rl_cli_run(&o, args);
        CU_ASSERT_EQUAL(o.status, 0);
        const char *line = strstr(o.out, "Exit status: 0 ");
        EXPECT(line != NULL, "ratelab %s has no Exit status line", args);
        if (line == NULL)
            continue;
        EXPECT(strstr(line, ", 1 ") && strstr(line, ", 2 bad usage") && strstr(line, ", 3 "),
               "ratelab %s: %.200s", args, line);
        EXPECT(strstr(line, "errors") != NULL, "ratelab %s: status 3 names errors", args);
    }
}

/* --redis: literal loopback addresses only; a name (127.evil.example) is
 * refused before anything is looked up, with one line and exit 2. */
static void test_redis_address_refused(void)
{
    static const char *const refused[] = {
        "127.evil.example:6379",
        "127.0.0.1.nip.io:6379",
        "localhost.evil.example:6379",
        "10.0.0.5:6379",
        "[::2]:6379",
        "::1:6379",
        "127.1:6379",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:+80",
        "127.0.0.1",
        "unix:",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char args[256];
        snprintf(args, sizeof args,
                 "sim --algo redis_gcra --workload uniform --duration 10ms --redis '%s'",
                 refused[i]);
        rl_cli_expect_usage_error(args, "--redis");
        snprintf(args, sizeof args, "stress --algo redis_gcra --duration 10ms --redis '%s'",
                 refused[i]);
        rl_cli_expect_usage_error(args, "--redis");
    }
    rl_cli_expect_usage_error("replay --algo redis_gcra --workload uniform --redis "
                              "127.evil.example:6379",
                              "only loopback servers");
}

/* User text in tables is escaped: a control byte never reaches the terminal.
 * (Trace keys with control bytes are refused when the trace is read.) */
static void test_table_text_escaped(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain-name_1.csv", "plain-name_1.csv"},
        {"a\x1b[31mred", "a\\x1b[31mred"},
        {"tab\tnl\ncr\r", "tab\\x09nl\\x0acr\\x0d"},
        {"del\x7f", "del\\x7f"},
        {"back\\slash", "back\\\\slash"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"}, /* é €: text */
        {"c1\xc2\x9b", "c1\\xc2\\x9b"},                           /* U+009B, a CSI */
        {"bidi\xe2\x80\xae", "bidi\\xe2\\x80\\xae"},              /* U+202E */
        {"bad\xff\xc3", "bad\\xff\\xc3"},                         /* not UTF-8 */
        {"over\xc0\xaf", "over\\xc0\\xaf"},                       /* overlong '/' */
    };
    char buf[128];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        EXPECT(strcmp(rl_table_text(buf, sizeof buf, cases[i].in), cases[i].out) == 0,
               "case %zu: got '%s', want '%s'", i, buf, cases[i].out);
    char small[8]; /* cut short, never inside an escape */
    CU_ASSERT_STRING_EQUAL(rl_table_text(small, sizeof small, "ab\x1b\x1b"), "ab\\x1b");
    CU_ASSERT_STRING_EQUAL(rl_table_text(small, 1, "abc"), "");

    /* through the CLI: a trace file named with an escape sequence */
    const char *folder = "/tmp/ratelab-cli-escape";
    char path[128];
    mkdir(folder, 0700);
    snprintf(path, sizeof path, "%s/\x1b[2J\x1b]0;x\x07.csv", folder);
    write_file(path, "t_ns,key,n\n0,k\xc3\xa9y,1\n10,k\xc3\xa9y,1\n");
    static struct rl_cli_outcome o;
    char args[256];
    snprintf(args, sizeof args,
             "sim --algo fw_cas,sliding_log --limit 1 --interval 1s --trace '%s'", path);
    rl_cli_run(&o, args);
    CU_ASSERT_EQUAL(o.status, 0);
    for (const char *c = o.out; *c; c++)
        EXPECT(*c == '\n' || (unsigned char)*c >= 0x20, "byte 0x%02x in the table:\n%s",
               (unsigned char)*c, o.out);
    EXPECT(strstr(o.out, "sim: L=1 per 1s, \\x1b[2J\\x1b]0;x\\x07.csv:") != NULL, "%s", o.out);
    EXPECT(strstr(o.out, " \\x1b[2J    window") != NULL, "the workload column: %s", o.out);
    snprintf(args, sizeof args, "replay --algo fw_cas --limit 1 --interval 1s --trace '%s'", path);
    rl_cli_run(&o, args);
    CU_ASSERT_EQUAL(o.status, 0);
    for (const char *c = o.out; *c; c++)
        EXPECT(*c == '\n' || (unsigned char)*c >= 0x20, "byte 0x%02x in the replay table:\n%s",
               (unsigned char)*c, o.out);
    unlink(path);
    rmdir(folder);
}

/* A recorder buffer that fills is said on stderr, not only in a CSV column:
 * null admits everything, far more than a limiter's buffer is sized for. */
static void test_dropped_events_warned(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo null --threads 1 --duration 300ms --record --reps 1");
    EXPECT(o.status == 0 && strstr(o.err, "recorder's buffer filled") != NULL,
           "status %d, stderr: %s", o.status, o.err);
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --duration 200ms --record --reps 1");
    EXPECT(o.status == 0 && strstr(o.err, "buffer filled") == NULL,
           "a limiter's run warned: status %d, stderr: %s", o.status, o.err);
}

RL_TEST_SUITE("cli", {"unknown algorithm lists the valid names", test_bad_algorithm},
              {"bad durations, zero or negative limit and interval", test_bad_durations_and_limits},
              {"malformed, unsorted and missing traces", test_bad_traces},
              {"bad commands, options and values", test_bad_usage},
              {"--help on every subcommand", test_help_everywhere},
              {"list puts each name first", test_list_names_first},
              {"sim --format csv opens with the fixed columns", test_sim_csv_columns},
              {"trace, sim --decisions and check fit together", test_round_trip},
              {"an unwritable output is refused before the run", test_unwritable_output},
              {"stress --decisions and check --admits-only fit together", test_stress_decisions},
              {"sim, stress, replay, bench --help: the exit statuses", test_exit_status_help},
              {"--redis: names and non-loopback addresses refused", test_redis_address_refused},
              {"tables escape user text (trace file names)", test_table_text_escaped},
              {"a full recorder buffer is warned about", test_dropped_events_warned})
