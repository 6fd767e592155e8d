/* test_clock_threads.c — the cached clock with many threads (a stress*
 * suite, so ThreadSanitizer runs it too): each reader sees time never go
 * back, while another thread stops and restarts the publisher and others
 * race to start it. */
#include "tests/support/test_util.h"
#include "harness/sys/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { READERS = 4 };

struct reader {
    pthread_t thread;
    struct rl_clock clock;
    _Atomic bool *stop;
    uint64_t reads, backwards, advanced;
};

static void *reader_main(void *arg)
{
    struct reader *r = arg;
    uint64_t first = rl_clock_now(&r->clock), previous = first;
    while (!atomic_load_explicit(r->stop, memory_order_relaxed)) {
        uint64_t now = rl_clock_now(&r->clock);
        r->backwards += now < previous;
        previous = now;
        r->reads++;
    }
    r->advanced = previous - first;
    return NULL;
}

static void *restarter_main(void *arg)
{
    (void)arg;
    char err[256];
    struct rl_clock clock;
    for (int i = 0; i < 50; i++) {
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        rl_clock_cached_stop();
        if (rl_clock_init(&clock, "cached", err, sizeof err) != 0)
            return (void *)1;
    }
    return NULL;
}

/* Monotonic per reader, through 50 stops and restarts of the publisher. */
static void test_monotonic_per_reader(void)
{
    char err[256];
    _Atomic bool stop = false;
    struct reader readers[READERS];
    for (int i = 0; i < READERS; i++) {
        readers[i] = (struct reader){.stop = &stop};
        CU_ASSERT_EQUAL_FATAL(rl_clock_init(&readers[i].clock, "cached", err, sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]),
                              0);
    }
    pthread_t restarter;
    void *restarter_failed = NULL;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&restarter, NULL, restarter_main, NULL), 0);
    pthread_join(restarter, &restarter_failed);
    atomic_store(&stop, true);
    for (int i = 0; i < READERS; i++) {
        pthread_join(readers[i].thread, NULL);
        EXPECT(readers[i].backwards == 0, "reader %d saw time go back %llu times in %llu reads", i,
               (unsigned long long)readers[i].backwards, (unsigned long long)readers[i].reads);
        EXPECT(readers[i].advanced > 0, "reader %d saw time stand still", i);
    }
    CU_ASSERT_PTR_NULL(restarter_failed);
    rl_clock_cached_stop();
}

static void *starter_main(void *arg)
{
    struct rl_clock *clock = arg;
    char err[256];
    return (void *)(intptr_t)rl_clock_init(clock, "cached:200us", err, sizeof err);
}

/* Threads racing to start one period's publisher get one publisher. */
static void test_racing_starts(void)
{
    pthread_t starters[8];
    struct rl_clock clocks[8];
    for (int i = 0; i < 8; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&starters[i], NULL, starter_main, &clocks[i]), 0);
    for (int i = 0; i < 8; i++) {
        void *status;
        pthread_join(starters[i], &status);
        EXPECT((intptr_t)status == 0, "starter %d failed", i);
    }
    for (int i = 1; i < 8; i++)
        EXPECT(rl_clock_same(&clocks[0], &clocks[i]), "starter %d got another clock", i);
    struct rl_clock_cached_stats stats;
    CU_ASSERT_EQUAL_FATAL(rl_clock_cached_stats(&clocks[0], &stats), 0);
    CU_ASSERT(stats.running);
    EXPECT_EQ(stats.period_ns, 200000);
    rl_clock_cached_stop();
}

RL_TEST_SUITE("stress_clock",
              {"cached: monotonic per reader through restarts", test_monotonic_per_reader},
              {"cached: racing starts make one publisher", test_racing_starts})
