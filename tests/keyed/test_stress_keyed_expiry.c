/* test_stress_keyed_expiry.c — expiry while other threads use the keys: a
 * key is only ever forgotten after it has been idle, so no admit is lost
 * with a forgotten state. Again under ThreadSanitizer with every stress*.
 *
 * The threads run in phases of virtual time separated by a barrier: every
 * attempt in phase p reads time p, so no thread's clock lags another's and
 * the test knows exactly when a key may expire. Inside a phase the threads
 * race: the sweeps the phase's first attempt runs (virtual-time sweeper) or
 * the slots each attempt looks at (lazy) expire keys while others use them.
 *
 * Each limiter admits once per state and never refills within the run (faa
 * with L = 1; tb_mutex and fw_plain with L = 1 per hour), so every admit
 * starts a new state: a key's first attempt, or the first after it expired.
 * The rule: an admit b is wrong if an attempt a on the same key returned
 * before b was called and a's phase is less than idle phases before b's
 * (the key was used too recently to have expired in between).
 *
 * Hot keys, touched by every thread in every phase, must therefore admit
 * exactly once; cold keys, touched once, must admit and later expire;
 * borderline keys, touched once every `idle` phases by all threads at once,
 * just as a sweep looks at them, race their own expiry.
 */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define THREADS        4
#define PHASES         400
#define IDLE_PHASES    24
#define PHASE_NS       1000u /* one phase of virtual time */
#define HOT            16
#define BORDER         64
#define COLD_PER_PHASE 2 /* per thread */
#define HOT_BASE       1000000u
#define BORDER_BASE    2000000u
#define COLD_BASE      3000000u
#define MAX_TOUCHES    (PHASES * (HOT + COLD_PER_PHASE + BORDER) + 64)

struct touch {
    uint64_t key;
    uint64_t phase;
    uint64_t called, returned; /* tickets from one counter */
    bool admitted;
};

struct run {
    struct rl_keyed *keyed;
    pthread_barrier_t barrier;
    _Atomic uint64_t ticket;
};

struct worker {
    struct run *run;
    unsigned index;
    pthread_t thread;
    struct touch *log;
    size_t len;
    uint64_t errors;
};

static void touch(struct worker *w, struct rl_clock *clock, uint64_t phase, uint64_t key)
{
    struct touch *t = &w->log[w->len++];
    t->key = key;
    t->phase = phase;
    t->called = atomic_fetch_add(&w->run->ticket, 1);
    enum rl_decision d = rl_keyed_acquire(w->run->keyed, clock, key, 1);
    t->returned = atomic_fetch_add(&w->run->ticket, 1);
    t->admitted = d == RL_ADMIT;
    w->errors += d == RL_ERROR;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct rl_clock clock;
    char err[64];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    for (uint64_t phase = 1; phase <= PHASES; phase++) {
        pthread_barrier_wait(&w->run->barrier);
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + phase * PHASE_NS);
        /* Borderline keys first: a phase's sweep runs in its first attempt
         * (sweeps come every IDLE_PHASES / 2 from phase 1), so that those
         * keys become idle just as the sweep looks at them and the other
         * threads use them. Each thread in its own order, so that they
         * meet on every key. */
        for (unsigned b = 0; b < BORDER; b++) {
            unsigned key = (b + w->index * 3) % BORDER;
            if (phase % IDLE_PHASES == 1 + (key % 2) * (IDLE_PHASES / 2))
                touch(w, &clock, phase, BORDER_BASE + key);
        }
        for (unsigned h = 0; h < HOT; h++)
            touch(w, &clock, phase, HOT_BASE + (h + w->index * 5) % HOT);
        for (unsigned c = 0; c < COLD_PER_PHASE; c++)
            touch(w, &clock, phase, COLD_BASE + (phase * THREADS + w->index) * COLD_PER_PHASE + c);
    }
    return NULL;
}

static int by_key_then_return(const void *x, const void *y)
{
    const struct touch *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->returned > b->returned) - (a->returned < b->returned);
}

/* The rule above, for every key; returns how many admits break it. */
static uint64_t wrong_admits(struct touch *all, size_t n, uint64_t *hot_admits)
{
    qsort(all, n, sizeof *all, by_key_then_return);
    uint64_t wrong = 0;
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo;
        while (hi < n && all[hi].key == all[lo].key)
            hi++;
        for (size_t b = lo; b < hi; b++) {
            if (!all[b].admitted)
                continue;
            if (all[b].key >= HOT_BASE && all[b].key < HOT_BASE + HOT)
                (*hot_admits)++;
            /* The latest phase among the attempts that returned before b
             * was called (phases only grow, so the last such attempt). */
            for (size_t a = lo; a < hi && all[a].returned < all[b].called; a++)
                if (all[a].phase + IDLE_PHASES > all[b].phase) {
                    wrong++;
                    break;
                }
        }
        lo = hi;
    }
    return wrong;
}

static void check_expiry(const char *algo, uint64_t interval_ns, enum rl_keyed_expiry expiry)
{
    struct rl_keyed_config cfg = {
        .algo = rl_registry_find(algo),
        .cfg = {.limit = 1, .interval_ns = interval_ns, .epoch_ns = RL_VIRTUAL_ORIGIN_NS},
        .shards = 2, /* few shards: the threads meet in each one */
        .expiry = expiry,
        .idle_ns = IDLE_PHASES * PHASE_NS,
    };
    char err[128];
    struct run run = {.keyed = rl_keyed_create(&cfg, err, sizeof err)};
    EXPECT_FATAL(run.keyed != NULL, "%s: %s", algo, err);
    atomic_init(&run.ticket, 0);
    pthread_barrier_init(&run.barrier, NULL, THREADS);
    struct worker workers[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){.run = &run, .index = i};
        workers[i].log = malloc(MAX_TOUCHES * sizeof *workers[i].log);
        CU_ASSERT_PTR_NOT_NULL_FATAL(workers[i].log);
    }
    for (unsigned i = 0; i < THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]),
                              0);
    size_t total = 0;
    uint64_t errors = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        pthread_join(workers[i].thread, NULL);
        total += workers[i].len;
        errors += workers[i].errors;
    }
    struct touch *all = malloc(total * sizeof *all);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    size_t n = 0;
    uint64_t cold_rejected = 0;
    for (unsigned i = 0; i < THREADS; i++)
        for (size_t j = 0; j < workers[i].len; j++) {
            all[n++] = workers[i].log[j];
            cold_rejected += workers[i].log[j].key >= COLD_BASE && !workers[i].log[j].admitted;
        }
    uint64_t hot_admits = 0, wrong = wrong_admits(all, n, &hot_admits);
    struct rl_keyed_stats stats;
    rl_keyed_stats(run.keyed, &stats);
    const char *e = rl_keyed_expiry_names[expiry];
    EXPECT(errors == 0, "%s %s: %llu errors", algo, e, (unsigned long long)errors);
    EXPECT(wrong == 0, "%s %s: %llu admits after a key was used too recently to expire", algo, e,
           (unsigned long long)wrong);
    EXPECT(hot_admits == HOT, "%s %s: hot keys admitted %llu times, want %u", algo, e,
           (unsigned long long)hot_admits, HOT);
    EXPECT(cold_rejected == 0, "%s %s: %llu fresh keys rejected", algo, e,
           (unsigned long long)cold_rejected);
    uint64_t cold = (uint64_t)PHASES * THREADS * COLD_PER_PHASE;
    EXPECT(stats.expired >= cold / 2, "%s %s: %llu expired of %llu cold keys", algo, e,
           (unsigned long long)stats.expired, (unsigned long long)cold);
    EXPECT(stats.live_keys == stats.created - stats.expired,
           "%s %s: live %llu, created %llu, "
           "expired %llu",
           algo, e, (unsigned long long)stats.live_keys, (unsigned long long)stats.created,
           (unsigned long long)stats.expired);
    /* Bounded: at most the keys touched in the last idle phases and a sweep
     * period (or, lazily, what the looks have not reached yet). */
    uint64_t recent = (uint64_t)(IDLE_PHASES + IDLE_PHASES / 2 + 2) * THREADS * COLD_PER_PHASE;
    uint64_t bound = expiry == RL_EXPIRE_SWEEPER ? HOT + BORDER + recent : cold / 2;
    EXPECT(stats.live_keys <= bound, "%s %s: %llu keys live, want at most %llu", algo, e,
           (unsigned long long)stats.live_keys, (unsigned long long)bound);
    free(all);
    for (unsigned i = 0; i < THREADS; i++)
        free(workers[i].log);
    pthread_barrier_destroy(&run.barrier);
    rl_keyed_destroy(run.keyed);
}

#define HOUR_NS (3600ull * 1000000000ull)

/* One word per key, committed by CAS: faa. */
static void test_one_word_sweeper(void)
{
    check_expiry("faa", HOUR_NS, RL_EXPIRE_SWEEPER);
}

static void test_one_word_lazy(void)
{
    check_expiry("faa", HOUR_NS, RL_EXPIRE_LAZY);
}

/* An instance per key, thread-safe, called without a lock: tb_mutex. */
static void test_instances_sweeper(void)
{
    check_expiry("tb_mutex", HOUR_NS, RL_EXPIRE_SWEEPER);
}

static void test_instances_lazy(void)
{
    check_expiry("tb_mutex", HOUR_NS, RL_EXPIRE_LAZY);
}

/* Not thread-safe: every operation under its shard's mutex: fw_plain. */
static void test_locked_sweeper(void)
{
    check_expiry("fw_plain", HOUR_NS, RL_EXPIRE_SWEEPER);
}

static void test_locked_lazy(void)
{
    check_expiry("fw_plain", HOUR_NS, RL_EXPIRE_LAZY);
}

RL_TEST_SUITE("stress_keyed_expiry",
              {"faa (one word), sweeper: no admit lost to expiry", test_one_word_sweeper},
              {"faa (one word), lazy: no admit lost to expiry", test_one_word_lazy},
              {"tb_mutex (instances), sweeper: no admit lost to expiry", test_instances_sweeper},
              {"tb_mutex (instances), lazy: no admit lost to expiry", test_instances_lazy},
              {"fw_plain (locked), sweeper: no admit lost to expiry", test_locked_sweeper},
              {"fw_plain (locked), lazy: no admit lost to expiry", test_locked_lazy})
