/* fw_atomic_naive.c — the C++ article's step 1: the count and timestamp made
 * atomic, the window reset by a plain load/store. Broken on purpose.
 *
 * Promise: window, as the article claims; `make teach` catches it
 * over-admitting.
 *
 * State: the article's count and window start (fw_article.h).
 *
 * Decision: a ticket from the count; past L, a restart of the window when I
 * has passed, done as a load and check, a store of the timestamp and a
 * store of the count back to n.
 *
 * Memory orders: seq_cst throughout, the C++ default the article's step 1
 * relies on.
 *
 * Races accepted: none; these are the bug. Two threads that both find the
 * window expired both store a timestamp and both store the count back to
 * n: each admits, yet the count says one did, and a thread that resets
 * late wipes out tickets already handed out in the new window.
 *
 * Sources: the C++ article (fw_article.h), step 1.
 */
#include "fw_article.h"

#include <stdlib.h>

static enum rl_decision fw_atomic_naive_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                                uint64_t n)
{
    (void)key;
    struct fw_article_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    /* seq_cst throughout, the C++ default the article's step 1 relies on. */
    uint64_t before = atomic_fetch_add_explicit(&s->count, n, memory_order_seq_cst);
    if (fw_ticket_fits(before, n, s->limit))
        return RL_ADMIT;
    if (before < s->limit)
        return RL_REJECT;
    uint64_t start = atomic_load_explicit(&s->timestamp_ns, memory_order_seq_cst);
    uint64_t now = rl_clock_now(clock);
    if (fw_window_open(now, start, s->interval_ns))
        return RL_REJECT;
    RL_RACE_POINT(); /* another thread can pass the same check here */
    atomic_store_explicit(&s->timestamp_ns, now, memory_order_seq_cst);
    RL_RACE_POINT(); /* … or hand out tickets that the next store erases */
    atomic_store_explicit(&s->count, n, memory_order_seq_cst);
    return RL_ADMIT;
}

const struct rl_algo rl_fw_atomic_naive_algo = {
    .name = "fw_atomic_naive",
    .family = "fixed_window",
    .summary = "C++ article step 1: atomics, window reset by load/store (admits twice: a bug)",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "seq_cst",
    .create = fw_article_create,
    .snapshot = fw_article_snapshot,
    .restore = fw_article_restore,
    .destroy = free,
    .acquire = fw_atomic_naive_acquire,
};
