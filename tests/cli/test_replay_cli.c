/* test_replay_cli.c — `ratelab replay` as a user meets it: bad input gets
 * one line on stderr and exit 2, a small run prints its table and its CSV
 * rows carry the replay columns. RATELAB_BIN names the binary under test. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_bad_input(void)
{
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --speed 0", "--speed");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --speed fast", "--speed");
    rl_cli_expect_usage_error("replay --algo nope --workload uniform", "unknown algorithm 'nope'");
    rl_cli_expect_usage_error("replay --workload uniform", "--algo is required");
    rl_cli_expect_usage_error("replay --algo fw_cas",
                              "exactly one of --trace FILE or --workload W");
    rl_cli_expect_usage_error("replay --algo fw_plain --threads 2 --workload uniform",
                              "not thread-safe");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --clock virtual", "virtual");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --threads 0", "--threads");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --bogus",
                              "unrecognized option");
    const char *path = "/tmp/ratelab-replay-unsorted.csv";
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n\n2000,a,1\n1000,a,1\n", f);
    fclose(f);
    rl_cli_expect_usage_error("replay --algo fw_cas --trace /tmp/ratelab-replay-unsorted.csv",
                              "earlier");
    unlink(path);
}

static void test_small_run(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o,
               "replay --algo fw_cas,sliding_log --threads 2 --workload uniform --duration 50ms "
               "--limit 50 --interval 10ms");
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_EQUAL(o.err_lines, 0); /* no progress when stderr is not a terminal */
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "p99.9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "sliding_log"));
    rl_cli_run(
        &o,
        "replay --algo sliding_log --workload uniform --duration 50ms --limit 50 --interval 10ms "
        "--speed 2 --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *header_end = strchr(o.out, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(header_end);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, ",speed,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,"
                                         "lat_max_ns,late_p50_ns,late_p99_ns,late_max_ns,"
                                         "svc_p50_ns,svc_p99_ns,load_1m,runnable,build,slots,"
                                         "uncertain_admits,cluster,fault,outage_ms,lost_admits,"
                                         "overshoot_p50_ns,overshoot_p99_ns,overshoot_max_ns\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(header_end, "sliding_log,sliding_log,strong,replay,uniform,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(header_end, ",2,")); /* the speed */
}

/* --latency-out: each run's points end at 100 with the max the results
 * row reports, and the file holds both runs. */
static void test_latency_out(void)
{
    const char *results = "/tmp/ratelab-replay-rows.csv", *latency = "/tmp/ratelab-replay-lat.csv";
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "replay --algo fw_cas,tb_cas --workload uniform --duration 50ms --limit 50 "
                   "--interval 10ms --out /tmp/ratelab-replay-rows.csv "
                   "--latency-out /tmp/ratelab-replay-lat.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    FILE *f = fopen(latency, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512], algo[64], max_of[2][32] = {"", ""};
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_EQUAL(strncmp(line,
                            "algo,workload,clock,threads,rep,speed,limit,interval_ns,"
                            "percentile,one_in,latency_ns,total,",
                            70),
                    0);
    int rows = 0;
    double percentile, one_in;
    unsigned long long latency_ns, total;
    while (fgets(line, sizeof line, f)) {
        rows++;
        CU_ASSERT_EQUAL_FATAL(sscanf(line,
                                     "%63[^,],uniform,monotonic,1,1,1,50,10000000,%lf,%lf,"
                                     "%llu,%llu,",
                                     algo, &percentile, &one_in, &latency_ns, &total),
                              5);
        CU_ASSERT(percentile == 100 ? one_in == (double)total : one_in < (double)total + 1);
        if (percentile == 100)
            snprintf(max_of[strcmp(algo, "tb_cas") == 0], sizeof max_of[0], "%llu", latency_ns);
    }
    fclose(f);
    CU_ASSERT(rows > 20);
    /* lat_max_ns in each results row is that run's 100th percentile */
    f = fopen(results, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    for (int i = 0; i < 2; i++) {
        char needle[80];
        CU_ASSERT_FATAL(max_of[i][0] != '\0');
        snprintf(needle, sizeof needle, ",%s,", max_of[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, needle));
    }
    unlink(results);
    unlink(latency);
}

/* --decisions: the whole log, which `ratelab check` reads back to the
 * results row's max_sliding; one run only. */
static void test_decisions(void)
{
    rl_cli_expect_usage_error(
        "replay --algo fw_cas,tb_cas --workload uniform --decisions /tmp/d.csv",
        "one --algo, one --threads count and --reps 1");
    rl_cli_expect_usage_error(
        "replay --algo fw_cas --reps 2 --workload uniform --decisions /tmp/d.csv",
        "one --algo, one --threads count and --reps 1");
    rl_cli_expect_usage_error(
        "replay --algo fw_cas --threads 1,2 --workload uniform --decisions /tmp/d.csv",
        "one --algo, one --threads count and --reps 1");
    static struct rl_cli_outcome o;
    rl_cli_run(&o,
               "replay --algo fw_cas --threads 2 --workload boundary --limit 50 --interval 10ms "
               "--duration 100ms --decisions /tmp/ratelab-replay-dec.csv --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *row = strchr(o.out, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    unsigned long max_sliding = rl_cli_csv_number(o.out, row + 1, "max_sliding");
    CU_ASSERT(max_sliding >= 50);
    static struct rl_cli_outcome c;
    rl_cli_run(&c, "check --events /tmp/ratelab-replay-dec.csv --limit 50 --interval 10ms");
    CU_ASSERT_EQUAL_FATAL(c.status, 0);
    const char *line = strstr(c.out, "max_sliding");
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_EQUAL(strtoul(line + strlen("max_sliding"), NULL, 10), max_sliding);
    unlink("/tmp/ratelab-replay-dec.csv");
}

/* --threads takes a list, as stress does: one row per thread count, the
 * repetitions interleaved (every thread count of rep 1, then rep 2), each
 * row with the load at its start. */
static void test_threads_list(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "replay --algo fw_cas --threads 1,2 --workload uniform --duration 20ms "
                   "--limit 50 --interval 10ms --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(rl_cli_lines(o.out) == 3, "a header and two rows:\n%s", o.out);
    const char *row = strchr(o.out, '\n') + 1;
    EXPECT_EQ(rl_cli_csv_number(o.out, row, "threads"), 1);
    EXPECT_EQ(rl_cli_csv_number(o.out, row, "rep"), 1);
    row = strchr(row, '\n') + 1;
    EXPECT_EQ(rl_cli_csv_number(o.out, row, "threads"), 2);
    EXPECT_EQ(rl_cli_csv_number(o.out, row, "rep"), 1);
    char field[64], *end;
    double load = strtod(rl_cli_csv_field(o.out, row, "load_1m", field, sizeof field), &end);
    EXPECT(field[0] != '\0' && *end == '\0' && load >= 0, "load_1m '%s'", field);
    EXPECT(rl_cli_csv_number(o.out, row, "runnable") >= 1, "runnable");

    rl_cli_run(&o, "replay --algo fw_cas,tb_cas --threads 1,2 --reps 2 --workload uniform "
                   "--duration 20ms --limit 50 --interval 10ms --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    static const struct {
        const char *algo;
        unsigned threads, rep;
    } order[] = {{"fw_cas", 1, 1}, {"tb_cas", 1, 1}, {"fw_cas", 2, 1}, {"tb_cas", 2, 1},
                 {"fw_cas", 1, 2}, {"tb_cas", 1, 2}, {"fw_cas", 2, 2}, {"tb_cas", 2, 2}};
    EXPECT(rl_cli_lines(o.out) == 9, "a header and eight rows:\n%s", o.out);
    row = strchr(o.out, '\n') + 1;
    for (size_t i = 0; i < 8 && *row; i++, row = strchr(row, '\n') + 1) {
        EXPECT(strncmp(row, order[i].algo, strlen(order[i].algo)) == 0, "row %zu: %.40s", i, row);
        EXPECT_EQ(rl_cli_csv_number(o.out, row, "threads"), order[i].threads);
        EXPECT_EQ(rl_cli_csv_number(o.out, row, "rep"), order[i].rep);
    }
    /* the table: a threads column when the counts differ */
    rl_cli_run(&o, "replay --algo fw_cas --threads 1,2 --workload uniform --duration 20ms "
                   "--limit 50 --interval 10ms");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "1,2 threads"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "\nalgo                 threads "));
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --threads 1,,2",
                              "--threads");
    rl_cli_expect_usage_error("replay --algo fw_plain --workload uniform --threads 1,2",
                              "not thread-safe");
}

RL_TEST_SUITE("replay_cli", {"bad input: one line, exit 2", test_bad_input},
              {"a small run: table, CSV columns", test_small_run},
              {"--latency-out: the whole distribution, ending at the max", test_latency_out},
              {"--decisions: the log check reads back", test_decisions},
              {"--threads 1,2: a row per thread count, reps interleaved", test_threads_list})
