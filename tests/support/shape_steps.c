/* shape_steps.c — see shape_steps.h. */
#include "shape_steps.h"

#include "test_util.h"
#include "harness/sys/clock.h"

void rl_test_shaper_open(struct rl_test_shaper *sh, const char *name, const struct rl_config *cfg)
{
    sh->algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sh->algo);
    struct rl_config at_origin = *cfg;
    at_origin.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
    char err[256];
    sh->state = sh->algo->create(&at_origin, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sh->state);
    rl_clock_init(&sh->clock, "virtual", err, sizeof err);
}

char rl_test_shaper_take(struct rl_test_shaper *sh, uint64_t t_ns, uint64_t n, uint64_t max_wait_ns,
                         struct rl_reservation *r)
{
    rl_clock_set_virtual(&sh->clock, RL_VIRTUAL_ORIGIN_NS + t_ns);
    *r = (struct rl_reservation){0};
    enum rl_decision d = sh->algo->shape(sh->state, &sh->clock, 0, n, max_wait_ns, r);
    return d == RL_ADMIT ? 'A' : d == RL_REJECT ? 'R' : 'E';
}

void rl_test_shaper_close(struct rl_test_shaper *sh)
{
    sh->algo->destroy(sh->state);
    sh->state = NULL;
}

void rl_expect_shaped_cfg(const char *name, const struct rl_config *cfg,
                          const struct rl_shape_step *steps, size_t count)
{
    struct rl_test_shaper sh;
    rl_test_shaper_open(&sh, name, cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sh.algo->shape);
    for (size_t i = 0; i < count; i++) {
        const struct rl_shape_step *s = &steps[i];
        if (s->expect == RL_STEP_SET_RATE) {
            rl_clock_set_virtual(&sh.clock, RL_VIRTUAL_ORIGIN_NS + s->t_ns);
            EXPECT(sh.algo->set_rate != NULL &&
                       sh.algo->set_rate(sh.state, &sh.clock, s->n, s->max_wait_ns),
                   "%s step %zu: set_rate %s", name, i, sh.algo->set_rate ? "refused" : "missing");
            continue;
        }
        struct rl_reservation r;
        char got = rl_test_shaper_take(&sh, s->t_ns, s->n, s->max_wait_ns, &r);
        uint64_t at = r.release_ns - RL_VIRTUAL_ORIGIN_NS;
        EXPECT(got == s->expect && (got != 'A' || at == s->release_ns),
               "%s step %zu (t=%llu n=%llu): expected %c at %llu, got %c at %llu", name, i,
               (unsigned long long)s->t_ns, (unsigned long long)s->n, s->expect,
               (unsigned long long)s->release_ns, got, (unsigned long long)at);
    }
    rl_test_shaper_close(&sh);
}

void rl_expect_shaped(const char *name, uint64_t limit, uint64_t interval_ns, uint64_t burst,
                      const struct rl_shape_step *steps, size_t count)
{
    const struct rl_config cfg = {.limit = limit, .interval_ns = interval_ns, .burst = burst};
    rl_expect_shaped_cfg(name, &cfg, steps, count);
}
