/* test_replay_plan.c — a replay plan is prepared once: the --decisions rule
 * and a clock that its runs take from the plan, never by name again. */
#include "harness/run/replay_plan.h"
#include "tests/support/test_util.h"

#include <string.h>

static const uint64_t one_thread[] = {1};

/* A plan of fw_cas on a short trace of one key. */
static struct rl_replay_plan plan_on(struct rl_trace *trace)
{
    for (uint64_t t = 0; t < 20; t++)
        CU_ASSERT_EQUAL_FATAL(rl_trace_push(trace, t * 100000u, 0, 1), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_name_keys(trace, 1), 0);
    return (struct rl_replay_plan){.threads = one_thread,
                                   .thread_count = 1,
                                   .reps = 1,
                                   .run = {.cfg = {.limit = 5, .interval_ns = 10000000u},
                                           .trace = trace,
                                           .speed = 1.0,
                                           .clock = "monotonic"},
                                   .workload = "test"};
}

static void test_decisions_rule(void)
{
    struct rl_trace trace = {0};
    struct rl_replay_plan plan = plan_on(&trace);
    plan.keep_decisions = true;
    plan.reps = 2;
    const struct rl_algo *algos[] = {rl_registry_find("fw_cas")};
    char err[512];
    CU_ASSERT_EQUAL(rl_replay_plan_prepare(&plan, algos, 1, false, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--decisions writes one run's decisions"));
    rl_trace_free(&trace);
}

/* A name spoiled after preparing would fail any run that started the clock
 * again; every decision comes back in the plan's decisions. */
static void test_clock_started_once(void)
{
    struct rl_trace trace = {0};
    struct rl_replay_plan plan = plan_on(&trace);
    plan.keep_decisions = true;
    const struct rl_algo *algos[] = {rl_registry_find("fw_cas")};
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(rl_replay_plan_prepare(&plan, algos, 1, false, err, sizeof err), 0);
    plan.run.clock = "no such clock";
    struct rl_result row;
    bool failed;
    size_t done = rl_replay_plan_run(&plan, "test", &row, &failed, err, sizeof err);
    EXPECT(done == 1 && !failed, "%zu of 1 runs: %s", done, err);
    CU_ASSERT_EQUAL(plan.decisions.len, 20);
    rl_replay_plan_free(&plan);
    rl_trace_free(&trace);
}

RL_TEST_SUITE("replay_plan", {"the --decisions rule", test_decisions_rule},
              {"the clock is started once, by the plan", test_clock_started_once});
