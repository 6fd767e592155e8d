/* test_stress_concurrency.c — see test_concurrency.c; threaded, so it runs
 * again under ThreadSanitizer with every stress* suite. */
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/run/stress.h"

/* Four threads on two cores contend for two permits held 5 µs each: the
 * limit is never passed, and every attempt is accounted for. */
static void test_threads_never_exceed(void)
{
    struct rl_stress_params params = {
        .algo = rl_registry_find("concurrency"),
        .cfg = {.limit = 2, .interval_ns = 1000000},
        .threads = 4,
        .duration_ns = 200000000u,
        .clock = "monotonic",
        .hold_ns = 5000,
    };
    struct rl_stress_outcome out;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
    CU_ASSERT(out.admits > 0);
    CU_ASSERT(out.max_in_flight >= 1 && out.max_in_flight <= 2);
}

RL_TEST_SUITE("stress_concurrency",
              {"4 threads never hold more than L permits", test_threads_never_exceed})
