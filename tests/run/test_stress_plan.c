/* test_stress_plan.c — a stress plan is prepared once: its floors (faa
 * first), its refusals (virtual clock, an unsafe algorithm, the --decisions
 * rule) and a clock that its runs take from the plan, never by name again. */
#include "harness/run/stress_plan.h"
#include "tests/support/test_util.h"

#include <string.h>

static const uint64_t one_thread[] = {1}, two_threads[] = {2};

static struct rl_stress_plan plan_of(const uint64_t *threads, const char *clock)
{
    return (struct rl_stress_plan){.threads = threads,
                                   .thread_count = 1,
                                   .reps = 1,
                                   .run = {.cfg = {.limit = 100, .interval_ns = 10000000u},
                                           .duration_ns = 2000000u,
                                           .clock = clock}};
}

static int prepare(struct rl_stress_plan *plan, const char *const *names, size_t count, bool all,
                   const struct rl_algo **list, char *err, size_t err_len)
{
    const struct rl_algo *asked[8];
    for (size_t i = 0; i < count; i++)
        CU_ASSERT_PTR_NOT_NULL_FATAL(asked[i] = rl_registry_find(names[i]));
    struct rl_stress_asked ask = {.algos = asked, .count = count, .all = all};
    return rl_stress_plan_prepare(plan, &ask, list, 9, err, err_len);
}

/* faa runs first, once, whether asked for or not. */
static void test_faa_first(void)
{
    static const char *const names[] = {"fw_cas", "faa", "tb_cas"};
    struct rl_stress_plan plan = plan_of(one_thread, "monotonic");
    const struct rl_algo *list[9];
    char err[512];
    CU_ASSERT_EQUAL_FATAL(prepare(&plan, names, 3, false, list, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(plan.algo_count, 3);
    CU_ASSERT_STRING_EQUAL(plan.algos[0]->name, "faa");
    CU_ASSERT_STRING_EQUAL(plan.algos[1]->name, "fw_cas");
    CU_ASSERT_STRING_EQUAL(plan.algos[2]->name, "tb_cas");
    CU_ASSERT(plan.clock_started);
}

/* Each refusal is one line, worded for the option that caused it. */
static void test_refusals(void)
{
    static const char *const one[] = {"fw_cas"}, *const two[] = {"fw_cas", "tb_cas"};
    static const char *const unsafe[] = {"fw_plain", "fw_cas"};
    const struct rl_algo *list[9];
    char err[512];
    struct rl_stress_plan plan = plan_of(one_thread, "virtual");
    CU_ASSERT_EQUAL(prepare(&plan, one, 1, false, list, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(
        err, "--clock virtual is for sim; stress needs monotonic, coarse, tsc or cached");
    plan = plan_of(one_thread, "monotonic");
    plan.keep_decisions = true;
    CU_ASSERT_EQUAL(prepare(&plan, two, 2, false, list, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--decisions writes one run's admits"));
    plan = plan_of(two_threads, "monotonic");
    CU_ASSERT_EQUAL(prepare(&plan, unsafe, 2, false, list, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fw_plain is not thread-safe"));
    plan = plan_of(two_threads, "monotonic"); /* "all": left out, not refused */
    CU_ASSERT_EQUAL_FATAL(prepare(&plan, unsafe, 2, true, list, err, sizeof err), 0);
    CU_ASSERT_EQUAL(plan.algo_count, 2);
    CU_ASSERT_STRING_EQUAL(plan.algos[1]->name, "fw_cas");
}

/* The clock is started by the plan, once: its runs never look at the name
 * again (a name spoiled after preparing would fail any run that did), and
 * the recorded run's admits come back in the plan's decisions. */
static void test_clock_started_once(void)
{
    static const char *const one[] = {"fw_cas"};
    struct rl_stress_plan plan = plan_of(one_thread, "monotonic");
    plan.keep_decisions = true;
    const struct rl_algo *list[9];
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(prepare(&plan, one, 1, false, list, err, sizeof err), 0);
    CU_ASSERT(plan.run.record); /* --decisions implies --record */
    plan.run.clock = "no such clock";
    size_t planned = rl_stress_plan_rows(&plan);
    CU_ASSERT_EQUAL_FATAL(planned, 4); /* faa and fw_cas, each plain and recorded */
    struct rl_result rows[4];
    bool interrupted, failed;
    size_t done = rl_stress_plan_run(&plan, "test", rows, &interrupted, &failed, err, sizeof err);
    EXPECT(done == planned && !failed, "%zu of %zu runs: %s", done, planned, err);
    CU_ASSERT(plan.decisions.len > 0);
    CU_ASSERT(plan.decisions.len == rows[3].admits);
    rl_stress_plan_free(&plan);
}

RL_TEST_SUITE("stress_plan", {"faa first, once", test_faa_first},
              {"refusals: one line each", test_refusals},
              {"the clock is started once, by the plan", test_clock_started_once});
