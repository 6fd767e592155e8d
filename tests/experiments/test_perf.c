/* test_perf.c — what the perf suite shares: a row's verdict against its
 * target in either direction, the median, and the child runner's exit
 * status and peak memory. The goals' ratios are printed, never asserted. */
#include "harness/report/stats.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "harness/experiments/perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_met(void)
{
    struct rl_perf_row r = {.ratio = 1.2, .at_most = true, .target = 1.25};
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "yes");
    r.ratio = 1.3;
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "no");
    r.at_most = false;
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "yes");
    /* a row kept for its history is reported, met or not; unmeasured stays n/a */
    r.reported = true;
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "reported");
    r.ratio = 0.1;
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "reported");
    r.ratio = NAN;
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "n/a");
    r.reported = false;
    CU_ASSERT_STRING_EQUAL(rl_perf_met(&r), "n/a");
}

/* bench --goal finds each goal of perf_goals.def by its name, and no other. */
static void test_goal_find(void)
{
    for (const struct rl_perf_goal *const *g = rl_perf_goals; *g; g++)
        CU_ASSERT_PTR_EQUAL(rl_perf_goal_find((*g)->name), *g);
    CU_ASSERT_PTR_NOT_NULL(rl_perf_goal_find("clock"));
    CU_ASSERT_PTR_NULL(rl_perf_goal_find("cloc"));
    CU_ASSERT_PTR_NULL(rl_perf_goal_find(""));
    rl_cli_expect_usage_error("bench --suite perf --goal cloc", "cloc");
    rl_cli_expect_usage_error("bench --suite quick --goal clock", "--goal");
    rl_cli_expect_usage_error("bench --suite perf --goal clock --goal keyed", "twice");
}

static void test_median(void)
{
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
    CU_ASSERT_DOUBLE_EQUAL(rl_median(odd, 3), 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rl_median(even, 4), 2.5, 1e-12);
    CU_ASSERT(isnan(rl_median(odd, 0)));
}

/* A child that exits 0 gives its time and a peak RSS of at least the
 * memory it touched; one that fails is an error naming its status. */
static void test_run_child(void)
{
    char err[256] = "";
    double wall = -1;
    uint64_t rss = 0;
    char *ok[] = {"/bin/sh", "-c", "head -c 50000000 /dev/zero | tail -c 1 >/dev/null", NULL};
    EXPECT(rl_perf_run_child(ok, NULL, &wall, &rss, err, sizeof err) == 0, "%s", err);
    CU_ASSERT(wall > 0 && wall < 60);
    CU_ASSERT(rss > 0);
    char *fail[] = {"/bin/sh", "-c", "exit 3", NULL};
    CU_ASSERT_EQUAL(rl_perf_run_child(fail, NULL, &wall, &rss, err, sizeof err), -1);
    EXPECT(strstr(err, "status 3") != NULL, "%s", err);
    char *missing[] = {"/nonexistent/binary", NULL};
    CU_ASSERT_EQUAL(rl_perf_run_child(missing, NULL, &wall, &rss, err, sizeof err), -1);
}

RL_TEST_SUITE("perf", {"bench --goal finds goals by name", test_goal_find},
              {"a row's verdict follows its direction", test_met},
              {"median of odd, even and no values", test_median},
              {"a child's time, memory and failure", test_run_child})
