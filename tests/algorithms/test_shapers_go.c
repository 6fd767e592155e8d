/* test_shapers_go.c — the Go peers' shapers in virtual time: xrate_wait
 * (x/time/rate ReserveN / WaitN with a deadline / CancelAt, including the
 * cancel table the conformance driver runs through the real package) and
 * juju_wait (juju/ratelimit's whole-tick Take / TakeMaxDuration). */
#include "tests/support/random_trace.h"
#include "tests/support/shape_steps.h"
#include "tests/support/test_util.h"
#include "harness/sys/clock.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull
#define S  1000000000ull

/* ---- xrate_wait ---- */

static void test_xrate_table(void)
{
    /* T = 100 ms, B = 3. Idle then burst: B at once, then one per T (tokens
     * negative); a deadline shorter than the wait refuses and changes
     * nothing; n > B is refused even with no deadline */
    rl_expect_shaped("xrate_wait", 10, S, 3,
                     RL_SHAPE_STEPS({5 * S, 1, WAIT_ANY, 'A', 5 * S}, {5 * S, 2, 0, 'A', 5 * S},
                                    {5 * S, 1, WAIT_ANY, 'A', 5 * S + 100 * MS},
                                    {5 * S, 1, 199 * MS, 'R', 0}, {5 * S, 4, WAIT_ANY, 'R', 0},
                                    {5 * S, 1, 200 * MS, 'A', 5 * S + 200 * MS},
                                    {5 * S + 50 * MS, 2, WAIT_ANY, 'A', 5 * S + 400 * MS},
                                    /* idle again: the bucket refills to B, not beyond */
                                    {60 * S, 3, 0, 'A', 60 * S}, {60 * S, 1, 0, 'R', 0}));
    /* T = 1/3 s is no whole ns: releases are the exact times rounded up */
    rl_expect_shaped("xrate_wait", 3, S, 1,
                     RL_SHAPE_STEPS({0, 1, WAIT_ANY, 'A', 0}, {0, 1, WAIT_ANY, 'A', 333333334},
                                    {0, 1, 666666666, 'R', 0}, {0, 1, 666666667, 'A', 666666667}));
}

static void test_xrate_decides_as_gcra_spacer(void)
{
    /* without cancellations x/time's reservations are GCRA's virtual
     * schedule: every decision and release as gcra_spacer, and acquire (no
     * wait) as tb_mutex */
    const struct rl_algo *x = rl_registry_find("xrate_wait");
    const struct rl_algo *g = rl_registry_find("gcra_spacer");
    const struct rl_algo *m = rl_registry_find("tb_mutex");
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct rl_config cfg;
        struct rl_trace trace;
        const struct rl_test_trace_shape shape = {.salt = 27, .burst = true, .odd_intervals = true};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
        char err[256];
        void *a = x->create(&cfg, err, sizeof err), *b = g->create(&cfg, err, sizeof err);
        void *c = x->create(&cfg, err, sizeof err), *d = m->create(&cfg, err, sizeof err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        struct rl_clock clock;
        rl_clock_init(&clock, "virtual", err, sizeof err);
        uint64_t T = cfg.interval_ns / cfg.limit + 1;
        for (size_t i = 0; b && i < trace.len; i++) {
            rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + trace.attempts[i].t_ns);
            uint64_t n = trace.attempts[i].n, wait = i % 3 == 0 ? WAIT_ANY : (i % 7) * T;
            struct rl_reservation ra = {0}, rb = {0};
            enum rl_decision p = x->shape(a, &clock, 0, n, wait, &ra);
            enum rl_decision q = g->shape(b, &clock, 0, n, wait, &rb);
            if (q == RL_ERROR)
                break; /* past gcra_spacer's 64-bit horizon */
            EXPECT_FATAL(p == q && (p != RL_ADMIT || ra.release_ns == rb.release_ns),
                         "seed %llu attempt %zu: xrate_wait %d at %llu, gcra_spacer %d at %llu",
                         (unsigned long long)seed, i, (int)p, (unsigned long long)ra.release_ns,
                         (int)q, (unsigned long long)rb.release_ns);
        }
        for (size_t i = 0; i < trace.len; i++) {
            rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + trace.attempts[i].t_ns);
            enum rl_decision p = x->acquire(c, &clock, 0, trace.attempts[i].n);
            enum rl_decision q = m->acquire(d, &clock, 0, trace.attempts[i].n);
            EXPECT_FATAL(p == q, "seed %llu attempt %zu: xrate_wait acquire %d, tb_mutex %d",
                         (unsigned long long)seed, i, (int)p, (int)q);
        }
        x->destroy(a);
        x->destroy(c);
        m->destroy(d);
        if (b)
            g->destroy(b);
        rl_trace_free(&trace);
    }
}

/* The cancel table (tests/conformance/go_wait/cancel_table.csv), found from
 * the working directory or beside the test binary's build/. */
static FILE *open_cancel_table(void)
{
    const char *rel = "tests/conformance/go_wait/cancel_table.csv";
    FILE *f = fopen(rel, "r");
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (f == NULL && len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(path, sizeof path, "%s/../%s", exe, rel);
            f = fopen(path, "r");
        }
    }
    return f;
}

#define TABLE_IDS 32

static void test_xrate_cancel_table(void)
{
    FILE *f = open_cancel_table();
    EXPECT_FATAL(f != NULL, "tests/conformance/go_wait/cancel_table.csv not found");
    struct rl_test_shaper sh = {0};
    char ids[TABLE_IDS][16];
    struct rl_reservation held[TABLE_IDS];
    uint64_t held_n[TABLE_IDS];
    size_t n_ids = 0, rows = 0;
    char line[256];
    for (unsigned lineno = 1; fgets(line, sizeof line, f); lineno++) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *field[8] = {0};
        size_t nf = 0;
        for (char *p = line; p && nf < 8; nf++) {
            field[nf] = p;
            p = strchr(p, ',');
            if (p)
                *p++ = '\0';
        }
        if (strcmp(field[0], "limiter") == 0) {
            if (sh.state)
                rl_test_shaper_close(&sh);
            const struct rl_config cfg = {.limit = strtoull(field[1], NULL, 10),
                                          .interval_ns = strtoull(field[2], NULL, 10),
                                          .burst = strtoull(field[3], NULL, 10)};
            rl_test_shaper_open(&sh, "xrate_wait", &cfg);
            n_ids = 0;
            continue;
        }
        EXPECT_FATAL(sh.state != NULL && nf >= 3, "cancel_table.csv:%u: no limiter", lineno);
        uint64_t t = strtoull(field[1], NULL, 10);
        size_t id = 0;
        while (id < n_ids && strcmp(ids[id], field[2]) != 0)
            id++;
        rows++;
        if (strcmp(field[0], "reserve") == 0) {
            EXPECT_FATAL(nf == 7 && id < TABLE_IDS, "cancel_table.csv:%u: bad reserve", lineno);
            uint64_t n = strtoull(field[3], NULL, 10);
            uint64_t wait = field[4][0] ? strtoull(field[4], NULL, 10) : WAIT_ANY;
            struct rl_reservation r;
            char got = rl_test_shaper_take(&sh, t, n, wait, &r);
            uint64_t at = r.release_ns - RL_VIRTUAL_ORIGIN_NS;
            EXPECT(got == field[5][0] && (got != 'A' || at == strtoull(field[6], NULL, 10)),
                   "cancel_table.csv:%u: expected %s at %s, xrate_wait gave %c at %llu", lineno,
                   field[5], field[6], got, (unsigned long long)at);
            if (id == n_ids) {
                snprintf(ids[n_ids], sizeof ids[n_ids], "%s", field[2]);
                n_ids++;
            }
            held[id] = r;
            held_n[id] = n;
        } else if (strcmp(field[0], "setlimit") == 0) { /* setlimit,t_ns,L,I_ns */
            EXPECT_FATAL(nf == 4, "cancel_table.csv:%u: bad setlimit", lineno);
            rl_clock_set_virtual(&sh.clock, RL_VIRTUAL_ORIGIN_NS + t);
            EXPECT(sh.algo->set_rate(sh.state, &sh.clock, strtoull(field[2], NULL, 10),
                                     strtoull(field[3], NULL, 10)),
                   "cancel_table.csv:%u: set_rate refused", lineno);
        } else {
            EXPECT_FATAL(strcmp(field[0], "cancel") == 0 && id < n_ids,
                         "cancel_table.csv:%u: bad row", lineno);
            rl_clock_set_virtual(&sh.clock, RL_VIRTUAL_ORIGIN_NS + t);
            sh.algo->cancel(sh.state, &sh.clock, 0, held_n[id], &held[id]);
        }
    }
    fclose(f);
    if (sh.state)
        rl_test_shaper_close(&sh);
    EXPECT(rows >= 20, "cancel_table.csv: only %zu rows", rows);
}

static void test_xrate_cancel_returns(void)
{
    /* cancel says whether it gave something back */
    struct rl_test_shaper sh;
    rl_test_shaper_open(&sh, "xrate_wait",
                        &(const struct rl_config){.limit = 10, .interval_ns = S, .burst = 1});
    struct rl_reservation a, b, c;
    CU_ASSERT_EQUAL(rl_test_shaper_take(&sh, 0, 1, WAIT_ANY, &a), 'A');
    CU_ASSERT_EQUAL(rl_test_shaper_take(&sh, 0, 1, WAIT_ANY, &b), 'A');
    CU_ASSERT_EQUAL(rl_test_shaper_take(&sh, 0, 1, WAIT_ANY, &c), 'A');
    rl_clock_set_virtual(&sh.clock, RL_VIRTUAL_ORIGIN_NS + 10 * MS);
    CU_ASSERT_FALSE(sh.algo->cancel(sh.state, &sh.clock, 0, 1, &b)); /* c came after it */
    CU_ASSERT_TRUE(sh.algo->cancel(sh.state, &sh.clock, 0, 1, &c));
    CU_ASSERT_FALSE(sh.algo->cancel(sh.state, &sh.clock, 0, 1, &a)); /* released at 0 */
    rl_test_shaper_close(&sh);
}

/* ---- juju_wait ---- */

static void test_juju_ticks(void)
{
    /* L = 3 per s: quantum 3 every 1 s tick (g = gcd(3, 1e9) = 1), B = 3.
     * Tokens arrive whole ticks at a time: a wait ends on a tick; a max
     * wait below it takes nothing; n = 0 goes untouched */
    rl_expect_shaped(
        "juju_wait", 3, S, 3,
        RL_SHAPE_STEPS({0, 3, 0, 'A', 0}, {100 * MS, 1, WAIT_ANY, 'A', 1 * S},
                       {200 * MS, 2, 0, 'R', 0}, {200 * MS, 0, 0, 'A', 200 * MS},
                       {200 * MS, 2, 799 * MS, 'R', 0}, {200 * MS, 2, 800 * MS, 'A', 1 * S},
                       {1 * S + 1, 1, WAIT_ANY, 'A', 2 * S}, {1 * S + 2, 2, 0, 'R', 0}));
    /* L = 10 per s: quantum 1 every 100 ms; idle then burst: B at once, then
     * one a tick; n > B goes into debt (Take never refuses) */
    rl_expect_shaped("juju_wait", 10, S, 4,
                     RL_SHAPE_STEPS({30 * S + 50 * MS, 4, 0, 'A', 30 * S + 50 * MS},
                                    {30 * S + 50 * MS, 1, WAIT_ANY, 'A', 30 * S + 100 * MS},
                                    {30 * S + 50 * MS, 1, WAIT_ANY, 'A', 30 * S + 200 * MS},
                                    {30 * S + 250 * MS, 6, WAIT_ANY, 'A', 30 * S + 800 * MS},
                                    {30 * S + 250 * MS, 1, 649 * MS, 'R', 0},
                                    {30 * S + 250 * MS, 1, 650 * MS, 'A', 30 * S + 900 * MS},
                                    {90 * S, 4, 0, 'A', 90 * S}, {90 * S, 1, 0, 'R', 0}));
}

static void test_juju_no_bonus_tokens(void)
{
    /* juju/ratelimit #30: a bucket full for many ticks, then emptied,
     * must not refill by the ticks it spent full (1.0.1 does: its second
     * Take at the same tick is admitted at once) */
    rl_expect_shaped("juju_wait", 10, S, 5,
                     RL_SHAPE_STEPS({5 * S, 5, 0, 'A', 5 * S}, {5 * S, 1, 0, 'R', 0},
                                    {5 * S, 1, WAIT_ANY, 'A', 5 * S + 100 * MS}));
}

static void test_juju_stale_read(void)
{
    /* a read before the latest tick gains nothing, takes nothing back and
     * is never released before its own time or the bucket's next tick */
    rl_expect_shaped("juju_wait", 10, S, 2,
                     RL_SHAPE_STEPS({1 * S, 2, 0, 'A', 1 * S},
                                    {950 * MS, 1, WAIT_ANY, 'A', 1 * S + 100 * MS},
                                    {1 * S + 100 * MS, 1, WAIT_ANY, 'A', 1 * S + 200 * MS}));
}

RL_TEST_SUITE("shapers_go",
              {"xrate_wait: idle then burst, deadlines, n > B, T not whole ns", test_xrate_table},
              {"xrate_wait: decides as gcra_spacer (shape) and tb_mutex (acquire)",
               test_xrate_decides_as_gcra_spacer},
              {"xrate_wait: the cancel table x/time/rate meets (CancelAt, SetLimitAt)",
               test_xrate_cancel_table},
              {"xrate_wait: cancel says whether it gave back", test_xrate_cancel_returns},
              {"juju_wait: whole ticks, quantum, max wait, n = 0, debt", test_juju_ticks},
              {"juju_wait: no bonus tokens after full (juju/ratelimit #30)",
               test_juju_no_bonus_tokens},
              {"juju_wait: a stale read is never early", test_juju_stale_read})
