/* test_stress_keyed.c — the keyed container under threads, with the real
 * sweeper thread running; again under ThreadSanitizer with every stress*. */
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/run/stress.h"

static void test_threads_keys_sweeper(void)
{
    struct rl_stress_params params = {
        .algo = rl_registry_find("fw_aligned"),
        .cfg = {.limit = 20, .interval_ns = 2000000u}, /* idle after 6 ms: sweeps run */
        .threads = 2,
        .duration_ns = 200000000u,
        .clock = "monotonic",
        .record = true,
        .keys = 64,
        .expiry = RL_EXPIRE_SWEEPER,
    };
    struct rl_stress_outcome out;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(out.errors, 0);
    CU_ASSERT_EQUAL(out.log.len, out.admits);
    CU_ASSERT(out.keyed.created >= 64);
    CU_ASSERT(out.keyed.sweeps > 0);
    struct rl_check_params check = {.limit = 20, .interval_ns = 2000000u};
    struct rl_check_result res;
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    CU_ASSERT_EQUAL(res.key_count, 64);
    /* weak, per key, across expiries; judged on the admits whose stamps
     * certainly lie in their window (stress_check.h) */
    uint64_t certain = rl_certain_max_aligned(&out.log, 2000000u);
    CU_ASSERT(certain <= 20);
    CU_ASSERT(certain > 0);
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}

/* More threads than cores, thousands of Zipf keys, lazy expiry: every key
 * keeps its bucket bound (B + L per interval, judged on certain stamps). */
static void test_many_threads_zipf_lazy(void)
{
    struct rl_stress_params params = {
        .algo = rl_registry_find("tb_cas"),
        .cfg = {.limit = 50, .interval_ns = 5000000u},
        .threads = 4,
        .duration_ns = 200000000u,
        .clock = "monotonic",
        .record = true,
        .keys = 5000,
        .zipf_s = 1.1,
        .expiry = RL_EXPIRE_LAZY,
    };
    struct rl_stress_outcome out;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(out.errors, 0);
    CU_ASSERT_EQUAL(out.log.len, out.admits);
    CU_ASSERT(out.keyed.created > 100); /* the Zipf tail was reached */
    struct rl_check_params check = {.limit = 50, .interval_ns = 5000000u};
    struct rl_check_result res;
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    CU_ASSERT(res.total.certain_max_sliding <= 50 + 50); /* B + L, B = L */
    CU_ASSERT(res.total.certain_max_sliding > 0);
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}

RL_TEST_SUITE("stress_keyed",
              {"2 threads, 64 keys, sweeper thread: per-key weak bound", test_threads_keys_sweeper},
              {"4 threads, 5000 Zipf keys, lazy expiry: per-key bucket bound",
               test_many_threads_zipf_lazy})
