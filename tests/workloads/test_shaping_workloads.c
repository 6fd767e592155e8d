/* test_shaping_workloads.c — the workloads that expose shapers
 * (workloads/shaping_workloads.c): idle_burst's shape, its cancellations
 * and warm_poll's max wait 0, the columns written and read back, and what
 * they expose in sim: a pacer with slack releases at most slack + 1 of a
 * burst after idle, the pre-v0.3.1 rule (uber-go #119) all of it. */
#include "tests/support/test_util.h"
#include "harness/check/shape_check.h"
#include "harness/run/sim.h"
#include "workloads/generators.h"
#include "workloads/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC 1000000000ull
#define MS  1000000ull
#define US  1000ull

static struct rl_workload_params named(const char *name, uint64_t limit, uint64_t interval_ns)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, limit, interval_ns);
    p.name = name;
    rl_workload_name_defaults(&p, limit, interval_ns);
    return p;
}

static void test_idle_burst_shape(void)
{
    struct rl_workload_params p = named("idle_burst", 10, SEC);
    p.duration_ns = 10 * SEC; /* cycles of 5 s: openers at 0 and 5 s, bursts at 3 and 8 s */
    struct rl_trace t;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL(t.len, 2 * (1 + 20));
    CU_ASSERT_EQUAL(t.attempts[0].t_ns, 0);
    CU_ASSERT_EQUAL(t.attempts[1].t_ns, 3 * SEC);
    CU_ASSERT_EQUAL(t.attempts[20].t_ns, 3 * SEC + 19 * US); /* 1 µs apart */
    CU_ASSERT_EQUAL(t.attempts[21].t_ns, 5 * SEC);
    CU_ASSERT_EQUAL(t.attempts[22].t_ns, 8 * SEC);
    CU_ASSERT_PTR_NULL(t.max_wait_ns); /* no cancellations: a plain trace */
    rl_trace_free(&t);
}

static void test_idle_burst_cancels_second_half_at_arrival(void)
{
    struct rl_workload_params p = named("idle_burst", 10, SEC);
    p.duration_ns = 50 * SEC;
    p.cancel_share = 0.5;
    struct rl_trace t;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &t, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.cancel_ns);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.max_wait_ns);
    size_t cancelled = 0, misplaced = 0, j = 0;
    for (size_t i = 0; i < t.len; i++) {
        if (t.attempts[i].t_ns % (5 * SEC) == 0) {
            j = 0;
            misplaced += t.cancel_ns[i] != RL_TRACE_NO_CANCEL; /* openers never */
            continue;
        }
        if (t.cancel_ns[i] != RL_TRACE_NO_CANCEL) {
            cancelled++;
            misplaced += j < 10 || t.cancel_ns[i] != t.attempts[i].t_ns;
        }
        j++;
    }
    EXPECT(misplaced == 0, "%zu cancellations outside a burst's second half or not at arrival",
           misplaced);
    /* 10 bursts × 10 in their second half, half drawn: about 50 */
    EXPECT(cancelled > 30 && cancelled < 70, "%zu cancelled of 100 candidates at share 0.5",
           cancelled);
    rl_trace_free(&t);
    p.cancel_share = 1.5;
    EXPECT(rl_workload_generate(&p, &t, err, sizeof err) == -1 && strstr(err, "cancel_share"),
           "a share of 1.5 accepted: %s", err);
    p.cancel_share = 0.5;
    p.name = "uniform";
    EXPECT(rl_workload_generate(&p, &t, err, sizeof err) == -1 && strstr(err, "idle_burst"),
           "uniform took a cancel share: %s", err);
}

static void test_warm_poll_and_columns_round_trip(void)
{
    struct rl_workload_params p = named("warm_poll", 10, SEC);
    p.duration_ns = 2 * SEC;
    struct rl_trace t, back = {0};
    char err[256], path[] = "/tmp/ratelab-warm-poll-XXXXXX";
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &t, err, sizeof err), 0);
    /* Guava #3552: every 120 ms at 10/s, each a tryAcquire() (max wait 0) */
    CU_ASSERT_EQUAL(t.len, 17);
    CU_ASSERT(t.attempts[1].t_ns >= 120 * MS - 1 && t.attempts[1].t_ns <= 120 * MS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.max_wait_ns);
    bool zero = true;
    for (size_t i = 0; i < t.len; i++)
        zero &= t.max_wait_ns[i] == 0;
    CU_ASSERT(zero);
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL_FATAL(rl_trace_write_csv(&t, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT_EQUAL(back.len, t.len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back.max_wait_ns);
    CU_ASSERT_EQUAL(back.max_wait_ns[3], 0);
    rl_trace_free(&back);
    rl_trace_free(&t);
    /* and a cancelling idle_burst */
    p = named("idle_burst", 10, SEC);
    p.cancel_share = 1;
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_write_csv(&t, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back.cancel_ns);
    bool same = back.len == t.len;
    for (size_t i = 0; same && i < t.len; i++)
        same = back.cancel_ns[i] == t.cancel_ns[i] && back.max_wait_ns[i] == RL_TRACE_WAIT_DEFAULT;
    CU_ASSERT(same);
    rl_trace_free(&back);
    rl_trace_free(&t);
    unlink(path);
}

/* The most releases at one instant (to the µs the burst is spread over). */
static uint64_t most_at_once(const char *name, uint64_t burst, bool *held)
{
    struct rl_workload_params p = named("idle_burst", 10, SEC);
    p.duration_ns = 20 * SEC;
    struct rl_trace t;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &t, err, sizeof err), 0);
    struct rl_config cfg = {.limit = 10, .interval_ns = SEC, .burst = burst};
    static const struct rl_sim_options options = {.expiry = RL_EXPIRE_NEVER};
    struct rl_event_log log;
    struct rl_sim_outcome out;
    CU_ASSERT_EQUAL_FATAL(
        rl_sim_run_keyed(rl_registry_find(name), &cfg, &options, &t, &log, &out, err, sizeof err),
        0);
    uint64_t most = 0;
    struct rl_shaped_log shaped = {.len = log.len, .key_count = log.key_count};
    shaped.events = calloc(log.len, sizeof *shaped.events);
    CU_ASSERT_PTR_NOT_NULL_FATAL(shaped.events);
    for (size_t i = 0; i < log.len; i++) {
        uint64_t same = 0;
        for (size_t k = 0; k < log.len; k++) /* small: O(n²) is fine */
            same += log.release_ns[k] >= log.release_ns[i] &&
                    log.release_ns[k] < log.release_ns[i] + 100 * US;
        most = same > most ? same : most;
        shaped.events[i] = (struct rl_shaped_event){.t_ns = log.events[i].t_ns,
                                                    .release_ns = log.release_ns[i],
                                                    .key = log.events[i].key,
                                                    .n = log.events[i].n,
                                                    .admitted = log.events[i].admitted};
    }
    struct rl_shape_params sp = {.limit = 10, .interval_ns = SEC, .burst = burst};
    struct rl_shape_result r;
    CU_ASSERT_EQUAL_FATAL(rl_shape_check(&shaped, &sp, &r, err, sizeof err), 0);
    *held = r.curve_violations == 0 && r.noncausal == 0;
    free(shaped.events);
    rl_event_log_free(&log);
    rl_trace_free(&t);
    return most;
}

static void test_idle_burst_exposes_slack(void)
{
    bool held;
    uint64_t uber = most_at_once("pacer_uber", 6, &held); /* slack 5 */
    EXPECT(uber == 6 && held, "pacer_uber, slack 5: %llu at once after idle (want 6), held %d",
           (unsigned long long)uber, held);
    uint64_t bug = most_at_once("pacer_uber_idle_bug", 6, &held);
    EXPECT(bug == 20 && !held,
           "pacer_uber_idle_bug, slack 5: %llu at once (want the whole burst, 20), held %d",
           (unsigned long long)bug, held);
    uint64_t spacer = most_at_once("gcra_spacer", 6, &held);
    EXPECT(spacer == 6 && held, "gcra_spacer, B = 6: %llu at once, held %d",
           (unsigned long long)spacer, held);
}

RL_TEST_SUITE("shaping_workloads",
              {"idle_burst: opener, idle, burst 1 µs apart", test_idle_burst_shape},
              {"idle_burst: cancellations in a burst's second half, at arrival",
               test_idle_burst_cancels_second_half_at_arrival},
              {"warm_poll: max wait 0; the columns written and read back",
               test_warm_poll_and_columns_round_trip},
              {"idle_burst in sim: slack + 1 at once; the #119 rule all of it",
               test_idle_burst_exposes_slack});
