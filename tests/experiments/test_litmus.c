/* test_litmus.c — the litmus runner: each row's note follows its count, and
 * the outcomes the hardware must never
 * show stay at zero (SB at seq_cst; MP at every order on x86-64), and on
 * x86-64 SB's r0=r1=0 at the orders TSO allows it (relaxed, acq_rel) shows:
 * it needs the two threads to overlap, so a harness whose threads never run
 * at once fails there instead of passing on zeros. The counts are printed. */
#include "tests/support/test_util.h"
#include "harness/experiments/litmus.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TRIALS 100000

static void run(enum rl_litmus_test test, enum rl_litmus_order order, struct rl_litmus_result *r)
{
    char err[256] = "";
    int rc = rl_litmus_run(test, order, TRIALS, r, err, sizeof err);
    EXPECT_FATAL(rc == 0, "%s %s: %s", rl_litmus_test_name(test), rl_litmus_order_name(order), err);
    uint64_t sum = r->outcome[0][0] + r->outcome[0][1] + r->outcome[1][0] + r->outcome[1][1];
    EXPECT_EQ(sum, TRIALS);
}

static void show(const struct rl_litmus_result *r)
{
    printf("\n    litmus %s %-28s: non_sc %llu of %llu (r00 %llu r01 %llu r10 %llu r11 %llu)%s",
           rl_litmus_test_name(r->test), rl_litmus_order_name(r->order),
           (unsigned long long)r->non_sc, (unsigned long long)r->trials,
           (unsigned long long)r->outcome[0][0], (unsigned long long)r->outcome[0][1],
           (unsigned long long)r->outcome[1][0], (unsigned long long)r->outcome[1][1],
           r->pinned ? "" : " (not pinned)");
}

/* Runs of TRIALS per CPU before "not observed" is a failure: a quiet
 * 2-CPU machine shows a few hundred r0=r1=0 per run at relaxed; a busy one
 * overlaps the threads less, so more CPUs, more chances to meet. */
#define RUNS_PER_CPU 10

static void test_sb(void)
{
    struct rl_litmus_result r[RL_LITMUS_ORDERS];
    for (int o = 0; o < RL_LITMUS_ORDERS; o++)
        run(RL_LITMUS_SB, o, &r[o]);
    EXPECT(r[RL_LITMUS_SEQ_CST].non_sc == 0, "sb seq_cst showed r0=r1=0 %llu times",
           (unsigned long long)r[RL_LITMUS_SEQ_CST].non_sc);
#if defined(__x86_64__)
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
        printf("\n    skipped: one CPU, SB's threads cannot overlap: relaxed r0=r1=0 unchecked");
    } else {
        for (int o = 0; o < RL_LITMUS_ORDERS; o++) {
            if (!rl_litmus_allowed_tso(RL_LITMUS_SB, o))
                continue;
            long runs = 1;
            for (; r[o].non_sc == 0 && runs < RUNS_PER_CPU * cpus; runs++)
                run(RL_LITMUS_SB, o, &r[o]);
            EXPECT(r[o].non_sc > 0,
                   "sb %s: the race was not observed: no r0=r1=0 in %ld runs of %d trials on %ld "
                   "CPUs (x86-64's TSO allows it: the threads never overlapped?)",
                   rl_litmus_order_name(o), runs, TRIALS, cpus);
        }
    }
#endif
    for (int o = 0; o < RL_LITMUS_ORDERS; o++)
        show(&r[o]);
}

static void test_mp(void)
{
    struct rl_litmus_result r[RL_LITMUS_ORDERS];
    for (int o = 0; o < RL_LITMUS_ORDERS; o++)
        run(RL_LITMUS_MP, o, &r[o]);
#if defined(__x86_64__)
    for (int o = 0; o < RL_LITMUS_ORDERS; o++)
        EXPECT(r[o].non_sc == 0, "mp %s showed r0=1, r1=0 %llu times on x86-64",
               rl_litmus_order_name(o), (unsigned long long)r[o].non_sc);
#endif
    for (int o = 0; o < RL_LITMUS_ORDERS; o++)
        show(&r[o]);
}

static void test_models(void)
{
    CU_ASSERT(rl_litmus_allowed_c11(RL_LITMUS_SB, RL_LITMUS_ACQ_REL));
    CU_ASSERT(!rl_litmus_allowed_c11(RL_LITMUS_SB, RL_LITMUS_SEQ_CST));
    CU_ASSERT(rl_litmus_allowed_c11(RL_LITMUS_MP, RL_LITMUS_RELAXED));
    CU_ASSERT(!rl_litmus_allowed_c11(RL_LITMUS_MP, RL_LITMUS_ACQ_REL));
    CU_ASSERT(rl_litmus_allowed_tso(RL_LITMUS_SB, RL_LITMUS_RELAXED));
    CU_ASSERT(!rl_litmus_allowed_tso(RL_LITMUS_SB, RL_LITMUS_SEQ_CST));
    CU_ASSERT(!rl_litmus_allowed_tso(RL_LITMUS_MP, RL_LITMUS_RELAXED));
}

/* The note on a row, from fake counts: a count is "seen"; a 0 where this
 * CPU allows the outcome says the race did not happen in this run and
 * suggests the rerun; a 0 that only C11 allows is marked not observable
 * here (x86-64); a 0 at an order that forbids it says so. The labels name
 * each access's order. */
static void test_notes(void)
{
    struct rl_litmus_result r = {.test = RL_LITMUS_SB, .order = RL_LITMUS_RELAXED, .trials = 10};
    r.non_sc = 3;
    EXPECT(strcmp(rl_litmus_note(&r), "seen") == 0, "%s", rl_litmus_note(&r));
    r.non_sc = 0;
    EXPECT(strstr(rl_litmus_note(&r), "not seen in this run") != NULL &&
               strstr(rl_litmus_note(&r), "rerun") != NULL,
           "%s", rl_litmus_note(&r));
    r.order = RL_LITMUS_SEQ_CST;
    EXPECT(strstr(rl_litmus_note(&r), "forbidden") != NULL, "%s", rl_litmus_note(&r));
#if defined(__x86_64__)
    r.test = RL_LITMUS_MP;
    r.order = RL_LITMUS_RELAXED;
    EXPECT(strstr(rl_litmus_note(&r), "not observable here") != NULL, "%s", rl_litmus_note(&r));
    r.non_sc = 1;
    EXPECT(strstr(rl_litmus_note(&r), "a bug") != NULL, "%s", rl_litmus_note(&r));
#endif
    EXPECT(strcmp(rl_litmus_order_name(RL_LITMUS_ACQ_REL), "store release / load acquire") == 0,
           "%s", rl_litmus_order_name(RL_LITMUS_ACQ_REL));
    EXPECT(strcmp(rl_litmus_non_sc_outcome(RL_LITMUS_SB), "r0=0, r1=0") == 0, "%s",
           rl_litmus_non_sc_outcome(RL_LITMUS_SB));
    EXPECT(strcmp(rl_litmus_non_sc_outcome(RL_LITMUS_MP), "r0=1, r1=0") == 0, "%s",
           rl_litmus_non_sc_outcome(RL_LITMUS_MP));
}

RL_TEST_SUITE("litmus", {"models", test_models}, {"row notes, from fake counts", test_notes},
              {"sb", test_sb}, {"mp", test_mp})
