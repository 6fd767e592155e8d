/* test_replay_cli.c — `ratelab replay` as a user meets it: bad input gets
 * one line on stderr and exit 2, a small run prints its table and its CSV
 * rows carry the replay columns. RATELAB_BIN names the binary under test. */
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

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Runs `ratelab replay ARGS` with stdout and stderr captured. */
static void run(struct outcome *o, const char *args)
{
    const char *bin = getenv("RATELAB_BIN");
    char out_path[] = "/tmp/ratelab-replay-out-XXXXXX",
         err_path[] = "/tmp/ratelab-replay-err-XXXXXX";
    close(mkstemp(out_path));
    close(mkstemp(err_path));
    char command[2048];
    snprintf(command, sizeof command, "%s replay %s >%s 2>%s </dev/null",
             bin ? bin : "build/ratelab", args, out_path, err_path);
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
    snprintf(msg, sizeof msg, "ratelab replay %s: exit %d, %d stderr lines: %s", args, o.status,
             o.err_lines, o.err);
    CU_assertImplementation(o.status == 2, __LINE__, msg, __FILE__, "", CU_FALSE);
    CU_assertImplementation(o.err_lines == 1, __LINE__, msg, __FILE__, "", CU_FALSE);
    CU_assertImplementation(strstr(o.err, needle) != NULL, __LINE__, msg, __FILE__, "", CU_FALSE);
}

static void test_bad_input(void)
{
    expect_usage_error("--algo fw_cas --workload uniform --speed 0", "--speed");
    expect_usage_error("--algo fw_cas --workload uniform --speed fast", "--speed");
    expect_usage_error("--algo nope --workload uniform", "unknown algorithm 'nope'");
    expect_usage_error("--workload uniform", "--algo is required");
    expect_usage_error("--algo fw_cas", "exactly one of --trace FILE or --workload W");
    expect_usage_error("--algo fw_plain --threads 2 --workload uniform", "not thread-safe");
    expect_usage_error("--algo fw_cas --workload uniform --clock virtual", "virtual");
    expect_usage_error("--algo fw_cas --workload uniform --threads 0", "--threads");
    expect_usage_error("--algo fw_cas --workload uniform --bogus", "unrecognized option");
    const char *path = "/tmp/ratelab-replay-unsorted.csv";
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n\n2000,a,1\n1000,a,1\n", f);
    fclose(f);
    expect_usage_error("--algo fw_cas --trace /tmp/ratelab-replay-unsorted.csv", "earlier");
    unlink(path);
}

static void test_small_run(void)
{
    static struct outcome o;
    run(&o, "--algo fw_cas,sliding_log --threads 2 --workload uniform --duration 50ms "
            "--limit 50 --interval 10ms");
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_EQUAL(o.err_lines, 0); /* no progress when stderr is not a terminal */
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "p99.9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "sliding_log"));
    run(&o, "--algo sliding_log --workload uniform --duration 50ms --limit 50 --interval 10ms "
            "--speed 2 --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *header_end = strchr(o.out, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(header_end);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, ",speed,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,"
                                         "lat_max_ns,late_p50_ns,late_p99_ns,late_max_ns,"
                                         "svc_p50_ns,svc_p99_ns\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(header_end, "sliding_log,sliding_log,strong,replay,uniform,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(header_end, ",2,")); /* the speed */
}

RL_TEST_SUITE("replay_cli", {"bad input: one line, exit 2", test_bad_input},
              {"a small run: table, CSV columns", test_small_run})
