/* baseline_null.c — always admits, touches nothing: the harness's own cost.
 *
 * Promise: none.
 *
 * State: none; create allocates one byte only because NULL would mean
 * failure.
 *
 * Decision: admit, whatever the attempt. The clock is never read.
 *
 * Memory orders: none: nothing is shared.
 *
 * Races accepted: none.
 *
 * Sources: none.
 */
#include "algorithms/rl.h"

#include <stdlib.h>

static void *null_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    return rl_state_alloc(1, err, err_len);
}

static enum rl_decision null_acquire(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)state, (void)clock, (void)key, (void)n;
    return RL_ADMIT;
}

const struct rl_algo rl_null_algo = {
    .name = "null",
    .family = "baseline",
    .summary = "always admits and touches no shared state: the harness's own overhead",
    .promise = RL_PROMISE_NONE,
    .flags = RL_THREAD_SAFE,
    .orders = "none",
    .create = null_create,
    .destroy = free,
    .acquire = null_acquire,
    .one_word_state = 1, /* nothing changes: the one byte create allocates */
};
