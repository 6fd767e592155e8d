/* test_stress_keyed_lookahead.c — stress's look-ahead under threads: keys
 * drawn ahead, prefetched and decided in batches (rl_keyed_acquire_batch)
 * while tables grow, every attempt one counted acquire, no key over its
 * bucket; and the runs it cannot serve are refused. Again under
 * ThreadSanitizer with every stress*. */
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/run/stress.h"

#define KEYS 20000u /* from empty tables: rebuilds run while batches decide */

static void check_bucket_bound(unsigned threads, enum rl_keyed_expiry expiry)
{
    struct rl_stress_params params = {
        .algo = rl_registry_find("tb_cas"),
        /* one token a key, refilled once a second: in 100 ms a key admits
         * once (twice at most, should a refill fall in the run) */
        .cfg = {.limit = 1, .interval_ns = 1000000000u},
        .threads = threads,
        .duration_ns = 100000000u,
        .clock = "monotonic",
        .keys = KEYS,
        .expiry = expiry,
        .lookahead = 8,
    };
    struct rl_stress_outcome out;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(out.errors, 0);
    CU_ASSERT(out.keyed.created > 1000); /* tables grew (slowly under ThreadSanitizer) */
    CU_ASSERT(out.admits >= out.keyed.live_keys);
    CU_ASSERT(out.admits <= 2 * out.keyed.created);
    CU_ASSERT(out.rejects > 0);
    rl_stress_outcome_free(&out);
}

static void test_two_threads(void)
{
    check_bucket_bound(2, RL_EXPIRE_NEVER);
}

static void test_oversubscribed_lazy(void)
{
    check_bucket_bound(4, RL_EXPIRE_LAZY);
}

static void test_refused(void)
{
    struct rl_stress_params params = {
        .algo = rl_registry_find("tb_cas"),
        .cfg = {.limit = 1, .interval_ns = 1000000000u},
        .threads = 1,
        .duration_ns = 1000000u,
        .clock = "monotonic",
        .keys = 100,
        .lookahead = RL_STRESS_MAX_LOOKAHEAD + 1,
    };
    struct rl_stress_outcome out;
    char err[256];
    CU_ASSERT_EQUAL(rl_stress_run(&params, &out, err, sizeof err), -1);
    params.lookahead = 8;
    params.record = true; /* each admit stamped as it is decided: not in batches */
    CU_ASSERT_EQUAL(rl_stress_run(&params, &out, err, sizeof err), -1);
    params.record = false;
    params.keys = 1;
    CU_ASSERT_EQUAL(rl_stress_run(&params, &out, err, sizeof err), -1);
    params.keys = 100;
    params.algo = rl_registry_find("concurrency"); /* needs release */
    CU_ASSERT_EQUAL(rl_stress_run(&params, &out, err, sizeof err), -1);
}

RL_TEST_SUITE("stress_keyed_lookahead",
              {"look-ahead: two threads, growing tables, every key in its bucket",
               test_two_threads},
              {"look-ahead: four threads on two cores, lazy expiry", test_oversubscribed_lazy},
              {"look-ahead refused where it cannot decide in batches", test_refused})
