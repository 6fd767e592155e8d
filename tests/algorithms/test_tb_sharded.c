/* test_tb_sharded.c — tb_sharded on one thread, in virtual time: its
 * decisions by hand, k = 1 is tb_cas, the excess its cache adds is real and
 * within B + L + (k − 1), and the bound the harness judges it by. Its
 * threads (several caches, slots reused and running out) are in
 * test_stress_tb_sharded.c.
 *
 * Hand-worked sequences use L = 3 per I = 3000 ns: a token every 1000 ns,
 * one tick a ns (tb_ticks.h). */
#include "tests/support/bucket_window.h"
#include "tests/support/decide.h"
#include "tests/support/random_trace.h"
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/report/result.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"

#include <string.h>

/* k = 3, B = 3. Cache contents after each step in (); the bucket's in []. A
 * hit reads no clock; a refill takes a whole batch when the bucket has one,
 * what it holds (≥ need) when not, and nothing when it holds less than
 * need; n > B is refused without a read. */
static void test_decisions_by_hand(void)
{
    static const struct rl_config sharded_3 = {
        .limit = 3, .interval_ns = 3000, .burst = 3, .slots = 3};
    uint64_t reads = rl_expect_decisions_cfg(
        "tb_sharded", &sharded_3,
        RL_STEPS({0, 1, 'A'},      /* takes 3, pays 1 (2) [0]      read 1 */
                 {0, 1, 'A'},      /* hit (1) */
                 {0, 1, 'A'},      /* hit (0) */
                 {0, 1, 'R'},      /* bucket empty              read 2 */
                 {1000, 1, 'A'},   /* one token: takes 1 (0)    read 3 */
                 {100000, 2, 'A'}, /* full: takes 3, pays 2 (1) [0] read 4 */
                 {100000, 2, 'R'}, /* needs 1 more, none (1)    read 5 */
                 {100000, 1, 'A'}, /* hit (0) */
                 {200000, 4, 'R'}, /* n > B: no read */
                 {200000, 3, 'A'}, /* takes 3, pays 3 (0)       read 6 */
                 {200000, 1, 'R'}  /*                           read 7 */
                 ));
    CU_ASSERT_EQUAL(reads, 7);
}

/* A refill when the bucket holds fewer than a batch but at least need takes
 * all it holds, not just need: the rest waits in the cache, where the
 * bucket's capacity no longer caps it (the (k − 1) of the excess), so a
 * later full bucket plus the cache admits one more than the bucket alone.
 * k = 3, B = 3, a token every 1000 ns; cache in (), bucket in []. */
static void test_partial_refill_takes_what_is_held(void)
{
    static const struct rl_config sharded_3 = {
        .limit = 3, .interval_ns = 3000, .burst = 3, .slots = 3};
    uint64_t reads = rl_expect_decisions_cfg(
        "tb_sharded", &sharded_3,
        RL_STEPS({0, 3, 'A'},      /* takes 3, pays 3 (0) [0]          read 1 */
                 {2000, 1, 'A'},   /* [2] < a batch: takes 2, pays 1 (1) [0]  read 2 */
                 {100000, 3, 'A'}, /* full [3]: needs 2, takes 3 (1) [0]     read 3 */
                 {100000, 1, 'A'}  /* hit (0): taking only need would have left
                                      (0) and an empty bucket: a reject */
                 ));
    CU_ASSERT_EQUAL(reads, 3);
}

/* k is S, at most B; left out it is B/100 between 1 and 10: the excess the
 * harness allows, (k − 1)·min(threads, 64), follows. */
static void test_batch_and_excess(void)
{
    const struct rl_algo *algo = rl_registry_find("tb_sharded");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo->bucket_excess);
    const struct {
        uint64_t limit, burst;
        uint32_t slots;
        unsigned threads;
        uint64_t excess;
    } cases[] = {
        {1000, 0, 8, 2, 14},       /* k = 8 */
        {1000, 0, 8, 100, 7 * 64}, /* at most 64 caches */
        {1000, 0, 0, 2, 18},       /* default k = 10 */
        {4000, 0, 0, 2, 18},       /* default capped at 10 */
        {150, 0, 0, 2, 0},         /* default k = 1: tb_cas */
        {500, 0, 0, 3, 12},        /* default k = 5 */
        {1000, 20, 64, 2, 38},     /* k ≤ B = 20 */
        {1000, 0, 8, 0, 0},        /* nobody calls */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rl_config cfg = {.limit = cases[i].limit,
                                .interval_ns = 1000000,
                                .burst = cases[i].burst,
                                .slots = cases[i].slots};
        EXPECT(algo->bucket_excess(&cfg, cases[i].threads) == cases[i].excess,
               "case %zu: excess %llu, want %llu", i,
               (unsigned long long)algo->bucket_excess(&cfg, cases[i].threads),
               (unsigned long long)cases[i].excess);
        /* the bound promise_held compares certain_max_sliding with */
        struct rl_result r = {.algo = algo, .cfg = cfg, .threads = cases[i].threads};
        EXPECT_EQ(rl_result_promised_bound(&r),
                  rl_config_burst(&cfg) + cfg.limit + cases[i].excess);
    }
    /* every other bucket keeps B + L */
    struct rl_result r = {.algo = rl_registry_find("tb_cas"),
                          .cfg = {.limit = 10, .interval_ns = 1, .burst = 4},
                          .threads = 8};
    EXPECT_EQ(rl_result_promised_bound(&r), 14);
}

#define TRACES 200

static const struct rl_test_trace_shape shape = {
    .salt = 151515, .scramble = true, .odd_intervals = true, .burst = true};

static void sim(const struct rl_config *cfg, const char *name, const struct rl_trace *trace,
                struct rl_event_log *log)
{
    struct rl_sim_outcome out;
    char err[256];
    int rc = rl_sim_run(rl_registry_find(name), cfg, trace, log, &out, err, sizeof err);
    EXPECT_FATAL(rc == 0, "%s: %s", name, err);
    CU_ASSERT_EQUAL(out.errors, 0);
}

/* With k = 1 nothing is ever cached: every decision is tb_cas's, on seeded
 * traces with costs 1–3, n > B, several keys and odd intervals. */
static void test_batch_one_is_tb_cas(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log reference, log;
        sim(&cfg, "tb_cas", &trace, &reference);
        cfg.slots = 1;
        sim(&cfg, "tb_sharded", &trace, &log);
        CU_ASSERT_EQUAL_FATAL(log.len, reference.len);
        size_t differ = rl_logs_differ(&log, &reference);
        EXPECT(differ == 0, "seed %llu: %zu of %zu decisions differ from tb_cas",
               (unsigned long long)seed, differ, log.len);
        rl_event_log_free(&reference);
        rl_event_log_free(&log);
        rl_trace_free(&trace);
    }
}

/* One cache, filled and left idle while the bucket refills, then spent in a
 * window that also takes the whole bucket and its refill: 7 in [3000, 6000)
 * where tb_cas admits 5 (B + ⌊L·(I − 1)/I⌋), within B + L + (k − 1) = 8. */
static void test_idle_cache_excess(void)
{
    struct rl_trace trace = {0};
    CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, 0, 0, 1), 0);
    const uint64_t times[] = {3000, 4000, 5000, 5999};
    for (size_t i = 0; i < 4; i++)
        for (int j = 0; j < 10; j++)
            CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, times[i], 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(&trace, 1), 0);
    struct rl_config cfg = {.limit = 3, .interval_ns = 3000, .burst = 3, .slots = 3};
    const char *const names[] = {"tb_sharded", "tb_cas"};
    const uint64_t expect[] = {7, 5};
    for (size_t a = 0; a < 2; a++) {
        struct rl_event_log log;
        sim(&cfg, names[a], &trace, &log);
        EXPECT(rl_max_window_cost(&log, 0, 3000) == expect[a], "%s: %llu in a window, want %llu",
               names[a], (unsigned long long)rl_max_window_cost(&log, 0, 3000),
               (unsigned long long)expect[a]);
        rl_event_log_free(&log);
    }
    rl_trace_free(&trace);
}

/* The bound on seeded traces, one thread (one cache): admitted cost in any
 * window of length w is at most B + ⌊L·w/I⌋ + (k − 1), for w in {I/7, I/2,
 * I, 3I}, k from 2 to well past B; and the row's verdict agrees. */
static void test_bound_on_traces(void)
{
    static const uint32_t batches[] = {2, 5, 16, 1000};
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        cfg.slots = batches[seed % 4];
        uint64_t burst = rl_config_burst(&cfg), I = cfg.interval_ns, L = cfg.limit;
        uint64_t k = cfg.slots < burst ? cfg.slots : burst;
        const uint64_t windows[] = {I / 7, I / 2, I, 3 * I};
        struct rl_event_log log;
        sim(&cfg, "tb_sharded", &trace, &log);
        for (uint32_t key = 0; key < trace.key_count; key++)
            for (size_t w = 0; w < 4; w++) {
                uint64_t got = rl_max_window_cost(&log, key, windows[w]);
                uint64_t bound = burst + L * windows[w] / I + (k - 1);
                EXPECT(got <= bound, "seed %llu key %u k %llu w=%llu: %llu > %llu",
                       (unsigned long long)seed, key, (unsigned long long)k,
                       (unsigned long long)windows[w], (unsigned long long)got,
                       (unsigned long long)bound);
            }
        struct rl_check_params params = {.limit = L, .interval_ns = I};
        struct rl_check_result res;
        char err[256];
        CU_ASSERT_EQUAL_FATAL(rl_check(&log, &params, &res, err, sizeof err), 0);
        struct rl_result r = {.algo = rl_registry_find("tb_sharded"),
                              .cfg = cfg,
                              .threads = 1,
                              .checked = true,
                              .m = res.total};
        EXPECT(strcmp(rl_result_promise_held(&r), "yes") == 0, "seed %llu: held %s",
               (unsigned long long)seed, rl_result_promise_held(&r));
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_trace_free(&trace);
    }
}

/* Each instance has its own caches: tokens cached for one limiter never
 * pay for another. B = k = 3: after one admit on `a` caches 2 there, `b`
 * still admits exactly its own 3. */
static void test_instances_apart(void)
{
    const struct rl_algo *algo = rl_registry_find("tb_sharded");
    struct rl_config cfg = {.limit = 3, .interval_ns = 3000, .slots = 3};
    char err[256];
    void *a = algo->create(&cfg, err, sizeof err), *b = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_FATAL(a != NULL && b != NULL);
    struct rl_clock clock;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "virtual", err, sizeof err), 0);
    rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS);
    CU_ASSERT_EQUAL(algo->acquire(a, &clock, 0, 1), RL_ADMIT);
    int admitted = 0;
    for (int i = 0; i < 10; i++)
        admitted += algo->acquire(b, &clock, 0, 1) == RL_ADMIT;
    CU_ASSERT_EQUAL(admitted, 3);
    admitted = 0;
    for (int i = 0; i < 10; i++)
        admitted += algo->acquire(a, &clock, 0, 1) == RL_ADMIT;
    CU_ASSERT_EQUAL(admitted, 2); /* its cache; its bucket went to the first batch */
    algo->destroy(a);
    algo->destroy(b);
}

/* The linearizability checker's copy (rl_algo.snapshot, restore): from
 * random states with tokens cached (k = 3 of B = 5), a state restored from
 * a snapshot into a fresh instance snapshots to the same bytes and then
 * decides as the original on every later attempt; so does a restore made
 * in the middle of a run. Without the cache in the snapshot a restored
 * instance would refill where the original pays from its cache. */
static void test_snapshot_round_trip(void)
{
    const struct rl_algo *algo = rl_registry_find("tb_sharded");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    EXPECT_FATAL(algo->snapshot && algo->restore, "tb_sharded has no snapshot hook");
    struct rl_config cfg = {.limit = 5,
                            .interval_ns = 5000,
                            .burst = 5,
                            .slots = 3,
                            .epoch_ns = RL_VIRTUAL_ORIGIN_NS,
                            .virtual_time = true};
    char err[256];
    struct rl_clock clock;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "virtual", err, sizeof err), 0);
    uint64_t rng = 0x5A4DEDull;
    unsigned cached = 0;
    for (int round = 0; round < 500; round++) {
        void *a = algo->create(&cfg, err, sizeof err), *b = algo->create(&cfg, err, sizeof err);
        EXPECT_FATAL(a && b, "create: %s", err);
        uint64_t t = RL_VIRTUAL_ORIGIN_NS;
        for (int i = (int)(rl_test_xorshift64(&rng) % 12); i > 0; i--) {
            t += rl_test_xorshift64(&rng) % 1500;
            rl_clock_set_virtual(&clock, t);
            algo->acquire(a, &clock, 0, 1 + rl_test_xorshift64(&rng) % 3);
        }
        uint64_t snap_a[2 + 2 * 64], snap_b[2 + 2 * 64];
        size_t len = algo->snapshot(a, snap_a, sizeof snap_a);
        EXPECT_FATAL(len <= sizeof snap_a, "snapshot of %zu bytes", len);
        cached += len > sizeof(uint64_t);
        CU_ASSERT_EQUAL_FATAL(algo->restore(b, snap_a, len), 0);
        size_t len_b = algo->snapshot(b, snap_b, sizeof snap_b);
        EXPECT(len_b == len && memcmp(snap_a, snap_b, len) == 0,
               "round %d: the restored state snapshots to other bytes", round);
        for (int i = 0; i < 20; i++) {
            t += rl_test_xorshift64(&rng) % 1500;
            uint64_t n = 1 + rl_test_xorshift64(&rng) % 3;
            rl_clock_set_virtual(&clock, t);
            enum rl_decision da = algo->acquire(a, &clock, 0, n);
            enum rl_decision db = algo->acquire(b, &clock, 0, n);
            EXPECT(da == db, "round %d, attempt %d (n = %llu): original %d, restored %d", round, i,
                   (unsigned long long)n, (int)da, (int)db);
            if (da != db)
                break;
        }
        algo->destroy(a);
        algo->destroy(b);
    }
    EXPECT(cached > 100, "only %u of 500 states had tokens cached", cached);
}

RL_TEST_SUITE("tb_sharded", {"decisions by hand (k = 3, B = 3)", test_decisions_by_hand},
              {"a partial refill takes all the bucket holds",
               test_partial_refill_takes_what_is_held},
              {"k from S, the default and B; the excess the harness allows", test_batch_and_excess},
              {"k = 1 decides as tb_cas on seeded traces", test_batch_one_is_tb_cas},
              {"an idle cache's tokens: past B + L, within B + L + k - 1", test_idle_cache_excess},
              {"B + L*w/I + k - 1 on seeded traces, one thread", test_bound_on_traces},
              {"instances keep their caches apart", test_instances_apart},
              {"snapshot and restore decide alike", test_snapshot_round_trip})
