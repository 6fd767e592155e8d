/* test_buckets.c — the bucket family (tb_mutex, tb_cas, tb_cas_relaxed,
 * gcra_cas, tb_debt, leaky_nginx): hand-worked decision sequences from each
 * one's documented semantics, then properties over seeded random traces.
 *
 * Hand-worked sequences use I = 3000 ns for L = 3 unless noted, so that
 * T = I/L = 1000 ns and gcd(L, I) = 3 makes a tick one ns (tb_ticks.h). */
#include "tests/support/bucket_window.h"
#include "tests/support/decide.h"
#include "tests/support/random_trace.h"
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"

#include <string.h>

#define MS 1000000ull
#define S  1000000000ull

/* tb_mutex is the reference; the other three must agree with it exactly. */
static const char *const exact_buckets[] = {"tb_mutex", "tb_cas", "tb_cas_relaxed", "gcra_cas"};
#define EXACT_COUNT (sizeof exact_buckets / sizeof *exact_buckets)

/* ---- hand-worked sequences: the exact buckets -------------------------- */

/* L = 3, B = 3. Full at the start; one token per 1000 ns; an idle gap
 * refills to B, not beyond; n > B is refused and changes nothing (and reads
 * no clock); n > 1 waits for all n tokens. TAT after each admit in (). */
static void test_bucket_basics(void)
{
    for (size_t a = 0; a < EXACT_COUNT; a++) {
        uint64_t reads = rl_expect_decisions(
            exact_buckets[a], 3, 3000, 0,
            RL_STEPS({0, 1, 'A'}, {0, 1, 'A'}, {0, 1, 'A'}, /* full: 3 at once (3000) */
                     {0, 1, 'R'},                           /* empty */
                     {999, 1, 'R'},                         /* 0.999 of a token */
                     {1000, 1, 'A'},                        /* one token at T (4000) */
                     {1500, 1, 'R'}, {2000, 1, 'A'},        /* (5000) */
                     {100000, 3, 'A'}, /* 98 µs idle: capped at 3, takes all (103000) */
                     {100000, 1, 'R'}, /* nothing left */
                     {200000, 4, 'R'}, /* n > B, on a full bucket */
                     {200000, 3, 'A'}, /* still full: the refusal took nothing */
                     {201000, 2, 'R'}, /* one token, n = 2 */
                     {202000, 2, 'A'}, /* two (205000) */
                     {202000, 1, 'R'}));
        CU_ASSERT_EQUAL(reads, 14); /* every step but n > B */
    }
}

/* L = 3 per I = 1000 ns, B = 2: T = 333.33 ns, never a whole ns. Tokens
 * arrive at exactly 333.33, 666.67, 1000, 1333.33, so the admits come at
 * their ceilings 334, 667, 1000, 1334. A T rounded to 333 ns would admit at
 * 333 and 666 and drift further each token. */
static void test_bucket_exact_fractions(void)
{
    for (size_t a = 0; a < EXACT_COUNT; a++)
        rl_expect_decisions(exact_buckets[a], 3, 1000, 2,
                            RL_STEPS({0, 2, 'A'}, {333, 1, 'R'}, {334, 1, 'A'}, {666, 1, 'R'},
                                     {667, 1, 'A'}, {999, 1, 'R'}, {1000, 1, 'A'}, {1333, 1, 'R'},
                                     {1334, 1, 'A'}));
}

/* Time going backwards adds no tokens. After 3 at 0 and 1 at 2000 the
 * bucket holds 1 token as of 2000 (TAT 4000). A read at 1000 sees the
 * bucket as it stood then (0 tokens) and is refused; a bucket that treated
 * the stale read as 2000 would admit it (tb_mutex.c explains why that
 * breaks the bound). Reads at 0 see less still. Back at 2000 the token is
 * there, and 3000 gets exactly the one that arrived by then. */
static void test_bucket_time_backwards(void)
{
    for (size_t a = 0; a < EXACT_COUNT; a++)
        rl_expect_decisions(exact_buckets[a], 3, 3000, 0,
                            RL_STEPS({0, 3, 'A'}, {2000, 1, 'A'}, {1000, 1, 'R'}, {0, 1, 'R'},
                                     {2000, 1, 'A'}, {2000, 1, 'R'}, {2500, 1, 'R'}, {3000, 1, 'A'},
                                     {500, 1, 'R'}, {3000, 1, 'R'}, {100000, 3, 'A'}));
}

static void *create(const char *name, uint64_t limit, uint64_t interval_ns, char *err,
                    size_t err_len)
{
    struct rl_config cfg = {.limit = limit, .interval_ns = interval_ns};
    return rl_registry_find(name)->create(&cfg, err, err_len);
}

/* The supported bounds. tb_mutex takes L = 2^32 − 1 per 4 h (B·I' ≈
 * 4.1·10^21, beyond 64 bits): T = 3352.76 ns, so after draining, 3352 ns
 * hold 0.9998 token and 3353 ns one; having taken it, the bucket is full
 * again only at I + 3353 ns. The one-word buckets refuse that
 * configuration, and L = 2^32 − 1 per second (21 s to overflow), with a
 * reason; at L = 200000 per I = 10^9 + 1 ns (coprime) the horizon is
 * (2^64 − 1 − B·I)/L = 92232720368546 ns (25.6 h): the last ns is decided,
 * the next is an error, never a wrapped decision. */
static void test_bucket_bounds(void)
{
    const uint64_t big = 4294967295ull;
    rl_expect_decisions("tb_mutex", big, 14400 * S, 0,
                        RL_STEPS({0, big, 'A'}, {0, 1, 'R'}, {3352, 1, 'R'}, {3353, 1, 'A'},
                                 {3353, 1, 'R'}, {14400 * S, big, 'R'}, /* one I later: 1 short */
                                 {14400 * S + 3353, big, 'A'}));        /* full again */
    const char *const one_word[] = {"tb_cas", "tb_cas_relaxed", "gcra_cas"};
    for (size_t a = 0; a < 3; a++) {
        char err[256] = "";
        CU_ASSERT_PTR_NULL(create(one_word[a], big, 14400 * S, err, sizeof err));
        CU_ASSERT_PTR_NULL(create(one_word[a], big, S, err, sizeof err));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, one_word[a]));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "tb_mutex"));
        const uint64_t horizon = 92232720368546ull;
        rl_expect_decisions(one_word[a], 200000, S + 1, 0,
                            RL_STEPS({horizon, 200000, 'A'}, {horizon + 1, 1, 'E'}));
    }
}

/* ---- tb_debt ----------------------------------------------------------- */

/* The worked table of tb_debt.c, both columns, then an idle gap: at most L
 * stored, so L pass from the store and one more on credit. */
static void test_debt_next_request_pays(void)
{
    rl_expect_decisions("tb_debt", 3, 3000, 0,
                        RL_STEPS({0, 10, 'A'}, /* first request free: pays until 10000 */
                                 {0, 1, 'R'}, {5000, 1, 'R'}, {9999, 1, 'R'},
                                 {10000, 1, 'A'}, /* next free 11000 */
                                 {30000, 5, 'A'}, /* 3 stored + 2 on credit: free at 32000 */
                                 {30000, 3, 'R'}, {31999, 1, 'R'},
                                 {32000, 1, 'A'}, /* store empty: next free 33000 */
                                 {100000, 1, 'A'}, {100000, 1, 'A'}, {100000, 1, 'A'},
                                 {100000, 1, 'A'}, /* store spent, this one on credit */
                                 {100000, 1, 'R'}, {101000, 1, 'A'}));
    rl_expect_decisions("tb_mutex", 3, 3000, 0,
                        RL_STEPS({0, 10, 'R'}, {0, 1, 'A'}, {5000, 1, 'A'}, {10000, 1, 'A'},
                                 {30000, 5, 'R'}, {30000, 3, 'A'}));
}

/* Permits are stored from creation (the epoch), not from the first request:
 * a first request at 1500 finds 1.5 stored, spends them and owes 1.5 T.
 * Time going backwards is in debt like any early read. */
static void test_debt_stored_since_creation(void)
{
    rl_expect_decisions("tb_debt", 3, 3000, 0,
                        RL_STEPS({1500, 3, 'A'}, /* 1.5 stored, 1.5 owed: free at 3000 */
                                 {2999, 1, 'R'}, {3000, 1, 'A'}, /* free at 4000 */
                                 {3500, 1, 'R'}, {2000, 1, 'R'}, {0, 1, 'R'}, {4000, 1, 'A'}));
}

/* ---- leaky_nginx ------------------------------------------------------- */

/* rate=1r/s (L = 1 per s: 1000 thousandths per s, 1 per ms), burst=2:
 * excess after each step in (). A fresh key passes burst + 1 at once. */
static void test_nginx_burst(void)
{
    rl_expect_decisions("leaky_nginx", 1, S, 2,
                        RL_STEPS({0, 1, 'A'},           /* fresh key (0) */
                                 {0, 1, 'A'},           /* (1000) */
                                 {0, 1, 'A'},           /* (2000) */
                                 {0, 1, 'R'},           /* 3000 > 2000 */
                                 {500 * MS, 1, 'R'},    /* 2000 − 500 + 1000 = 2500 */
                                 {1000 * MS, 1, 'A'},   /* 2000 − 1000 + 1000 (2000) */
                                 {1000 * MS, 1, 'R'},   /* 3000 */
                                 {3000 * MS, 1, 'A'},   /* 2000 − 2000 + 1000 (1000) */
                                 {2000 * MS, 1, 'A'},   /* backwards: no drain (2000) */
                                 {2000 * MS, 1, 'R'},   /* 3000 */
                                 {3000 * MS, 1, 'R'},   /* last stayed at 3000 ms: 3000 */
                                 {4000 * MS, 1, 'A'})); /* 2000 − 1000 + 1000 (2000) */
    /* n > 1: n requests in one ms, all or none; n > burst + 1 never. */
    uint64_t reads = rl_expect_decisions(
        "leaky_nginx", 1, S, 2,
        RL_STEPS({0, 4, 'R'},           /* n > burst + 1: no clock read */
                 {0, 3, 'A'},           /* fresh: (3 − 1)·1000 (2000) */
                 {0, 1, 'R'},           /* 3000 */
                 {2000 * MS, 2, 'A'},   /* 2000 − 2000 + 1000, + 1000 (2000) */
                 {5000 * MS, 3, 'A'})); /* max(0, 2000 − 3000 + 1000) + 2000 (2000) */
    CU_ASSERT_EQUAL(reads, 4);
}

/* burst unset means nginx's default 0 (not L): one request, then one per
 * 1/rate; a second request in the same ms tick is refused. */
static void test_nginx_default_burst(void)
{
    rl_expect_decisions("leaky_nginx", 1, S, 0,
                        RL_STEPS({0, 1, 'A'}, {0, 1, 'R'},
                                 {999 * MS, 1, 'R'},           /* 1000 − 999 + ... = 1 > 0 */
                                 {1000 * MS, 1, 'A'},          /* (0) */
                                 {1000 * MS + 999999, 1, 'R'}, /* same ms tick */
                                 {2000 * MS, 2, 'R'}));        /* n > burst + 1 */
}

/* A rate far above 1000/s with no burst is capped at one request per ms:
 * rate=10000r/s (L = 10000 per s: 10 requests per ms), attempts every
 * 10 µs for 100 ms. The first of each ms tick drains 10 requests' worth and
 * passes with excess 0; the next in the tick adds 1000 > 0. Exactly 100
 * pass, one per tick: 1000/s, a tenth of the rate. tb_mutex at the same
 * rate with B = 1 takes every token, one per 100 µs, each arriving on an
 * attempt: 1 + ⌊10000·99990000/10^9⌋ = 1000. */
static void test_nginx_one_per_ms(void)
{
    rl_expect_decisions("leaky_nginx", 10000, S, 0,
                        RL_STEPS({0, 1, 'A'}, {10000, 1, 'R'}, {990000, 1, 'R'}, {1000000, 1, 'A'},
                                 {1010000, 1, 'R'}, {2000000, 1, 'A'}));
    struct rl_trace trace = {0};
    for (uint64_t t = 0; t < 100 * MS; t += 10000)
        CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, t, 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(&trace, 1), 0);
    const char *const names[] = {"leaky_nginx", "tb_mutex"};
    const uint64_t burst[] = {0, 1}, expect[] = {100, 1000};
    for (size_t i = 0; i < 2; i++) {
        struct rl_config cfg = {.limit = 10000, .interval_ns = S, .burst = burst[i]};
        struct rl_event_log log;
        struct rl_sim_outcome out;
        char err[256];
        CU_ASSERT_EQUAL_FATAL(
            rl_sim_run(rl_registry_find(names[i]), &cfg, &trace, &log, &out, err, sizeof err), 0);
        CU_ASSERT_EQUAL(out.attempts, 10000);
        CU_ASSERT_EQUAL(out.admits, expect[i]);
        rl_event_log_free(&log);
    }
    rl_trace_free(&trace);
}

/* Integer thousandths at a low rate: rate=20r/m (L = 1 per 3 s) is 333
 * thousandths per s, not 333.33, and the drain is ⌊333·ms/1000⌋, which
 * reaches 1000 only after 3004 ms: requests pass every 3004 ms, not 3000. */
static void test_nginx_low_rate_truncates(void)
{
    rl_expect_decisions("leaky_nginx", 1, 3 * S, 0,
                        RL_STEPS({0, 1, 'A'}, {3000 * MS, 1, 'R'}, {3003 * MS, 1, 'R'},
                                 {3004 * MS, 1, 'A'}, {6007 * MS, 1, 'R'}, {6008 * MS, 1, 'A'}));
}

/* ---- properties over seeded random traces ------------------------------ */

#define TRACES 200

/* Any generator, 1–4 keys, costs 1 or 1–3, B unset or 1..2L, and I either
 * whole ms or an odd ns count (so that T = I/L is rarely a whole ns). */
static const struct rl_test_trace_shape shape = {
    .salt = 12345, .scramble = true, .odd_intervals = true, .burst = true};

static void sim(const char *name, const struct rl_config *cfg, const struct rl_trace *trace,
                struct rl_event_log *log)
{
    struct rl_sim_outcome out;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(
        rl_sim_run(rl_registry_find(name), cfg, trace, log, &out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(out.attempts, trace->len);
    CU_ASSERT_EQUAL(out.errors, 0);
}

/* Every exact bucket after tb_mutex decides each attempt of trace as
 * tb_mutex does; what and seed name the trace in a failure. */
static void expect_equal_to_mutex(const struct rl_config *cfg, const struct rl_trace *trace,
                                  const char *what, uint64_t seed)
{
    struct rl_event_log reference;
    sim("tb_mutex", cfg, trace, &reference);
    for (size_t a = 1; a < EXACT_COUNT; a++) {
        struct rl_event_log log;
        sim(exact_buckets[a], cfg, trace, &log);
        size_t differ = rl_logs_differ(&log, &reference);
        EXPECT(differ == 0, "%s vs tb_mutex, %s %llu: %zu of %zu decisions differ",
               exact_buckets[a], what, (unsigned long long)seed, differ, log.len);
        rl_event_log_free(&log);
    }
    rl_event_log_free(&reference);
}

/* tb_cas, tb_cas_relaxed and gcra_cas decide exactly as tb_mutex on every
 * seeded trace: costs n > 1 (and n > B), many keys, odd intervals. */
static void test_lockfree_equals_mutex(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        uint32_t cost_max;
        rl_test_random_trace(seed, &shape, &cfg, &trace, &cost_max);
        expect_equal_to_mutex(&cfg, &trace, "seed", seed);
        rl_trace_free(&trace);
    }
}

/* The same on sequences whose time jumps back (a fifth of the steps go back
 * by up to 3T), which no generator makes: the stale-read rule is the same
 * in all four. */
static void test_equal_when_time_goes_back(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        uint64_t x = seed * 0xda942042e4dd58b5ull + 1;
        struct rl_config cfg = {.limit = 1 + x % 20, .interval_ns = 1000 + (x >> 8) % 100000};
        cfg.burst = (x >> 30) % 2 ? 0 : 1 + (x >> 32) % 30;
        uint64_t period = cfg.interval_ns / cfg.limit + 1;
        struct rl_trace trace = {0};
        uint64_t t = 10 * cfg.interval_ns;
        for (int i = 0; i < 2000; i++) {
            rl_test_xorshift64(&x);
            if (x % 5 == 0)
                t -= (x >> 8) % (3 * period) < t ? (x >> 8) % (3 * period) : t;
            else
                t += (x >> 8) % period;
            uint32_t n = 1 + (uint32_t)((x >> 40) % (rl_config_burst(&cfg) + 1));
            CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, t, 0, n), 0);
        }
        CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(&trace, 1), 0);
        expect_equal_to_mutex(&cfg, &trace, "backwards seed", seed);
        rl_trace_free(&trace);
    }
}

/* Token bucket and GCRA: admitted cost in any window of length w is at most
 * B + ⌊L·w/I⌋, for w in {I/7, I/2, I, 3I}, on every key. tb_debt, with its
 * debt, is held to L + n_max + ⌊L·w/I⌋ (tb_debt.c). Each run also goes
 * through rl_check, whose max_sliding must agree with w = I. */
static void test_window_bounds(void)
{
    static const char *const names[] = {"tb_mutex", "tb_cas", "tb_cas_relaxed", "gcra_cas",
                                        "tb_debt"};
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        uint32_t cost_max;
        rl_test_random_trace(seed, &shape, &cfg, &trace, &cost_max);
        const uint64_t I = cfg.interval_ns, L = cfg.limit;
        const uint64_t windows[] = {I / 7, I / 2, I, 3 * I};
        for (size_t a = 0; a < sizeof names / sizeof *names; a++) {
            int debt = strcmp(names[a], "tb_debt") == 0;
            uint64_t base = debt ? L + cost_max : rl_config_burst(&cfg);
            struct rl_event_log log;
            sim(names[a], &cfg, &trace, &log);
            uint64_t worst_I = 0;
            for (uint32_t k = 0; k < trace.key_count; k++) {
                for (size_t w = 0; w < 4; w++) {
                    uint64_t got = rl_max_window_cost(&log, k, windows[w]);
                    uint64_t bound = base + L * windows[w] / I;
                    if (w == 2 && got > worst_I)
                        worst_I = got;
                    EXPECT(got <= bound, "%s seed %llu key %u w=%llu: %llu > %llu", names[a],
                           (unsigned long long)seed, k, (unsigned long long)windows[w],
                           (unsigned long long)got, (unsigned long long)bound);
                }
            }
            struct rl_check_params params = {.limit = L, .interval_ns = I};
            struct rl_check_result res;
            char err[256];
            CU_ASSERT_EQUAL_FATAL(rl_check(&log, &params, &res, err, sizeof err), 0);
            CU_ASSERT_EQUAL(res.total.max_sliding, worst_I);
            rl_check_result_free(&res);
            rl_event_log_free(&log);
        }
        rl_trace_free(&trace);
    }
}

/* No drift: L = 7 per I = 1000003 ns (T = 142857.57 ns), B = 5, an attempt
 * every 10 µs for 1000·I. The bucket never fills again (attempts come far
 * faster than tokens), so every token is taken at the first attempt after
 * it arrives and fewer than one remains at the end: admitted =
 * ⌊B + L·t_last/I⌋ with t_last = 10^9 (the last multiple of 10 µs below
 * 1000·I = 1000003000), = 5 + ⌊7·10^9/1000003⌋ = 5 + 6999 = 7004. (T
 * rounded down to 142857 ns would give 7005, and drift by one more token
 * every 250000.) tb_debt starts empty with the first request free, then
 * one per T: 1 + 6999 = 7000. */
static void test_no_drift(void)
{
    struct rl_trace trace = {0};
    const uint64_t I = 1000003, t_last = 1000000000;
    for (uint64_t t = 0; t < 1000 * I; t += 10000)
        CU_ASSERT_EQUAL_FATAL(rl_trace_push(&trace, t, 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(&trace, 1), 0);
    CU_ASSERT_EQUAL(trace.attempts[trace.len - 1].t_ns, t_last);
    CU_ASSERT_EQUAL(5 + 7 * t_last / I, 7004);
    struct rl_config cfg = {.limit = 7, .interval_ns = I, .burst = 5};
    static const char *const names[] = {"tb_mutex", "tb_cas", "tb_cas_relaxed", "gcra_cas",
                                        "tb_debt"};
    for (size_t a = 0; a < sizeof names / sizeof *names; a++) {
        struct rl_event_log log;
        struct rl_sim_outcome out;
        char err[256];
        CU_ASSERT_EQUAL_FATAL(
            rl_sim_run(rl_registry_find(names[a]), &cfg, &trace, &log, &out, err, sizeof err), 0);
        uint64_t expect = strcmp(names[a], "tb_debt") == 0 ? 7000 : 7004;
        EXPECT(out.admits == expect, "%s admitted %llu, expected %llu", names[a],
               (unsigned long long)out.admits, (unsigned long long)expect);
        rl_event_log_free(&log);
    }
    rl_trace_free(&trace);
}

RL_TEST_SUITE("buckets",
              {"exact buckets: full start, refill, idle cap, n > 1, n > B", test_bucket_basics},
              {"exact buckets: T = I/L not a whole ns, no rounding", test_bucket_exact_fractions},
              {"exact buckets: time going backwards adds no tokens", test_bucket_time_backwards},
              {"exact buckets: supported bounds, refusals, horizon error", test_bucket_bounds},
              {"tb_debt: next request pays, at most L stored", test_debt_next_request_pays},
              {"tb_debt: stored since creation, backwards in debt",
               test_debt_stored_since_creation},
              {"leaky_nginx: burst + 1 at once, drain per ms, n > 1", test_nginx_burst},
              {"leaky_nginx: default burst 0", test_nginx_default_burst},
              {"leaky_nginx: capped at one request per ms", test_nginx_one_per_ms},
              {"leaky_nginx: integer thousandths at a low rate", test_nginx_low_rate_truncates},
              {"tb_cas, tb_cas_relaxed, gcra_cas decide as tb_mutex", test_lockfree_equals_mutex},
              {"... also when time goes backwards", test_equal_when_time_goes_back},
              {"buckets within B + L·w/I, tb_debt within L + n + L·w/I", test_window_bounds},
              {"no drift over 1000 intervals", test_no_drift})
