/* test_cluster_faults_slow.c — a recorded stress run per slow fault kind
 * on a private 3x1 cluster (make cluster-check, about 30 s): a reshard
 * loses nothing; a kill is an outage of at least the node timeout; a
 * stalled replica elected after its primary's kill gives admits away,
 * which lost_admits counts and the verdict calls "no", unless each admit
 * waits for its replica (--wait-replicas 1). */
#include "algorithms/rl.h"
#include "harness/sys/redis_cluster.h"
#include "tests/support/cluster_stress.h"
#include "tests/support/test_util.h"

/* Half the slots of the key's primary move (keys included) mid-run:
 * nothing lost. */
static void test_reshard_loses_nothing(void)
{
    struct rl_result r;
    rl_test_faulted_run("redis_gcra", "reshard@300ms", 2000, 10000000000ull, 2000000000u, &r);
    rl_test_expect_faulted_row(&r, "reshard@300ms");
    EXPECT(r.lost_admits == 0, "reshard lost %llu admits", (unsigned long long)r.lost_admits);
}

/* A killed primary: clients see errors (or wait) until its replica is
 * elected, which takes at least the node timeout. */
static void test_kill_primary_outage(void)
{
    struct rl_result r;
    rl_test_faulted_run("redis_token_bucket", "kill-primary@300ms", 2000, 10000000000ull,
                        4000000000u, &r);
    rl_test_expect_faulted_row(&r, "kill-primary@300ms");
    EXPECT(r.outage_ms >= RL_REDIS_CLUSTER_NODE_TIMEOUT_MS, "outage %g ms < the node timeout",
           r.outage_ms);
}

/* The replica stalls before the window's admits are replicated; its
 * primary is killed; the replica wakes and is elected without them, and
 * the window admits its L again: lost_admits > 0, at most L, verdict no. */
static void test_stall_then_kill_loses_admits(void)
{
    struct rl_result r;
    rl_test_faulted_run("redis_fixed_window", "stall-replica@0ms,kill-primary@1s", 2000,
                        20000000000ull, 6000000000u, &r);
    rl_test_expect_faulted_row(&r, "stall-replica@0ms+kill-primary@1s"); /* no comma in CSV */
    EXPECT(r.lost_admits > 0 && r.lost_admits <= 2000, "lost_admits %llu, want 1..2000",
           (unsigned long long)r.lost_admits);
    EXPECT(rl_result_held(&r) == RL_HELD_NO, "held %s with %llu lost admits",
           rl_result_promise_held(&r), (unsigned long long)r.lost_admits);
}

/* The same faults with --wait-replicas 1: an admit the stalled replica did
 * not acknowledge within 100 ms is an error, rejected (fail-closed), so
 * none is given away. */
static void test_wait_replicas_keeps_the_promise(void)
{
    struct rl_result r;
    /* L small: with each admit waiting up to 100 ms, L must be reached
     * both before the kill and after it for a lost write to show */
    rl_remote_set_wait_replicas(1);
    rl_test_faulted_run("redis_fixed_window", "stall-replica@0ms,kill-primary@1s", 10,
                        20000000000ull, 6000000000u, &r);
    rl_remote_set_wait_replicas(0);
    rl_test_expect_faulted_row(&r, "stall-replica@0ms+kill-primary@1s");
    EXPECT(r.lost_admits == 0, "lost_admits %llu with --wait-replicas 1",
           (unsigned long long)r.lost_admits);
    EXPECT(r.errors > 0, "no admit waited out its replica");
}

RL_TEST_SUITE("cluster_faults_slow", {"a reshard loses nothing", test_reshard_loses_nothing},
              {"a killed primary: outage >= node timeout", test_kill_primary_outage},
              {"stall-replica then kill-primary: admits lost", test_stall_then_kill_loses_admits},
              {"--wait-replicas 1: none lost", test_wait_replicas_keeps_the_promise})
