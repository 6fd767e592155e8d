/* tb_cas_relaxed.c — tb_cas's CAS loop with every order relaxed, as
 * CppCommon's TokenBucket does: a relaxed load and a relaxed/relaxed
 * compare_exchange_weak on one time word.
 *
 * Promise: bucket, as tb_cas: nothing is lost for the limit (below).
 *
 * State: tb_cas's TAT word (tb_tat.h).
 *
 * Decision: tb_cas's (tb_cas_acquire_ordered, tb_tat.h).
 *
 * Memory orders: relaxed. Everything the bucket knows is in one atomic
 * word, and C11 gives every atomic object, relaxed or not:
 *
 *  - one modification order that all threads agree on (coherence);
 *  - an RMW (our successful CAS) reads the last value in that order before
 *    its own write (C11 7.17.3, "order and consistency"), so no two admits
 *    can both start from the same TAT: the admits form one chain, each from
 *    its predecessor's state, exactly as under a mutex.
 *
 * A relaxed load, or the load a failed CAS performs, may return a TAT older
 * than the newest (never older than one this thread already saw). An older
 * TAT is smaller (TAT only grows), so it shows at least as many tokens as
 * the newest: a reject decided on it would also be decided on the newest,
 * and an admit decided on it is only a CAS proposal, which fails and
 * retries if the word has moved. The clock value feeds the CAS by data
 * dependency, so it cannot be read "after" the CAS either. So every
 * decision is one that tb_mutex could have made for the same read time, and
 * the bound B + L·w/I holds (tb_tat.h; a 2-thread stress test checks it
 * with the recorder).
 *
 * Races accepted: what is lost is what tb_cas's acq_rel adds beyond the
 * limit: no happens-before between one admit and the next, so a caller
 * cannot use an admit to publish memory to whoever is admitted after it. A
 * limiter that kept two words (tokens and last time, say) would need real
 * ordering or a lock between them; a single-word state is why relaxed is
 * enough here.
 *
 * Sources: CppCommon's TokenBucket (chronoxor/CppCommon, and code derived
 * from it). folly's TokenBucket has the same one-word design but keeps the
 * seq_cst defaults.
 */
#include "tb_tat.h"

#include <stdlib.h>

static void *tb_cas_relaxed_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return tb_tat_create(cfg, "tb_cas_relaxed", err, err_len);
}

/* As tb_cas. Every access relaxed: see the file comment. */
static enum rl_decision tb_cas_relaxed_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                               uint64_t n)
{
    (void)key;
    return tb_cas_acquire_ordered(state, clock, n, memory_order_relaxed, memory_order_relaxed,
                                  memory_order_relaxed);
}

const struct rl_algo rl_tb_cas_relaxed_algo = {
    .name = "tb_cas_relaxed",
    .family = "token_bucket",
    .summary =
        "tb_cas with every order relaxed (as CppCommon's TokenBucket): one word, nothing lost",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "relaxed",
    .create = tb_cas_relaxed_create,
    .destroy = free,
    .acquire = tb_cas_relaxed_acquire,
    .one_word_state = sizeof(struct tb_tat_state),
};
