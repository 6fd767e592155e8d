/* test_shapers_delay.c — decision tables in virtual time, release times
 * included, for the two shapers that follow a peer's delay rule:
 * guava_warmup (Guava's SmoothWarmingUp: cold start, the trapezoid, Guava
 * #3552 polled below the rate, idle-then-burst) and nginx_delay (limit_req
 * burst= delay=: at once, delayed on the ms clock, rejected). */
#include "tests/support/random_trace.h"
#include "tests/support/shape_steps.h"
#include "tests/support/test_util.h"
#include "harness/sys/clock.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define S  1000000000ull

/* RateLimiter.create(10, 500 ms): T = 100 ms, maxPermits 5 (B), threshold
 * 2.5, cold interval 300 ms. */
static const struct rl_config warmup_10_per_s = {.limit = 10, .interval_ns = S, .burst = 5};

static void test_warmup_cold_start(void)
{
    /* Ten acquire(1) at t = 0: Guava 31.1's own reserve() answers on a
     * stopwatch held at 0 are 0, 260, 440, 550, 650 … ms: the first pays
     * 100 + 2·100·1·(5 − 1)/5 = 260 (the trapezoid from 2.5 to 1.5 above
     * the threshold), the second 180, the third 110 (half a permit above),
     * then T each: warm. */
    rl_expect_shaped_cfg(
        "guava_warmup", &warmup_10_per_s,
        RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 260 * MS},
                       {0, 1, WAIT_ANY, 'A', 440 * MS}, {0, 1, WAIT_ANY, 'A', 550 * MS},
                       {0, 1, WAIT_ANY, 'A', 650 * MS}, {0, 1, WAIT_ANY, 'A', 750 * MS},
                       {0, 1, WAIT_ANY, 'A', 850 * MS}));
}

static void test_warmup_timeout_and_idle_burst(void)
{
    /* tryAcquire(1, 259 ms) while the next moment is 260 ms away gives up
     * and changes nothing; 260 ms waits. Idle 10 s after warming: cold
     * again, the first goes at once and the next pays 260 ms. A cost of 3
     * from cold: the trapezoid from 2.5 to 0 above the threshold (2.5·(300 +
     * 100)/2 = 500) plus 0.5 permit below it (50 ms): 550 ms. */
    rl_expect_shaped_cfg(
        "guava_warmup", &warmup_10_per_s,
        RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, 259 * MS, 'R', 0},
                       {0, 1, 260 * MS, 'A', 260 * MS}, {0, 1, 0, 'R', 0},
                       {0, 3, WAIT_ANY, 'A', 440 * MS}, {0, 1, WAIT_ANY, 'A', 750 * MS},
                       {10 * S, 1, 0, 'A', 10 * S}, {10 * S, 1, WAIT_ANY, 'A', 10 * S + 260 * MS},
                       {30 * S, 3, 0, 'A', 30 * S}, {30 * S, 1, WAIT_ANY, 'A', 30 * S + 550 * MS}));
}

static void test_warmup_polled_below_rate_3552(void)
{
    /* Guava #3552: create(10/s, 500 ms), tryAcquire() every 120 ms, below
     * the rate. Each poll's gap stores 1.2 permits, more than an admit
     * spends, so the limiter stays cold: every admit costs 260 ms and only
     * every third poll passes, forever (3.3/s, never 10/s). Guava 31.1 on
     * its own stopwatch admits the same polls (tests/conformance/guava).
     * Polled every 50 ms (above the rate), it warms: by the end every
     * second poll passes (10/s). */
    const struct rl_algo *algo = rl_registry_find("guava_warmup");
    struct rl_config cfg = warmup_10_per_s;
    cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
    char err[256];
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    void *slow = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slow);
    unsigned admits = 0;
    for (uint64_t i = 0; i < 300; i++) {
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + i * 120 * MS);
        bool admitted = algo->acquire(slow, &clock, 0, 1) == RL_ADMIT;
        admits += admitted;
        EXPECT(admitted == (i % 3 == 0), "poll %llu at %llu ms: admitted %d", (unsigned long long)i,
               (unsigned long long)(i * 120), (int)admitted);
    }
    EXPECT(admits == 100, "300 polls every 120 ms: %u admitted, expected 100", admits);
    algo->destroy(slow);

    void *fast = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fast);
    unsigned late = 0;
    for (uint64_t i = 0; i < 200; i++) {
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + i * 50 * MS);
        bool admitted = algo->acquire(fast, &clock, 0, 1) == RL_ADMIT;
        late += admitted && i >= 100;
    }
    EXPECT(late == 50, "polls every 50 ms, last 5 s: %u admitted, expected 50 (10/s)", late);
    algo->destroy(fast);
}

static void test_warmup_acquire_is_shape_at_zero(void)
{
    /* acquire is shape with max wait 0, on random traces */
    const struct rl_algo *algo = rl_registry_find("guava_warmup");
    for (uint64_t seed = 1; seed <= 30; seed++) {
        struct rl_config cfg;
        struct rl_trace trace;
        const struct rl_test_trace_shape shape = {.salt = 41, .burst = true, .odd_intervals = true};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
        char err[256];
        void *a = algo->create(&cfg, err, sizeof err), *b = algo->create(&cfg, err, sizeof err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        struct rl_clock clock;
        rl_clock_init(&clock, "virtual", err, sizeof err);
        for (size_t i = 0; i < trace.len; i++) {
            uint64_t t = RL_VIRTUAL_ORIGIN_NS + trace.attempts[i].t_ns;
            rl_clock_set_virtual(&clock, t);
            struct rl_reservation r = {0};
            enum rl_decision x = algo->acquire(a, &clock, 0, trace.attempts[i].n);
            enum rl_decision y = algo->shape(b, &clock, 0, trace.attempts[i].n, 0, &r);
            EXPECT_FATAL(x == y && (y != RL_ADMIT || r.release_ns == t),
                         "seed %llu attempt %zu: acquire %d, shape(0) %d", (unsigned long long)seed,
                         i, (int)x, (int)y);
        }
        algo->destroy(a);
        algo->destroy(b);
        rl_trace_free(&trace);
    }
}

static void test_nginx_delay_table(void)
{
    /* rate=10r/s burst=5 delay=2 (--slots 2): excess 0, 1000, 2000 pass at
     * once; 3000, 4000, 5000 wait (excess − 2000)·1000/10000 = 100, 200,
     * 300 ms; 6000 > 5000 is rejected. At 250 ms the meter has drained
     * 2500: excess 3500 waits 150 ms, released at the tick 400 ms (a max
     * wait of 100 ms first gives up, changing nothing); 0.5 ms later, the
     * same ms, 4500 waits 250 ms. After 10 s idle the burst starts over
     * (idle-then-burst); a request at 10.0007 s is delayed from its ms tick,
     * to 10.2 s exactly. */
    const struct rl_config cfg = {.limit = 10, .interval_ns = S, .burst = 5, .slots = 2};
    rl_expect_shaped_cfg(
        "nginx_delay", &cfg,
        RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 0},
                       {0, 1, WAIT_ANY, 'A', 100 * MS}, {0, 1, WAIT_ANY, 'A', 200 * MS},
                       {0, 1, WAIT_ANY, 'A', 300 * MS}, {0, 1, WAIT_ANY, 'R', 0},
                       {250 * MS, 1, 100 * MS, 'R', 0}, {250 * MS, 1, WAIT_ANY, 'A', 400 * MS},
                       {250 * MS + 500000, 1, WAIT_ANY, 'A', 500 * MS}, {10 * S, 1, 0, 'A', 10 * S},
                       {10 * S, 1, 0, 'A', 10 * S}, {10 * S, 1, 0, 'A', 10 * S},
                       {10 * S, 1, 0, 'R', 0}, {10 * S, 1, WAIT_ANY, 'A', 10 * S + 100 * MS},
                       {10 * S + 700000, 1, WAIT_ANY, 'A', 10 * S + 200 * MS},
                       {10 * S + 700000, 2, WAIT_ANY, 'R', 0}, {11 * S, 7, WAIT_ANY, 'R', 0}));
}

static void test_nginx_delay_default_delay_zero(void)
{
    /* delay unset (nginx's default 0): every request beyond the first
     * waits; burst=2 rejects the fourth; two at once (n = 2) wait for both */
    const struct rl_config cfg = {.limit = 10, .interval_ns = S, .burst = 2};
    rl_expect_shaped_cfg("nginx_delay", &cfg,
                         RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 100 * MS},
                                        {0, 1, WAIT_ANY, 'A', 200 * MS}, {0, 1, WAIT_ANY, 'R', 0},
                                        {5 * S, 2, WAIT_ANY, 'A', 5 * S + 100 * MS},
                                        {5 * S, 1, WAIT_ANY, 'A', 5 * S + 200 * MS}));
}

static void test_nginx_delay_nodelay_is_leaky_nginx(void)
{
    /* delay ≥ burst is nodelay: nothing waits, and every decision is
     * leaky_nginx's (burst=B nodelay), on random traces */
    const struct rl_algo *shaper = rl_registry_find("nginx_delay");
    const struct rl_algo *meter = rl_registry_find("leaky_nginx");
    unsigned compared = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct rl_config cfg;
        struct rl_trace trace;
        const struct rl_test_trace_shape shape = {.salt = 42, .burst = true};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        cfg.slots = (uint32_t)cfg.burst;
        char err[256];
        void *a = shaper->create(&cfg, err, sizeof err), *b = meter->create(&cfg, err, sizeof err);
        if (a && b) {
            struct rl_clock clock;
            rl_clock_init(&clock, "virtual", err, sizeof err);
            for (size_t i = 0; i < trace.len; i++) {
                uint64_t t = RL_VIRTUAL_ORIGIN_NS + trace.attempts[i].t_ns;
                rl_clock_set_virtual(&clock, t);
                struct rl_reservation r = {0};
                enum rl_decision x = shaper->shape(a, &clock, 0, trace.attempts[i].n, WAIT_ANY, &r);
                enum rl_decision y = meter->acquire(b, &clock, 0, trace.attempts[i].n);
                compared++;
                EXPECT_FATAL(
                    x == y && (x != RL_ADMIT || r.release_ns == t),
                    "seed %llu attempt %zu: nginx_delay %d (release +%llu), leaky_nginx %d",
                    (unsigned long long)seed, i, (int)x, (unsigned long long)(r.release_ns - t),
                    (int)y);
            }
        }
        EXPECT_FATAL((a == NULL) == (b == NULL), "seed %llu: one refused the configuration",
                     (unsigned long long)seed);
        if (a)
            shaper->destroy(a);
        if (b)
            meter->destroy(b);
        rl_trace_free(&trace);
    }
    EXPECT(compared > 1000, "only %u attempts compared", compared);
}

RL_TEST_SUITE("shapers_delay",
              {"guava_warmup: cold start, the trapezoid, as Guava 31.1", test_warmup_cold_start},
              {"guava_warmup: timeouts, idle-then-burst, cost 3 from cold",
               test_warmup_timeout_and_idle_burst},
              {"guava_warmup: Guava #3552, polled below the rate stays cold",
               test_warmup_polled_below_rate_3552},
              {"guava_warmup: acquire is shape with max wait 0",
               test_warmup_acquire_is_shape_at_zero},
              {"nginx_delay: burst=5 delay=2, ms ticks, idle-then-burst", test_nginx_delay_table},
              {"nginx_delay: default delay 0 delays all but the first",
               test_nginx_delay_default_delay_zero},
              {"nginx_delay: delay >= burst is nodelay, decides as leaky_nginx",
               test_nginx_delay_nodelay_is_leaky_nginx})
