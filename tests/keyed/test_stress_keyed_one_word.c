/* test_stress_keyed_one_word.c — the keyed container's one-word path
 * (rl_algo.one_word_state): a key's word run through a per-thread copy of
 * the prototype decides exactly as that key's own instance would, for
 * every algorithm that claims it; and a claim that does not hold is refused
 * at create. Also run under ThreadSanitizer with every stress*, where the
 * copy is per thread.
 */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/clock.h"
#include "workloads/rng.h"

#include <stdlib.h>
#include <string.h>

#define KEYS     40
#define ATTEMPTS 20000

/* Random attempts (key, n, time) to the container and to one instance per
 * key made directly, side by side. */
static void check_same_decisions(const struct rl_algo *algo, uint64_t seed)
{
    struct rl_keyed_config cfg = {
        .algo = algo,
        .cfg = {.limit = 5,
                .interval_ns = 10000000u,
                .burst = 8,
                .epoch_ns = RL_VIRTUAL_ORIGIN_NS,
                .virtual_time = true},
        .expiry = RL_EXPIRE_NEVER,
    };
    char err[128];
    struct rl_keyed *keyed = rl_keyed_create(&cfg, err, sizeof err);
    EXPECT_FATAL(keyed != NULL, "%s: %s", algo->name, err);
    void *own[KEYS];
    for (unsigned k = 0; k < KEYS; k++) {
        own[k] = algo->create(&cfg.cfg, err, sizeof err);
        EXPECT_FATAL(own[k] != NULL, "%s: %s", algo->name, err);
    }
    struct rl_clock a, b;
    rl_clock_init(&a, "virtual", err, sizeof err);
    rl_clock_init(&b, "virtual", err, sizeof err);
    struct rl_rng rng;
    rl_rng_seed(&rng, seed, 0);
    uint64_t t = RL_VIRTUAL_ORIGIN_NS, differ = 0, admits = 0;
    for (unsigned i = 0; i < ATTEMPTS; i++) {
        t += rl_rng_range(&rng, 0, 200000); /* 0 to 0.2 ms: keys fill and refill */
        uint64_t key = rl_rng_range(&rng, 0, KEYS - 1), n = rl_rng_range(&rng, 1, 3);
        rl_clock_set_virtual(&a, t);
        rl_clock_set_virtual(&b, t);
        enum rl_decision got = rl_keyed_acquire(keyed, &a, key * 1000003, n);
        enum rl_decision want = algo->acquire(own[key], &b, key, n);
        differ += got != want;
        admits += got == RL_ADMIT;
    }
    EXPECT(differ == 0, "%s: %llu of %u decisions differ", algo->name, (unsigned long long)differ,
           ATTEMPTS);
    EXPECT(a.reads == b.reads, "%s: %llu clock reads through the container, %llu direct",
           algo->name, (unsigned long long)a.reads, (unsigned long long)b.reads);
    /* null admits everything; the others must have filled up */
    EXPECT(admits > 0 && (admits < ATTEMPTS || strcmp(algo->name, "null") == 0),
           "%s: %llu admits of %u: the run never filled a limiter", algo->name,
           (unsigned long long)admits, ATTEMPTS);
    for (unsigned k = 0; k < KEYS; k++)
        algo->destroy(own[k]);
    rl_keyed_destroy(keyed);
}

static void test_same_decisions(void)
{
    unsigned claimed = 0;
    for (const struct rl_algo *const *a = rl_registry; *a; a++)
        if ((*a)->one_word_state && !((*a)->flags & RL_REMOTE)) {
            claimed++;
            for (uint64_t seed = 1; seed <= 3; seed++)
                check_same_decisions(*a, seed);
        }
    EXPECT(claimed >= 3, "only %u algorithms claim a one-word state", claimed);
}

/* A limiter whose instances differ beyond their first word (a serial
 * number), or whose destroy is not free: claims the container refuses. */
static unsigned serial;

static void *numbered_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    uint64_t *s = rl_state_alloc(2 * sizeof *s, err, err_len);
    if (s)
        s[1] = ++serial;
    return s;
}

static enum rl_decision admit(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)state, (void)clock, (void)key, (void)n;
    return RL_ADMIT;
}

static void not_free(void *state)
{
    free(state);
}

static void test_bad_claims_refused(void)
{
    struct rl_algo numbered = {.name = "numbered",
                               .flags = RL_THREAD_SAFE,
                               .create = numbered_create,
                               .destroy = free,
                               .acquire = admit,
                               .one_word_state = 2 * sizeof(uint64_t)};
    struct rl_keyed_config cfg = {.algo = &numbered, .cfg = {.limit = 1, .interval_ns = 1000}};
    char err[256] = "";
    CU_ASSERT_PTR_NULL(rl_keyed_create(&cfg, err, sizeof err));
    EXPECT(strstr(err, "two fresh instances differ") != NULL, "err: %s", err);
    struct rl_algo own_destroy = numbered;
    own_destroy.create = numbered_create;
    own_destroy.destroy = not_free;
    own_destroy.one_word_state = sizeof(uint64_t); /* the serials lie past it */
    cfg.algo = &own_destroy;
    err[0] = '\0';
    CU_ASSERT_PTR_NULL(rl_keyed_create(&cfg, err, sizeof err));
    EXPECT(strstr(err, "its destroy is not free") != NULL, "err: %s", err);
}

RL_TEST_SUITE("stress_keyed_one_word",
              {"every one-word algorithm decides through the container as its own instance does",
               test_same_decisions},
              {"a one-word claim that does not hold is refused", test_bad_claims_refused})
