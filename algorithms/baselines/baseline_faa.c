/* baseline_faa.c — one atomic fetch-add on a shared word: the floor under any
 * limiter with shared state.
 *
 * Promise: none.
 *
 * State: the cost of every attempt ever made, admitted or not.
 *
 * Decision: admit while that count, this attempt's cost included, is ≤ L:
 * the first L units ever, never refilled, so its decisions stay bounded
 * when recorded. The clock is never read.
 *
 * Memory orders: relaxed: the count orders nothing else (see acquire).
 *
 * Races accepted: none: one read-modify-write decides.
 *
 * Sources: none.
 */
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdlib.h>

struct faa_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t used;
    uint64_t limit;
};

static void *faa_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct faa_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s)
        s->limit = cfg->limit;
    return s;
}

static enum rl_decision faa_acquire(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)clock, (void)key;
    struct faa_state *s = state;
    /* relaxed: the count orders nothing else; on x86 every lock xadd costs
     * the same whatever the order, elsewhere relaxed is the true floor. */
    uint64_t before = atomic_fetch_add_explicit(&s->used, n, memory_order_relaxed);
    return before + n <= s->limit ? RL_ADMIT : RL_REJECT;
}

const struct rl_algo rl_faa_algo = {
    .name = "faa",
    .family = "baseline",
    .summary = "one relaxed atomic fetch-add on a shared word: the floor of shared-state limiters",
    .promise = RL_PROMISE_NONE,
    .flags = RL_THREAD_SAFE,
    .orders = "relaxed",
    .create = faa_create,
    .destroy = free,
    .acquire = faa_acquire,
    .one_word_state = sizeof(struct faa_state),
};
