/* test_suites.c — the quick suite (harness/experiments/suites.c), which
 * `make bench` runs first: every verdict it prints is judged on every admit
 * it made, so its recorded plan holds only algorithms whose admits something
 * bounds, with a buffer that holds them. */
#include "tests/support/test_util.h"
#include "harness/experiments/suites.h"

#include <string.h>

static bool in_plan(const struct rl_stress_plan *plan, const char *name)
{
    for (size_t i = 0; i < plan->algo_count; i++)
        if (strcmp(plan->algos[i]->name, name) == 0)
            return true;
    return false;
}

static void test_quick_records_what_fits(void)
{
    const struct rl_algo *algos[256];
    size_t count = 0;
    for (size_t i = 0; rl_registry[i] && count < 256; i++)
        algos[count++] = rl_registry[i];
    const struct rl_suite *quick = rl_suite_find("quick");
    CU_ASSERT_PTR_NOT_NULL_FATAL(quick);
    static struct rl_suite_run run;
    memset(&run, 0, sizeof run);
    struct rl_config cfg = {.limit = 1000, .interval_ns = 100000000};
    quick->plan(&run, algos, count, 3, &cfg);
    EXPECT_FATAL(run.plan_count == 2, "%zu plans", run.plan_count);
    const struct rl_stress_plan *rec = &run.plans[0], *plain = &run.plans[1];
    EXPECT(rec->run.record && !plain->run.record, "recorded %d, unrecorded %d", rec->run.record,
           plain->run.record);
    /* every recorded algorithm's admits are bounded: a rate promise, or a
     * Redis round trip; faa, the floor, admits L in all */
    for (size_t i = 0; i < rec->algo_count; i++) {
        const struct rl_algo *a = rec->algos[i];
        bool bounded = (a->flags & RL_REMOTE) || strcmp(a->name, "faa") == 0 ||
                       (a->promise != RL_PROMISE_NONE && a->promise != RL_PROMISE_CONCURRENCY);
        EXPECT(bounded, "%s recorded in quick: nothing bounds its admits", a->name);
    }
    EXPECT(!in_plan(rec, "null") && !in_plan(rec, "concurrency"), "null or concurrency recorded");
    EXPECT(in_plan(plain, "null") && in_plan(plain, "concurrency") && in_plan(plain, "faa"),
           "the unrecorded plan lacks null, concurrency or its floor faa");
    EXPECT(in_plan(rec, "sliding_log") && in_plan(rec, "tb_cas"), "the limiters not recorded");
    /* the buffer holds twice what a rate promise allows over the run, and
     * 2^20 admits a thread for redis_noop */
    double windows = (double)rec->run.duration_ns / (double)cfg.interval_ns + 2.0;
    EXPECT(rec->run.record_capacity >= 2.0 * (double)cfg.limit * windows &&
               rec->run.record_capacity >= (size_t)1 << 20,
           "record_capacity %zu", rec->run.record_capacity);
}

RL_TEST_SUITE("suites", {"quick records only what its buffer holds", test_quick_records_what_fits})
