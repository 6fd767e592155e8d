/* test_cluster_faults.c — --fault's fast cases, in make test: bad specs
 * and a recorded stress run with a manual failover on a private 3x1
 * cluster of its own (harness/run/faults.h), which names its fault and an
 * outage and loses nothing. The slower kinds are in
 * test_cluster_faults_slow.c (make cluster-check). Every node is stopped
 * and its folder removed however the test ends (redis_cluster.c's atexit
 * handler covers a fatal assertion). */
#include "harness/run/faults.h"
#include "tests/support/cluster_stress.h"
#include "tests/support/test_util.h"

#include <string.h>

/* A manual failover: the replica agrees with its primary first, nothing
 * is lost and the promise holds. */
static void test_failover_loses_nothing(void)
{
    struct rl_result r;
    rl_test_faulted_run("redis_fixed_window", "failover@300ms", 2000, 10000000000ull, 1500000000u,
                        &r);
    rl_test_expect_faulted_row(&r, "failover@300ms");
    EXPECT(r.lost_admits == 0, "failover lost %llu admits", (unsigned long long)r.lost_admits);
    EXPECT(r.admits <= 2000, "admits %llu over L in the one window", (unsigned long long)r.admits);
}

/* Bad specs: one line each. */
static void test_bad_specs(void)
{
    struct rl_faults f;
    char err[256];
    CU_ASSERT_EQUAL(rl_faults_parse("kill-primary", NULL, &f, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "has no time"));
    CU_ASSERT_EQUAL(rl_faults_parse("explode@1s", NULL, &f, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown fault 'explode'"));
    CU_ASSERT_EQUAL(rl_faults_parse("kill-primary@2s,stall-replica@1s", NULL, &f, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(f.count, 2);
    CU_ASSERT_EQUAL(f.list[0].kind, RL_FAULT_STALL_REPLICA); /* sorted by time */
    CU_ASSERT_EQUAL(f.list[1].at_ns, 2000000000u);
    CU_ASSERT_STRING_EQUAL(f.spec, "kill-primary@2s+stall-replica@1s"); /* a CSV field */
    CU_ASSERT_EQUAL(rl_faults_parse("failover@1s+reshard@2s", NULL, &f, err, sizeof err), 0);
    CU_ASSERT_EQUAL(f.count, 2);
}

RL_TEST_SUITE("cluster_faults", {"bad --fault specs", test_bad_specs},
              {"a manual failover loses nothing", test_failover_loses_nothing})
