/* test_stress.c — threaded closed-loop runs of the thread-safe algorithms,
 * checked from the recorded log (see stress_check.c for which bounds are
 * sound). Run again under ThreadSanitizer by `make test`. */
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"

#include <stdio.h>

#define L   200
#define I   20000000u  /* 20 ms: far above the stamp uncertainty (µs) */
#define RUN 200000000u /* 200 ms: 10 windows */

/* The correct `window` limiters: ≤ L per own window, whatever the threads. */
static void test_window_family_holds(void)
{
    static const char *const names[] = {"fw_cas", "fw_cas_acqrel", "fw_mutex", "fw_expiry"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct rl_stress_verdict v;
        rl_stress_checked(names[i], 2, L, I, RUN, &v);
        char msg[200];
        snprintf(msg, sizeof msg, "%s: %llu admits over a bound of %llu (first window %llu)",
                 names[i], (unsigned long long)v.admits, (unsigned long long)v.window_bound,
                 (unsigned long long)v.first_window_admits);
        EXPECT(v.admits <= v.window_bound, "%s", msg);
        EXPECT(v.first_window_admits <= L, "%s", msg);
        CU_ASSERT(v.m.certain_max_sliding <= 2 * L);
        CU_ASSERT(v.admits >= L); /* it did admit: the run was not vacuous */
    }
}

/* fw_aligned promises weak: ≤ L in every epoch-aligned window, judged on
 * the admits whose stamps certainly lie in their window (stress_check.h). */
static void test_aligned_holds(void)
{
    struct rl_stress_verdict v;
    rl_stress_checked("fw_aligned", 2, L, I, RUN, &v);
    CU_ASSERT(v.certain_max_aligned <= L);
    CU_ASSERT(v.certain_max_aligned > 0); /* not vacuous */
    CU_ASSERT(v.admits >= L);
}

/* Baselines: the accounting invariants hold for them too. */
static void test_baselines_account(void)
{
    struct rl_stress_verdict v;
    rl_stress_checked("faa", 2, L, I, 50000000u, &v);
    CU_ASSERT_EQUAL(v.admits, L); /* faa never refills */
    rl_stress_checked("clock_faa", 2, L, I, 50000000u, &v);
    CU_ASSERT_EQUAL(v.admits, L);
}

RL_TEST_SUITE("stress",
              {"window limiters keep ≤ L per own window (2 threads)", test_window_family_holds},
              {"fw_aligned keeps ≤ L per aligned window (2 threads)", test_aligned_holds},
              {"faa and clock_faa account for every attempt", test_baselines_account})
