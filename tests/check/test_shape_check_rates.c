/* test_shape_check_rates.c — the shaping checker across rate changes
 * (shape_check.h, rate changes) on hand-made logs with known answers:
 * kept at the new rate, broken by one release a ns too early after a drop,
 * pending reservations released at the old rate (x/time's "may be
 * violated"), a span across a raise allowed both pieces, bad changes. */
#include "tests/support/test_util.h"
#include "harness/check/shape_check.h"
#include "harness/check/verdict.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define S  1000000000ull

/* (arrival, release) pairs of one key, cost 1, B = 1, judged at L per s
 * with the given changes; rc is rl_shape_check's. */
static struct rl_shape_result judge_rates(const uint64_t (*pairs)[2], size_t count, uint64_t limit,
                                          const struct rl_rate_change *rates, size_t rate_count,
                                          int *rc, char *err, size_t err_len)
{
    struct rl_shaped_log log = {.len = count, .key_count = 1};
    log.events = calloc(count, sizeof *log.events);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log.events);
    for (size_t i = 0; i < count; i++)
        log.events[i] = (struct rl_shaped_event){
            .t_ns = pairs[i][0], .release_ns = pairs[i][1], .n = 1, .admitted = true};
    struct rl_shape_params p = {
        .limit = limit, .interval_ns = S, .burst = 1, .rates = rates, .rate_count = rate_count};
    struct rl_shape_result r;
    *rc = rl_shape_check(&log, &p, &r, err, err_len);
    free(log.events);
    return r;
}

#define PAIRS(...)                                                                                 \
    ((const uint64_t[][2]){__VA_ARGS__}),                                                          \
        sizeof((const uint64_t[][2]){__VA_ARGS__}) / sizeof(uint64_t[2])

static const struct rl_rate_change drop[] = {{50 * MS, 1, S}}; /* 10/s to 1/s at 50 ms */

static struct rl_shape_result after_drop(const uint64_t (*pairs)[2], size_t count)
{
    int rc;
    char err[256];
    struct rl_shape_result r = judge_rates(pairs, count, 10, drop, 1, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    return r;
}

static void test_kept_after_drop(void)
{
    /* three at 0: the allowance is 0.5 by 50 ms, then 1 per s, so with
     * B = 1 the second may go when R = 1 (0.55 s), the third at R = 2
     * (1.55 s): the ideal that knows the change, kept */
    struct rl_shape_result r = after_drop(PAIRS({0, 0}, {0, 550 * MS}, {0, 1550 * MS}));
    CU_ASSERT_EQUAL(r.curve_violations, 0);
    CU_ASSERT_EQUAL(r.early, 0);
    CU_ASSERT_EQUAL(r.late_max_ns, 0);
    CU_ASSERT_EQUAL(r.old_rate_releases, 0);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
}

static void test_one_release_too_early_after_drop(void)
{
    /* the second a ns before 0.55 s: 2 in the span exceed 1 + R */
    struct rl_shape_result r = after_drop(PAIRS({0, 0}, {0, 550 * MS - 1}, {0, 1550 * MS}));
    CU_ASSERT_EQUAL(r.curve_violations, 1);
    CU_ASSERT_EQUAL(r.early, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
}

static void test_pending_reservations_at_the_old_rate(void)
{
    /* x/time's log (tests/algorithms/test_shapers_set_rate.c): reserved at
     * 0 for 0, 100, 200 ms, the rate dropped at 50 ms. The two released
     * after it keep 10/s's promise and break 1/s's: old_rate_releases */
    struct rl_shape_result r = after_drop(PAIRS({0, 0}, {0, 100 * MS}, {0, 200 * MS}));
    CU_ASSERT_EQUAL(r.curve_violations, 2);
    CU_ASSERT_EQUAL(r.old_rate_releases, 2);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
    /* two at once after the change break either rate: not the old rate's */
    r = after_drop(PAIRS({0, 0}, {S, S}, {S, S}));
    CU_ASSERT_EQUAL(r.curve_violations, 1);
    CU_ASSERT_EQUAL(r.old_rate_releases, 0);
}

static void test_span_across_a_raise(void)
{
    /* 1/s, then 10/s from 1 s, B = 1: 0, 1 s, 1.1 s, 1.2 s is the ideal;
     * the span [0, 1.1 s] holds 3 = 1 + 1 (first piece) + 1 (second) */
    static const struct rl_rate_change raise[] = {{S, 10, S}};
    int rc;
    char err[256];
    struct rl_shape_result r = judge_rates(PAIRS({0, 0}, {0, S}, {0, 1100 * MS}, {0, 1200 * MS}), 1,
                                           raise, 1, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(r.curve_violations, 0);
    CU_ASSERT_EQUAL(r.late_max_ns, 0);
    CU_ASSERT_EQUAL(r.early, 0);
    /* judged at 1/s throughout, the same log breaks the curve twice */
    r = judge_rates(PAIRS({0, 0}, {0, S}, {0, 1100 * MS}, {0, 1200 * MS}), 1, NULL, 0, &rc, err,
                    sizeof err);
    CU_ASSERT_EQUAL(r.curve_violations, 2);
}

static void test_bad_changes(void)
{
    const struct rl_rate_change bad[][2] = {
        {{S, 0, S}, {2 * S, 1, S}},  /* L 0 */
        {{S, 1, 0}, {2 * S, 1, S}},  /* I 0 */
        {{S, 1, S}, {S, 2, S}},      /* not after the one before */
        {{S, 1, 3}, {2 * S, 1, 7}}}; /* lcm fine, but L·D/I small: accepted below */
    for (size_t i = 0; i < 3; i++) {
        int rc;
        char err[256] = "";
        judge_rates(PAIRS({0, 0}), 10, bad[i], 2, &rc, err, sizeof err);
        EXPECT(rc == -1 && strstr(err, "rate change") != NULL, "case %zu: rc %d '%s'", i, rc, err);
    }
    int rc;
    char err[256];
    judge_rates(PAIRS({0, 0}), 10, bad[3], 2, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    /* a log that cancels is not judged across changes */
    struct rl_shaped_event ev = {
        .t_ns = 0, .release_ns = 5, .cancel_ns = 1, .n = 1, .admitted = true, .cancelled = true};
    struct rl_shaped_log log = {.events = &ev, .len = 1, .key_count = 1};
    struct rl_shape_params p = {
        .limit = 10, .interval_ns = S, .burst = 1, .rates = drop, .rate_count = 1};
    struct rl_shape_result r;
    CU_ASSERT_EQUAL(rl_shape_check(&log, &p, &r, err, sizeof err), -1);
}

RL_TEST_SUITE("shape_check_rates", {"kept at the new rate after a drop", test_kept_after_drop},
              {"broken by one release a ns too early after a drop",
               test_one_release_too_early_after_drop},
              {"pending reservations released at the old rate",
               test_pending_reservations_at_the_old_rate},
              {"a span across a raise: both pieces' allowance", test_span_across_a_raise},
              {"bad changes refused", test_bad_changes})
