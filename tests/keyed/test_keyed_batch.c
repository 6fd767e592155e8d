/* test_keyed_batch.c — rl_keyed_acquire_batch decides exactly as
 * rl_keyed_acquire one key at a time: the same decisions, the same clock
 * reads, the same keys created and expired, in virtual time, for a
 * one-word state, a thread-safe instance, a locked instance and every
 * expiry; and rl_keyed_prefetch changes nothing. */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/clock.h"
#include "workloads/rng.h"

#define I        1000000u /* 1 ms */
#define ATTEMPTS 20000u
#define KEYS     3000u /* enough new keys for many rebuilds, few enough to repeat */
#define STEP_NS  1000u /* each clock read moves the time on */

/* A virtual clock that moves STEP_NS on every read: a batch that read the
 * time once more, once less or at another point than the one-at-a-time
 * calls would see other times from then on, and decide otherwise. */
static uint64_t read_stepping(struct rl_clock *self)
{
    rl_clock_state(self)->virtual_ns += STEP_NS;
    return rl_clock_state(self)->virtual_ns;
}

static void stepping_clock(struct rl_clock *clock)
{
    char err[64];
    rl_clock_init(clock, "virtual", err, sizeof err);
    clock->read = read_stepping;
}

static struct rl_keyed *make(const char *algo, enum rl_keyed_expiry expiry)
{
    struct rl_keyed_config cfg = {
        .algo = rl_registry_find(algo),
        .cfg = {.limit = 3, .interval_ns = I, .epoch_ns = RL_VIRTUAL_ORIGIN_NS},
        .shards = 4,
        .expiry = expiry,
        .idle_ns = 4 * I}; /* short: lazy and sweeper expire keys within the run */
    char err[128];
    struct rl_keyed *k = rl_keyed_create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    return k;
}

/* The same key stream through both containers: one at a time on `one`,
 * in batches of 1 to 17 keys on `batched` (each batch's keys prefetched
 * the way stress does, and stray prefetches of other keys between). */
static void check_same(const char *algo, enum rl_keyed_expiry expiry)
{
    struct rl_keyed *one = make(algo, expiry), *batched = make(algo, expiry);
    struct rl_clock clock_one, clock_batched;
    stepping_clock(&clock_one);
    stepping_clock(&clock_batched);
    struct rl_rng rng;
    rl_rng_seed(&rng, 27, 2);
    uint64_t keys[17];
    enum rl_decision got[17];
    unsigned differ = 0, admits = 0, rejects = 0;
    for (unsigned done = 0; done < ATTEMPTS;) {
        unsigned count = 1 + (unsigned)(rl_rng_next(&rng) % 17);
        for (unsigned j = 0; j < count; j++) {
            keys[j] = rl_rng_next(&rng) % KEYS;
            rl_keyed_prefetch(batched, keys[j]);
            rl_keyed_prefetch(batched, rl_rng_next(&rng)); /* never decided */
        }
        rl_keyed_acquire_batch(batched, &clock_batched, keys, count, 1, got);
        for (unsigned j = 0; j < count; j++) {
            enum rl_decision want = rl_keyed_acquire(one, &clock_one, keys[j], 1);
            differ += got[j] != want;
            admits += want == RL_ADMIT;
            rejects += want == RL_REJECT;
        }
        done += count;
        /* now and then time jumps past the idle time, so keys expire */
        if (rl_rng_next(&rng) % 64 == 0) {
            rl_clock_set_virtual(&clock_one, rl_clock_state(&clock_one)->virtual_ns + 5 * I);
            rl_clock_set_virtual(&clock_batched,
                                 rl_clock_state(&clock_batched)->virtual_ns + 5 * I);
        }
    }
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT(admits > 0 && rejects > 0); /* both answers were at stake */
    CU_ASSERT_EQUAL(clock_one.reads, clock_batched.reads);
    CU_ASSERT_EQUAL(rl_clock_state(&clock_one)->virtual_ns,
                    rl_clock_state(&clock_batched)->virtual_ns);
    struct rl_keyed_stats a, b;
    rl_keyed_stats(one, &a);
    rl_keyed_stats(batched, &b);
    CU_ASSERT_EQUAL(a.live_keys, b.live_keys);
    CU_ASSERT_EQUAL(a.created, b.created);
    CU_ASSERT_EQUAL(a.expired, b.expired);
    CU_ASSERT_EQUAL(a.sweeps, b.sweeps);
    if (expiry != RL_EXPIRE_NEVER)
        CU_ASSERT(a.expired > 0);
    rl_keyed_destroy(one);
    rl_keyed_destroy(batched);
}

static void check_every_expiry(const char *algo)
{
    check_same(algo, RL_EXPIRE_NEVER);
    check_same(algo, RL_EXPIRE_LAZY);
    check_same(algo, RL_EXPIRE_SWEEPER);
}

static void test_one_word(void)
{
    check_every_expiry("gcra_cas");
    check_every_expiry("tb_cas");
}

static void test_instances(void)
{
    check_every_expiry("sliding_log"); /* thread-safe: decided under one announcement */
}

static void test_locked(void)
{
    check_every_expiry("fw_plain"); /* not thread-safe: the shard's mutex for each key */
}

RL_TEST_SUITE("keyed_batch", {"a batch decides as one-word keys one at a time", test_one_word},
              {"a batch decides as instance keys one at a time", test_instances},
              {"a batch decides as locked keys one at a time", test_locked})
