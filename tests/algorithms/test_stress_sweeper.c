/* test_stress_sweeper.c — sliding_log_sweeper's shared sweeper thread on
 * a real clock: one thread per sweep schedule however many instances, the
 * entries it removes (never before 3·I, and not long after), and instances
 * destroyed while it runs. Threads are counted from /proc/self/task. Run
 * again under ThreadSanitizer with every stress*. */
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/run/stress.h"
#include "harness/sys/clock.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define MS 1000000u

static const struct rl_algo *sweeper_algo(void)
{
    return rl_registry_find("sliding_log_sweeper");
}

/* Threads of this process now: the entries of /proc/self/task. */
static int task_count(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return -1;
    int count = 0;
    for (struct dirent *d; (d = readdir(dir)) != NULL;)
        count += d->d_name[0] != '.';
    closedir(dir);
    return count;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

static void *do_nothing(void *arg)
{
    return arg;
}

/* Threads of this process now, once any helper thread a sanitizer runtime
 * starts with the first pthread_create (TSan's) is running: one thread is
 * started and joined first, so the helper is not counted as ours. */
static int task_count_baseline(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, do_nothing, NULL) == 0)
        pthread_join(t, NULL);
    int count = task_count();
    for (int i = 0; i < 100; i++) { /* let the joined thread's entry go */
        sleep_ns(MS);
        int now = task_count();
        if (now == count)
            break;
        count = now;
    }
    return count;
}

/* A joined thread's /proc entry may outlive pthread_join by a moment:
 * polls (up to 2 s) until the count is at most want, and returns it. */
static int task_count_settled(int want)
{
    int count = task_count();
    for (int i = 0; i < 2000 && count > want; i++) {
        sleep_ns(MS);
        count = task_count();
    }
    return count;
}

static void *create_or_fail(uint64_t limit, uint64_t interval_ns, uint64_t epoch_ns)
{
    struct rl_config cfg = {.limit = limit, .interval_ns = interval_ns, .epoch_ns = epoch_ns};
    char err[128];
    void *state = sweeper_algo()->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    return state;
}

static void monotonic_or_fail(struct rl_clock *clock)
{
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(clock, "monotonic", err, sizeof err), 0);
}

/* 1000 instances on the monotonic clock, at two periods, start one thread
 * per period, not one per instance; a handle with another skew reads
 * another timeline and gets its own; the virtual clock starts none. All
 * gone once the instances are destroyed. */
#define MANY 1000
static void test_one_thread_per_schedule(void)
{
    const struct rl_algo *algo = sweeper_algo();
    struct rl_clock clock, skewed, virtual_clock;
    monotonic_or_fail(&clock);
    monotonic_or_fail(&skewed);
    rl_clock_set_skew(&skewed, 5 * MS);
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&virtual_clock, "virtual", err, sizeof err), 0);
    rl_clock_set_virtual(&virtual_clock, RL_VIRTUAL_ORIGIN_NS);

    static void *states[MANY + 1], *in_sim[100];
    int before = task_count_baseline();
    CU_ASSERT_FATAL(before > 0);
    uint64_t epoch = rl_clock_now(&clock);
    for (int i = 0; i < MANY; i++) {
        /* I = 10 ms and 20 ms: periods of 1 ms and 2 ms. Each has its own
         * epoch: the thread's instants k·P do not depend on it. */
        states[i] = create_or_fail(10, (i % 2 ? 10 : 20) * (uint64_t)MS, epoch + (uint64_t)i);
        CU_ASSERT_EQUAL(algo->acquire(states[i], &clock, 0, 1), RL_ADMIT);
    }
    int after_many = task_count();
    EXPECT(after_many == before + 2, "%d instances at 2 periods: %d threads more, want 2", MANY,
           after_many - before);
    states[MANY] = create_or_fail(10, 10 * MS, epoch);
    CU_ASSERT_EQUAL(algo->acquire(states[MANY], &skewed, 0, 1), RL_ADMIT);
    int after_skewed = task_count();
    EXPECT(after_skewed == after_many + 1, "a skewed handle: %d threads more, want 1",
           after_skewed - after_many);
    for (int i = 0; i < 100; i++) {
        in_sim[i] = create_or_fail(10, 10 * MS, RL_VIRTUAL_ORIGIN_NS);
        CU_ASSERT_EQUAL(algo->acquire(in_sim[i], &virtual_clock, 0, 1), RL_ADMIT);
    }
    EXPECT(task_count() == after_skewed, "the virtual clock started %d threads",
           task_count() - after_skewed);

    for (int i = 0; i < 100; i++)
        algo->destroy(in_sim[i]);
    for (int i = 0; i <= MANY; i++)
        algo->destroy(states[i]);
    int at_end = task_count_settled(before);
    EXPECT(at_end == before, "after destroy: %d threads more than before, want 0", at_end - before);
}

/* L = 4, I = 20 ms on the monotonic clock, 100 instances filled at once.
 * The epoch is far in the future, so lazy sweeping (scheduled from the
 * epoch) would never remove anything: what leaves is the thread's doing.
 * No entry may leave before 3·I after it was stamped; every instance must
 * admit again soon after (generously: within 2 s). */
#define FILLED 100
static void test_entries_leave_after_3i(void)
{
    const uint64_t limit = 4, interval = 20 * MS, age = 3 * interval;
    const struct rl_algo *algo = sweeper_algo();
    struct rl_clock clock;
    monotonic_or_fail(&clock);
    void *states[FILLED];
    for (int i = 0; i < FILLED; i++)
        states[i] = create_or_fail(limit, interval, UINT64_MAX / 2);

    uint64_t filled_from = rl_clock_now(&clock); /* every stamp is at or after this */
    for (int i = 0; i < FILLED; i++) {
        for (uint64_t k = 0; k < limit; k++)
            CU_ASSERT_EQUAL(algo->acquire(states[i], &clock, 0, 1), RL_ADMIT);
        CU_ASSERT_EQUAL(algo->acquire(states[i], &clock, 0, 1), RL_REJECT);
    }

    /* At 2·I: the strong window has long passed, the sweeper's age not. A
     * reject is certain only for an attempt that ended before 3·I. */
    sleep_ns(2 * interval);
    int early = 0, judged = 0;
    for (int i = 0; i < FILLED; i++) {
        enum rl_decision d = algo->acquire(states[i], &clock, 0, 1);
        if (rl_clock_now(&clock) < filled_from + age) {
            judged++;
            early += d != RL_REJECT;
        }
    }
    EXPECT(early == 0, "%d of %d instances admitted before 3·I", early, judged);

    /* Then each admits again, and only after 3·I. */
    int readmitted = 0, too_soon = 0;
    bool done[FILLED] = {false};
    uint64_t give_up = filled_from + 2000 * (uint64_t)MS;
    while (readmitted < FILLED && rl_clock_now(&clock) < give_up) {
        sleep_ns(MS);
        for (int i = 0; i < FILLED; i++) {
            if (done[i] || algo->acquire(states[i], &clock, 0, 1) != RL_ADMIT)
                continue;
            done[i] = true;
            readmitted++;
            too_soon += rl_clock_now(&clock) <= filled_from + age;
        }
    }
    EXPECT(readmitted == FILLED, "%d of %d instances admitted again within 2 s", readmitted,
           FILLED);
    EXPECT(too_soon == 0, "%d instances admitted again before 3·I", too_soon);
    for (int i = 0; i < FILLED; i++)
        algo->destroy(states[i]);
}

/* ---- destroy while the sweeper runs ----------------------------------------- */

#define SHARED  256
#define PRIVATE 32

struct churn {
    pthread_t thread;
    void **shared;      /* acquired by both workers at once: racing first acquires */
    uint64_t run_until; /* monotonic ns */
    uint64_t attempts, admits, rejects, errors, rounds;
};

/* Each round creates PRIVATE instances at I = 2 ms (a schedule only the
 * workers' private instances use: its thread stops and starts again as
 * they all go), acquires each a few times and destroys them, while the
 * sweepers pass every 100 and 200 µs. */
static void *churn_main(void *arg)
{
    struct churn *c = arg;
    const struct rl_algo *algo = sweeper_algo();
    struct rl_clock clock;
    char err[128];
    if (rl_clock_init(&clock, "monotonic", err, sizeof err) != 0)
        return NULL;
    for (int i = 0; i < SHARED; i++)
        for (int k = 0; k < 3; k++) {
            enum rl_decision d = algo->acquire(c->shared[i], &clock, 0, 1);
            c->attempts++;
            c->admits += d == RL_ADMIT;
            c->rejects += d == RL_REJECT;
            c->errors += d == RL_ERROR;
        }
    void *mine[PRIVATE];
    do {
        struct rl_config cfg = {.limit = 2, .interval_ns = 2 * MS, .epoch_ns = clock.read(&clock)};
        for (int i = 0; i < PRIVATE; i++) {
            mine[i] = algo->create(&cfg, err, sizeof err);
            if (mine[i] == NULL)
                return NULL;
        }
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < PRIVATE; i++) {
                enum rl_decision d = algo->acquire(mine[i], &clock, 0, 1);
                c->attempts++;
                c->admits += d == RL_ADMIT;
                c->rejects += d == RL_REJECT;
                c->errors += d == RL_ERROR;
            }
        /* odd ones first, then even: members leave from the middle of the list */
        for (int i = 1; i < PRIVATE; i += 2)
            algo->destroy(mine[i]);
        for (int i = 0; i < PRIVATE; i += 2)
            algo->destroy(mine[i]);
        c->rounds++;
    } while (clock.read(&clock) < c->run_until);
    return NULL;
}

static void test_stress_destroy_while_sweeping(void)
{
    const struct rl_algo *algo = sweeper_algo();
    struct rl_clock clock;
    monotonic_or_fail(&clock);
    int before = task_count_baseline();
    void *shared[SHARED];
    for (int i = 0; i < SHARED; i++)
        shared[i] = create_or_fail(2, 1 * MS, rl_clock_now(&clock)); /* P = 100 µs */
    struct churn workers[2];
    uint64_t run_until = rl_clock_now(&clock) + 150 * (uint64_t)MS;
    for (int w = 0; w < 2; w++) {
        workers[w] = (struct churn){.shared = shared, .run_until = run_until};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&workers[w].thread, NULL, churn_main, &workers[w]), 0);
    }
    uint64_t attempts = 0, decided = 0, errors = 0, rounds = 0;
    for (int w = 0; w < 2; w++) {
        pthread_join(workers[w].thread, NULL);
        attempts += workers[w].attempts;
        decided += workers[w].admits + workers[w].rejects;
        errors += workers[w].errors;
        rounds += workers[w].rounds;
    }
    CU_ASSERT(rounds >= 2); /* each worker ran at least one round */
    CU_ASSERT_EQUAL(attempts, decided);
    CU_ASSERT_EQUAL(errors, 0);
    for (int i = 0; i < SHARED; i++)
        algo->destroy(shared[i]);
    int at_end = task_count_settled(before);
    EXPECT(at_end == before, "after destroy: %d threads more than before, want 0", at_end - before);
}

/* Through the keyed container, 1000 Zipf keys with expiry by its own
 * sweeper: the tail's keys go idle and are destroyed while the shared
 * sweeper sweeps them all from one thread, and every key keeps strong
 * (judged on certain stamps). */
static void test_stress_keyed_expiry(void)
{
    struct rl_stress_params params = {
        .algo = sweeper_algo(),
        .cfg = {.limit = 5, .interval_ns = 2 * MS}, /* idle after 6 ms */
        .threads = 2,
        .duration_ns = 200 * (uint64_t)MS,
        .clock = "monotonic",
        .record = true,
        .keys = 1000,
        .zipf_s = 1.2,
        .expiry = RL_EXPIRE_SWEEPER,
    };
    int before = task_count_baseline();
    struct rl_stress_outcome out;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(out.errors, 0);
    CU_ASSERT_EQUAL(out.log.len, out.admits);
    CU_ASSERT(out.keyed.expired > 0);
    struct rl_check_params check = {.limit = 5, .interval_ns = 2 * MS};
    struct rl_check_result res;
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    EXPECT(res.total.certain_max_sliding <= 5, "certain max sliding %llu > L = 5",
           (unsigned long long)res.total.certain_max_sliding);
    CU_ASSERT(res.total.certain_max_sliding > 0);
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
    int at_end = task_count_settled(before);
    EXPECT(at_end == before, "after the run: %d threads more than before, want 0", at_end - before);
}

RL_TEST_SUITE("stress_sweeper",
              {"1000 instances: one sweeper thread per schedule", test_one_thread_per_schedule},
              {"real clock: entries leave after 3I, not before", test_entries_leave_after_3i},
              {"destroy while the shared sweeper runs (2 threads)",
               test_stress_destroy_while_sweeping},
              {"keyed, 1000 keys, expiry: strong per key, no thread left",
               test_stress_keyed_expiry})
