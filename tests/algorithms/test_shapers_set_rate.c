/* test_shapers_set_rate.c — the shapers' rate change (rl_algo.set_rate)
 * as decision tables in virtual time, hand-computed from each rule
 * (x/time's SetLimitAt, Guava SmoothBursty's and SmoothWarmingUp's
 * setRate, the spacer's debt kept in tokens), and the algorithms that
 * claim no set_rate. */
#include "tests/support/shape_steps.h"
#include "tests/support/test_util.h"

#define MS 1000000ull
#define S  1000000000ull

/* 10 per s, B = 1 (T = 100 ms): three at 0 go at 0, 100, 200 ms. At 50 ms
 * the rate drops to 1 per s: tokens then 1 − 3 + 0.5 = −1.5, kept, so the
 * bucket is full again 2.5 s later, at 2.55 s; the next (a token short at
 * B = 1) goes at 2.55 s (the reservations at 100 and 200 ms keep their
 * times: the old rate's spacing). At 3 s back to 10 per s: the debt then,
 * 0.55 s at 1 per s = 0.55 tokens, is 55 ms at the new rate, so one goes at
 * 3.055 s and the next would wait 155 ms (over a max wait of 100 ms: no,
 * and nothing changes), 3.155 s without one. */
static const struct rl_shape_step debt_kept[] = {
    {0, 1, WAIT_ANY, 'A', 0},
    {0, 1, WAIT_ANY, 'A', 100 * MS},
    {0, 1, WAIT_ANY, 'A', 200 * MS},
    RL_SET_RATE(50 * MS, 1, S),
    {50 * MS, 1, WAIT_ANY, 'A', 2550 * MS},
    RL_SET_RATE(3 * S, 10, S),
    {3 * S, 1, WAIT_ANY, 'A', 3055 * MS},
    {3 * S, 1, 100 * MS, 'R', 0},
    {3 * S, 1, WAIT_ANY, 'A', 3155 * MS},
};

static void test_xrate_set_limit_at(void)
{
    rl_expect_shaped("xrate_wait", 10, S, 1, debt_kept, sizeof debt_kept / sizeof debt_kept[0]);
}

static void test_spacer_set_rate(void)
{
    rl_expect_shaped("gcra_spacer", 10, S, 1, debt_kept, sizeof debt_kept / sizeof debt_kept[0]);
}

static void test_xrate_set_limit_at_interval(void)
{
    /* a change of interval alone: 10 per s to 10 per 100 ms at 0 with one
     * token owed (B = 1, one taken at 0): 1 token at T' = 10 ms, so the
     * next goes at 10 ms, then 20 ms; 1/3 per ms then (T = 3 ms exactly) */
    rl_expect_shaped("xrate_wait", 10, S, 1,
                     RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, RL_SET_RATE(0, 10, 100 * MS),
                                    {0, 1, WAIT_ANY, 'A', 10 * MS}, {0, 1, WAIT_ANY, 'A', 20 * MS},
                                    RL_SET_RATE(20 * MS, 1, 3 * MS),
                                    {20 * MS, 1, WAIT_ANY, 'A', 23 * MS}));
}

/* Guava SmoothBursty, 10 per s (stores up to 10): three at 0 go at 0,
 * 100, 200 ms and the next moment is 300 ms. setRate(1/s) at 50 ms keeps
 * that moment: the next goes at 300 ms (paid at the old rate) and charges
 * 1 s, so the one after goes at 1.3 s. At 10 s the resync at 1 per s
 * stores its maximum, 1 permit, which setRate(10/s) scales to 10: ten at
 * once, then one at 10 s, one at 10.1 s. At 20 s the resync at 10 per s
 * stores 10, scaled back to 1 by setRate(1/s): two cost one stored permit
 * and one second, so the next goes at 21 s. */
static void test_guava_bursty_set_rate(void)
{
    rl_expect_shaped(
        "guava_bursty", 10, S, 0,
        RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 100 * MS},
                       {0, 1, WAIT_ANY, 'A', 200 * MS}, RL_SET_RATE(50 * MS, 1, S),
                       {50 * MS, 1, WAIT_ANY, 'A', 300 * MS},
                       {50 * MS, 1, WAIT_ANY, 'A', 1300 * MS}, RL_SET_RATE(10 * S, 10, S),
                       {10 * S, 10, WAIT_ANY, 'A', 10 * S}, {10 * S, 1, WAIT_ANY, 'A', 10 * S},
                       {10 * S, 1, WAIT_ANY, 'A', 10 * S + 100 * MS}, RL_SET_RATE(20 * S, 1, S),
                       {20 * S, 2, WAIT_ANY, 'A', 20 * S}, {20 * S, 1, WAIT_ANY, 'A', 21 * S}));
}

static void test_guava_bursty_set_rate_scales_stored(void)
{
    /* 10 per s idle for 1 s stores its maximum, 10 permits (1 s of them);
     * setRate(3/s) scales them to 3: three at once, one more at once
     * charging 1/3 s, so the next goes at 1.333333334 s (rounded up) */
    rl_expect_shaped("guava_bursty", 10, S, 0,
                     RL_SHAPE_STEPS(RL_SET_RATE(S, 3, S), {S, 3, WAIT_ANY, 'A', S},
                                    {S, 1, WAIT_ANY, 'A', S}, {S, 1, WAIT_ANY, 'A', 1333333334}));
}

/* Guava SmoothWarmingUp, 10 per s, B = 10 (warm-up W = 1 s, threshold
 * 0.5 s of permits, cold: 10 stored). The first at 0 takes one of the 5
 * above the threshold: T + 2T·1·(2·5 − 1)/10 = 280 ms charged. setRate(20/s)
 * at 0 keeps the moment (280 ms) and W; the 0.9 s stored are now 18
 * permits, 8 above the threshold of 10: the next goes at 280 ms and
 * charges T' + 2T'·1·(2·8 − 1)/20 = 50 + 75 ms, so the one after goes at
 * 405 ms (at 10/s it would charge 240 ms: 520 ms). */
static void test_guava_warmup_set_rate(void)
{
    rl_expect_shaped("guava_warmup", 10, S, 10,
                     RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, RL_SET_RATE(0, 20, S),
                                    {0, 1, WAIT_ANY, 'A', 280 * MS},
                                    {0, 1, WAIT_ANY, 'A', 405 * MS}));
}

static void test_who_has_set_rate(void)
{
    /* the four that implement it; every other algorithm claims none, so
     * the harness refuses --set-rate for it */
    const char *const with[] = {"xrate_wait", "guava_bursty", "guava_warmup", "gcra_spacer"};
    size_t found = 0;
    for (size_t i = 0; rl_registry[i]; i++) {
        bool listed = false;
        for (size_t k = 0; k < sizeof with / sizeof with[0]; k++)
            listed |= strcmp(rl_registry[i]->name, with[k]) == 0;
        EXPECT((rl_registry[i]->set_rate != NULL) == listed, "%s: set_rate %s",
               rl_registry[i]->name, rl_registry[i]->set_rate ? "set" : "missing");
        found += listed;
    }
    CU_ASSERT_EQUAL(found, 4);
}

RL_TEST_SUITE(
    "shapers_set_rate",
    {"xrate_wait SetLimitAt: tokens kept, pending keep their times", test_xrate_set_limit_at},
    {"xrate_wait SetLimitAt: interval changes, fractions", test_xrate_set_limit_at_interval},
    {"gcra_spacer set_rate: the debt kept in tokens", test_spacer_set_rate},
    {"guava_bursty setRate: the moment kept, stored permits scaled", test_guava_bursty_set_rate},
    {"guava_bursty setRate: stored permits scaled by rate'/rate",
     test_guava_bursty_set_rate_scales_stored},
    {"guava_warmup setRate: warm-up period kept, stored permits scaled",
     test_guava_warmup_set_rate},
    {"only the four shapers claim set_rate", test_who_has_set_rate})
