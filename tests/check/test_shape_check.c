/* test_shape_check.c — the shaping checker on hand-made logs with known
 * answers: kept, one release too early, a spurious reject, non-causal, a
 * wait past the max, the distance from the ideal; and its reader. */
#include "tests/support/test_util.h"
#include "harness/check/shape_check.h"
#include "harness/check/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull
#define S  1000000000ull
#define R  UINT64_MAX /* a reject: no release */

/* Judges (arrival, release) pairs of one key, cost 1, against L per I, B. */
static struct rl_shape_result judge(const uint64_t (*pairs)[2], size_t count, uint64_t limit,
                                    uint64_t interval_ns, uint64_t burst, const uint64_t *max_wait)
{
    struct rl_shaped_log log = {.len = count, .key_count = 1};
    log.events = calloc(count, sizeof *log.events);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log.events);
    for (size_t i = 0; i < count; i++)
        log.events[i] = (struct rl_shaped_event){.t_ns = pairs[i][0],
                                                 .release_ns = pairs[i][1] == R ? 0 : pairs[i][1],
                                                 .n = 1,
                                                 .admitted = pairs[i][1] != R};
    struct rl_shape_params p = {.limit = limit,
                                .interval_ns = interval_ns,
                                .burst = burst,
                                .max_wait_set = max_wait != NULL,
                                .max_wait_ns = max_wait ? *max_wait : 0};
    struct rl_shape_result r;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_shape_check(&log, &p, &r, err, sizeof err), 0);
    free(log.events);
    return r;
}

#define PAIRS(...)                                                                                 \
    ((const uint64_t[][2]){__VA_ARGS__}),                                                          \
        sizeof((const uint64_t[][2]){__VA_ARGS__}) / sizeof(uint64_t[2])

static void test_kept(void)
{
    /* 1 per s, B = 2: two at once, then one a second: the ideal itself */
    struct rl_shape_result r =
        judge(PAIRS({0, 0}, {0, 0}, {0, S}, {0, 2 * S}, {5 * S, 5 * S}), 1, S, 2, NULL);
    CU_ASSERT_EQUAL(r.admits, 5);
    CU_ASSERT_EQUAL(r.curve_violations, 0);
    CU_ASSERT_EQUAL(r.late_max_ns, 0);
    CU_ASSERT_EQUAL(r.delay_max_ns, 2 * S);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
}

static void test_one_release_too_early(void)
{
    /* the third a ns early: 3 in [0, 1 s − 1 ns] exceeds 2 + (1 s − 1)/1 s */
    struct rl_shape_result r = judge(PAIRS({0, 0}, {0, 0}, {0, S - 1}), 1, S, 2, NULL);
    CU_ASSERT_EQUAL(r.curve_violations, 1);
    CU_ASSERT_EQUAL(r.early, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
    /* exactly on time is kept */
    r = judge(PAIRS({0, 0}, {0, 0}, {0, S}), 1, S, 2, NULL);
    CU_ASSERT_EQUAL(r.curve_violations, 0);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
}

static void test_curve_between_any_two_releases(void)
{
    /* spaced by I each, but after a pause a burst of B + 1 later: only the
     * span between the first and last of that burst breaks the curve */
    struct rl_shape_result r = judge(
        PAIRS({0, 0}, {S, S}, {10 * S, 10 * S}, {10 * S, 10 * S}, {10 * S, 10 * S}), 1, S, 2, NULL);
    CU_ASSERT_EQUAL(r.curve_violations, 1);
    CU_ASSERT(r.worst_excess > 0.99 && r.worst_excess < 1.01);
    /* a third of a second per release at L = 3 per s, rounded up to the ns */
    r = judge(PAIRS({0, 0}, {0, 333333334}, {0, 666666667}, {0, S}), 3, S, 1, NULL);
    CU_ASSERT_EQUAL(r.curve_violations, 0);
    CU_ASSERT_EQUAL(r.late_max_ns, 0);
}

static void test_spurious_reject(void)
{
    /* D = 2 s: the second would have gone at 1 s: its reject is spurious */
    const uint64_t two = 2 * S, half = S / 2;
    struct rl_shape_result r = judge(PAIRS({0, 0}, {0, R}), 1, S, 1, &two);
    CU_ASSERT_EQUAL(r.spurious_rejects, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
    /* D = 0.5 s: the ideal would wait 1 s too: a fair reject */
    r = judge(PAIRS({0, 0}, {0, R}), 1, S, 1, &half);
    CU_ASSERT_EQUAL(r.spurious_rejects, 0);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
    /* no D: a shaper that waits as long as it takes never rejects */
    r = judge(PAIRS({0, 0}, {0, R}), 1, S, 1, NULL);
    CU_ASSERT_EQUAL(r.spurious_rejects, 1);
}

static void test_causal_wait_distance_fifo(void)
{
    const uint64_t half = S / 2;
    struct rl_shape_result r = judge(PAIRS({S, S - 1}), 1, S, 1, NULL);
    CU_ASSERT_EQUAL(r.noncausal, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
    r = judge(PAIRS({0, 0}, {0, S}), 1, S, 1, &half);
    CU_ASSERT_EQUAL(r.over_wait, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
    /* 5 ms later than the ideal, still within the curve: held, distance shown */
    r = judge(PAIRS({0, 0}, {0, S + 5 * MS}, {0, 2 * S + 5 * MS}), 1, S, 1, NULL);
    CU_ASSERT_EQUAL(r.late_max_ns, 5 * MS);
    CU_ASSERT_EQUAL(r.late_p50_ns, 5 * MS);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
    /* a later arrival released before an earlier one: reported */
    r = judge(PAIRS({0, 2 * S}, {MS, S}), 1, S, 1, NULL);
    CU_ASSERT_EQUAL(r.fifo_inversions, 1);
}

/* Judges a log read from CSV text (the cancel_ns column needs the reader). */
static struct rl_shape_result judge_csv(const char *text, uint64_t limit, uint64_t interval_ns,
                                        uint64_t burst);

/* A cancelled reservation never went: it is out of the curve (counted, the
 * second release at 0.5 s would break B + L·u/I = 1.5 with the first), and
 * the ideal is recomputed without it from its cancel time. */
static void test_cancellation(void)
{
    /* L = 1 per s, B = 1. b is cancelled at 0.1 s before its release */
    struct rl_shape_result r = judge_csv("t_ns,key,n,admitted,thread,release_ns,cancel_ns\n"
                                         "0,a,1,1,0,0,\n"
                                         "0,a,1,1,0,500000000,100000000\n"
                                         "200000000,a,1,1,0,1000000000,\n",
                                         1, S, 1);
    CU_ASSERT_EQUAL(r.cancellations, 1);
    CU_ASSERT_EQUAL(r.curve_violations, 0);
    CU_ASSERT_EQUAL(r.admits, 3);
    /* the ideal without b releases c at 1 s, as it went: nothing gained or lost */
    CU_ASSERT(r.cancel_tokens_gained == 0 && r.cancel_tokens_lost == 0);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
    /* the same release, not cancelled: broken */
    r = judge_csv("t_ns,key,n,admitted,thread,release_ns,cancel_ns\n"
                  "0,a,1,1,0,0,\n"
                  "0,a,1,1,0,500000000,\n",
                  1, S, 1);
    CU_ASSERT_EQUAL(r.curve_violations, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
    /* a shaper that kept b's slot after its cancellation: c goes at 2 s
     * where the recomputed ideal says 1 s: one token lost, reported; one
     * that gave back too much releases c at 0.5 s: half a token gained, and
     * the curve (two releases 0.5 s apart at B = 1) broken */
    r = judge_csv("t_ns,key,n,admitted,thread,release_ns,cancel_ns\n"
                  "0,a,1,1,0,0,\n"
                  "0,a,1,1,0,1000000000,100000000\n"
                  "200000000,a,1,1,0,2000000000,\n",
                  1, S, 1);
    CU_ASSERT(r.cancel_tokens_lost > 0.999 && r.cancel_tokens_lost < 1.001);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_YES);
    r = judge_csv("t_ns,key,n,admitted,thread,release_ns,cancel_ns\n"
                  "0,a,1,1,0,0,\n"
                  "0,a,1,1,0,1000000000,100000000\n"
                  "200000000,a,1,1,0,500000000,\n",
                  1, S, 1);
    CU_ASSERT(r.cancel_tokens_gained > 0.499 && r.cancel_tokens_gained < 0.501);
    CU_ASSERT_EQUAL(r.curve_violations, 1);
    CU_ASSERT_EQUAL(rl_shape_verdict(&r), RL_HELD_NO);
}

static const char *write_temp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/ratelab-shape-%d.csv", (int)getpid());
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static struct rl_shape_result judge_csv(const char *text, uint64_t limit, uint64_t interval_ns,
                                        uint64_t burst)
{
    struct rl_shaped_log log;
    char err[256];
    const char *path = write_temp(text);
    CU_ASSERT_EQUAL_FATAL(rl_shaped_log_read_csv(path, &log, err, sizeof err), 0);
    unlink(path);
    struct rl_shape_params p = {.limit = limit, .interval_ns = interval_ns, .burst = burst};
    struct rl_shape_result r;
    CU_ASSERT_EQUAL_FATAL(rl_shape_check(&log, &p, &r, err, sizeof err), 0);
    rl_shaped_log_free(&log);
    return r;
}

static void test_reader(void)
{
    struct rl_shaped_log log;
    char err[256];
    const char *path =
        write_temp("t_ns,key,n,admitted,thread,release_ns\n0,a,1,1,0,5\n3,b,2,0,0,\n");
    CU_ASSERT_EQUAL_FATAL(rl_shaped_log_read_csv(path, &log, err, sizeof err), 0);
    CU_ASSERT_EQUAL(log.len, 2);
    CU_ASSERT_EQUAL(log.key_count, 2);
    CU_ASSERT_EQUAL(log.events[0].release_ns, 5);
    CU_ASSERT_FALSE(log.events[1].admitted);
    CU_ASSERT_EQUAL(log.events[1].n, 2);
    rl_shaped_log_free(&log);
    const char *bad[][2] = {
        {"t_ns,key,n,admitted,thread\n0,a,1,1,0\n", "no release_ns column"},
        {"t_ns,key,n,admitted,release_ns\n0,a,1,1,\n", ":2: an admit without"},
        {"t_ns,key,n,admitted,release_ns\n0,a,1,0,7\n", ":2: a reject with"},
        {"t_ns,key,n,admitted,release_ns\n0,a,0,1,7\n", ":2: t_ns and"},
        {"t_ns,key,n,admitted,release_ns,cancel_ns\n0,a,1,0,,3\n", ":2: cancels a reject"},
        {"t_ns,key,n,admitted,release_ns,cancel_ns\n0,a,1,1,7,7\n",
         ":2: cancels a reservation at or after its release"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path = write_temp(bad[i][0]);
        CU_ASSERT_EQUAL(rl_shaped_log_read_csv(path, &log, err, sizeof err), -1);
        EXPECT(strstr(err, bad[i][1]) != NULL, "case %zu: '%s' lacks '%s'", i, err, bad[i][1]);
    }
    unlink(path);
}

RL_TEST_SUITE("shape_check", {"kept: the ideal schedule itself", test_kept},
              {"broken by one release a ns too early", test_one_release_too_early},
              {"curve between any two releases, fractions exact",
               test_curve_between_any_two_releases},
              {"broken by a spurious reject; a fair one is not", test_spurious_reject},
              {"non-causal, past the max wait, distance, FIFO", test_causal_wait_distance_fifo},
              {"cancellations: out of the curve, ideal recomputed", test_cancellation},
              {"reader: release_ns column, admits and rejects", test_reader})
