/* test_coord_redis_cluster_slow.c — the coordination stores on the shared
 * 3x1 Redis Cluster (make cluster-check): with each key's state under its
 * own hash tag, keys in different slots, every store answers as the C
 * serve (tests/support/coord_store.c). */
#include "tests/support/cluster_fixture.h"
#include "tests/support/coord_store.h"
#include "tests/support/test_util.h"

/* On the shared 3x1 cluster (make cluster-check): every store, keys in
 * different slots, answers as the C serve. */
static void test_cluster_answers_as_c(void)
{
    const char *address = rl_test_cluster()->address;
    for (size_t c = 0; rl_test_coord_stores[c]; c++)
        rl_test_coord_same_as_c(rl_test_coord_stores[c], address, 0xC0FFEEull + c, 800,
                                1764000000123456789ull);
}

RL_TEST_SUITE("coord_redis_cluster_slow", {"every store answers as C", test_cluster_answers_as_c})
