/* fw_cas.c — the C++ article's step 3: CAS-claimed reset with the
 * first-window fix, every operation seq_cst: the article's limiter as it
 * ends, before its memory-order tuning.
 *
 * Promise: window (fw_article.h).
 *
 * State: the article's count and window start (fw_article.h).
 *
 * Decision: fw_cas_acquire_ordered (fw_article.h): a ticket from the count;
 * past L, a restart of the window claimed by a CAS on the timestamp, and
 * the first window fixed by one more ticket.
 *
 * Memory orders: seq_cst on every access, the article's default.
 *
 * Races accepted: an attempt that loses the restart CAS to another thread
 * is rejected, though the new window may have room.
 *
 * Sources: the C++ article (fw_article.h), step 3.
 */
#include "fw_article.h"

#include <stdlib.h>

static enum rl_decision fw_cas_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                       uint64_t n)
{
    (void)key;
    return fw_cas_acquire_ordered(state, clock, n, memory_order_seq_cst, memory_order_seq_cst);
}

const struct rl_algo rl_fw_cas_algo = {
    .name = "fw_cas",
    .family = "fixed_window",
    .summary = "C++ article step 3: CAS on the timestamp plus first-window fix, all seq_cst",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "seq_cst",
    .create = fw_article_create,
    .snapshot = fw_article_snapshot,
    .restore = fw_article_restore,
    .destroy = free,
    .acquire = fw_cas_acquire,
};
