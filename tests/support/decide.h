/* decide.h — runs hand-worked attempt sequences through one algorithm in
 * virtual time and asserts every decision. */
#ifndef RL_TEST_DECIDE_H
#define RL_TEST_DECIDE_H

#include "algorithms/rl.h"

#include <stddef.h>
#include <stdint.h>

struct rl_step {
    uint64_t t_ns; /* trace time; virtual time is RL_VIRTUAL_ORIGIN_NS + t */
    uint64_t n;
    char expect; /* 'A' admit, 'R' reject */
};

#define RL_STEPS(...)                                                                              \
    ((const struct rl_step[]){__VA_ARGS__}),                                                       \
        sizeof((const struct rl_step[]){__VA_ARGS__}) / sizeof(struct rl_step)

/* Creates algo with cfg (its epoch set to the virtual origin), feeds steps
 * in order to one instance, asserts each decision (the message names the
 * algorithm and step), and returns the clock reads it made. */
uint64_t rl_expect_decisions_cfg(const char *algo, const struct rl_config *cfg,
                                 const struct rl_step *steps, size_t count);

/* The same with (limit, interval_ns, burst) and nothing else set. */
uint64_t rl_expect_decisions(const char *algo, uint64_t limit, uint64_t interval_ns, uint64_t burst,
                             const struct rl_step *steps, size_t count);

#endif
