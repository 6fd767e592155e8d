/* tb_cas.c — the token bucket lock-free: the whole state is one 64-bit
 * theoretical arrival time, changed by a CAS loop.
 *
 * Promise: bucket (tb_tat.h gives the bound and why it holds).
 *
 * State: the TAT word (tb_tat.h), in exact ticks, with its horizon.
 *
 * Decision: tb_cas_acquire_ordered (tb_tat.h): admit n when the bucket
 * holds n tokens. It decides exactly as tb_mutex does, on every sequence of
 * attempts. RL_ERROR past the horizon.
 *
 * Memory orders: acq_rel. The bucket itself needs none: it is one word,
 * every change is a read-modify-write, and an RMW always reads the latest
 * value in the word's modification order, so the admits form one chain in
 * which each decision starts from the state the previous admit left
 * (tb_cas_relaxed says more). The orders here are the ones a caller of a
 * mutex-based limiter may silently rely on, so tb_cas can replace tb_mutex
 * anywhere:
 *
 *   load    acquire  a decision (a reject included) happens after the admit
 *                    whose TAT it read;
 *   success acq_rel  release: what the caller did before an admitted acquire
 *                    is visible to every later decision that reads this TAT
 *                    or one after it; acquire: as for the load;
 *   failure acquire  the reloaded TAT is decided on, so as for the load.
 *
 * On x86-64 these compile to the same instructions as relaxed ones (a locked
 * cmpxchg and a plain load); on AArch64 the CAS is casal against cas, and
 * on POWER the orders add lwsync barriers (make asm's table).
 *
 * Races accepted: a stale clock read sees the bucket as it stood at its own
 * time, with fewer tokens, never more (tb_tat.h); a failed CAS decides
 * again on the newer TAT.
 *
 * Sources: none; the one-word design is that of CppCommon's and folly's
 * TokenBucket (tb_cas_relaxed.c).
 */
#include "tb_tat.h"

#include <stdlib.h>

static void *tb_cas_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return tb_tat_create(cfg, "tb_cas", err, err_len);
}

/* Admits n when the bucket holds n tokens; RL_ERROR past the horizon. */
static enum rl_decision tb_cas_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                       uint64_t n)
{
    (void)key;
    return tb_cas_acquire_ordered(state, clock, n, memory_order_acquire, memory_order_acq_rel,
                                  memory_order_acquire);
}

const struct rl_algo rl_tb_cas_algo = {
    .name = "tb_cas",
    .family = "token_bucket",
    .summary = "token bucket as one 64-bit TAT word, CAS loop (acquire/acq_rel), exact ticks",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "acq_rel",
    .create = tb_cas_create,
    .destroy = free,
    .acquire = tb_cas_acquire,
    .one_word_state = sizeof(struct tb_tat_state),
};
