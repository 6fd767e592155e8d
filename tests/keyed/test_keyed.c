/* test_keyed.c — the keyed container in virtual time: keys are independent,
 * deletion keeps every other key's state, and expiry bounds the live keys
 * under churn (the time-wheel article's never-expiring manager does not). */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/clock.h"

#define I 1000000u /* 1 ms */

static struct rl_keyed *make(const char *algo, uint64_t limit, enum rl_keyed_expiry expiry)
{
    struct rl_keyed_config cfg = {
        .algo = rl_registry_find(algo),
        .cfg = {.limit = limit, .interval_ns = I, .epoch_ns = RL_VIRTUAL_ORIGIN_NS},
        .shards = 3,
        .expiry = expiry};
    char err[128];
    struct rl_keyed *k = rl_keyed_create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    return k;
}

static enum rl_decision at(struct rl_keyed *k, struct rl_clock *clock, uint64_t t_ns, uint64_t key)
{
    rl_clock_set_virtual(clock, RL_VIRTUAL_ORIGIN_NS + t_ns);
    return rl_keyed_acquire(k, clock, key, 1);
}

static void test_keys_are_independent(void)
{
    struct rl_clock clock;
    char err[64];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    struct rl_keyed *k = make("fw_aligned", 2, RL_EXPIRE_NEVER);
    for (uint64_t key = 0; key < 5000; key++) { /* forces every shard to grow */
        CU_ASSERT_EQUAL(at(k, &clock, 10, key), RL_ADMIT);
        CU_ASSERT_EQUAL(at(k, &clock, 11, key), RL_ADMIT);
        CU_ASSERT_EQUAL(at(k, &clock, 12, key), RL_REJECT);
    }
    struct rl_keyed_stats stats;
    rl_keyed_stats(k, &stats);
    CU_ASSERT_EQUAL(stats.live_keys, 5000);
    CU_ASSERT_EQUAL(stats.created, 5000);
    rl_keyed_destroy(k);
}

/* faa never refills, so a key's state is visible in its answers: a used-up
 * key rejects forever, a fresh one admits. Odd keys go idle and expire; the
 * even ones, touched throughout, must keep their used-up state however the
 * deletions around them shift the table. */
static void check_deletion_keeps_neighbours(enum rl_keyed_expiry expiry)
{
    struct rl_clock clock;
    char err[64];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    struct rl_keyed *k = make("faa", 1, expiry);
    enum { KEYS = 4000 };
    for (uint64_t key = 0; key < KEYS; key++)
        CU_ASSERT_EQUAL(at(k, &clock, 0, key), RL_ADMIT);
    /* 20 rounds over 10 I, well past the default idle time of 3 I. */
    uint64_t wrongly_admitted = 0;
    for (uint64_t round = 1; round <= 20; round++)
        for (uint64_t key = 0; key < KEYS; key += 2)
            wrongly_admitted += at(k, &clock, round * I / 2, key) == RL_ADMIT;
    CU_ASSERT_EQUAL(wrongly_admitted, 0);
    struct rl_keyed_stats stats;
    rl_keyed_stats(k, &stats);
    CU_ASSERT(stats.expired > 0);
    if (expiry == RL_EXPIRE_SWEEPER)
        CU_ASSERT_EQUAL(stats.live_keys, KEYS / 2); /* every odd key swept */
    /* An expired key starts afresh. */
    uint64_t fresh = 0;
    for (uint64_t key = 1; key < KEYS; key += 2)
        fresh += at(k, &clock, 11 * I, key) == RL_ADMIT;
    CU_ASSERT_EQUAL(fresh, stats.expired);
    rl_keyed_destroy(k);
}

static void test_deletion_lazy(void)
{
    check_deletion_keeps_neighbours(RL_EXPIRE_LAZY);
}

static void test_deletion_sweeper(void)
{
    check_deletion_keeps_neighbours(RL_EXPIRE_SWEEPER);
}

/* Each interval a new population of 1000 keys, the old one idle. */
static uint64_t live_after_churn(enum rl_keyed_expiry expiry)
{
    struct rl_clock clock;
    char err[64];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    struct rl_keyed *k = make("fw_cas", 10, expiry);
    for (uint64_t i = 0; i < 30; i++)
        for (uint64_t a = 0; a < 2000; a++)
            at(k, &clock, i * I + a * (I / 2000), i * 1000 + a % 1000);
    struct rl_keyed_stats stats;
    rl_keyed_stats(k, &stats);
    CU_ASSERT_EQUAL(stats.created, 30000);
    rl_keyed_destroy(k);
    return stats.live_keys;
}

static void test_churn_bounded(void)
{
    CU_ASSERT_EQUAL(live_after_churn(RL_EXPIRE_NEVER), 30000);
    /* idle 3 I, swept every 1.5 I: at most about 5 populations remain */
    CU_ASSERT(live_after_churn(RL_EXPIRE_SWEEPER) <= 5000);
    CU_ASSERT(live_after_churn(RL_EXPIRE_LAZY) <= 10000);
}

/* A key holding permits is never expired, whatever its idle time. */
static void test_held_keys_stay(void)
{
    struct rl_clock clock;
    char err[64];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    struct rl_keyed *k = make("concurrency", 1, RL_EXPIRE_SWEEPER);
    CU_ASSERT_EQUAL(at(k, &clock, 0, 7), RL_ADMIT); /* key 7 holds its only permit */
    CU_ASSERT_EQUAL(at(k, &clock, 0, 8), RL_ADMIT);
    rl_keyed_release(k, &clock, 8, 1);
    for (uint64_t key = 100; key < 200; key++) /* time passes; sweeps run */
        at(k, &clock, 50 * I + key, key);
    CU_ASSERT_EQUAL(at(k, &clock, 60 * I, 7), RL_REJECT); /* still held: not reset */
    rl_keyed_release(k, &clock, 7, 1);
    CU_ASSERT_EQUAL(at(k, &clock, 60 * I, 7), RL_ADMIT);
    rl_keyed_destroy(k);
}

RL_TEST_SUITE("keyed", {"keys are independent limiters", test_keys_are_independent},
              {"lazy expiry keeps the other keys' state", test_deletion_lazy},
              {"sweeper expiry keeps the other keys' state", test_deletion_sweeper},
              {"expiry bounds live keys under churn; never does not", test_churn_bounded},
              {"keys holding permits never expire", test_held_keys_stay})
