/* fw_cas_nofirst.c — the C++ article's step 2: the reset claimed by a CAS on
 * the timestamp, but without the first-window fix.
 *
 * Promise: window, as the article claims; the first window breaks it.
 *
 * State: the article's count and window start (fw_article.h).
 *
 * Decision: a ticket from the count; past L, a restart of the window when I
 * has passed, claimed by a CAS on the timestamp: only one thread wins each
 * reset, and it stores the count back to n.
 *
 * Memory orders: seq_cst throughout, as step 1.
 *
 * Races accepted: none; the hole left is the bug, the very first window.
 * The winner's own fetch-add wrapped the count from UINT64_MAX to n−1, so
 * while it is between its CAS and its store other threads take tickets
 * from ~0 and are admitted; the store then sets the count back to n and up
 * to L more are admitted in the same window.
 *
 * Sources: the C++ article (fw_article.h), step 2.
 */
#include "fw_article.h"

#include <stdlib.h>

static enum rl_decision fw_cas_nofirst_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                               uint64_t n)
{
    (void)key;
    struct fw_article_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t before = atomic_fetch_add_explicit(&s->count, n, memory_order_seq_cst);
    if (fw_ticket_fits(before, n, s->limit))
        return RL_ADMIT;
    if (before < s->limit)
        return RL_REJECT;
    uint64_t start = atomic_load_explicit(&s->timestamp_ns, memory_order_seq_cst);
    uint64_t now = rl_clock_now(clock);
    if (fw_window_open(now, start, s->interval_ns))
        return RL_REJECT;
    /* seq_cst CAS: exactly one thread moves the timestamp from `start`. */
    if (!atomic_compare_exchange_strong_explicit(&s->timestamp_ns, &start, now,
                                                 memory_order_seq_cst, memory_order_seq_cst))
        return RL_REJECT;
    RL_RACE_POINT(); /* first window: others admit on the wrapped count here */
    atomic_store_explicit(&s->count, n, memory_order_seq_cst);
    return RL_ADMIT;
}

const struct rl_algo rl_fw_cas_nofirst_algo = {
    .name = "fw_cas_nofirst",
    .family = "fixed_window",
    .summary = "C++ article step 2: CAS on the timestamp, no first-window fix (first window leaks)",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "seq_cst",
    .create = fw_article_create,
    .snapshot = fw_article_snapshot,
    .restore = fw_article_restore,
    .destroy = free,
    .acquire = fw_cas_nofirst_acquire,
};
