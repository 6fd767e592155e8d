/* test_concurrency.c — the concurrency limiter: a hand-worked sequence of
 * acquires and releases (threads: test_stress_concurrency.c). */
#include "tests/support/test_util.h"
#include "algorithms/rl.h"

#include <string.h>

static void test_sequence(void)
{
    const struct rl_algo *algo = rl_registry_find("concurrency");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    CU_ASSERT(algo->flags & RL_NEEDS_RELEASE);
    struct rl_config cfg = {.limit = 2, .interval_ns = 1000};
    char err[128];
    void *s = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 1), RL_ADMIT);  /* 1 held */
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 1), RL_ADMIT);  /* 2 held */
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 1), RL_REJECT); /* full; nothing kept */
    algo->release(s, NULL, 0, 1);                             /* 1 held */
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 2), RL_REJECT); /* 1 + 2 > 2 */
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 1), RL_ADMIT);  /* 2 held */
    algo->release(s, NULL, 0, 1);
    algo->release(s, NULL, 0, 1);                             /* none held */
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 3), RL_REJECT); /* n > L */
    CU_ASSERT_EQUAL(algo->acquire(s, NULL, 0, 2), RL_ADMIT);
    algo->destroy(s);
}

RL_TEST_SUITE("concurrency", {"acquire and release, hand-worked", test_sequence})
