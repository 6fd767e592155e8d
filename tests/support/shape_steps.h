/* shape_steps.h — runs hand-worked tables of shaped attempts (and rate
 * changes) through one shaper in virtual time and asserts every decision
 * and release time; and the one open shaper the table runner and the
 * shapers' own hand-driven tests (cancel) share. */
#ifndef RL_TEST_SHAPE_STEPS_H
#define RL_TEST_SHAPE_STEPS_H

#include "algorithms/rl.h"

#include <stddef.h>
#include <stdint.h>

/* A max wait that waits as long as it takes. */
#define WAIT_ANY UINT64_MAX

/* One step of a table, in trace time (virtual time is RL_VIRTUAL_ORIGIN_NS
 * + t). A shaped attempt {t_ns, n, max_wait_ns, expect, release_ns}:
 * expect 'A' (released at release_ns) or 'R'. A rate change is
 * RL_SET_RATE(t, limit, interval_ns), which set_rate must accept; it keeps
 * the new rate in n and max_wait_ns so that a table's attempts can stay
 * five plain values (-Wmissing-field-initializers). */
struct rl_shape_step {
    uint64_t t_ns, n, max_wait_ns;
    char expect; /* 'A', 'R', or RL_STEP_SET_RATE */
    uint64_t release_ns;
};

#define RL_STEP_SET_RATE 'S'
#define RL_SET_RATE(t, new_limit, new_interval_ns)                                                 \
    {                                                                                              \
        .t_ns = (t), .n = (new_limit), .max_wait_ns = (new_interval_ns),                           \
        .expect = RL_STEP_SET_RATE                                                                 \
    }

#define RL_SHAPE_STEPS(...)                                                                        \
    ((const struct rl_shape_step[]){__VA_ARGS__}),                                                 \
        sizeof((const struct rl_shape_step[]){__VA_ARGS__}) / sizeof(struct rl_shape_step)

/* Creates the shaper name with cfg (its epoch set to the virtual origin),
 * feeds the steps in order to one instance and asserts each (the message
 * names the shaper and the step). */
void rl_expect_shaped_cfg(const char *name, const struct rl_config *cfg,
                          const struct rl_shape_step *steps, size_t count);

/* The same with (limit, interval_ns, burst) and nothing else set. */
void rl_expect_shaped(const char *name, uint64_t limit, uint64_t interval_ns, uint64_t burst,
                      const struct rl_shape_step *steps, size_t count);

/* One instance of a shaper on its own virtual clock. */
struct rl_test_shaper {
    const struct rl_algo *algo;
    void *state;
    struct rl_clock clock;
};

/* Finds name and creates it with cfg, epoch at the virtual origin; a
 * missing algorithm or a refused configuration is a fatal assertion. */
void rl_test_shaper_open(struct rl_test_shaper *sh, const char *name, const struct rl_config *cfg);

/* shape(n, max_wait_ns) at trace time t: 'A' (r filled, its release_ns on
 * the clock's timeline), 'R' or 'E'. */
char rl_test_shaper_take(struct rl_test_shaper *sh, uint64_t t_ns, uint64_t n, uint64_t max_wait_ns,
                         struct rl_reservation *r);

void rl_test_shaper_close(struct rl_test_shaper *sh);

#endif
