/* random_trace.h — the seeded random traces the property suites run on, and
 * the tests' own small PRNG.
 *
 * A suite describes its traces once (struct rl_test_trace_shape) and asks
 * for seed 1, 2, …: the same seed and shape give the same limiter
 * configuration and trace on every machine. Each suite keeps its own salt,
 * so a seed it reports still names the trace it always did.
 */
#ifndef RL_TEST_RANDOM_TRACE_H
#define RL_TEST_RANDOM_TRACE_H

#include "algorithms/rl.h"
#include "workloads/trace.h"

#include <stdbool.h>
#include <stdint.h>

/* What a suite's random traces may contain. From one draw
 * x = seed·0x9e3779b97f4a7c15 + salt: L = min_limit + x mod 40, I of
 * 1–200 ms, any generator, 1–4 keys, costs 1 or 1–3, an offered rate of
 * L/I × 1..overload, lasting `intervals`·I. */
struct rl_test_trace_shape {
    uint64_t salt;
    bool scramble;      /* fold x's high bits down first (x ^= x >> 29) */
    uint64_t min_limit; /* 0 reads as 1 */
    bool odd_intervals; /* half the time I is an odd ns count instead, so
                         * that T = I/L is rarely a whole ns */
    bool burst;         /* B unset a third of the time, else 1..2L */
    bool slots;         /* S from {default, 1, 2, 3, 7, 10, 50, 100} (not with burst) */
    uint32_t intervals; /* trace length in I; 0 reads as 10 */
    uint32_t overload;  /* 0 reads as 6 */
};

/* Fills *cfg (zeroed first, epoch 0, no remote) and generates *trace (the
 * caller frees it with rl_trace_free) for seed; *cost_max, when not NULL,
 * is the largest cost the trace may hold. A generator error is fatal. */
void rl_test_random_trace(uint64_t seed, const struct rl_test_trace_shape *shape,
                          struct rl_config *cfg, struct rl_trace *trace, uint32_t *cost_max);

/* One xorshift64 step (Marsaglia): advances *state, which must not be 0,
 * and returns it. Deterministic and good enough for hand-built logs. */
uint64_t rl_test_xorshift64(uint64_t *state);

#endif
