/* test_clock_under_lock.c — the limiters under one mutex read the clock
 * while they hold it, so reads come in lock order (docs/design.md,
 * Histories and linearizability): a thread whose clock read is slow holds
 * the lock through it, and a second thread's read waits until the first
 * call has returned. Read before the lock, the second read would land
 * while the first is still asleep inside its own.
 *
 * No timing decides a pass: a read outside the lock is caught unless the
 * second thread is kept off a CPU for the whole 50 ms sleep, and a read
 * inside it can never be seen early. */
#include "tests/support/test_util.h"
#include "algorithms/rl.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#define SLOW_READ_NS 50000000L

static atomic_uint sequence;    /* orders the events below */
static atomic_bool slow_inside; /* the slow read has begun */
static unsigned slow_read_end, other_read;
static _Thread_local bool read_slowly;

static uint64_t read_clock(struct rl_clock *self)
{
    (void)self;
    if (read_slowly) {
        atomic_store(&slow_inside, true);
        nanosleep(&(struct timespec){.tv_nsec = SLOW_READ_NS}, NULL);
        slow_read_end = atomic_fetch_add(&sequence, 1);
    } else {
        other_read = atomic_fetch_add(&sequence, 1);
    }
    return 5000000; /* 5 ms after the epoch: every limiter has room */
}

static void decide(const struct rl_algo *algo, void *state)
{
    struct rl_clock clock = {.read = read_clock, .name = "test"};
    if (algo->shape) {
        struct rl_reservation r;
        algo->shape(state, &clock, 0, 1, UINT64_MAX, &r);
    } else {
        algo->acquire(state, &clock, 0, 1);
    }
}

struct slow_call {
    const struct rl_algo *algo;
    void *state;
};

static void *slow_thread(void *arg)
{
    struct slow_call *c = arg;
    read_slowly = true;
    decide(c->algo, c->state);
    return NULL;
}

static void expect_read_under_lock(const char *name)
{
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_config cfg = {.limit = 4, .interval_ns = 1000000000, .burst = 4};
    char err[256];
    void *state = algo->create(&cfg, err, sizeof err);
    EXPECT(state != NULL, "%s: %s", name, err);
    if (!state)
        return;
    atomic_store(&sequence, 1);
    atomic_store(&slow_inside, false);
    slow_read_end = other_read = 0; /* 0: no such read */
    struct slow_call c = {algo, state};
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, slow_thread, &c) == 0);
    while (!atomic_load(&slow_inside))
        sched_yield();
    decide(algo, state); /* its read: at once unless the lock is held */
    pthread_join(t, NULL);
    EXPECT(slow_read_end != 0 && other_read != 0, "%s: both calls read the clock (%u, %u)", name,
           slow_read_end, other_read);
    EXPECT(other_read > slow_read_end,
           "%s: a second thread read the clock while the first, inside its call, was still "
           "reading: the read is not under the lock",
           name);
    algo->destroy(state);
}

static void test_buckets(void)
{
    expect_read_under_lock("tb_mutex");
    expect_read_under_lock("tb_debt");
    expect_read_under_lock("leaky_nginx");
}

static void test_windows(void)
{
    expect_read_under_lock("fw_expiry");
    expect_read_under_lock("sliding_counter");
    expect_read_under_lock("wheel");
}

static void test_shapers(void)
{
    expect_read_under_lock("guava_bursty");
    expect_read_under_lock("guava_warmup");
    expect_read_under_lock("juju_wait");
}

RL_TEST_SUITE("clock_under_lock", {"buckets read under their lock", test_buckets},
              {"windows read under their lock", test_windows},
              {"Guava's and juju's shapers read under their lock", test_shapers})
