/* test_stress_replay.c — open-loop replay on real threads: every attempt
 * decided once and logged, latency counted from the due time (a slow
 * limiter cannot hide its backlog), --speed compresses the run, keys and
 * errors handled as in stress. Run again under ThreadSanitizer by
 * `make test` (the suite's name starts with "stress"). */
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/run/replay.h"
#include "workloads/generators.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS 1000000ull

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* `count` attempts evenly over `span_ns`, one key. */
static void uniform_trace(struct rl_trace *trace, size_t count, uint64_t span_ns)
{
    memset(trace, 0, sizeof *trace);
    CU_ASSERT_EQUAL_FATAL(rl_trace_reserve(trace, count), 0);
    for (size_t i = 0; i < count; i++)
        CU_ASSERT_EQUAL_FATAL(rl_trace_push(trace, i * span_ns / count, 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(trace, 1), 0);
}

static void run_ok(struct rl_replay_params *p, struct rl_replay_outcome *out)
{
    char err[256] = "";
    int rc = rl_replay_run(p, out, err, sizeof err);
    EXPECT_FATAL(rc == 0, "replay: %s", err);
    CU_ASSERT_FALSE(out->interrupted);
}

/* Every attempt decided once, the log complete, the percentiles ordered,
 * and the exact sliding log within L at the times it decided. */
static void test_uniform_two_threads(void)
{
    struct rl_trace trace;
    uniform_trace(&trace, 2000, 200 * MS); /* one attempt per 100 µs: 2× L */
    struct rl_replay_params p = {.algo = rl_registry_find("sliding_log"),
                                 .cfg = {.limit = 100, .interval_ns = 20 * MS},
                                 .trace = &trace,
                                 .threads = 2,
                                 .clock = "monotonic"};
    struct rl_replay_outcome out;
    run_ok(&p, &out);
    CU_ASSERT_EQUAL(out.attempts, 2000);
    CU_ASSERT_EQUAL(out.admits + out.rejects, 2000);
    CU_ASSERT_EQUAL(out.errors, 0);
    CU_ASSERT(out.admits > 0 && out.rejects > 0);
    CU_ASSERT(out.log.complete);
    CU_ASSERT_EQUAL(out.log.len, 2000);
    CU_ASSERT_EQUAL(out.log.dropped, 0);
    size_t per_thread[2] = {0, 0}, admitted = 0;
    for (size_t i = 0; i < out.log.len; i++) {
        CU_ASSERT_FATAL(out.log.events[i].thread < 2);
        per_thread[out.log.events[i].thread]++;
        admitted += out.log.events[i].admitted;
        if (i)
            CU_ASSERT(out.log.events[i].t_ns >= out.log.events[i - 1].t_ns); /* sorted */
    }
    CU_ASSERT_EQUAL(per_thread[0], 1000); /* i mod T */
    CU_ASSERT_EQUAL(per_thread[1], 1000);
    CU_ASSERT_EQUAL(admitted, out.admits);
    CU_ASSERT_EQUAL(out.latency.total, 2000);
    CU_ASSERT_EQUAL(out.lateness.total, 2000);
    CU_ASSERT_EQUAL(out.service.total, 2000);
    uint64_t p50 = rl_histogram_percentile(&out.latency, 50),
             p90 = rl_histogram_percentile(&out.latency, 90),
             p99 = rl_histogram_percentile(&out.latency, 99),
             p999 = rl_histogram_percentile(&out.latency, 99.9);
    CU_ASSERT(p50 > 0);
    CU_ASSERT(p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= out.latency.max);
    CU_ASSERT(out.lateness.max <= out.latency.max); /* latency includes the lateness */
    CU_ASSERT(out.service.min > 0);
    CU_ASSERT_EQUAL(out.span_ns, trace.attempts[1999].t_ns);
    CU_ASSERT(out.wall_ns >= out.span_ns);

    struct rl_check_params check = {.limit = 100, .interval_ns = 20 * MS};
    struct rl_check_result res;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    CU_ASSERT(res.complete);
    CU_ASSERT_EQUAL(res.total.attempts, 2000);
    CU_ASSERT_EQUAL(res.total.admits, out.admits);
    CU_ASSERT(res.total.certain_max_sliding <= 100); /* strong, at the decision times */
    CU_ASSERT(res.total.certain_max_sliding > 0);
    rl_check_result_free(&res);
    rl_replay_outcome_free(&out);
    rl_trace_free(&trace);
}

/* A test-only limiter that busy-waits 1 ms per call, then admits. */
#define SLOW_NS (1 * MS)

static void *slow_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    return rl_state_alloc(RL_CACHE_LINE, err, err_len);
}

static void slow_destroy(void *state)
{
    free(state);
}

static enum rl_decision slow_acquire(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)state, (void)clock, (void)key, (void)n;
    uint64_t until = monotonic_ns() + SLOW_NS;
    while (monotonic_ns() < until)
        ;
    return RL_ADMIT;
}

static const struct rl_algo slow_algo = {.name = "test_slow_1ms",
                                         .family = "baseline",
                                         .summary = "busy-waits 1 ms, then admits",
                                         .promise = RL_PROMISE_NONE,
                                         .flags = RL_THREAD_SAFE,
                                         .create = slow_create,
                                         .destroy = slow_destroy,
                                         .acquire = slow_acquire};

/* Coordinated omission: attempts due every 100 µs on a limiter that takes
 * 1 ms. Two threads serve at most 2 per ms, so a backlog builds and the
 * last attempts wait tens of ms. A closed-loop tool would report about
 * 1 ms (the service time); counted from the due time, p99 is far above. */
static void test_latency_from_due_time(void)
{
    struct rl_trace trace;
    uniform_trace(&trace, 200, 20 * MS);
    struct rl_replay_params p = {.algo = &slow_algo,
                                 .cfg = {.limit = 1000, .interval_ns = 100 * MS},
                                 .trace = &trace,
                                 .threads = 2,
                                 .clock = "monotonic"};
    struct rl_replay_outcome out;
    run_ok(&p, &out);
    CU_ASSERT_EQUAL(out.attempts, 200);
    uint64_t p99 = rl_histogram_percentile(&out.latency, 99);
    uint64_t service_p50 = rl_histogram_percentile(&out.service, 50);
    char msg[200];
    snprintf(msg, sizeof msg, "p99 %llu ns, service p50 %llu ns, late max %llu ns",
             (unsigned long long)p99, (unsigned long long)service_p50,
             (unsigned long long)out.lateness.max);
    EXPECT(service_p50 >= SLOW_NS, "%s", msg);
    EXPECT(p99 >= 10 * SLOW_NS, "%s", msg);
    EXPECT(p99 >= 10 * service_p50, "%s", msg);
    /* the backlog is the harness being late, not the call being slow */
    CU_ASSERT(out.lateness.max >= 10 * SLOW_NS);
    CU_ASSERT(out.wall_ns >= 100 * SLOW_NS); /* 200 calls of 1 ms on 2 threads */
    rl_replay_outcome_free(&out);
    rl_trace_free(&trace);
}

/* Judged on the recorded log, not on wall clocks (a busy machine or TSan
 * makes a run late, never early). Attempt i of uniform_trace is due at
 * i·span/count ÷ speed after t0, the stamps' epoch on monotonic, and is
 * decided by thread i mod T in order, so thread th's j-th decision in the
 * log (sorted by stamp) is attempt th + j·T. Counts the decisions stamped
 * before they were due at `speed` (none may be) and before they would have
 * been due at speed 1. */
static void due_times(const struct rl_event_log *log, unsigned threads, size_t count,
                      uint64_t span_ns, double speed, size_t *early, size_t *before_speed_1)
{
    size_t seen[8] = {0};
    CU_ASSERT_FATAL(threads <= 8);
    *early = *before_speed_1 = 0;
    for (size_t e = 0; e < log->len; e++) {
        unsigned th = log->events[e].thread;
        CU_ASSERT_FATAL(th < threads);
        size_t i = th + seen[th]++ * threads;
        CU_ASSERT_FATAL(i < count);
        uint64_t due_1 = i * span_ns / count, t = log->events[e].t_ns;
        *early += (double)t < (double)due_1 / speed;
        *before_speed_1 += t < due_1;
    }
}

/* --speed 2 sends the same trace in half the time: at speed 1 no decision
 * comes before its due time; at speed 2 none before half of it, and most
 * come before their speed-1 due time, which a run that ignored the speed
 * could not do however fast the machine. "Most" is half: an attempt due at
 * d misses only when the run is over d/2 late there. */
static void test_speed_halves_wall_time(void)
{
    struct rl_trace trace;
    uniform_trace(&trace, 1000, 200 * MS);
    struct rl_replay_params p = {.algo = rl_registry_find("fw_cas"),
                                 .cfg = {.limit = 100, .interval_ns = 20 * MS},
                                 .trace = &trace,
                                 .threads = 2,
                                 .clock = "monotonic"};
    struct rl_replay_outcome normal, fast;
    run_ok(&p, &normal);
    p.speed = 2;
    run_ok(&p, &fast);
    uint64_t last = trace.attempts[999].t_ns;
    CU_ASSERT_EQUAL(normal.span_ns, last);
    CU_ASSERT(fast.span_ns >= last / 2 && fast.span_ns <= last / 2 + 1);
    CU_ASSERT_EQUAL(fast.attempts, 1000);
    CU_ASSERT(normal.wall_ns >= normal.span_ns);
    CU_ASSERT(fast.wall_ns >= fast.span_ns);
    CU_ASSERT_EQUAL_FATAL(normal.log.len, 1000);
    CU_ASSERT_EQUAL_FATAL(fast.log.len, 1000);
    size_t early, before_speed_1;
    due_times(&normal.log, 2, 1000, 200 * MS, 1, &early, &before_speed_1);
    EXPECT(early == 0, "speed 1: %zu decisions stamped before they were due", early);
    due_times(&fast.log, 2, 1000, 200 * MS, 2, &early, &before_speed_1);
    EXPECT(early == 0, "speed 2: %zu decisions stamped before half their due time", early);
    EXPECT(before_speed_1 >= 500,
           "speed 2: only %zu of 1000 decisions came before their speed-1 due time (wall %llu "
           "ns at speed 1, %llu ns at speed 2)",
           before_speed_1, (unsigned long long)normal.wall_ns, (unsigned long long)fast.wall_ns);
    rl_replay_outcome_free(&normal);
    rl_replay_outcome_free(&fast);
    rl_trace_free(&trace);
}

/* A test-only limiter that answers error on every other call. */
static _Atomic unsigned long flaky_calls;

static enum rl_decision flaky_acquire(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)state, (void)clock, (void)key, (void)n;
    unsigned long call = atomic_fetch_add_explicit(&flaky_calls, 1, memory_order_relaxed);
    return call % 2 ? RL_ERROR : RL_REJECT;
}

static const struct rl_algo flaky_algo = {.name = "test_flaky",
                                          .family = "baseline",
                                          .summary = "rejects, or answers error",
                                          .promise = RL_PROMISE_NONE,
                                          .flags = RL_THREAD_SAFE,
                                          .create = slow_create,
                                          .destroy = slow_destroy,
                                          .acquire = flaky_acquire};

/* Several keys go through the keyed container (one limiter per key), and
 * errors are counted and then admitted under fail-open. */
static void test_keys_and_errors(void)
{
    struct rl_workload_params w;
    rl_workload_defaults(&w, 20, 10 * MS);
    w.duration_ns = 50 * MS;
    w.keys = 5;
    struct rl_trace trace;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&w, &trace, err, sizeof err), 0);
    struct rl_replay_params p = {.algo = rl_registry_find("tb_cas"),
                                 .cfg = {.limit = 20, .interval_ns = 10 * MS},
                                 .trace = &trace,
                                 .threads = 2,
                                 .clock = "monotonic"};
    struct rl_replay_outcome out;
    run_ok(&p, &out);
    CU_ASSERT_EQUAL(out.attempts, trace.len);
    CU_ASSERT_EQUAL(out.keyed.created, 5);
    struct rl_check_params check = {.limit = 20, .interval_ns = 10 * MS};
    struct rl_check_result res;
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    CU_ASSERT_EQUAL(res.key_count, 5);
    CU_ASSERT(res.total.certain_max_sliding <= 20 + 20); /* per key, B + L */
    rl_check_result_free(&res);
    rl_replay_outcome_free(&out);

    atomic_store_explicit(&flaky_calls, 0, memory_order_relaxed);
    p.algo = &flaky_algo;
    p.error_admits = true;
    run_ok(&p, &out);
    CU_ASSERT_EQUAL(out.attempts, trace.len);
    CU_ASSERT_EQUAL(out.errors, trace.len / 2);
    CU_ASSERT_EQUAL(out.admits, out.errors); /* fail-open: every error admitted */
    rl_replay_outcome_free(&out);
    rl_trace_free(&trace);
}

/* Bad parameters are refused before any thread starts. */
static void test_bad_parameters(void)
{
    struct rl_trace trace = {0};
    CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, 10, 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, 5, 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(&trace, 1), 0);
    struct rl_replay_params p = {.algo = rl_registry_find("fw_cas"),
                                 .cfg = {.limit = 10, .interval_ns = MS},
                                 .trace = &trace,
                                 .threads = 1,
                                 .clock = "monotonic"};
    struct rl_replay_outcome out;
    char err[256];
    CU_ASSERT_EQUAL(rl_replay_run(&p, &out, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not sorted"));
    trace.attempts[1].t_ns = 20;
    p.speed = -1;
    CU_ASSERT_EQUAL(rl_replay_run(&p, &out, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "speed"));
    p.speed = 1;
    p.clock = "virtual";
    CU_ASSERT_EQUAL(rl_replay_run(&p, &out, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "virtual is for sim"));
    p.clock = "monotonic";
    p.threads = 0;
    CU_ASSERT_EQUAL(rl_replay_run(&p, &out, err, sizeof err), -1);
    rl_trace_free(&trace);
}

RL_TEST_SUITE("stress_replay",
              {"2000 attempts, 2 threads: each decided once, complete log, sliding_log ≤ L",
               test_uniform_two_threads},
              {"a 1 ms limiter at one attempt per 100 µs: p99 from the due time ≥ 10 ms",
               test_latency_from_due_time},
              {"--speed 2 halves the due times, judged on the log", test_speed_halves_wall_time},
              {"keys through the container; errors counted, fail-open admits",
               test_keys_and_errors},
              {"unsorted trace, bad speed, virtual clock, 0 threads are refused",
               test_bad_parameters})
