/* test_checker.c — the checker on hand-made logs whose answers are worked
 * out in the comments, and on random logs against a naive reference that
 * follows docs/design.md, Definitions, word for word. */
#include "tests/support/random_trace.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/check/event_log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EV(t, k, cost, adm)                                                                        \
    {                                                                                              \
        .t_ns = (t), .key = (k), .n = (cost), .admitted = (adm)                                    \
    }
#define LEN(a) (sizeof(a) / sizeof(a)[0])
#define SECOND 1000000000ull

static struct rl_event_log log_of(const struct rl_event *events, size_t len, bool complete)
{
    struct rl_event_log log = {.complete = complete};
    for (size_t i = 0; i < len; i++)
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &events[i]), 0);
    return log;
}

static void check_log(struct rl_event_log *log, uint64_t limit, uint64_t interval_ns,
                      uint64_t epoch_ns, struct rl_check_result *result)
{
    char err[256] = "";
    struct rl_check_params params = {limit, interval_ns, epoch_ns};
    int rc = rl_check(log, &params, result, err, sizeof err);
    EXPECT_FATAL(rc == 0, "rl_check: %s", err);
}

/* Every field, so that a field the test does not name must be zero. */
static void expect_metrics(const struct rl_key_metrics *got, const struct rl_key_metrics *want)
{
    EXPECT_EQ(got->attempts, want->attempts);
    EXPECT_EQ(got->admits, want->admits);
    EXPECT_EQ(got->rejects, want->rejects);
    EXPECT_EQ(got->attempted_cost, want->attempted_cost);
    EXPECT_EQ(got->admitted_cost, want->admitted_cost);
    EXPECT_EQ(got->max_sliding, want->max_sliding);
    EXPECT_EQ(got->max_aligned, want->max_aligned);
    EXPECT_EQ(got->strong_excess, want->strong_excess);
    EXPECT_EQ(got->strong_violations, want->strong_violations);
    EXPECT_EQ(got->weak_excess, want->weak_excess);
    EXPECT_EQ(got->false_admits, want->false_admits);
    EXPECT_EQ(got->false_rejects, want->false_rejects);
    EXPECT_EQ(got->weak_false_admits, want->weak_false_admits);
    EXPECT_EQ(got->weak_false_rejects, want->weak_false_rejects);
    EXPECT_EQ(got->oracle_admitted_cost, want->oracle_admitted_cost);
    EXPECT_EQ(got->window_excess, want->window_excess);
    /* no gaps in these logs: the certain maxima are the maxima */
    EXPECT_EQ(got->certain_max_sliding, want->max_sliding);
    EXPECT_EQ(got->certain_max_aligned, want->max_aligned);
}

/* L = 5, I = 10, epoch 0, one key, costs above 1.
 *   t  n  log     (t−10, t] admitted   strong oracle (its sum)  weak oracle [0,10) / [10,20)
 *   0  3  admit   3                    admit (3)                admit (3)
 *   2  2  admit   5                    admit (5)                admit (5)
 *   4  4  reject  —                    reject (5+4 > 5)         reject
 *   9  1  admit   6 > 5: violation     reject (5+1 > 5)         reject: false admit for both
 *  10  3  admit   2+1+3 = 6: violation admit ((0,10] holds 2)   admit (3)
 * attempted 13, admitted 9; max_sliding 6, 2 violations, excess 1;
 * aligned [0,10) 3+2+1 = 6, [10,20) 3: max 6, weak excess 1;
 * oracle admits 3+2+3 = 8, utilization 9/8;
 * admitted by t 9: 6 > L·(⌊9/10⌋ + 1) = 5, window excess 1 (by 10: 9 ≤ 10). */
static void test_cost_weighting(void)
{
    const struct rl_event ev[] = {EV(0, 0, 3, 1), EV(2, 0, 2, 1), EV(4, 0, 4, 0), EV(9, 0, 1, 1),
                                  EV(10, 0, 3, 1)};
    struct rl_event_log log = log_of(ev, LEN(ev), true);
    struct rl_check_result r;
    check_log(&log, 5, 10, 0, &r);
    const struct rl_key_metrics want = {.attempts = 5,
                                        .admits = 4,
                                        .rejects = 1,
                                        .attempted_cost = 13,
                                        .admitted_cost = 9,
                                        .max_sliding = 6,
                                        .max_aligned = 6,
                                        .strong_excess = 1,
                                        .strong_violations = 2,
                                        .weak_excess = 1,
                                        .false_admits = 1,
                                        .weak_false_admits = 1,
                                        .oracle_admitted_cost = 8,
                                        .window_excess = 1};
    CU_ASSERT_EQUAL(r.key_count, 1);
    CU_ASSERT(r.complete);
    expect_metrics(&r.per_key[0], &want);
    expect_metrics(&r.total, &want);
    CU_ASSERT_DOUBLE_EQUAL(rl_check_utilization(&r.total, r.complete), 9.0 / 8.0, 1e-12);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* L = 2, I = 100, epoch 0; four keys, key 3 without events.
 * key 0: admits at 0 and 150: never two in a window; max 1, aligned 1.
 * key 1: admits at 10, 20, 30, rejects 40. (−70,30] holds 3: 1 violation.
 *        Both oracles admit 10, 20 and reject 30 (false admit) and 40.
 * key 2: admits 90 (n 2) and 120, rejects 195. (20,120] holds 3: 1 violation;
 *        aligned [0,100) 2, [100,200) 1. Strong oracle: 90 admit, 120 reject
 *        (false admit), 195 admit ((95,195] is empty: false reject). Weak
 *        oracle: 90 admit, 120 admit (new window), 195 admit (false reject).
 * totals: attempts 9, admits 7, rejects 2, costs 10 and 8, max_sliding 3
 * (keys 1 and 2 tie: worst key 1), max_aligned 3, 2 violations,
 * false admits 0+1+1, false rejects 1, weak 1 and 1, oracle cost 2+2+3.
 * Window excess: key 1 has 3 admitted by t 30 against L·1 = 2: 1; keys 0
 * and 2 never pass L per interval begun (2 by 150 ≤ 4; 3 by 120 ≤ 4). */
static void test_several_keys(void)
{
    const struct rl_event ev[] = {EV(0, 0, 1, 1),   EV(10, 1, 1, 1),  EV(20, 1, 1, 1),
                                  EV(30, 1, 1, 1),  EV(40, 1, 1, 0),  EV(90, 2, 2, 1),
                                  EV(120, 2, 1, 1), EV(150, 0, 1, 1), EV(195, 2, 1, 0)};
    struct rl_event_log log = log_of(ev, LEN(ev), true);
    log.key_count = 4;
    struct rl_check_result r;
    check_log(&log, 2, 100, 0, &r);
    CU_ASSERT_EQUAL_FATAL(r.key_count, 4);
    expect_metrics(&r.per_key[0], &(struct rl_key_metrics){.attempts = 2,
                                                           .admits = 2,
                                                           .attempted_cost = 2,
                                                           .admitted_cost = 2,
                                                           .max_sliding = 1,
                                                           .max_aligned = 1,
                                                           .oracle_admitted_cost = 2});
    expect_metrics(&r.per_key[1], &(struct rl_key_metrics){.attempts = 4,
                                                           .admits = 3,
                                                           .rejects = 1,
                                                           .attempted_cost = 4,
                                                           .admitted_cost = 3,
                                                           .max_sliding = 3,
                                                           .max_aligned = 3,
                                                           .strong_excess = 1,
                                                           .strong_violations = 1,
                                                           .weak_excess = 1,
                                                           .false_admits = 1,
                                                           .weak_false_admits = 1,
                                                           .oracle_admitted_cost = 2,
                                                           .window_excess = 1});
    expect_metrics(&r.per_key[2], &(struct rl_key_metrics){.attempts = 3,
                                                           .admits = 2,
                                                           .rejects = 1,
                                                           .attempted_cost = 4,
                                                           .admitted_cost = 3,
                                                           .max_sliding = 3,
                                                           .max_aligned = 2,
                                                           .strong_excess = 1,
                                                           .strong_violations = 1,
                                                           .false_admits = 1,
                                                           .false_rejects = 1,
                                                           .weak_false_rejects = 1,
                                                           .oracle_admitted_cost = 3});
    expect_metrics(&r.per_key[3], &(struct rl_key_metrics){0});
    expect_metrics(&r.total, &(struct rl_key_metrics){.attempts = 9,
                                                      .admits = 7,
                                                      .rejects = 2,
                                                      .attempted_cost = 10,
                                                      .admitted_cost = 8,
                                                      .max_sliding = 3,
                                                      .max_aligned = 3,
                                                      .strong_excess = 1,
                                                      .strong_violations = 2,
                                                      .weak_excess = 1,
                                                      .false_admits = 2,
                                                      .false_rejects = 1,
                                                      .weak_false_admits = 1,
                                                      .weak_false_rejects = 1,
                                                      .oracle_admitted_cost = 7,
                                                      .window_excess = 1});
    CU_ASSERT_EQUAL(r.worst_key, 1);
    CU_ASSERT_DOUBLE_EQUAL(rl_check_utilization(&r.per_key[2], true), 1.0, 1e-12);
    rl_check_result_free(&r);

    /* A key id past key_count widens the result to 1 + the largest id. */
    log.key_count = 0;
    log.events[0].key = 6;
    check_log(&log, 2, 100, 0, &r);
    CU_ASSERT_EQUAL(r.key_count, 7);
    CU_ASSERT_EQUAL(r.per_key[6].admits, 1);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* L = 3, I = 10: four admits at t = 5, then one at 14.
 * At t = 5 the running window holds 1, 2, 3, 4: the fourth admit violates.
 * (4,14] holds all five: 5, a second violation; max_sliding 5, excess 2.
 * Aligned [0,10) holds 4, [10,20) 1. Both oracles admit the first three at
 * t = 5 and reject the fourth; at 14 the strong one still sees 3 in (4,14]
 * (reject) and the weak one a fresh window (admit). Window excess: 4 by
 * t 5 against L·1 = 3: 1 (5 by 14 ≤ 6). */
static void test_equal_timestamps(void)
{
    const struct rl_event ev[] = {EV(5, 0, 1, 1), EV(5, 0, 1, 1), EV(5, 0, 1, 1), EV(5, 0, 1, 1),
                                  EV(14, 0, 1, 1)};
    struct rl_event_log log = log_of(ev, LEN(ev), true);
    struct rl_check_result r;
    check_log(&log, 3, 10, 0, &r);
    expect_metrics(&r.total, &(struct rl_key_metrics){.attempts = 5,
                                                      .admits = 5,
                                                      .attempted_cost = 5,
                                                      .admitted_cost = 5,
                                                      .max_sliding = 5,
                                                      .max_aligned = 4,
                                                      .strong_excess = 2,
                                                      .strong_violations = 2,
                                                      .weak_excess = 1,
                                                      .false_admits = 2,
                                                      .weak_false_admits = 1,
                                                      .oracle_admitted_cost = 3,
                                                      .window_excess = 1});
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* L = 1, I = 10: admits at 0 and 10 sit in different windows ([0,10) is
 * half-open), at 0 and 9 in the same one (2 by t 9 against L·1: window
 * excess 1). */
static void test_half_open_window(void)
{
    const struct rl_event apart[] = {EV(0, 0, 1, 1), EV(10, 0, 1, 1)};
    struct rl_event_log log = log_of(apart, LEN(apart), true);
    struct rl_check_result r;
    check_log(&log, 1, 10, 0, &r);
    expect_metrics(&r.total, &(struct rl_key_metrics){.attempts = 2,
                                                      .admits = 2,
                                                      .attempted_cost = 2,
                                                      .admitted_cost = 2,
                                                      .max_sliding = 1,
                                                      .max_aligned = 1,
                                                      .oracle_admitted_cost = 2});
    rl_check_result_free(&r);
    rl_event_log_free(&log);

    const struct rl_event close[] = {EV(0, 0, 1, 1), EV(9, 0, 1, 1)};
    log = log_of(close, LEN(close), true);
    check_log(&log, 1, 10, 0, &r);
    expect_metrics(&r.total, &(struct rl_key_metrics){.attempts = 2,
                                                      .admits = 2,
                                                      .attempted_cost = 2,
                                                      .admitted_cost = 2,
                                                      .max_sliding = 2,
                                                      .max_aligned = 2,
                                                      .strong_excess = 1,
                                                      .strong_violations = 1,
                                                      .weak_excess = 1,
                                                      .false_admits = 1,
                                                      .weak_false_admits = 1,
                                                      .oracle_admitted_cost = 1,
                                                      .window_excess = 1});
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* Epoch 1005, I = 100: windows [905,1005), [1005,1105), [1105,1205), and
 * before the epoch [5,105), [−95,5).
 *   t 0 (n 1), 3 (n 5) in [−95,5): 6    t 5 in [5,105): 1
 *   t 1004 in [905,1005): 1   t 1005 (n 2), 1104 (n 3) in [1005,1105): 5
 *   t 1105 (n 4) in [1105,1205): 4
 * max_aligned 6 (a grid at 0 would give 7, one window for all t < epoch 8).
 * Sliding: (−95,5] holds 7 and (1005,1105] holds 3+4 = 7 (1005 excluded).
 * With L = 5 the weak oracle rejects only t 3 (1 + 5 > 5). */
static void test_aligned_epoch(void)
{
    const struct rl_event ev[] = {EV(0, 0, 1, 1),    EV(3, 0, 5, 1),    EV(5, 0, 1, 1),
                                  EV(1004, 0, 1, 1), EV(1005, 0, 2, 1), EV(1104, 0, 3, 1),
                                  EV(1105, 0, 4, 1)};
    struct rl_event_log log = log_of(ev, LEN(ev), true);
    struct rl_check_result r;
    check_log(&log, 100, 100, 1005, &r);
    EXPECT_EQ(r.total.max_aligned, 6);
    EXPECT_EQ(r.total.max_sliding, 7);
    EXPECT_EQ(r.total.weak_excess, 0);
    rl_check_result_free(&r);
    check_log(&log, 5, 100, 1005, &r);
    EXPECT_EQ(r.total.weak_excess, 1);
    EXPECT_EQ(r.total.weak_false_admits, 1);
    EXPECT_EQ(r.total.weak_false_rejects, 0);
    rl_check_result_free(&r);
    rl_event_log_free(&log);

    /* Epoch UINT64_MAX ≡ 5 (mod 10): t 3 and 4 share [−5,5), t 5 opens
     * [5,15). A time near 2^64 must not wrap either. */
    const struct rl_event edge[] = {EV(3, 0, 1, 1), EV(4, 0, 1, 1), EV(5, 0, 1, 1),
                                    EV(UINT64_MAX, 1, 1, 1), EV(UINT64_MAX, 1, 1, 1)};
    log = log_of(edge, LEN(edge), true);
    check_log(&log, 10, 10, UINT64_MAX, &r);
    EXPECT_EQ(r.per_key[0].max_aligned, 2);
    EXPECT_EQ(r.per_key[0].max_sliding, 3);
    EXPECT_EQ(r.per_key[1].max_aligned, 2);
    EXPECT_EQ(r.per_key[1].max_sliding, 2);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* The .NET rate limiting article's picture, L = 10 per second: 3 admits at
 * 0.1 s and 7 at 0.9 s, 7 at 1.1 s and 3 at 1.9 s. Each aligned second holds
 * 10, but (0.1 s, 1.1 s] holds 7 + 7 = 14: excess 4. The running window at
 * 1.1 s reaches 8..14, so the 4th..7th admits there violate; at 1.9 s,
 * (0.9 s, 1.9 s] holds 7 + 1..3 ≤ 10. The strong oracle admits 3, 7, then 3
 * of the 7 at 1.1 s, then all 3 at 1.9 s: 16, so 4 false admits and
 * utilization 20/16. The weak oracle agrees with the log. */
static const struct rl_event *dotnet_events(size_t *len)
{
    static struct rl_event ev[20];
    const uint64_t at[4] = {SECOND / 10, 9 * SECOND / 10, 11 * SECOND / 10, 19 * SECOND / 10};
    const int count[4] = {3, 7, 7, 3};
    size_t n = 0;
    for (int burst = 0; burst < 4; burst++)
        for (int i = 0; i < count[burst]; i++)
            ev[n++] = (struct rl_event)EV(at[burst], 0, 1, 1);
    *len = n;
    return ev;
}

static const struct rl_key_metrics dotnet_want = {.attempts = 20,
                                                  .admits = 20,
                                                  .attempted_cost = 20,
                                                  .admitted_cost = 20,
                                                  .max_sliding = 14,
                                                  .max_aligned = 10,
                                                  .strong_excess = 4,
                                                  .strong_violations = 4,
                                                  .false_admits = 4,
                                                  .oracle_admitted_cost = 16};

static void test_dotnet_boundary(void)
{
    size_t len;
    const struct rl_event *ev = dotnet_events(&len);
    struct rl_event_log log = log_of(ev, len, true);
    struct rl_check_result r;
    check_log(&log, 10, SECOND, 0, &r);
    expect_metrics(&r.total, &dotnet_want);
    CU_ASSERT_DOUBLE_EQUAL(rl_check_utilization(&r.total, r.complete), 1.25, 1e-12);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* L = 2, I = 10, admits at 0, 1, 2, 3, 11, 12, 25. Running windows:
 * 1, 2, 3 (violation), 4 (violation), (1,11] 3 (violation), (2,12] 3
 * (violation), (15,25] 1: four violations, max_sliding 4. */
static void test_strong_violations(void)
{
    const struct rl_event ev[] = {EV(0, 0, 1, 1),  EV(1, 0, 1, 1),  EV(2, 0, 1, 1), EV(3, 0, 1, 1),
                                  EV(11, 0, 1, 1), EV(12, 0, 1, 1), EV(25, 0, 1, 1)};
    struct rl_event_log log = log_of(ev, LEN(ev), true);
    struct rl_check_result r;
    check_log(&log, 2, 10, 0, &r);
    EXPECT_EQ(r.total.strong_violations, 4);
    EXPECT_EQ(r.total.max_sliding, 4);
    EXPECT_EQ(r.total.strong_excess, 2);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* An algorithm that rejects too much. L = 3, I = 10, epoch 0.
 * key 0: attempts at 0, 1, 2, 15, 16; the log admits only 0 and 15. Both
 *   oracles admit all five ((5,15] and [10,20) start empty): 3 false
 *   rejects each; oracle cost 5, utilization 2/5.
 * key 1 (L = 3 still): admits 7, 8, 9, rejects 10, 11. The strong oracle
 *   agrees ((0,10] already holds 3); the weak oracle opens [10,20) and
 *   admits both: 2 weak false rejects. */
static void test_oracle_rejects_too_much(void)
{
    const struct rl_event ev[] = {EV(0, 0, 1, 1),  EV(1, 0, 1, 0), EV(2, 0, 1, 0),  EV(7, 1, 1, 1),
                                  EV(8, 1, 1, 1),  EV(9, 1, 1, 1), EV(10, 1, 1, 0), EV(11, 1, 1, 0),
                                  EV(15, 0, 1, 1), EV(16, 0, 1, 0)};
    struct rl_event_log log = log_of(ev, LEN(ev), true);
    struct rl_check_result r;
    check_log(&log, 3, 10, 0, &r);
    expect_metrics(&r.per_key[0], &(struct rl_key_metrics){.attempts = 5,
                                                           .admits = 2,
                                                           .rejects = 3,
                                                           .attempted_cost = 5,
                                                           .admitted_cost = 2,
                                                           .max_sliding = 1,
                                                           .max_aligned = 1,
                                                           .false_rejects = 3,
                                                           .weak_false_rejects = 3,
                                                           .oracle_admitted_cost = 5});
    expect_metrics(&r.per_key[1], &(struct rl_key_metrics){.attempts = 5,
                                                           .admits = 3,
                                                           .rejects = 2,
                                                           .attempted_cost = 5,
                                                           .admitted_cost = 3,
                                                           .max_sliding = 3,
                                                           .max_aligned = 3,
                                                           .weak_false_rejects = 2,
                                                           .oracle_admitted_cost = 3});
    CU_ASSERT_DOUBLE_EQUAL(rl_check_utilization(&r.per_key[0], true), 0.4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rl_check_utilization(&r.total, true), 5.0 / 8.0, 1e-12);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* Admits only (a stress run): the window metrics stand, the oracle fields
 * stay zero and utilization is NAN. */
static void test_incomplete_log(void)
{
    size_t len;
    const struct rl_event *ev = dotnet_events(&len);
    struct rl_event_log log = log_of(ev, len, false);
    struct rl_check_result r;
    check_log(&log, 10, SECOND, 0, &r);
    CU_ASSERT(!r.complete);
    struct rl_key_metrics want = dotnet_want;
    want.false_admits = want.oracle_admitted_cost = 0;
    expect_metrics(&r.total, &want);
    CU_ASSERT(isnan(rl_check_utilization(&r.total, r.complete)));
    rl_check_result_free(&r);
    rl_event_log_free(&log);

    struct rl_key_metrics m = {.admitted_cost = 9, .oracle_admitted_cost = 8};
    CU_ASSERT(isnan(rl_check_utilization(&m, false)));
    CU_ASSERT_DOUBLE_EQUAL(rl_check_utilization(&m, true), 9.0 / 8.0, 1e-12);
    m.oracle_admitted_cost = 0;
    CU_ASSERT(isnan(rl_check_utilization(&m, true)));
}

/* The .NET events reversed and interleaved with another key's: the checker
 * sorts them and the answer does not change. */
static void test_unsorted_input(void)
{
    size_t len;
    const struct rl_event *ev = dotnet_events(&len);
    struct rl_event_log log = {.complete = true};
    for (size_t i = len; i-- > 0;) {
        struct rl_event other = EV(ev[i].t_ns + 1, 1, 1, 0);
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &ev[i]), 0);
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &other), 0);
    }
    struct rl_check_result r;
    check_log(&log, 10, SECOND, 0, &r);
    expect_metrics(&r.per_key[0], &dotnet_want);
    for (size_t i = 1; i < log.len; i++)
        CU_ASSERT(log.events[i - 1].t_ns <= log.events[i].t_ns);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* A random log in time order, and the same events shuffled with the
 * order of equal times kept (what a stable sort restores): every metric of
 * every key, oracles included, is the same. Sizes on both sides of the
 * sort's short path (in-place merge below 512 events, radix above), and
 * times dense enough that a key often has equal ones. */
static void test_unsorted_equals_sorted(void)
{
    static const size_t sizes[] = {40, 600, 6000};
    uint64_t seed = 7;
    for (size_t s = 0; s < LEN(sizes); s++) {
        size_t len = sizes[s];
        struct rl_event_log sorted = {.complete = true}, shuffled = {.complete = true};
        uint64_t t = 0;
        for (size_t i = 0; i < len; i++) {
            t += rl_test_xorshift64(&seed) % 3; /* 0 often: equal times */
            struct rl_event e = EV(t, (uint32_t)(rl_test_xorshift64(&seed) % 3),
                                   (uint32_t)(1 + rl_test_xorshift64(&seed) % 2),
                                   (uint8_t)(rl_test_xorshift64(&seed) % 3 != 0));
            CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&sorted, &e), 0);
            CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&shuffled, &e), 0);
        }
        struct rl_event *ev = shuffled.events;
        for (size_t i = len; i-- > 1;) { /* Fisher–Yates */
            size_t j = (size_t)(rl_test_xorshift64(&seed) % (i + 1));
            struct rl_event x = ev[i];
            ev[i] = ev[j];
            ev[j] = x;
        }
        /* the k-th event at time t in the shuffle becomes the k-th in the
         * sorted log: equal times keep their order, all else stays moved */
        size_t *taken = calloc(len, sizeof *taken);
        CU_ASSERT_PTR_NOT_NULL_FATAL(taken);
        for (size_t i = 0; i < len; i++) {
            size_t first = 0;
            while (sorted.events[first].t_ns != ev[i].t_ns)
                first++;
            ev[i] = sorted.events[first + taken[first]++];
        }
        free(taken);
        bool moved = false;
        for (size_t i = 1; i < len; i++)
            moved |= ev[i - 1].t_ns > ev[i].t_ns;
        EXPECT(moved, "size %zu: the shuffle left the log sorted", len);

        struct rl_check_result a, b;
        check_log(&sorted, 4, 10, 3, &a);
        check_log(&shuffled, 4, 10, 3, &b);
        EXPECT_FATAL(a.key_count == b.key_count, "size %zu: %u keys, %u unsorted", len, a.key_count,
                     b.key_count);
        EXPECT(memcmp(&a.total, &b.total, sizeof a.total) == 0, "size %zu: totals differ", len);
        for (uint32_t k = 0; k < a.key_count; k++)
            EXPECT(memcmp(&a.per_key[k], &b.per_key[k], sizeof a.per_key[k]) == 0,
                   "size %zu: key %u's metrics differ", len, k);
        EXPECT(a.total.strong_violations > 0 && a.total.false_admits > 0,
               "size %zu: the log breaks nothing, so it tests little", len);
        for (size_t i = 0; i < len; i++) {
            const struct rl_event *x = &sorted.events[i], *y = &shuffled.events[i];
            EXPECT(x->t_ns == y->t_ns && x->key == y->key && x->n == y->n &&
                       x->admitted == y->admitted,
                   "size %zu: event %zu sorted differently", len, i);
        }
        rl_check_result_free(&a);
        rl_check_result_free(&b);
        rl_event_log_free(&sorted);
        rl_event_log_free(&shuffled);
    }
}

static void test_empty_log(void)
{
    struct rl_event_log log = {.complete = true};
    struct rl_check_result r;
    check_log(&log, 10, SECOND, 0, &r);
    CU_ASSERT_EQUAL(r.key_count, 0);
    CU_ASSERT_EQUAL(r.worst_key, 0);
    CU_ASSERT(r.complete);
    expect_metrics(&r.total, &(struct rl_key_metrics){0});
    CU_ASSERT(isnan(rl_check_utilization(&r.total, r.complete)));
    rl_check_result_free(&r);
}

static void test_bad_params(void)
{
    struct rl_event_log log = {.complete = true};
    struct rl_check_result r;
    char err[256] = "";
    CU_ASSERT_EQUAL(rl_check(&log, &(struct rl_check_params){0, SECOND, 0}, &r, err, sizeof err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "limit must be at least 1"));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
    err[0] = '\0';
    CU_ASSERT_EQUAL(rl_check(&log, &(struct rl_check_params){10, 0, 0}, &r, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "interval_ns must be at least 1"));
    CU_ASSERT_PTR_NULL(r.per_key);
}

/* Stamps with gaps (recorded stress): L = 2, I = 10, epoch 0.
 *   admit  stamp  gap  decided in
 *   A      10     0    [10, 10]
 *   B      15     0    [15, 15]
 *   C      19     12   [7, 19]   may be a late stamp of a window-0 decision
 *   D      20     0    [20, 20]
 *   E      21     0    [21, 21]
 * By stamps, (11, 21] holds B C D E: max_sliding 4; [10, 20) holds A B C:
 * max_aligned 3. Certainly: (11, 21] holds B D E for sure (C may be at 7):
 * 3, a violation for certain; [10, 20) holds A B for sure and [20, 30) D E:
 * certain_max_aligned 2, no weak violation for certain; C is the one admit
 * left out of an aligned window (uncertain_admits 1). */
static void test_certain_maxima(void)
{
    struct rl_event ev[] = {EV(10, 0, 1, 1), EV(15, 0, 1, 1), EV(19, 0, 1, 1), EV(20, 0, 1, 1),
                            EV(21, 0, 1, 1)};
    ev[2].gap_ns = 12;
    struct rl_event_log log = log_of(ev, LEN(ev), false);
    struct rl_check_result r;
    check_log(&log, 2, 10, 0, &r);
    EXPECT_EQ(r.total.max_sliding, 4);
    EXPECT_EQ(r.total.max_aligned, 3);
    EXPECT_EQ(r.total.certain_max_sliding, 3);
    EXPECT_EQ(r.total.certain_max_aligned, 2);
    EXPECT_EQ(r.total.uncertain_admits, 1); /* C: [7, 19] crosses 10 */
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

/* certain_max_sliding read literally: for each admit j, the cost of admits
 * i stamped no later than j whose whole interval [t_i − gap_i, t_i] lies in
 * (t_j − I, t_j]; certain_max_aligned: admits whose interval lies in the
 * aligned window of their stamp (epoch 0). O(n²) and obviously right. */
static void test_certain_against_reference(void)
{
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    for (int round = 0; round < 20; round++) {
        struct rl_event_log log = {.complete = false};
        uint64_t t = 0;
        for (int i = 0; i < 1500; i++) {
            t += rl_test_xorshift64(&seed) % 5;
            struct rl_event e = EV(t, (uint32_t)(rl_test_xorshift64(&seed) % 2),
                                   1 + rl_test_xorshift64(&seed) % 2, 1);
            e.gap_ns =
                rl_test_xorshift64(&seed) % 4 == 0 ? (uint32_t)(rl_test_xorshift64(&seed) % 40) : 0;
            CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
        }
        uint64_t L = 1 + rl_test_xorshift64(&seed) % 10, I = 1 + rl_test_xorshift64(&seed) % 60;
        struct rl_check_result r;
        check_log(&log, L, I, 0, &r);
        for (uint32_t k = 0; k < 2; k++) {
            uint64_t sliding = 0, aligned = 0, uncertain = 0;
            for (size_t j = 0; j < log.len; j++) {
                const struct rl_event *b = &log.events[j];
                if (b->key != k)
                    continue;
                /* its interval reaches back past its aligned window's start */
                uncertain += b->gap_ns > b->t_ns - b->t_ns / I * I;
                uint64_t in_sliding = 0, in_aligned = 0;
                for (size_t i = 0; i < log.len; i++) {
                    const struct rl_event *a = &log.events[i];
                    if (a->key != k || a->t_ns > b->t_ns || (a->t_ns == b->t_ns && i > j))
                        continue;
                    int64_t early = (int64_t)a->t_ns - (int64_t)a->gap_ns;
                    if (early > (int64_t)b->t_ns - (int64_t)I)
                        in_sliding += a->n;
                    if (a->t_ns / I == b->t_ns / I && early >= (int64_t)(b->t_ns / I * I))
                        in_aligned += a->n;
                }
                sliding = in_sliding > sliding ? in_sliding : sliding;
                if (b->t_ns - b->gap_ns >= b->t_ns / I * I && b->gap_ns <= b->t_ns)
                    aligned = in_aligned > aligned ? in_aligned : aligned;
            }
            EXPECT_EQ(r.per_key[k].certain_max_sliding, sliding);
            EXPECT_EQ(r.per_key[k].certain_max_aligned, aligned);
            EXPECT_EQ(r.per_key[k].uncertain_admits, uncertain);
        }
        rl_check_result_free(&r);
        rl_event_log_free(&log);
    }
}

/* ---- the naive reference --------------------------------------------------
 * docs/design.md, Definitions, read literally, with signed times so that no case needs care:
 * every window is summed from scratch. */

struct ref_event {
    int64_t t;
    uint64_t n;
    bool admitted;
};

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && a < 0);
}

static struct rl_key_metrics reference_metrics(const struct ref_event *ev, size_t len, uint64_t L,
                                               int64_t I, int64_t epoch, bool complete)
{
    struct rl_key_metrics m = {0};
    bool *strong = calloc(len ? len : 1, sizeof *strong), *weak = calloc(len ? len : 1, 1);
    CU_ASSERT_FATAL(strong != NULL && weak != NULL);
    for (size_t j = 0; j < len; j++) {
        m.attempts++;
        m.attempted_cost += ev[j].n;
        m.admits += ev[j].admitted;
        m.rejects += !ev[j].admitted;
        m.admitted_cost += ev[j].admitted ? ev[j].n : 0;
    }
    for (size_t j = 0; j < len; j++) {
        if (!ev[j].admitted)
            continue;
        uint64_t from_j = 0, up_to_j = 0, same_window = 0;
        for (size_t i = 0; i < len; i++) {
            if (!ev[i].admitted)
                continue;
            if (ev[j].t <= ev[i].t && ev[i].t < ev[j].t + I) /* [t_j, t_j + I) */
                from_j += ev[i].n;
            if (i <= j && ev[i].t > ev[j].t - I) /* admits up to j in (t_j − I, t_j] */
                up_to_j += ev[i].n;
            if (floor_div(ev[i].t - epoch, I) == floor_div(ev[j].t - epoch, I))
                same_window += ev[i].n;
        }
        m.max_sliding = from_j > m.max_sliding ? from_j : m.max_sliding;
        m.strong_violations += up_to_j > L;
        m.max_aligned = same_window > m.max_aligned ? same_window : m.max_aligned;
    }
    m.strong_excess = m.max_sliding > L ? m.max_sliding - L : 0;
    m.weak_excess = m.max_aligned > L ? m.max_aligned - L : 0;
    /* window_excess: cost admitted up to each admit against L per interval
     * begun since the epoch (the epoch's own interval included). */
    uint64_t so_far = 0;
    for (size_t j = 0; j < len; j++) {
        if (!ev[j].admitted)
            continue;
        so_far += ev[j].n;
        int64_t since = ev[j].t > epoch ? ev[j].t - epoch : 0;
        uint64_t allowed = L * (uint64_t)(since / I + 1);
        if (so_far > allowed && so_far - allowed > m.window_excess)
            m.window_excess = so_far - allowed;
    }
    for (size_t j = 0; complete && j < len; j++) {
        uint64_t strong_sum = 0, weak_sum = 0;
        for (size_t i = 0; i < j; i++) {
            if (strong[i] && ev[i].t > ev[j].t - I)
                strong_sum += ev[i].n;
            if (weak[i] && floor_div(ev[i].t - epoch, I) == floor_div(ev[j].t - epoch, I))
                weak_sum += ev[i].n;
        }
        strong[j] = strong_sum + ev[j].n <= L;
        weak[j] = weak_sum + ev[j].n <= L;
        m.oracle_admitted_cost += strong[j] ? ev[j].n : 0;
        m.false_admits += ev[j].admitted && !strong[j];
        m.false_rejects += !ev[j].admitted && strong[j];
        m.weak_false_admits += ev[j].admitted && !weak[j];
        m.weak_false_rejects += !ev[j].admitted && weak[j];
    }
    free(strong);
    free(weak);
    return m;
}

/* Checks one key of a checked (so sorted) log against the reference. */
static void expect_reference(const struct rl_event_log *log, const struct rl_check_result *r,
                             uint32_t key, uint64_t L, int64_t I, int64_t epoch)
{
    struct ref_event *ev = malloc((log->len ? log->len : 1) * sizeof *ev);
    CU_ASSERT_FATAL(ev != NULL);
    size_t len = 0;
    for (size_t i = 0; i < log->len; i++)
        if (log->events[i].key == key)
            ev[len++] = (struct ref_event){(int64_t)log->events[i].t_ns, log->events[i].n,
                                           log->events[i].admitted};
    struct rl_key_metrics want = reference_metrics(ev, len, L, I, epoch, log->complete);
    expect_metrics(&r->per_key[key], &want);
    free(ev);
}

/* Random log in time order (ties included) with admits that are sometimes
 * right and sometimes not. */
static struct rl_event_log random_log(uint64_t *seed, size_t len, uint32_t keys, uint64_t max_gap,
                                      uint32_t max_cost)
{
    struct rl_event_log log = {.complete = true};
    uint64_t t = rl_test_xorshift64(seed) % 1000;
    for (size_t i = 0; i < len; i++) {
        t += rl_test_xorshift64(seed) % (max_gap + 1);
        struct rl_event e = EV(t, (uint32_t)(rl_test_xorshift64(seed) % keys),
                               1 + (uint32_t)(rl_test_xorshift64(seed) % max_cost),
                               rl_test_xorshift64(seed) % 3 != 0);
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
    }
    return log;
}

static void test_random_logs_against_reference(void)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 20; round++) {
        struct rl_event_log log = random_log(&seed, 2000, 3, 4, 3);
        uint64_t L = 1 + rl_test_xorshift64(&seed) % 8;
        int64_t I = 1 + (int64_t)(rl_test_xorshift64(&seed) % 300);
        int64_t epoch =
            (int64_t)(rl_test_xorshift64(&seed) % 3000); /* often after the first events */
        log.complete = round % 5 != 4;
        struct rl_check_result r;
        check_log(&log, L, (uint64_t)I, (uint64_t)epoch, &r);
        for (uint32_t k = 0; k < 3; k++)
            expect_reference(&log, &r, k, L, I, epoch);
        rl_check_result_free(&r);
        rl_event_log_free(&log);
    }
}

/* 2 million events over 1000 keys: the whole log is checked, the totals
 * must add up, and 20 random keys (about 2000 events each) are compared
 * with the reference. */
static void test_large_log_against_reference(void)
{
    uint64_t seed = 12345;
    struct rl_event_log log = random_log(&seed, 2000000, 1000, 50, 2);
    const uint64_t L = 4, I = 100000, epoch = 777;
    struct rl_check_result r;
    check_log(&log, L, I, epoch, &r);
    CU_ASSERT_EQUAL_FATAL(r.key_count, 1000);
    struct rl_key_metrics sum = {0};
    uint64_t max_sliding = 0;
    for (uint32_t k = 0; k < r.key_count; k++) {
        sum.attempts += r.per_key[k].attempts;
        sum.admits += r.per_key[k].admits;
        sum.false_admits += r.per_key[k].false_admits;
        sum.oracle_admitted_cost += r.per_key[k].oracle_admitted_cost;
        max_sliding =
            r.per_key[k].max_sliding > max_sliding ? r.per_key[k].max_sliding : max_sliding;
    }
    EXPECT_EQ(r.total.attempts, 2000000);
    EXPECT_EQ(r.total.admits + r.total.rejects, r.total.attempts);
    EXPECT_EQ(sum.admits, r.total.admits);
    EXPECT_EQ(sum.false_admits, r.total.false_admits);
    EXPECT_EQ(sum.oracle_admitted_cost, r.total.oracle_admitted_cost);
    EXPECT_EQ(max_sliding, r.total.max_sliding);
    EXPECT_EQ(r.per_key[r.worst_key].max_sliding, r.total.max_sliding);
    for (int i = 0; i < 20; i++)
        expect_reference(&log, &r, (uint32_t)(rl_test_xorshift64(&seed) % 1000), L, (int64_t)I,
                         (int64_t)epoch);
    rl_check_result_free(&r);
    rl_event_log_free(&log);
}

RL_TEST_SUITE("checker", {"cost weighting (n > 1)", test_cost_weighting},
              {"several keys: per key, total, worst key", test_several_keys},
              {"equal timestamps", test_equal_timestamps},
              {"half-open window [t, t+I)", test_half_open_window},
              {"aligned windows with a nonzero epoch", test_aligned_epoch},
              {".NET 3+7 / 7+3 boundary burst", test_dotnet_boundary},
              {"strong violations", test_strong_violations},
              {"oracles: algorithm rejects too much", test_oracle_rejects_too_much},
              {"incomplete log: no oracle, utilization NAN", test_incomplete_log},
              {"unsorted input is sorted", test_unsorted_input},
              {"a shuffled log measures as its sorted self", test_unsorted_equals_sorted},
              {"certain maxima with stamp gaps, hand-worked", test_certain_maxima},
              {"certain maxima against a naive reference", test_certain_against_reference},
              {"empty log", test_empty_log}, {"limit 0 and interval 0 are errors", test_bad_params},
              {"20 random logs against the naive reference", test_random_logs_against_reference},
              {"2M-event log against the reference", test_large_log_against_reference})
