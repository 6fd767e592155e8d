/* test_cli.c — build/ratelab as a user meets it: every bad input gets one
 * clear line on stderr and exit 2; good input exits 0. RATELAB_BIN names
 * the binary under test (the Makefile sets it). */
#include "rl.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct outcome {
    int status;
    char out[65536];
    char err[4096];
    int err_lines;
};

static const char *binary(void)
{
    const char *bin = getenv("RATELAB_BIN");
    return bin ? bin : "build/ratelab";
}

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Runs `ratelab ARGS` through the shell with stdout and stderr captured. */
static void run(struct outcome *o, const char *args)
{
    char out_path[] = "/tmp/ratelab-cli-out-XXXXXX", err_path[] = "/tmp/ratelab-cli-err-XXXXXX";
    close(mkstemp(out_path));
    close(mkstemp(err_path));
    char command[2048];
    snprintf(command, sizeof command, "%s %s >%s 2>%s </dev/null", binary(), args, out_path,
             err_path);
    int raw = system(command);
    o->status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    slurp(out_path, o->out, sizeof o->out);
    slurp(err_path, o->err, sizeof o->err);
    o->err_lines = 0;
    for (const char *c = o->err; *c; c++)
        o->err_lines += *c == '\n';
    unlink(out_path);
    unlink(err_path);
}

static void expect_usage_error(const char *args, const char *needle)
{
    static struct outcome o;
    run(&o, args);
    static char msg[sizeof o.err + 512];
    snprintf(msg, sizeof msg, "ratelab %s: exit %d, %d stderr lines: %s", args, o.status,
             o.err_lines, o.err);
    CU_assertImplementation(o.status == 2, __LINE__, msg, __FILE__, "", CU_FALSE);
    CU_assertImplementation(o.err_lines == 1, __LINE__, msg, __FILE__, "", CU_FALSE);
    CU_assertImplementation(strstr(o.err, needle) != NULL, __LINE__, msg, __FILE__, "", CU_FALSE);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static void test_bad_algorithm(void)
{
    expect_usage_error("sim --algo nope --workload uniform", "unknown algorithm 'nope'");
    expect_usage_error("sim --algo nope --workload uniform", "fw_cas");
    expect_usage_error("stress --algo fw_cas,nope --duration 10ms", "unknown algorithm");
}

static void test_bad_durations_and_limits(void)
{
    expect_usage_error("sim --algo fw_cas --workload uniform --interval 10parsecs", "unit");
    expect_usage_error("sim --algo fw_cas --workload uniform --interval 100", "no unit");
    expect_usage_error("sim --algo fw_cas --workload uniform --interval 0s", "greater than zero");
    expect_usage_error("sim --algo fw_cas --workload uniform --interval -5ms", "not valid");
    expect_usage_error("sim --algo fw_cas --workload uniform --limit 0", "limit");
    expect_usage_error("sim --algo fw_cas --workload uniform --limit -3", "limit");
    expect_usage_error("stress --algo fw_cas --duration 0ms", "greater than zero");
    expect_usage_error("check --events /dev/null --interval 1fortnight", "unit");
}

static void test_bad_traces(void)
{
    const char *bad = "/tmp/ratelab-cli-bad.csv", *unsorted = "/tmp/ratelab-cli-unsorted.csv";
    write_file(bad, "t_ns,key,n\n0,a,1\n10,a,x\n");
    write_file(unsorted, "t_ns,key,n\n0,a,1\n500,a,1\n100,a,1\n");
    expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-bad.csv", ":3:");
    expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-unsorted.csv", ":4:");
    expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-missing.csv", "missing.csv");
    expect_usage_error("check --events /tmp/ratelab-cli-missing.csv", "missing.csv");
    expect_usage_error("check --events /tmp/ratelab-cli-bad.csv", ":1:"); /* wrong header */
    unlink(bad);
    unlink(unsorted);
}

static void test_bad_usage(void)
{
    expect_usage_error("frobnicate", "unknown command");
    expect_usage_error("sim --algo fw_cas --workload uniform --no-such-option",
                       "unrecognized option");
    expect_usage_error("sim --algo fw_cas --workload", "needs a value");
    expect_usage_error("sim --algo fw_cas", "--trace");
    expect_usage_error("sim --algo fw_cas --workload zigzag", "unknown workload");
    expect_usage_error("stress --algo fw_plain --threads 2 --duration 10ms", "--unsafe");
    expect_usage_error("stress --algo fw_cas --clock sundial --duration 10ms", "unknown clock");
    expect_usage_error("sim --algo fw_cas --workload uniform --format yaml", "unknown format");
    expect_usage_error("bench --suite nope", "unknown suite");
}

static void test_help_everywhere(void)
{
    static const char *const commands[] = {"list", "sim", "stress", "trace",
                                           "check", "clocks", "bench"};
    static struct outcome o;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        run(&o, args);
        CU_ASSERT_EQUAL(o.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "usage: ratelab"));
    }
    run(&o, "--help");
    CU_ASSERT_EQUAL(o.status, 0);
}

static void test_list_names_first(void)
{
    static struct outcome o;
    run(&o, "list");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        char line_start[80];
        snprintf(line_start, sizeof line_start, "\n%s ", (*a)->name);
        int first = strncmp(o.out, line_start + 1, strlen(line_start) - 1) == 0;
        CU_ASSERT(first || strstr(o.out, line_start) != NULL);
    }
}

/* The fixed columns of DESIGN §8 open every CSV, in order. */
static void test_sim_csv_columns(void)
{
    static struct outcome o;
    run(&o, "sim --algo fw_cas,fw_aligned --workload boundary --limit 10 --interval 1s "
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
    static struct outcome o;
    run(&o, "trace --workload boundary --limit 10 --interval 1s --out /tmp/ratelab-cli-t.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    run(&o, "sim --algo fw_expiry --limit 10 --interval 1s --trace /tmp/ratelab-cli-t.csv "
            "--decisions /tmp/ratelab-cli-d.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    run(&o, "check --events /tmp/ratelab-cli-d.csv --limit 10 --interval 1s --format csv");
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "key,attempts,admits,"));
    unlink("/tmp/ratelab-cli-t.csv");
    unlink("/tmp/ratelab-cli-d.csv");
}

RL_TEST_SUITE("cli", {"unknown algorithm lists the valid names", test_bad_algorithm},
              {"bad durations, zero or negative limit and interval", test_bad_durations_and_limits},
              {"malformed, unsorted and missing traces", test_bad_traces},
              {"bad commands, options and values", test_bad_usage},
              {"--help on every subcommand", test_help_everywhere},
              {"list puts each name first", test_list_names_first},
              {"sim --format csv opens with the fixed columns", test_sim_csv_columns},
              {"trace, sim --decisions and check fit together", test_round_trip})
