/* test_redis.c — the Redis limiters against a private redis-server: the
 * exact decisions of every script in virtual time (hand-worked), the
 * cross-checks with their in-process peers over seeded traces, the
 * article bucket's losses, NOSCRIPT, errors, and a run on real time.
 *
 * One server serves the suite, started by the first test that needs it
 * and stopped by the last (rl_redis_server's atexit handler stops it if a
 * fatal assertion ends the run first). Every call is a round trip (about
 * 50 µs here), so the traces are small: the suite runs in a few seconds. */
#include "tests/support/random_trace.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "algorithms/redis/redis_common.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"
#include "harness/sys/redis_server.h"
#include "workloads/generators.h"

#include <hiredis/hiredis.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS 1000000ull
#define S  1000000000ull

/* ---- hand-worked sequences in virtual time ------------------------------ */

/* L = 3, I = 10 µs. The window opens at its first admit and ends I later;
 * an idle gap opens a fresh one; n > L is refused. fw_expiry decides the
 * same steps identically. */
static void test_fixed_window_steps(void)
{
    const struct rl_step steps[] = {
        {0, 1, 'A'},     {100, 2, 'A'},                    /* window [0, 10000): 3 */
        {5000, 1, 'R'},  {9999, 1, 'R'},                   /* full */
        {10000, 1, 'A'}, {10000, 2, 'A'},                  /* expired: [10000, 20000) */
        {15000, 1, 'R'}, {19999, 1, 'R'}, {20000, 3, 'A'}, /* [20000, 30000) */
        {25000, 4, 'R'},                                   /* n > L */
        {50000, 1, 'A'}, {59999, 2, 'A'}, {59999, 1, 'R'}, /* after a gap: [50000, 60000) */
        {60000, 1, 'A'}};
    size_t count = sizeof steps / sizeof *steps;
    rl_expect_remote("redis_fixed_window", 3, 10000, 0, steps, count, 0, NULL);
    rl_expect_decisions("fw_expiry", 3, 10000, 0, steps, count);
}

/* L = 3, I = 10 µs: admits in (t − I, t] plus n ≤ L, as sliding_log. */
static void test_sliding_log_steps(void)
{
    const struct rl_step steps[] = {
        {0, 1, 'A'},     {0, 2, 'A'},     {9999, 1, 'R'}, /* (−1, 9999] holds 3 */
        {10000, 1, 'A'},                                  /* the 3 at 0 are out */
        {10000, 3, 'R'}, {10000, 2, 'A'}, {15000, 1, 'R'},
        {20000, 3, 'A'}, /* the 3 at 10000 leave at 20000 */
        {25000, 4, 'R'}, /* n > L */
        {29999, 1, 'R'}, {30000, 1, 'A'}};
    size_t count = sizeof steps / sizeof *steps;
    rl_expect_remote("redis_sliding_log", 3, 10000, 0, steps, count, 0, NULL);
    rl_expect_decisions("sliding_log", 3, 10000, 0, steps, count);
}

/* L = 2, I = 10 µs, cleanups every P = 1 µs of virtual time, the first due
 * at 1000, each run by the first acquire at or after it, removing scores
 * ≤ t − I (none before t = I). Between cleanups, old members still count:
 * at 10000 the trimming log admits what the scan variant refuses, and from
 * there the two logs hold different members. */
static void test_sliding_log_scan_steps(void)
{
    RL_EXPECT_REMOTE("redis_sliding_log_scan", 2, 10000, 0, {0, 2, 'A'}, /* no cleanup due yet */
                     {5000, 1, 'R'},  /* cleanup (t < I: nothing to cut), next at 6000 */
                     {9500, 1, 'R'},  /* cleanup, next at 10500 */
                     {10000, 1, 'R'}, /* not due: the members at 0 still count */
                     {10500, 1, 'A'}, /* cleanup cuts ≤ 500: both gone; next 11500 */
                     {10600, 1, 'A'}, /* 2 members: 10500, 10600 */
                     {20499, 1, 'R'}, /* cleanup cuts ≤ 10499: nothing; next 21499 */
                     {20500, 1, 'R'}, /* not due: 10500 still counts */
                     {21499, 1, 'A'}, /* cleanup cuts ≤ 11499: both gone */
                     {21499, 2, 'R'}, {30000, 3, 'R'}); /* n > L */
    RL_EXPECT_REMOTE("redis_sliding_log", 2, 10000, 0, {0, 2, 'A'}, {5000, 1, 'R'}, {9500, 1, 'R'},
                     {10000, 1, 'A'}, {10500, 1, 'A'}, {10600, 1, 'R'}, {20499, 1, 'A'},
                     {20500, 1, 'A'}); /* the trimming log on the same steps */
}

/* The article's bucket, rate 3/s (0.003 per ms), B = 2. Time in whole ms;
 * a refill of ≥ 1 token floors and moves last_mill_second (the fraction
 * is lost); a refill under one token moves nothing (it keeps accruing).
 * tb_mutex's tokens after each step in [ ]. */
static void test_tb_article_steps(void)
{
    RL_EXPECT_REMOTE("redis_tb_article", 3, S, 2, {0, 2, 'A'}, /* fresh: full; last 0 [0] */
                     {300 * MS, 1, 'R'},                       /* 0.9 owed: nothing moves [0.9] */
                     {333 * MS, 1, 'R'},                       /* 0.999 [0.999] */
                     {334 * MS, 1, 'A'},                       /* 1.002 → 1, last 334 [0.002] */
                     {800 * MS, 1, 'A'},           /* 1.398 → 1, last 800 (0.398 lost) [0.4] */
                     {1133 * MS, 1, 'R'},          /* 0.999 → 0; tb_mutex has 1.399 and admits */
                     {1133 * MS + 999999, 1, 'R'}, /* still ms 1133 */
                     {1134 * MS, 1, 'A'},          /* 1.002 → 1, last 1134 */
                     {2000 * MS, 3, 'R'},          /* n > B: 2.598 → 2 (≤ B), refused, but the
                                                      2 are written back and last moves to 2000 */
                     {2000 * MS, 2, 'A'},          /* the tokens the refusal wrote back */
                     {2333 * MS, 1, 'R'},          /* from 2000 (not 1134): 0.999 */
                     {2334 * MS, 1, 'A'});
    rl_expect_decisions("tb_mutex", 3, S, 2,
                        RL_STEPS({0, 2, 'A'}, {300 * MS, 1, 'R'}, {333 * MS, 1, 'R'},
                                 {334 * MS, 1, 'A'}, {800 * MS, 1, 'A'}, {1133 * MS, 1, 'A'}));
}

/* The exact bucket and GCRA, on test_buckets.c's hand-worked steps (L = 3,
 * I = 3000 ns, T = 1000 ns): tb_mutex's decisions, fractions and time
 * going backwards included. */
static const char *const exact_buckets[] = {"redis_token_bucket", "redis_token_bucket_servertime",
                                            "redis_gcra"};

static void test_exact_bucket_steps(void)
{
    for (size_t a = 0; a < 3; a++) {
        RL_EXPECT_REMOTE(exact_buckets[a], 3, 3000, 0, {0, 1, 'A'}, {0, 1, 'A'}, {0, 1, 'A'},
                         {0, 1, 'R'}, {999, 1, 'R'}, {1000, 1, 'A'}, {1500, 1, 'R'}, {2000, 1, 'A'},
                         {100000, 3, 'A'},                   /* idle: capped at B */
                         {100000, 1, 'R'}, {200000, 4, 'R'}, /* n > B */
                         {200000, 3, 'A'}, {201000, 2, 'R'}, {202000, 2, 'A'}, {202000, 1, 'R'});
        /* L = 3 per 1000 ns, B = 2: T = 333.33 ns, admits at its ceilings */
        RL_EXPECT_REMOTE(exact_buckets[a], 3, 1000, 2, {0, 2, 'A'}, {333, 1, 'R'}, {334, 1, 'A'},
                         {666, 1, 'R'}, {667, 1, 'A'}, {999, 1, 'R'}, {1000, 1, 'A'},
                         {1333, 1, 'R'}, {1334, 1, 'A'});
        /* stale reads see the bucket as it stood then */
        RL_EXPECT_REMOTE(exact_buckets[a], 3, 3000, 0, {0, 3, 'A'}, {2000, 1, 'A'}, {1000, 1, 'R'},
                         {0, 1, 'R'}, {2000, 1, 'A'}, {2000, 1, 'R'}, {2500, 1, 'R'},
                         {3000, 1, 'A'}, {500, 1, 'R'}, {3000, 1, 'R'}, {100000, 3, 'A'});
    }
}

/* L = 4, I = 1000 ns: prev·(I − elapsed) + (curr + n)·I ≤ L·I. */
static void test_sliding_counter_steps(void)
{
    const struct rl_step steps[] = {
        {0, 4, 'A'},    {999, 1, 'R'},  /* window 0: curr 4 */
        {1000, 1, 'R'},                 /* window 1: prev 4 at full weight */
        {1250, 1, 'A'},                 /* 4·750 + 1·1000 = 4000 */
        {1500, 1, 'A'}, {1500, 1, 'R'}, /* 2000 + 2000; then 2000 + 3000 */
        {1750, 1, 'A'},                 /* 1000 + 3000 */
        {3100, 4, 'A'},                 /* window 3 after 1: prev 0 */
        {4000, 1, 'R'},                 /* window 4: prev 4 */
        {2500, 1, 'R'},                 /* stale: window 4 at elapsed 0 */
        {4999, 1, 'A'},                 /* 4·1 + 1000 */
        {5000, 5, 'R'}};                /* n > L */
    size_t count = sizeof steps / sizeof *steps;
    rl_expect_remote("redis_sliding_counter", 4, 1000, 0, steps, count, 0, NULL);
    rl_expect_decisions("sliding_counter", 4, 1000, 0, steps, count);
}

static void flush_scripts(void)
{
    rl_test_redis_command(rl_test_redis_address(), "SCRIPT FLUSH");
}

/* SCRIPT FLUSH in the middle of a sequence: the next EVALSHA gets NOSCRIPT,
 * the scripts are loaded again and the call retried, and the decisions go
 * on as if nothing happened. The baseline's state is its rl_redis, so its
 * reload count is visible. */
static void test_noscript_reloads(void)
{
    const struct rl_step steps[] = {{0, 1, 'A'},    {0, 1, 'A'},     {0, 1, 'A'},
                                    {0, 1, 'R'},    {1000, 1, 'A'},  {1500, 1, 'R'},
                                    {2000, 1, 'A'}, {100000, 3, 'A'}};
    rl_expect_remote("redis_token_bucket", 3, 3000, 0, steps, 8, 4, flush_scripts);
    rl_expect_remote("redis_gcra", 3, 3000, 0, steps, 8, 2, flush_scripts);

    struct rl_config cfg = {.limit = 1, .interval_ns = S, .remote = rl_test_redis_address()};
    char err[256];
    void *noop = rl_registry_find("redis_noop")->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(noop);
    struct rl_clock clock;
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    CU_ASSERT_EQUAL(rl_registry_find("redis_noop")->acquire(noop, &clock, 1, 1), RL_ADMIT);
    flush_scripts();
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(rl_registry_find("redis_noop")->acquire(noop, &clock, 1, 1), RL_ADMIT);
    CU_ASSERT_EQUAL(rl_redis_reloads(noop), 1);
    rl_registry_find("redis_noop")->destroy(noop);
}

/* ---- cross-checks over seeded traces -------------------------------------- */

#define TRACES 30

/* A small random trace: any generator, 1–4 keys, costs 1 or 1–3, B unset or
 * 1..2L, I whole ms or an odd ns count, L ≥ min_limit; about 400 attempts on
 * average. The configuration names the test server, in virtual time. */
static void random_trace(uint64_t seed, uint64_t min_limit, struct rl_config *cfg,
                         struct rl_trace *trace)
{
    const struct rl_test_trace_shape shape = {.salt = 777,
                                              .scramble = true,
                                              .min_limit = min_limit,
                                              .odd_intervals = true,
                                              .burst = true,
                                              .intervals = 8,
                                              .overload = 4};
    rl_test_random_trace(seed, &shape, cfg, trace, NULL);
    cfg->remote = rl_test_redis_address();
    cfg->virtual_time = true;
}

static void sim(const char *name, const struct rl_config *cfg, const struct rl_trace *trace,
                struct rl_event_log *log, struct rl_sim_outcome *out)
{
    char err[256];
    int rc = rl_sim_run(rl_registry_find(name), cfg, trace, log, out, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(out->attempts, trace->len);
    CU_ASSERT_EQUAL(out->errors, 0);
}

/* Runs `remote` and `local` on TRACES seeded traces; every decision must
 * agree. Returns the attempts decided. */
static size_t cross_check(const char *remote, const char *local, uint64_t min_limit)
{
    size_t attempts = 0;
    uint64_t admits = 0, rejects = 0;
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        random_trace(seed, min_limit, &cfg, &trace);
        struct rl_event_log a, b;
        struct rl_sim_outcome out_a, out_b;
        sim(remote, &cfg, &trace, &a, &out_a);
        sim(local, &cfg, &trace, &b, &out_b);
        size_t differ = 0, first = SIZE_MAX;
        for (size_t i = 0; i < a.len; i++)
            if (a.events[i].admitted != b.events[i].admitted) {
                differ++;
                first = first < i ? first : i;
            }
        EXPECT(differ == 0, "%s vs %s, seed %llu: %zu of %zu differ (first at %zu)", remote, local,
               (unsigned long long)seed, differ, a.len, first);
        admits += out_a.admits;
        rejects += out_a.rejects;
        attempts += trace.len;
        rl_event_log_free(&a);
        rl_event_log_free(&b);
        rl_trace_free(&trace);
    }
    CU_ASSERT(admits > attempts / 10 && rejects > attempts / 10); /* the traces test something */
    return attempts;
}

static void test_token_bucket_equals_tb_mutex(void)
{
    CU_ASSERT(cross_check("redis_token_bucket", "tb_mutex", 1) > 5000);
}

static void test_servertime_equals_tb_mutex(void)
{
    cross_check("redis_token_bucket_servertime", "tb_mutex", 1);
}

static void test_gcra_equals_gcra_cas(void)
{
    cross_check("redis_gcra", "gcra_cas", 1);
}

static void test_sliding_counter_equals_local(void)
{
    cross_check("redis_sliding_counter", "sliding_counter", 1);
}

static void test_sliding_log_equals_local(void)
{
    cross_check("redis_sliding_log", "sliding_log", 1);
}

/* fw_expiry opens a window on an attempt with n > L and the script does
 * not (redis_fixed_window.c); with L ≥ 3 and costs ≤ 3 there are none. */
static void test_fixed_window_equals_fw_expiry(void)
{
    cross_check("redis_fixed_window", "fw_expiry", 3);
}

/* ---- the article's bucket: a transcription and its losses ----------------- */

/* The Redis design article's arithmetic transcribed in C doubles, independently of the
 * script: one bucket per key. Returns admits; fills admitted[]. */
static uint64_t article_model(const struct rl_config *cfg, const struct rl_trace *trace,
                              uint8_t *admitted)
{
    double rate = (double)cfg->limit * 1e9 / (double)cfg->interval_ns;
    double max_permits = (double)rl_config_burst(cfg);
    double last[8], permits[8];
    int fresh[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    uint64_t admits = 0;
    for (size_t i = 0; i < trace->len; i++) {
        const struct rl_attempt *a = &trace->attempts[i];
        double now_ms = (double)(a->t_ns / MS), local = max_permits;
        if (!fresh[a->key]) {
            double owed = floor(((now_ms - last[a->key]) / 1000) * rate);
            local = fmin(owed + permits[a->key], max_permits);
            if (owed > 0)
                last[a->key] = now_ms;
        } else {
            last[a->key] = now_ms;
            fresh[a->key] = 0;
        }
        admitted[i] = local - a->n >= 0;
        permits[a->key] = admitted[i] ? local - a->n : local;
        admits += admitted[i];
    }
    return admits;
}

static void test_tb_article_equals_transcription(void)
{
    for (uint64_t seed = 1; seed <= TRACES / 2; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        random_trace(seed, 1, &cfg, &trace);
        uint8_t *model = malloc(trace.len + 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(model);
        uint64_t expect = article_model(&cfg, &trace, model);
        struct rl_event_log log;
        struct rl_sim_outcome out;
        sim("redis_tb_article", &cfg, &trace, &log, &out);
        size_t differ = 0;
        for (size_t i = 0; i < log.len; i++)
            differ += log.events[i].admitted != model[i];
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT_EQUAL(out.admits, expect);
        free(model);
        rl_event_log_free(&log);
        rl_trace_free(&trace);
    }
}

/* Admits of `name` on a one-key trace of `workload` at 80% of the rate. */
static uint64_t admits_at_80(const char *name, const char *workload, uint64_t limit, uint64_t burst,
                             uint64_t duration_ns, uint64_t *attempts)
{
    struct rl_config cfg = {.limit = limit,
                            .interval_ns = S,
                            .burst = burst,
                            .remote = rl_test_redis_address(),
                            .virtual_time = true};
    struct rl_workload_params p;
    rl_workload_defaults(&p, limit, S);
    p.name = workload;
    p.duration_ns = duration_ns;
    p.rate_per_s = 0.8 * (double)limit;
    struct rl_trace trace = {0};
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &trace, err, sizeof err), 0);
    struct rl_event_log log;
    struct rl_sim_outcome out;
    sim(name, &cfg, &trace, &log, &out);
    *attempts = trace.len;
    rl_event_log_free(&log);
    rl_trace_free(&trace);
    return out.admits;
}

/* The article's bucket under-admits where tb_mutex admits everything.
 * Steady 80% of L = 1500/s (an attempt every 833.3 µs), B = 10, 4 s: in
 * whole ms each elapsed ms owes 1.5 tokens, floored to 1 with the half
 * dropped; one attempt in six sees no ms go by, so the bucket drains and
 * then about one in six is refused: 4009 of 4800 admitted (16.5% denied),
 * tb_mutex 4800. Poisson at 80% of L = 30/s, B = 5, 60 s: tb_mutex refuses
 * 3.0% (bursts), the article 10.2% (the Varnish figure was about 10%). */
static void test_tb_article_under_admits(void)
{
    uint64_t attempts, uniform_attempts;
    uint64_t exact = admits_at_80("tb_mutex", "uniform", 1500, 10, 4 * S, &uniform_attempts);
    uint64_t article = admits_at_80("redis_tb_article", "uniform", 1500, 10, 4 * S, &attempts);
    CU_ASSERT_EQUAL(exact, uniform_attempts);
    CU_ASSERT(article < exact * 88 / 100); /* at least 12% lost */
    CU_ASSERT(article > exact * 80 / 100);
    exact = admits_at_80("tb_mutex", "poisson", 30, 5, 60 * S, &attempts);
    article = admits_at_80("redis_tb_article", "poisson", 30, 5, 60 * S, &attempts);
    CU_ASSERT(exact > attempts * 94 / 100);
    CU_ASSERT(article < attempts * 93 / 100);
    CU_ASSERT(article < exact * 97 / 100);
}

/* ---- errors ------------------------------------------------------------------ */

static void test_create_errors(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_token_bucket");
    struct rl_config cfg = {.limit = 10, .interval_ns = S};
    char err[256] = "";
    CU_ASSERT_PTR_NULL(algo->create(&cfg, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a Redis server: --redis ADDRESS"));
    const char *bogus[] = {"unix:/nonexistent/ratelab/redis.sock", "127.0.0.1:1", "nonsense"};
    for (size_t i = 0; i < 3; i++) {
        cfg.remote = bogus[i];
        err[0] = '\0';
        CU_ASSERT_PTR_NULL(algo->create(&cfg, err, sizeof err));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "redis_token_bucket: cannot connect"));
        CU_ASSERT_PTR_NULL(strchr(err, '\n'));
    }
    /* past Lua's exact 2^53: refused with a reason, before any connection */
    cfg = (struct rl_config){
        .limit = 1000000, .interval_ns = S + 1, .remote = rl_test_redis_address()};
    CU_ASSERT_PTR_NULL(rl_registry_find("redis_gcra")->create(&cfg, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "2^53"));
    cfg = (struct rl_config){
        .limit = 10000000, .interval_ns = 5 * S, .remote = rl_test_redis_address()};
    CU_ASSERT_PTR_NULL(rl_registry_find("redis_sliding_counter")->create(&cfg, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "2^53"));
}

/* Every algorithm on real time against a second server: first decisions,
 * a server-time refill, every key gone once its PEXPIRE passes, then the
 * server killed: RL_ERROR, never a crash or a silent answer. */
static void test_real_time_then_killed(void)
{
    struct rl_redis_server second;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_start(&second, err, sizeof err), 0);
    struct rl_clock clock;
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    struct rl_config cfg = {.limit = 2,
                            .interval_ns = 300 * MS,
                            .remote = second.address,
                            .epoch_ns = rl_clock_now(&clock)};
    void *states[16];
    const struct rl_algo *algos[16];
    size_t count = 0;
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        if (!((*a)->flags & RL_REMOTE))
            continue;
        algos[count] = *a;
        states[count] = (*a)->create(&cfg, err, sizeof err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(states[count]);
        bool noop = strcmp((*a)->name, "redis_noop") == 0;
        for (uint64_t key = 1; key <= 2; key++) {
            CU_ASSERT_EQUAL(algos[count]->acquire(states[count], &clock, key, 1), RL_ADMIT);
            CU_ASSERT_EQUAL(algos[count]->acquire(states[count], &clock, key, 1), RL_ADMIT);
            CU_ASSERT_EQUAL(algos[count]->acquire(states[count], &clock, key, 1),
                            noop ? RL_ADMIT : RL_REJECT);
        }
        count++;
    }
    CU_ASSERT_EQUAL(count, 9);
    /* one token per 150 ms: after 180 ms the server-time buckets hold 1.2 */
    rl_test_sleep_ms(180);
    for (size_t i = 0; i < count; i++)
        if (strcmp(algos[i]->name, "redis_token_bucket_servertime") == 0 ||
            strcmp(algos[i]->name, "redis_gcra") == 0) {
            CU_ASSERT_EQUAL(algos[i]->acquire(states[i], &clock, 1, 1), RL_ADMIT);
            CU_ASSERT_EQUAL(algos[i]->acquire(states[i], &clock, 1, 1), RL_REJECT);
        }
    /* keys live at most B·I/L + I + 2 ms = 602 ms after their last write */
    long long keys = -1;
    for (int waited = 0; waited < 3000 && keys != 0; waited += 50) {
        rl_test_sleep_ms(50);
        keys = rl_test_redis_command(second.address, "DBSIZE");
    }
    CU_ASSERT_EQUAL(keys, 0);

    rl_redis_server_kill(&second);
    for (size_t i = 0; i < count; i++) {
        for (int call = 0; call < 3; call++) /* I/O error, then the backoff */
            CU_ASSERT_EQUAL(algos[i]->acquire(states[i], &clock, 1, 1), RL_ERROR);
        CU_ASSERT(rl_redis_last_error()[0] != '\0');
        algos[i]->destroy(states[i]);
    }
    rl_redis_server_stop(&second);
}

/* A sim run whose server dies before it: every attempt is an error. */
static void test_sim_counts_errors(void)
{
    struct rl_redis_server doomed;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_start(&doomed, err, sizeof err), 0);
    struct rl_config cfg = {
        .limit = 5, .interval_ns = MS, .remote = doomed.address, .virtual_time = true};
    const struct rl_algo *algo = rl_registry_find("redis_sliding_log");
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    rl_redis_server_kill(&doomed);
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    for (uint64_t i = 0; i < 100; i++) {
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + i * 1000);
        CU_ASSERT_EQUAL(algo->acquire(state, &clock, i % 3, 1), RL_ERROR);
    }
    algo->destroy(state);
    rl_redis_server_stop(&doomed);
}

/* ---- threads and the scan cleaner on real time ----------------------------- */

struct worker {
    const struct rl_algo *algo;
    void *state;
    uint64_t admits, errors;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct rl_clock clock;
    char err[128];
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    for (int i = 0; i < 300; i++) {
        enum rl_decision d = w->algo->acquire(w->state, &clock, (uint64_t)i % 2, 1);
        w->admits += d == RL_ADMIT;
        w->errors += d == RL_ERROR;
    }
    return NULL;
}

/* Four threads on one instance, each on its own connection: no errors, and
 * the server-time bucket (B = 50 per key, L = 50/s) admits at most
 * B + L·elapsed per key. */
static void test_threads_share_an_instance(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_token_bucket_servertime");
    struct rl_config cfg = {.limit = 50, .interval_ns = S, .remote = rl_test_redis_address()};
    char err[256];
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    struct worker workers[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        workers[i] = (struct worker){.algo = algo, .state = state};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
    }
    uint64_t admits = 0, errors = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        admits += workers[i].admits;
        errors += workers[i].errors;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double elapsed_s = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9;
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT(admits >= 100);                               /* both full buckets */
    CU_ASSERT((double)admits <= 2 * (50 + 50 * elapsed_s)); /* B + L·elapsed per key */
    algo->destroy(state);
}

/* A Redis limiter on the suite's server and the monotonic clock: L = 3 per
 * 200 ms, epoch now; *algo and *clock for its calls. */
static void *realtime_limiter(const char *name, const struct rl_algo **algo, struct rl_clock *clock)
{
    *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*algo);
    char err[256];
    rl_clock_init(clock, "monotonic", err, sizeof err);
    struct rl_config cfg = {.limit = 3,
                            .interval_ns = 200 * MS,
                            .remote = rl_test_redis_address(),
                            .epoch_ns = rl_clock_now(clock)};
    void *state = (*algo)->create(&cfg, err, sizeof err);
    EXPECT_FATAL(state != NULL, "%s: %s", name, err);
    return state;
}

/* The cleaner thread, on real time (I = 200 ms, L = 3, period 20 ms): a
 * member 200 ms old is removed while a younger one keeps the key (and its
 * PEXPIRE) alive, so the set shrinks to one member before it expires. */
static void test_scan_cleaner_thread(void)
{
    rl_test_redis_command(rl_test_redis_address(), "FLUSHALL");
    const struct rl_algo *algo;
    struct rl_clock clock;
    void *state = realtime_limiter("redis_sliding_log_scan", &algo, &clock);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 5, 1), RL_ADMIT);
    rl_test_sleep_ms(120);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 5, 1),
                    RL_ADMIT); /* the key now lives to ~321 ms */
    /* DBSIZE counts keys; ZCARD of the one key needs its name: KEYS rl:* */
    redisContext *c = redisConnectUnix(rl_test_redis_address() + strlen("unix:"));
    CU_ASSERT_FATAL(c != NULL && c->err == 0);
    redisReply *keys = redisCommand(c, "KEYS rl:*");
    CU_ASSERT_FATAL(keys && keys->type == REDIS_REPLY_ARRAY && keys->elements == 1);
    char name[128];
    snprintf(name, sizeof name, "%s", keys->element[0]->str);
    freeReplyObject(keys);
    long long members = 2;
    for (int waited = 0; waited < 300 && members == 2; waited += 5) {
        rl_test_sleep_ms(5);
        redisReply *reply = redisCommand(c, "ZCARD %s", name);
        members = reply && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
        if (reply)
            freeReplyObject(reply);
    }
    CU_ASSERT_EQUAL(members, 1);
    redisFree(c);
    algo->destroy(state);
}

/* ---- packed state and expiry ------------------------------------------------ */

/* One command on c with the key spliced in as %s (a key name is never read
 * as a format); the reply, to free. */
static redisReply *key_command(redisContext *c, const char *format, const char *key)
{
    redisReply *reply = redisCommand(c, format, key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(reply);
    return reply;
}

static long long key_integer(redisContext *c, const char *format, const char *key)
{
    redisReply *reply = key_command(c, format, key);
    long long value = reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
    freeReplyObject(reply);
    return value;
}

/* The bucket scripts and the virtual-time window keep their state packed
 * (struct doubles). A key that holds anything else, such as the state the
 * previous version of each script wrote (gcra: the TAT in decimal, which
 * is longer than 8 bytes and would unpack to a wrong number; the bucket
 * and the sliding counter: a hash; the window: a decimal counter), is an error, never a decision;
 * once it is gone the key starts afresh, and every write carries its own
 * expiry (PX). Keys are per instance, so no script ever meets another
 * version's state on its own: this is the guard if it did. */
static void test_packed_state_edges(void)
{
    static const struct {
        const char *algo, *plant, *plant_arg; /* a command that leaves the old state */
        long long packed_len;
    } cases[] = {
        {"redis_gcra", "SET %s %s", "1000000000000", 8},
        {"redis_token_bucket", "HSET %s tokens 3000 last 0", NULL, 16},
        {"redis_token_bucket_servertime", "HSET %s tokens 3000 last 0", NULL, 16},
        {"redis_fixed_window", "SET %s %s", "2", 16},
        {"redis_sliding_counter", "HSET %s w 0 curr 0 prev 0", NULL, 24},
    };
    redisContext *c = redisConnectUnix(rl_test_redis_address() + strlen("unix:"));
    CU_ASSERT_FATAL(c != NULL && c->err == 0);
    struct rl_clock clock;
    char err[256];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + 5000);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct rl_algo *algo = rl_registry_find(cases[i].algo);
        struct rl_config cfg = {.limit = 3,
                                .interval_ns = 3000,
                                .epoch_ns = RL_VIRTUAL_ORIGIN_NS,
                                .remote = rl_test_redis_address(),
                                .virtual_time = true};
        void *state = algo->create(&cfg, err, sizeof err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(state);
        char key[128];
        rl_redis_key(*(struct rl_redis **)state, 3, NULL, key, sizeof key);
        redisReply *planted = cases[i].plant_arg
                                  ? redisCommand(c, cases[i].plant, key, cases[i].plant_arg)
                                  : redisCommand(c, cases[i].plant, key);
        CU_ASSERT_FATAL(planted != NULL && planted->type != REDIS_REPLY_ERROR);
        freeReplyObject(planted);
        EXPECT(algo->acquire(state, &clock, 3, 1) == RL_ERROR, "%s on old state: not an error",
               cases[i].algo);
        CU_ASSERT(strstr(rl_redis_last_error(), "redis error") != NULL);
        CU_ASSERT_EQUAL(key_integer(c, "DEL %s", key), 1);
        EXPECT(algo->acquire(state, &clock, 3, 1) == RL_ADMIT, "%s afresh: %s", cases[i].algo,
               rl_redis_last_error());
        CU_ASSERT_EQUAL(key_integer(c, "STRLEN %s", key), cases[i].packed_len);
        long long ttl = key_integer(c, "PTTL %s", key);
        EXPECT(ttl > 0, "%s: the write left PTTL %lld", cases[i].algo, ttl);
        algo->destroy(state);
    }
    redisFree(c);
}

/* The window on real time: its first admit opens it with SET n PX I, the
 * admits within it add with INCRBY and keep that expiry (the window ends I
 * after its first admit, as fw_expiry's), and once the key expires the
 * next admit opens a fresh window. */
static void test_fixed_window_one_expiry(void)
{
    const struct rl_algo *algo;
    struct rl_clock clock;
    void *state = realtime_limiter("redis_fixed_window", &algo, &clock);
    char key[128];
    rl_redis_key(*(struct rl_redis **)state, 4, NULL, key, sizeof key);
    redisContext *c = redisConnectUnix(rl_test_redis_address() + strlen("unix:"));
    CU_ASSERT_FATAL(c != NULL && c->err == 0);

    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 4, 1), RL_ADMIT);
    long long opened = key_integer(c, "PTTL %s", key);
    CU_ASSERT(opened > 0 && opened <= 200);
    rl_test_sleep_ms(60);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 4, 2), RL_ADMIT);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 4, 1), RL_REJECT); /* 3 of 3 */
    long long kept = key_integer(c, "PTTL %s", key);
    EXPECT(kept > 0 && kept <= opened - 50,
           "PTTL %lld after the window's second admit, %lld "
           "after its first: the expiry moved",
           kept, opened);
    redisReply *count = key_command(c, "GET %s", key);
    CU_ASSERT(count->type == REDIS_REPLY_STRING && strcmp(count->str, "3") == 0);
    freeReplyObject(count);

    long long exists = 1;
    for (int waited = 0; waited < 1000 && exists == 1; waited += 10) {
        rl_test_sleep_ms(10);
        exists = key_integer(c, "EXISTS %s", key);
    }
    CU_ASSERT_EQUAL(exists, 0);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 4, 3), RL_ADMIT); /* a fresh window */
    CU_ASSERT(key_integer(c, "PTTL %s", key) > 0);
    redisFree(c);
    algo->destroy(state);
}

/* The sliding log's refusal is one read (ZCOUNT): it leaves the members
 * it does not count in the set; the next admit trims them, then adds.
 * L = 2, I = 10 µs: admits at 0 and 5 µs fill the window; at 12 µs, n = 2
 * is refused (the 5 µs member still counts) and the 0 µs member stays;
 * n = 1 is then admitted and the 0 µs member goes. */
static void test_sliding_log_refusal_reads_only(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_sliding_log");
    struct rl_clock clock;
    char err[256];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    struct rl_config cfg = {.limit = 2,
                            .interval_ns = 10000,
                            .epoch_ns = RL_VIRTUAL_ORIGIN_NS,
                            .remote = rl_test_redis_address(),
                            .virtual_time = true};
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    char key[128];
    rl_redis_key(*(struct rl_redis **)state, 5, NULL, key, sizeof key);
    redisContext *c = redisConnectUnix(rl_test_redis_address() + strlen("unix:"));
    CU_ASSERT_FATAL(c != NULL && c->err == 0);
    rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 5, 1), RL_ADMIT);
    rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + 5000);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 5, 1), RL_ADMIT);
    rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + 12000);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 5, 2), RL_REJECT);
    EXPECT(key_integer(c, "ZCARD %s", key) == 2, "the refusal trimmed the set: %lld members",
           key_integer(c, "ZCARD %s", key));
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 5, 1), RL_ADMIT);
    CU_ASSERT_EQUAL(key_integer(c, "ZCARD %s", key), 2); /* 5 and 12 µs */
    CU_ASSERT_EQUAL(key_integer(c, "ZCOUNT %s -inf 2000", key), 0);
    redisFree(c);
    algo->destroy(state);
}

/* The window on real time compares the counter and L − n as decimal text
 * (no tonumber): by length first, so 100 is above 99 and 9 below 10,
 * which plain string order gets wrong. L = 100, I = 10 s (no window ends
 * here). */
static void test_fixed_window_compares_text_by_length(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_fixed_window");
    struct rl_clock clock;
    char err[256];
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    struct rl_config cfg = {.limit = 100,
                            .interval_ns = 10000 * MS,
                            .remote = rl_test_redis_address(),
                            .epoch_ns = rl_clock_now(&clock)};
    void *state = algo->create(&cfg, err, sizeof err);
    EXPECT_FATAL(state != NULL, "%s", err);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 6, 95), RL_ADMIT);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 6, 6), RL_REJECT); /* 95 > 94 */
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 6, 5), RL_ADMIT);  /* 95 = 95 */
    EXPECT(algo->acquire(state, &clock, 6, 1) == RL_REJECT, "100 of 100 held, one more admitted");
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 7, 9), RL_ADMIT);
    EXPECT(algo->acquire(state, &clock, 7, 90) == RL_ADMIT, "9 of 100 held, 90 more refused");
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 7, 1), RL_ADMIT); /* 99 + 1 = 100 */
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 7, 1), RL_REJECT);
    algo->destroy(state);
}

/* Last: the suite's server goes, and nothing of it is left. */
static void test_stop_server(void)
{
    char address[4200];
    snprintf(address, sizeof address, "%s", rl_test_redis_address());
    rl_test_redis_stop();
    char err[256];
    CU_ASSERT_EQUAL(rl_redis_ping(address, err, sizeof err), -1);
}

RL_TEST_SUITE(
    "redis", {"fixed window: GET, SET PX or INCRBY, fw_expiry's steps", test_fixed_window_steps},
    {"fixed window: counter and L - n compared as text, by length first",
     test_fixed_window_compares_text_by_length},
    {"sliding log: trimmed sorted set, sliding_log's steps", test_sliding_log_steps},
    {"sliding log scan: stricter between KEYS cleanups", test_sliding_log_scan_steps},
    {"sliding log: a refusal reads, the next admit trims", test_sliding_log_refusal_reads_only},
    {"tb_article: floored refills lose fractions", test_tb_article_steps},
    {"exact buckets and GCRA: tb_mutex's steps", test_exact_bucket_steps},
    {"sliding counter: sliding_counter's steps", test_sliding_counter_steps},
    {"NOSCRIPT after SCRIPT FLUSH: reload, retry once", test_noscript_reloads},
    {"redis_token_bucket = tb_mutex on seeded traces", test_token_bucket_equals_tb_mutex},
    {"redis_token_bucket_servertime = tb_mutex in sim", test_servertime_equals_tb_mutex},
    {"redis_gcra = gcra_cas on seeded traces", test_gcra_equals_gcra_cas},
    {"redis_sliding_counter = sliding_counter", test_sliding_counter_equals_local},
    {"redis_sliding_log = sliding_log", test_sliding_log_equals_local},
    {"redis_fixed_window = fw_expiry (n <= L)", test_fixed_window_equals_fw_expiry},
    {"tb_article = a C transcription of the article", test_tb_article_equals_transcription},
    {"tb_article under-admits at 80% of the rate", test_tb_article_under_admits},
    {"create: no server, bogus addresses, 2^53 bounds", test_create_errors},
    {"real time: decisions, refill, expiry, then the server killed", test_real_time_then_killed},
    {"sim on a dead server: every attempt an error", test_sim_counts_errors},
    {"four threads, one instance, own connections", test_threads_share_an_instance},
    {"scan cleaner thread removes old members", test_scan_cleaner_thread},
    {"packed state: another format is an error; writes carry PX", test_packed_state_edges},
    {"fixed window on real time: SET PX opens, INCRBY keeps it", test_fixed_window_one_expiry},
    {"the suite's server stops", test_stop_server})
