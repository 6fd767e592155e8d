/* test_clock_cached.c — the cached clock: its names, its staleness bound
 * (T plus the time since the reading handle's last check: never a timing
 * goal, the bound is checked against times the test measured), starting
 * and stopping its publisher, and a forked child (threads: test_clock_threads.c). */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a read may lag the store that made it visible (a cache line's
 * coherence, nanoseconds): a hundredth of the default period, so the bound
 * tested stays the one promised, [t - T - lag, t] with lag the time since
 * the handle's last check. */
#define VISIBILITY_NS (RL_CACHED_DEFAULT_PERIOD_NS / 100)

static void sleep_ns(uint64_t ns)
{
    struct timespec pause = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&pause, NULL);
}

/* Threads of this process, from /proc/self/status; -1 if unreadable. */
static int thread_count(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    int threads = -1;
    while (status && fgets(line, sizeof line, status))
        if (sscanf(line, "Threads: %d", &threads) == 1)
            break;
    if (status)
        fclose(status);
    return threads;
}

static void test_names(void)
{
    static const char *const good[] = {"cached",     "cached:10us", "cached:50us",    "cached:50µs",
                                       "cached:1ms", "cached:1s",   "cached:100000ns"};
    static const char *const bad[] = {
        "cached:",      "cached:5us", "cached:2s",  "cached:50",    "cached:50xs",
        "cached:-50us", "cached:abc", "cached50us", "cached:1.5ms", "cached:99999999999999999999us",
        "cachedx"};
    char err[256];
    struct rl_clock clock;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        EXPECT(rl_clock_init(&clock, good[i], err, sizeof err) == 0, "%s: %s", good[i], err);
        EXPECT(strcmp(clock.name, "cached") == 0, "%s is named %s", good[i], clock.name);
    }
    struct rl_clock_cached_stats stats;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "cached:50us", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_clock_cached_stats(&clock, &stats), 0);
    EXPECT_EQ(stats.period_ns, 50000);
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "cached", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_clock_cached_stats(&clock, &stats), 0);
    EXPECT_EQ(stats.period_ns, RL_CACHED_DEFAULT_PERIOD_NS);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct rl_clock before = clock;
        err[0] = '\0';
        EXPECT(rl_clock_init(&clock, bad[i], err, sizeof err) == -1, "%s accepted", bad[i]);
        EXPECT(strstr(err, "cached") != NULL, "%s: the error does not name the clock: %s", bad[i],
               err);
        EXPECT(memcmp(&before, &clock, sizeof clock) == 0, "%s changed the handle", bad[i]);
    }
    /* not a cached handle */
    struct rl_clock mono;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&mono, "monotonic", err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_clock_cached_stats(&mono, &stats), -1);
    rl_clock_cached_stop(); /* a 10 us publisher keeps a CPU busy */
}

/* Handles of one period read the same word: they may share a sweeper
 * (rl_clock_same); another period is another clock. */
static void test_same(void)
{
    char err[256];
    struct rl_clock a, b, c;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&a, "cached", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&b, "cached:100us", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&c, "cached:50us", err, sizeof err), 0);
    CU_ASSERT(rl_clock_same(&a, &b));
    CU_ASSERT(!rl_clock_same(&a, &c));
    rl_clock_set_skew(&b, 1000);
    CU_ASSERT(!rl_clock_same(&a, &b));
}

/* A read is never ahead of the monotonic clock, never goes back, and is
 * never staler than T plus the time since its handle's last check (every
 * 64th read checks the real clock and refreshes a word older than T, and
 * init stores the time: clock_cached.c), whatever the publisher's lag — before the readers'
 * refresh, a publisher woken late let reads go several T stale on a loaded
 * VM (docs/performance.md). It advances with the monotonic clock, and the
 * skew is in every read. */
static void test_staleness_bound(void)
{
    enum { CHECK_EVERY = RL_CACHED_CHECK_EVERY };
    const uint64_t period = RL_CACHED_DEFAULT_PERIOD_NS;
    char err[256];
    struct rl_clock clock;
    uint64_t last_check = rl_monotonic_ns(); /* `before` of the latest check: init is one */
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "cached", err, sizeof err), 0);
    uint64_t first = rl_clock_now(&clock), start = rl_monotonic_ns(), most_stale = 0;
    uint64_t reads = 0, previous = first, last_before = start, checks = 0;
    EXPECT(first + period + VISIBILITY_NS >= last_check,
           "a fresh handle's first read is %llu ns old", (unsigned long long)(last_check - first));
    while (rl_monotonic_ns() - start < 200000000u) {
        uint64_t before = rl_monotonic_ns();
        uint64_t now = rl_clock_now(&clock);
        uint64_t after = rl_monotonic_ns();
        EXPECT_FATAL(now <= after, "cached read %llu is ahead of monotonic %llu",
                     (unsigned long long)now, (unsigned long long)after);
        EXPECT_FATAL(now >= previous, "went back from %llu to %llu", (unsigned long long)previous,
                     (unsigned long long)now);
        if (clock.reads % CHECK_EVERY == 0) { /* this read checked the real clock */
            last_check = before;
            checks++;
        }
        uint64_t stale = before > now ? before - now : 0;
        EXPECT_FATAL(stale <= period + (before - last_check) + VISIBILITY_NS,
                     "a read was %llu ns stale, %llu ns after its handle's last check (T = %llu "
                     "ns)",
                     (unsigned long long)stale, (unsigned long long)(before - last_check),
                     (unsigned long long)period);
        if (stale > most_stale)
            most_stale = stale;
        previous = now;
        last_before = before;
        reads++;
    }
    EXPECT(checks >= reads / CHECK_EVERY, "%llu checks in %llu reads", (unsigned long long)checks,
           (unsigned long long)reads);
    EXPECT(most_stale > 0, "no read was stale in %llu reads: not a cached clock",
           (unsigned long long)reads);
    /* the last read was a value at most T + the span since the check old */
    EXPECT(previous + period + (last_before - last_check) + VISIBILITY_NS >= last_before,
           "advanced %llu ns while monotonic advanced %llu ns",
           (unsigned long long)(previous - first), (unsigned long long)(last_before - start));
    EXPECT_EQ(clock.reads, reads + 1);
    /* the skew is in every read, as with the other clocks; a read that
     * checks applies it too */
    rl_clock_set_skew(&clock, -1000000000);
    for (int i = 0; i < CHECK_EVERY; i++) {
        uint64_t before = rl_monotonic_ns();
        uint64_t skewed = rl_clock_now(&clock) + 1000000000u;
        uint64_t after = rl_monotonic_ns();
        bool checked = clock.reads % CHECK_EVERY == 0;
        if (checked)
            last_check = before;
        EXPECT(skewed <= after && skewed + period + (before - last_check) + VISIBILITY_NS >= before,
               "skew of -1 s%s: read + 1 s = %llu, monotonic %llu..%llu",
               checked ? " (a check)" : "", (unsigned long long)skewed, (unsigned long long)before,
               (unsigned long long)after);
    }
}

/* Stop joins the publisher (the thread is gone) and freezes the clock;
 * the next init starts it again and the old handle follows. */
static void test_start_stop(void)
{
    char err[256];
    rl_clock_cached_stop(); /* from whatever the tests before started */
    int threads_before = thread_count();
    struct rl_clock clock;
    struct rl_clock_cached_stats stats;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "cached", err, sizeof err), 0);
    EXPECT_EQ(thread_count(), threads_before + 1);
    sleep_ns(20000000);
    CU_ASSERT_EQUAL_FATAL(rl_clock_cached_stats(&clock, &stats), 0);
    CU_ASSERT(stats.running);
    EXPECT(stats.publishes >= 2, "%llu publishes in 20 ms", (unsigned long long)stats.publishes);
    EXPECT(stats.max_gap_ns >= 1, "no gap measured");

    rl_clock_cached_stop();
    EXPECT_EQ(thread_count(), threads_before);
    CU_ASSERT_EQUAL_FATAL(rl_clock_cached_stats(&clock, &stats), 0);
    CU_ASSERT(!stats.running);
    uint64_t frozen = rl_clock_now(&clock);
    sleep_ns(5000000);
    EXPECT_EQ(rl_clock_now(&clock), frozen);
    rl_clock_cached_stop(); /* twice is harmless */

    struct rl_clock again;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&again, "cached", err, sizeof err), 0);
    EXPECT_EQ(thread_count(), threads_before + 1);
    sleep_ns(5000000);
    EXPECT(rl_clock_now(&clock) > frozen, "the old handle stayed frozen after the restart");
    for (int i = 0; i < 20; i++) { /* many runs in one process */
        rl_clock_cached_stop();
        CU_ASSERT_EQUAL_FATAL(rl_clock_init(&again, "cached", err, sizeof err), 0);
    }
    EXPECT_EQ(thread_count(), threads_before + 1);
    rl_clock_cached_stop();
    EXPECT_EQ(thread_count(), threads_before);
}

/* A forked child has no publisher thread; its first init starts its own,
 * and the parent's keeps running. Exit codes say what failed in the child. */
static void test_fork(void)
{
    char err[256];
    struct rl_clock clock;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "cached", err, sizeof err), 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct rl_clock_cached_stats stats;
        if (rl_clock_cached_stats(&clock, &stats) != 0 || stats.running)
            _exit(10); /* the parent's publisher is not the child's */
        struct rl_clock mine;
        if (rl_clock_init(&mine, "cached", err, sizeof err) != 0)
            _exit(11);
        uint64_t t0 = rl_clock_now(&clock);
        sleep_ns(5000000);
        if (rl_clock_now(&clock) <= t0)
            _exit(12); /* the copied handle follows the child's publisher */
        /* Distinct periods up to the table's size, then one more is refused. */
        for (int i = 2; i < 20; i++) {
            char name[32];
            snprintf(name, sizeof name, "cached:%dms", 100 * i);
            if (rl_clock_init(&mine, name, err, sizeof err) != 0)
                _exit(strstr(err, "at most") ? 0 : 13);
        }
        _exit(14);
    }
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exited with %d",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    uint64_t t0 = rl_clock_now(&clock);
    sleep_ns(5000000);
    EXPECT(rl_clock_now(&clock) > t0, "the parent's publisher stopped after the fork");
    rl_clock_cached_stop();
}

/* `ratelab clocks` measures it like the others: a read costs something
 * and the step is about a period. */
static void test_measure(void)
{
    char err[256];
    struct rl_clock_report report;
    CU_ASSERT_EQUAL_FATAL(rl_clock_measure("cached:1ms", &report, err, sizeof err), 0);
    EXPECT(strcmp(report.name, "cached") == 0, "named %s", report.name);
    EXPECT_EQ(report.resolution_ns, 1000000);
    EXPECT(report.cost_ns > 0, "cost %g", report.cost_ns);
    rl_clock_cached_stop();
}

/* As a user meets it: a bad period is one line and exit 2 in stress and
 * replay; a recorded stress run on it keeps tb_cas's promise and names its
 * clock in the row. */
static void test_cli(void)
{
    rl_cli_expect_usage_error("stress --algo tb_cas --clock cached:5us", "cached:5us");
    rl_cli_expect_usage_error("stress --algo tb_cas --clock cached:", "cached");
    rl_cli_expect_usage_error("replay --algo tb_cas --workload uniform --clock cached:2s",
                              "cached:2s");
    struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo tb_cas --clock cached:50us --threads 2 --duration 100ms "
                   "--reps 1 --record --out -");
    EXPECT_FATAL(o.status == 0, "exit %d: %s", o.status, o.err);
    const char *recorded = NULL; /* tb_cas's last row: the recorded run */
    for (const char *line = o.out; (line = strstr(line, "\ntb_cas,")) != NULL; line++)
        recorded = line + 1;
    EXPECT_FATAL(recorded != NULL, "no tb_cas row in: %.300s", o.out);
    char clock[32], held[16];
    rl_cli_csv_field(o.out, recorded, "clock", clock, sizeof clock);
    rl_cli_csv_field(o.out, recorded, "promise_held", held, sizeof held);
    EXPECT(strcmp(clock, "cached:50us") == 0, "clock column %s", clock);
    /* yes, or uncertain when a preemption's gap passed I/10 (100 ms) */
    bool wide = rl_cli_csv_number(o.out, recorded, "stamp_uncertainty_ns") > 10000000;
    EXPECT(strcmp(held, wide ? "uncertain" : "yes") == 0, "tb_cas on cached: promise_held %s",
           held);
}

RL_TEST_SUITE("clock_cached", {"names and periods, bad ones refused", test_names},
              {"one period is one clock (rl_clock_same)", test_same},
              {"never ahead, within T of its last check, skew applied", test_staleness_bound},
              {"stop joins and freezes, init restarts", test_start_stop},
              {"a forked child starts its own publisher", test_fork},
              {"measured by rl_clock_measure", test_measure},
              {"stress and replay take it; bad periods refused", test_cli})
