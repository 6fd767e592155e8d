/* baseline_clock_faa.c — a clock read plus one fetch-add: the floor under any
 * limiter that looks at the time on every call.
 *
 * Promise: none.
 *
 * State: faa's, the cost of every attempt ever made.
 *
 * Decision: faa's, after one clock read whose value is unused.
 *
 * Memory orders: relaxed, as faa.
 *
 * Races accepted: none.
 *
 * Sources: none.
 */
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdlib.h>

struct clock_faa_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t used;
    uint64_t limit;
};

static void *clock_faa_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct clock_faa_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s)
        s->limit = cfg->limit;
    return s;
}

static enum rl_decision clock_faa_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                          uint64_t n)
{
    (void)key;
    struct clock_faa_state *s = state;
    /* The read goes through the handle's function pointer, so the compiler
     * cannot drop it even though the value is unused. */
    (void)rl_clock_now(clock);
    /* relaxed: the count orders nothing else (see faa). */
    uint64_t before = atomic_fetch_add_explicit(&s->used, n, memory_order_relaxed);
    return before + n <= s->limit ? RL_ADMIT : RL_REJECT;
}

const struct rl_algo rl_clock_faa_algo = {
    .name = "clock_faa",
    .family = "baseline",
    .summary = "a clock read plus one relaxed fetch-add: the floor of limiters that read time",
    .promise = RL_PROMISE_NONE,
    .flags = RL_THREAD_SAFE,
    .orders = "relaxed",
    .create = clock_faa_create,
    .destroy = free,
    .acquire = clock_faa_acquire,
    .one_word_state = sizeof(struct clock_faa_state),
};
