/* test_shapers.c — the shapers' decision tables in virtual time (release
 * times included), the uber-go pacer's documented idle bug, and the
 * spacer judged by the shaping checker as its own ideal. */
#include "tests/support/random_trace.h"
#include "tests/support/shape_steps.h"
#include "tests/support/test_util.h"
#include "harness/check/shape_check.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define S  1000000000ull

static void test_spacer_table(void)
{
    /* T = 100 ms, τ = T (B = 2): two at once, then one per T; a wait past
     * the max is rejected and changes nothing; n > B never fits */
    rl_expect_shaped("gcra_spacer", 10, S, 2,
                     RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 0},
                                    {0, 1, WAIT_ANY, 'A', 100 * MS},
                                    {0, 1, WAIT_ANY, 'A', 200 * MS}, {0, 1, 250 * MS, 'R', 0},
                                    {0, 3, WAIT_ANY, 'R', 0}, {0, 1, 300 * MS, 'A', 300 * MS},
                                    {1 * S, 1, 0, 'A', 1 * S},
                                    {1 * S, 2, WAIT_ANY, 'A', 1 * S + 100 * MS}));
}

static void test_spacer_fractions(void)
{
    /* T = 1/3 s is no whole ns: releases are the exact times rounded up */
    rl_expect_shaped("gcra_spacer", 3, S, 1,
                     RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 333333334},
                                    {0, 1, WAIT_ANY, 'A', 666666667}, {0, 1, WAIT_ANY, 'A', 1 * S},
                                    {3 * S + 1, 1, WAIT_ANY, 'A', 3 * S + 1}));
}

/* Over 40 seeded random traces of shape, name's acquire decides every
 * attempt as twin's. refusals_ok: a configuration either refuses is
 * skipped; otherwise both must accept every one. */
static void expect_acquire_as(const char *name, const char *twin,
                              const struct rl_test_trace_shape *shape, bool refusals_ok)
{
    const struct rl_algo *algo = rl_registry_find(name);
    const struct rl_algo *other = rl_registry_find(twin);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct rl_config cfg;
        struct rl_trace trace;
        rl_test_random_trace(seed, shape, &cfg, &trace, NULL);
        cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
        char err[256];
        void *a = algo->create(&cfg, err, sizeof err), *b = other->create(&cfg, err, sizeof err);
        if (!refusals_ok) {
            CU_ASSERT_PTR_NOT_NULL_FATAL(a);
            CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        }
        if (a && b) {
            struct rl_clock clock;
            rl_clock_init(&clock, "virtual", err, sizeof err);
            for (size_t i = 0; i < trace.len; i++) {
                rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + trace.attempts[i].t_ns);
                enum rl_decision x = algo->acquire(a, &clock, 0, trace.attempts[i].n);
                enum rl_decision y = other->acquire(b, &clock, 0, trace.attempts[i].n);
                EXPECT_FATAL(x == y, "seed %llu attempt %zu: %s %d, %s %d",
                             (unsigned long long)seed, i, name, (int)x, twin, (int)y);
            }
        }
        if (a)
            algo->destroy(a);
        if (b)
            other->destroy(b);
        rl_trace_free(&trace);
    }
}

static void test_spacer_acquire_is_gcra(void)
{
    /* acquire is the max wait 0: gcra_cas's decisions, nothing reserved */
    const struct rl_test_trace_shape shape = {.salt = 25, .burst = true, .odd_intervals = true};
    expect_acquire_as("gcra_spacer", "gcra_cas", &shape, true);
}

static void test_guava_bursty_next_pays(void)
{
    /* tb_debt's worked sequence (L = 3 per 3000 ns, T = 1000 ns), delayed
     * instead of refused: the 10 go at once and the next caller waits for
     * them; a timeout shorter than the wait gives up and changes nothing */
    rl_expect_shaped("guava_bursty", 3, 3000, 0,
                     RL_SHAPE_STEPS({0, 10, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 10000},
                                    {5000, 1, 1000, 'R', 0}, {5000, 1, WAIT_ANY, 'A', 11000},
                                    {30000, 5, 0, 'A', 30000}, {30000, 3, WAIT_ANY, 'A', 32000},
                                    {30000, 1, 4999, 'R', 0}, {30000, 1, 5000, 'A', 35000}));
}

static void test_guava_bursty_acquire_is_tb_debt(void)
{
    const struct rl_test_trace_shape shape = {.salt = 26, .odd_intervals = true};
    expect_acquire_as("guava_bursty", "tb_debt", &shape, false);
}

/* gcra_spacer: one of 1 at trace time t, admitted, its release in trace
 * time; and cancel at t of what it returned. */
static struct rl_reservation spacer_shape(struct rl_test_shaper *sp, uint64_t t)
{
    struct rl_reservation r;
    CU_ASSERT_EQUAL(rl_test_shaper_take(sp, t, 1, WAIT_ANY, &r), 'A');
    r.release_ns -= RL_VIRTUAL_ORIGIN_NS;
    return r;
}

static bool spacer_cancel(struct rl_test_shaper *sp, uint64_t t, struct rl_reservation r)
{
    rl_clock_set_virtual(&sp->clock, RL_VIRTUAL_ORIGIN_NS + t);
    r.release_ns += RL_VIRTUAL_ORIGIN_NS;
    return sp->algo->cancel(sp->state, &sp->clock, 0, 1, &r);
}

static void test_spacer_cancel(void)
{
    /* T = 100 ms, B = 1, one instance */
    struct rl_test_shaper sp;
    rl_test_shaper_open(&sp, "gcra_spacer",
                        &(const struct rl_config){.limit = 10, .interval_ns = S, .burst = 1});
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp.algo->cancel);
    struct rl_reservation a = spacer_shape(&sp, 0), b = spacer_shape(&sp, 0);
    CU_ASSERT_EQUAL(a.release_ns, 0);
    CU_ASSERT_EQUAL(b.release_ns, 100 * MS);
    /* the last reservation, cancelled before its release: its slot is free again */
    CU_ASSERT_TRUE(spacer_cancel(&sp, 50 * MS, b));
    CU_ASSERT_FALSE(spacer_cancel(&sp, 50 * MS, b)); /* given back once */
    struct rl_reservation c = spacer_shape(&sp, 50 * MS);
    CU_ASSERT_EQUAL(c.release_ns, 100 * MS);
    struct rl_reservation d = spacer_shape(&sp, 50 * MS);
    CU_ASSERT_EQUAL(d.release_ns, 200 * MS);
    /* c is followed by d, which took a whole T after it: nothing to give back */
    CU_ASSERT_FALSE(spacer_cancel(&sp, 60 * MS, c));
    CU_ASSERT_EQUAL(spacer_shape(&sp, 60 * MS).release_ns, 300 * MS);
    /* released already: nothing given back */
    struct rl_reservation e = spacer_shape(&sp, 70 * MS);
    CU_ASSERT_EQUAL(e.release_ns, 400 * MS);
    CU_ASSERT_FALSE(spacer_cancel(&sp, 400 * MS, e));
    rl_test_shaper_close(&sp);
}

static void test_uber_slack_after_idle(void)
{
    /* per = 100 ms, slack 2 (B = 3): the first Take goes at once, the next
     * are paced; after an idle gap slack + 1 = 3 go at once, then paced */
    rl_expect_shaped("pacer_uber", 10, S, 3,
                     RL_SHAPE_STEPS({0, 1, 0, 'A', 0}, {0, 1, 0, 'A', 100 * MS},
                                    {0, 1, 0, 'A', 200 * MS}, {10 * S, 1, 0, 'A', 10 * S},
                                    {10 * S + 1 * MS, 1, 0, 'A', 10 * S + MS},
                                    {10 * S + 2 * MS, 1, 0, 'A', 10 * S + 2 * MS},
                                    {10 * S + 3 * MS, 1, 0, 'A', 10 * S + 100 * MS},
                                    {10 * S + 4 * MS, 1, 0, 'A', 10 * S + 200 * MS}));
}

static void test_uber_default_and_without_slack(void)
{
    /* default slack 10: after idle, 11 at once and the 12th a per later */
    struct rl_shape_step steps[13] = {{0, 1, 0, 'A', 0}};
    for (int i = 1; i <= 12; i++)
        steps[i] = (struct rl_shape_step){5 * S, 1, 0, 'A', i <= 11 ? 5 * S : 5 * S + 100 * MS};
    rl_expect_shaped("pacer_uber", 10, S, 0, steps, 13);
    /* WithoutSlack (B = 1): nothing saved, late callers restart the pace */
    rl_expect_shaped("pacer_uber", 10, S, 1,
                     RL_SHAPE_STEPS({0, 1, 0, 'A', 0}, {50 * MS, 1, 0, 'A', 100 * MS},
                                    {1 * S, 1, 0, 'A', 1 * S}, {1 * S, 1, 0, 'A', 1 * S + 100 * MS},
                                    {1 * S, 2, 0, 'A', 1 * S + 300 * MS}));
}

static void test_uber_acquire_rejects_what_would_sleep(void)
{
    const struct rl_algo *algo = rl_registry_find("pacer_uber");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    CU_ASSERT(algo->flags & RL_BLOCKING);
    struct rl_config cfg = {.limit = 10, .interval_ns = S, .burst = 1, .epoch_ns = 0};
    char err[256];
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    const uint64_t at[] = {S, S, S + 50 * MS, S + 100 * MS};
    const enum rl_decision expect[] = {RL_ADMIT, RL_REJECT, RL_REJECT, RL_ADMIT};
    for (size_t i = 0; i < 4; i++) {
        rl_clock_set_virtual(&clock, at[i]);
        CU_ASSERT_EQUAL(algo->acquire(state, &clock, 0, 1), expect[i]);
    }
    algo->destroy(state);
}

/* uber-go/ratelimit #122's test: New(1, WithSlack(2)), one Take, 4 s of
 * sleep, then Takes in a loop (here 1 ms apart). Returns how many of the
 * 20 Takes after the sleep were released within the first second. */
static int uber_122_released_at_once(const char *name)
{
    const struct rl_algo *algo = rl_registry_find(name);
    struct rl_config cfg = {.limit = 1, .interval_ns = S, .burst = 3, .epoch_ns = 0};
    char err[256];
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    struct rl_reservation r;
    uint64_t t = 100 * S, after = t + 4 * S;
    rl_clock_set_virtual(&clock, t);
    CU_ASSERT_EQUAL(algo->shape(state, &clock, 0, 1, 0, &r), RL_ADMIT);
    int at_once = 0;
    for (int i = 0; i < 20; i++) {
        rl_clock_set_virtual(&clock, after + (uint64_t)i * MS);
        CU_ASSERT_EQUAL(algo->shape(state, &clock, 0, 1, 0, &r), RL_ADMIT);
        at_once += r.release_ns < after + S;
    }
    algo->destroy(state);
    return at_once;
}

static void test_uber_idle_bug_reproduces_119(void)
{
    EXPECT(uber_122_released_at_once("pacer_uber") == 3,
           "pacer_uber (v0.3.1) releases slack + 1 = 3 at once after idle, got %d",
           uber_122_released_at_once("pacer_uber"));
    EXPECT(uber_122_released_at_once("pacer_uber_idle_bug") == 20,
           "pacer_uber_idle_bug releases every Take at once after idle (#119, #122), got %d",
           uber_122_released_at_once("pacer_uber_idle_bug"));
}

/* The sim log of algo on a random trace, as a shaped log for the checker. */
static void shaped_sim(const char *name, uint64_t seed, struct rl_config *cfg,
                       struct rl_shaped_log *shaped, struct rl_event_log *log)
{
    struct rl_trace trace;
    const struct rl_test_trace_shape shape = {.salt = 2525, .burst = true, .odd_intervals = true};
    rl_test_random_trace(seed, &shape, cfg, &trace, NULL);
    struct rl_sim_outcome out;
    char err[256];
    static const struct rl_sim_options options = {.expiry = RL_EXPIRE_NEVER};
    CU_ASSERT_EQUAL_FATAL(
        rl_sim_run_keyed(rl_registry_find(name), cfg, &options, &trace, log, &out, err, sizeof err),
        0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log->release_ns);
    shaped->events = calloc(log->len ? log->len : 1, sizeof *shaped->events);
    CU_ASSERT_PTR_NOT_NULL_FATAL(shaped->events);
    shaped->len = log->len;
    shaped->key_count = log->key_count;
    for (size_t i = 0; i < log->len; i++)
        shaped->events[i] = (struct rl_shaped_event){.t_ns = log->events[i].t_ns,
                                                     .release_ns = log->release_ns[i],
                                                     .key = log->events[i].key,
                                                     .n = log->events[i].n,
                                                     .admitted = log->events[i].admitted};
    rl_trace_free(&trace);
}

static void test_spacer_is_the_checkers_ideal(void)
{
    /* two implementations of one schedule: the spacer's releases are the
     * checker's ideal, to the ns, and sim is deterministic */
    for (uint64_t seed = 1; seed <= 30; seed++) {
        struct rl_config cfg;
        struct rl_shaped_log shaped = {0};
        struct rl_event_log log, again;
        shaped_sim("gcra_spacer", seed, &cfg, &shaped, &log);
        struct rl_shaped_log twice = {0};
        shaped_sim("gcra_spacer", seed, &cfg, &twice, &again);
        EXPECT(log.len == again.len &&
                   memcmp(log.release_ns, again.release_ns, log.len * sizeof *log.release_ns) == 0,
               "seed %llu: two sim runs differ", (unsigned long long)seed);
        struct rl_shape_params p = {
            .limit = cfg.limit, .interval_ns = cfg.interval_ns, .burst = rl_config_burst(&cfg)};
        struct rl_shape_result r;
        char err[256];
        CU_ASSERT_EQUAL_FATAL(rl_shape_check(&shaped, &p, &r, err, sizeof err), 0);
        EXPECT(r.curve_violations == 0 && r.noncausal == 0 && r.late_max_ns == 0 && r.early == 0 &&
                   r.fifo_inversions == 0 && r.spurious_rejects == 0,
               "seed %llu (L %llu I %llu B %llu): curve %llu, late %llu, early %llu, spurious "
               "%llu",
               (unsigned long long)seed, (unsigned long long)cfg.limit,
               (unsigned long long)cfg.interval_ns, (unsigned long long)p.burst,
               (unsigned long long)r.curve_violations, (unsigned long long)r.late_max_ns,
               (unsigned long long)r.early, (unsigned long long)r.spurious_rejects);
        rl_event_log_free(&log);
        rl_event_log_free(&again);
        free(shaped.events);
        free(twice.events);
    }
}

RL_TEST_SUITE("shapers", {"gcra_spacer: burst, spacing, max wait, n > B", test_spacer_table},
              {"gcra_spacer: T not a whole ns, releases rounded up", test_spacer_fractions},
              {"gcra_spacer: acquire decides as gcra_cas", test_spacer_acquire_is_gcra},
              {"gcra_spacer: cancel gives back what no later reservation took", test_spacer_cancel},
              {"guava_bursty: the next request pays, timeouts", test_guava_bursty_next_pays},
              {"guava_bursty: acquire decides as tb_debt", test_guava_bursty_acquire_is_tb_debt},
              {"pacer_uber: slack + 1 at once after idle, then paced", test_uber_slack_after_idle},
              {"pacer_uber: default slack 10, WithoutSlack, n > 1",
               test_uber_default_and_without_slack},
              {"pacer_uber: blocking; acquire rejects what would sleep",
               test_uber_acquire_rejects_what_would_sleep},
              {"pacer_uber_idle_bug: #119/#122 reproduced, pacer_uber fixed",
               test_uber_idle_bug_reproduces_119},
              {"gcra_spacer in sim is the shape checker's ideal, deterministic",
               test_spacer_is_the_checkers_ideal})
