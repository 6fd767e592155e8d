/* fw_cas_acqrel.c — the C++ article's step 4: step 3 with acq_rel on the
 * count's fetch-adds and release on its reset store, as the article
 * proposes.
 *
 * Promise: window (fw_article.h).
 *
 * State: the article's count and window start (fw_article.h).
 *
 * Decision: fw_cas_acquire_ordered (fw_article.h), as fw_cas.
 *
 * Memory orders: acq_rel on the count's fetch-adds, release on its reset
 * store; the timestamp keeps seq_cst. Why it is still correct: the count is
 * only a ticket dispenser, and each reset is claimed by the seq_cst CAS on
 * the timestamp; a thread whose ticket comes from the reset store acquires
 * it and so sees the new timestamp. Why it is not faster on x86-64: a
 * fetch-add is one `lock xadd` whatever its order; only the reset store
 * changes (a plain mov instead of xchg), and it runs once per window.
 *
 * Races accepted: fw_cas's: the loser of a restart CAS is rejected.
 *
 * Sources: the C++ article (fw_article.h), step 4.
 */
#include "fw_article.h"

#include <stdlib.h>

static enum rl_decision fw_cas_acqrel_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                              uint64_t n)
{
    (void)key;
    return fw_cas_acquire_ordered(state, clock, n, memory_order_acq_rel, memory_order_release);
}

const struct rl_algo rl_fw_cas_acqrel_algo = {
    .name = "fw_cas_acqrel",
    .family = "fixed_window",
    .summary = "C++ article step 4: step 3 with acq_rel/release on the count",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "acq_rel",
    .create = fw_article_create,
    .snapshot = fw_article_snapshot,
    .restore = fw_article_restore,
    .destroy = free,
    .acquire = fw_cas_acqrel_acquire,
};
