/* decide.c — see decide.h. */
#include "decide.h"

#include "test_util.h"
#include "harness/sys/clock.h"

uint64_t rl_expect_decisions_cfg(const char *name, const struct rl_config *cfg,
                                 const struct rl_step *steps, size_t count)
{
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_config at_origin = *cfg;
    at_origin.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
    char err[256];
    void *state = algo->create(&at_origin, err, sizeof err);
    EXPECT_FATAL(state != NULL, "%s: create: %s", name, err);
    struct rl_clock clock;
    CU_ASSERT_EQUAL_FATAL(rl_clock_init(&clock, "virtual", err, sizeof err), 0);
    for (size_t i = 0; i < count; i++) {
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + steps[i].t_ns);
        enum rl_decision d = algo->acquire(state, &clock, 0, steps[i].n);
        char got = d == RL_ADMIT ? 'A' : d == RL_REJECT ? 'R' : 'E';
        EXPECT(got == steps[i].expect, "%s step %zu (t=%llu n=%llu): expected %c, got %c", name, i,
               (unsigned long long)steps[i].t_ns, (unsigned long long)steps[i].n, steps[i].expect,
               got);
    }
    algo->destroy(state);
    return clock.reads;
}

uint64_t rl_expect_decisions(const char *name, uint64_t limit, uint64_t interval_ns, uint64_t burst,
                             const struct rl_step *steps, size_t count)
{
    const struct rl_config cfg = {.limit = limit, .interval_ns = interval_ns, .burst = burst};
    return rl_expect_decisions_cfg(name, &cfg, steps, count);
}
