/* test_stress_keyed_growth.c — many threads adding and using thousands of
 * keys at once while the tables grow under them: each key is one limiter,
 * created once, and no update is lost to a rebuild. Again under
 * ThreadSanitizer with every stress*.
 *
 * Every thread attempts every key, in its own order, `ROUNDS` times; a
 * limiter that admits L times and never refills (faa; tb_mutex and fw_plain
 * with L per hour) must then have admitted exactly L per key. A second
 * state made for a key would admit more; an update lost while its table was
 * copied would too.
 */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/clock.h"

#include <pthread.h>
#include <stdatomic.h>

#define THREADS 4
#define KEYS    12000
#define ROUNDS  3
#define LIMIT   2

struct shared {
    struct rl_keyed *keyed;
    _Atomic uint64_t admits, errors;
};

struct worker {
    struct shared *shared;
    unsigned index;
    pthread_t thread;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct rl_clock clock;
    char err[64];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + 1000);
    uint64_t admits = 0, errors = 0;
    for (unsigned round = 0; round < ROUNDS; round++)
        for (uint64_t i = 0; i < KEYS; i++) {
            /* thread 0 forwards, thread 1 backwards, the others strided */
            uint64_t at = w->index == 1 ? KEYS - 1 - i : (i * (2 * w->index + 1)) % KEYS;
            enum rl_decision d = rl_keyed_acquire(w->shared->keyed, &clock, at * 7919 + 3, 1);
            admits += d == RL_ADMIT;
            errors += d == RL_ERROR;
        }
    atomic_fetch_add(&w->shared->admits, admits);
    atomic_fetch_add(&w->shared->errors, errors);
    return NULL;
}

static void check_growth(const char *algo, unsigned shards)
{
    struct rl_keyed_config cfg = {
        .algo = rl_registry_find(algo),
        .cfg = {.limit = LIMIT,
                .interval_ns = 3600ull * 1000000000ull,
                .epoch_ns = RL_VIRTUAL_ORIGIN_NS},
        .shards = shards,
    };
    char err[128];
    struct shared shared = {.keyed = rl_keyed_create(&cfg, err, sizeof err)};
    EXPECT_FATAL(shared.keyed != NULL, "%s: %s", algo, err);
    atomic_init(&shared.admits, 0);
    atomic_init(&shared.errors, 0);
    struct worker workers[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){.shared = &shared, .index = i};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]),
                              0);
    }
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(workers[i].thread, NULL);
    struct rl_keyed_stats stats;
    rl_keyed_stats(shared.keyed, &stats);
    EXPECT(atomic_load(&shared.errors) == 0, "%s: %llu errors", algo,
           (unsigned long long)atomic_load(&shared.errors));
    EXPECT(atomic_load(&shared.admits) == (uint64_t)KEYS * LIMIT,
           "%s, %u shards: %llu admits, want %u", algo, shards,
           (unsigned long long)atomic_load(&shared.admits), KEYS * LIMIT);
    EXPECT(stats.live_keys == KEYS && stats.created == KEYS,
           "%s: %llu live, %llu created, want %u each", algo, (unsigned long long)stats.live_keys,
           (unsigned long long)stats.created, KEYS);
    rl_keyed_destroy(shared.keyed);
}

static void test_one_word(void)
{
    check_growth("faa", 2);
    check_growth("tb_cas", 1); /* one shard asked: two used */
}

static void test_instances(void)
{
    check_growth("tb_mutex", 2);
}

static void test_locked(void)
{
    check_growth("fw_plain", 2);
}

RL_TEST_SUITE("stress_keyed_growth",
              {"one-word states (faa, tb_cas): one state a key, no update lost", test_one_word},
              {"instances (tb_mutex), no lock: one state a key, no update lost", test_instances},
              {"not thread-safe (fw_plain), locked: one state a key", test_locked})
