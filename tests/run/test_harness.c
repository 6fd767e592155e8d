/* test_harness.c — units of the harness: value parsing, clocks, files
 * written whole. */
#include "tests/support/test_util.h"
#include "harness/cli/parse.h"
#include "harness/io/outfile.h"
#include "harness/sys/clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void test_durations(void)
{
    char err[256];
    uint64_t ns;
    static const struct {
        const char *text;
        uint64_t ns;
    } good[] = {{"1s", 1000000000u}, {"1.5s", 1500000000u}, {"250ms", 250000000u},
                {"100us", 100000u},  {"40ns", 40},          {"0ns", 0},
                {"2.5us", 2500}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        CU_ASSERT_EQUAL(rl_parse_duration_ns(good[i].text, &ns, err, sizeof err), 0);
        CU_ASSERT_EQUAL(ns, good[i].ns);
    }
    static const char *const bad[] = {"", "10", "ms", "-1s", "1 s", "1sec", "1e400s", "+3ms"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CU_ASSERT_EQUAL(rl_parse_duration_ns(bad[i], &ns, err, sizeof err), -1);
}

static void test_numbers_and_lists(void)
{
    char err[256];
    uint64_t v, items[4];
    size_t count;
    CU_ASSERT_EQUAL(rl_parse_u64("42", 1, 100, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 42);
    CU_ASSERT_EQUAL(rl_parse_u64("0", 1, 100, &v, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64("-1", 1, 100, &v, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64("7x", 1, 100, &v, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,2,4", 1, 64, items, 4, &count, err, sizeof err), 0);
    CU_ASSERT_EQUAL(count, 3);
    CU_ASSERT_EQUAL(items[2], 4);
    /* an empty item is refused, not skipped (test_parse.c says more) */
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,,2", 1, 64, items, 4, &count, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,2,3,4,5", 1, 64, items, 4, &count, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list("0", 1, 64, items, 4, &count, err, sizeof err), -1);
}

static void test_clocks(void)
{
    char err[256];
    struct rl_clock mono, tsc, virt;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&mono, "monotonic", err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_clock_init(&virt, "virtual", err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_clock_now(&virt), RL_VIRTUAL_ORIGIN_NS);
    rl_clock_set_virtual(&virt, 12345);
    CU_ASSERT_EQUAL(rl_clock_now(&virt), 12345);
    CU_ASSERT_EQUAL(virt.reads, 2);
    CU_ASSERT_EQUAL(rl_clock_init(&mono, "sundial", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown clock"));

    uint64_t previous = rl_clock_now(&mono);
    for (int i = 0; i < 100000; i++) {
        uint64_t now = rl_clock_now(&mono);
        CU_ASSERT_FATAL(now >= previous);
        previous = now;
    }
    /* tsc, where the machine has an invariant one, tracks monotonic to
     * within 1 ms over 50 ms. */
    if (rl_clock_init(&tsc, "tsc", err, sizeof err) == 0) {
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        int64_t drift = (int64_t)(rl_clock_now(&tsc) - rl_clock_now(&mono));
        CU_ASSERT(drift > -1000000 && drift < 1000000);
    }
}

static void test_outfile(void)
{
    char err[256];
    const char *path = "/tmp/ratelab-outfile-test.csv";
    unlink(path);
    struct rl_outfile out;
    CU_ASSERT_EQUAL_FATAL(rl_outfile_open(&out, path, err, sizeof err), 0);
    fputs("half", out.fp);
    CU_ASSERT_EQUAL(access(path, F_OK), -1); /* nothing at the target while writing */
    rl_outfile_abort(&out);
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
    CU_ASSERT_EQUAL(access(out.tmp_path, F_OK), -1);
    CU_ASSERT_EQUAL_FATAL(rl_outfile_open(&out, path, err, sizeof err), 0);
    fputs("whole\n", out.fp);
    CU_ASSERT_EQUAL(rl_outfile_commit(&out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    CU_ASSERT_EQUAL(access(out.tmp_path, F_OK), -1);
    unlink(path);
    CU_ASSERT_EQUAL(rl_outfile_open(&out, "/nonexistent-dir/x.csv", err, sizeof err), -1);
}

RL_TEST_SUITE("harness", {"durations need a unit and are exact", test_durations},
              {"counts and comma lists", test_numbers_and_lists},
              {"clocks: virtual, monotonic order, tsc tracks monotonic", test_clocks},
              {"output files appear whole or not at all", test_outfile})
