/* test_fixed_window.c — the fixed-window family and the baselines on
 * hand-worked sequences in virtual time (L = 3 per 1000 ns unless noted). */
#include "tests/support/decide.h"
#include "tests/support/test_util.h"

#include <string.h>

#define I 1000

/* The C++ article's steps agree on one thread, so one table serves all six. */
static const char *const article_steps[] = {"fw_plain", "fw_atomic_naive", "fw_cas_nofirst",
                                            "fw_cas",   "fw_cas_acqrel",   "fw_mutex"};
#define FOR_EACH_ARTICLE_STEP(name)                                                                \
    for (size_t i_ = 0; i_ < sizeof article_steps / sizeof *article_steps; i_++)                   \
        for (const char *name = article_steps[i_]; name; name = NULL)

static void test_article_first_window_and_restart(void)
{
    FOR_EACH_ARTICLE_STEP(name)
    {
        rl_expect_decisions(name, 3, I, 0,
                            RL_STEPS({0, 1, 'A'}, /* the sentinels start the first window */
                                     {1, 1, 'A'}, {2, 1, 'A'},
                                     {3, 1, 'R'},    /* over L inside the window */
                                     {999, 1, 'R'},  /* 999 ns after the start: still open */
                                     {1000, 1, 'A'}, /* I after the start: restarts here */
                                     {1001, 1, 'A'}, {1002, 1, 'A'}, {1003, 1, 'R'},
                                     {50000, 1, 'A'}, /* long idle gap: one restart, no debt */
                                     {50001, 1, 'A'}, {50002, 1, 'A'}, {50003, 1, 'R'}));
    }
}

/* The window restarts only on an over-limit attempt: 1400 still uses the
 * window opened at 0 (its third ticket), 1500 opens the next one. So
 * [1400, 2400) admits 4 = L + 1: ≤ L per own window, ≤ 2L sliding. */
static void test_article_restart_is_lazy(void)
{
    FOR_EACH_ARTICLE_STEP(name)
    {
        rl_expect_decisions(name, 3, I, 0,
                            RL_STEPS({0, 1, 'A'}, {500, 1, 'A'}, {1400, 1, 'A'}, {1500, 1, 'A'},
                                     {1600, 1, 'A'}, {1700, 1, 'A'}, {1800, 1, 'R'}, {2499, 1, 'R'},
                                     {2500, 1, 'A'}));
    }
}

/* L = 5. A rejected attempt's cost stays in the count (fetch-add first), so
 * after 3 + (3 rejected) even 2 is refused until the window restarts. */
static void test_article_costs(void)
{
    FOR_EACH_ARTICLE_STEP(name)
    {
        rl_expect_decisions(name, 5, I, 0,
                            RL_STEPS({0, 3, 'A'}, {1, 3, 'R'}, {2, 2, 'R'},
                                     {3, 6, 'R'}, /* n > L: refused, touches nothing */
                                     {1000, 2, 'A'}, {1001, 3, 'A'}, {1002, 1, 'R'}));
    }
}

/* The fast path does not look at the clock: three admits, one read. */
static void test_article_reads_clock_lazily(void)
{
    uint64_t reads =
        rl_expect_decisions("fw_cas", 3, I, 0, RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}));
    CU_ASSERT_EQUAL(reads, 1);
    reads =
        rl_expect_decisions("fw_expiry", 3, I, 0, RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}));
    CU_ASSERT_EQUAL(reads, 3);
}

/* The window starts at the first attempt after expiry, admitted or not:
 * 1400 opens a new window (unlike the article's, above). Expiry is the .NET
 * cache counter's, now − begin ≥ I: 1000 opens a new window. */
static void test_expiry(void)
{
    rl_expect_decisions("fw_expiry", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}, {3, 1, 'R'}, {999, 1, 'R'},
                                 {1000, 1, 'A'}, {1001, 1, 'A'}, {1002, 1, 'A'}, {1003, 1, 'R'},
                                 {50000, 1, 'A'}));
    rl_expect_decisions("fw_expiry", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {500, 1, 'A'}, {1400, 1, 'A'}, {1500, 1, 'A'},
                                 {1600, 1, 'A'}, {1700, 1, 'R'}, {2399, 1, 'R'}, {2400, 1, 'A'}));
    /* L = 5: a rejected attempt costs nothing here. */
    rl_expect_decisions("fw_expiry", 5, I, 0,
                        RL_STEPS({0, 3, 'A'}, {1, 3, 'R'}, {2, 2, 'A'}, {3, 1, 'R'}, {4, 6, 'R'}));
}

/* fw_expiry is not Linux's ___ratelimit, whose window [begin, begin + I]
 * is one tick longer (fw_trylock's, tests/conformance/linux): with whole
 * ticks of 1000 ns (jiffies at HZ = 10^6) the two part only at
 * now − begin = I, where the kernel is still in the old window. */
static void test_expiry_is_not_linux(void)
{
    rl_expect_decisions("fw_expiry", 1, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1000, 1, 'A'}, /* .NET: expired at I */
                                 {2000, 1, 'A'}, {2999, 1, 'R'}, {3000, 1, 'A'}));
    rl_expect_decisions("fw_trylock", 1, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1000, 1, 'R'}, /* Linux: not yet */
                                 {2000, 1, 'A'}, {2999, 1, 'R'}, {3000, 1, 'R'}, {4000, 1, 'A'}));
    /* `ratelab list` claims Linux only for the algorithm that decides as it. */
    const char *summary = rl_registry_find("fw_expiry")->summary;
    CU_ASSERT_PTR_NULL(strstr(summary, "Linux"));
    CU_ASSERT_PTR_NULL(strstr(summary, "ratelimit"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rl_registry_find("fw_trylock")->summary, "___ratelimit"));
}

/* Windows are [k·I, (k+1)·I) from the epoch: 999 and 1000 are in different
 * windows, so [500, 1500) admits 5 = L + 2 (weak holds, strong does not). */
static void test_aligned(void)
{
    rl_expect_decisions("fw_aligned", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}, {3, 1, 'R'}, {999, 1, 'R'},
                                 {1000, 1, 'A'}, {1001, 1, 'A'}, {1002, 1, 'A'}, {1003, 1, 'R'},
                                 {50000, 1, 'A'}, {50999, 1, 'A'}, {51000, 1, 'A'}));
    rl_expect_decisions("fw_aligned", 3, I, 0,
                        RL_STEPS({500, 1, 'A'}, {998, 1, 'A'}, {1000, 1, 'A'}, {1001, 1, 'A'},
                                 {1002, 1, 'A'}, {1003, 1, 'R'}));
    /* L = 5, costs; then time going backwards into a closed window. */
    rl_expect_decisions("fw_aligned", 5, I, 0,
                        RL_STEPS({0, 3, 'A'}, {1, 3, 'R'}, {2, 2, 'A'}, {3, 1, 'R'}, {1000, 6, 'R'},
                                 {1000, 5, 'A'},
                                 {999, 1, 'R'})); /* window 0 had room, but it is closed */
}

static void test_baselines(void)
{
    rl_expect_decisions("null", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {0, 1, 'A'}, {0, 1, 'A'}, {0, 1, 'A'}));
    /* faa admits the first L units ever and never refills. */
    uint64_t reads = rl_expect_decisions(
        "faa", 3, I, 0, RL_STEPS({0, 1, 'A'}, {1, 2, 'A'}, {2, 1, 'R'}, {5000, 1, 'R'}));
    CU_ASSERT_EQUAL(reads, 0);
    reads = rl_expect_decisions("clock_faa", 3, I, 0,
                                RL_STEPS({0, 1, 'A'}, {1, 2, 'A'}, {2, 1, 'R'}, {5000, 1, 'R'}));
    CU_ASSERT_EQUAL(reads, 4);
}

/* Every registered name is unique and every entry is complete. */
static void test_registry(void)
{
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        CU_ASSERT_PTR_NOT_NULL((*a)->summary);
        CU_ASSERT_PTR_NOT_NULL((*a)->create);
        CU_ASSERT_PTR_NOT_NULL((*a)->acquire);
        CU_ASSERT_PTR_EQUAL(rl_registry_find((*a)->name), *a);
        if ((*a)->flags & RL_NEEDS_RELEASE)
            CU_ASSERT_PTR_NOT_NULL((*a)->release);
    }
    CU_ASSERT_PTR_NULL(rl_registry_find("no_such_algorithm"));
}

RL_TEST_SUITE("fixed_window",
              {"article steps: first window, restart, idle gap",
               test_article_first_window_and_restart},
              {"article steps: restart only on an over-limit attempt",
               test_article_restart_is_lazy},
              {"article steps: costs n > 1 and n > L", test_article_costs},
              {"fw_cas reads the clock only on its slow path", test_article_reads_clock_lazily},
              {"fw_expiry: window from the first attempt after expiry", test_expiry},
              {"fw_expiry: a tick before Linux's", test_expiry_is_not_linux},
              {"fw_aligned: epoch-aligned windows, closed windows", test_aligned},
              {"baselines null, faa, clock_faa", test_baselines},
              {"registry entries complete and unique", test_registry})
