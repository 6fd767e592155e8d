/* freq_ctr.c — a lock-free sliding-window counter in the manner of
 * HAProxy's frequency counters: a current and a previous period count, the
 * current period's start tick, a rotation guarded by one bit of that tick
 * used as a lock, and the estimate curr + prev · (remaining fraction of the
 * period).
 *
 * Promise: approx. Its bounds are sliding_counter's: ≤ L per aligned
 * period, < 2L in any sliding window.
 *
 * State, three words:
 *   tick  = period index k since the epoch, shifted left once; bit 0 is the
 *           rotation lock. (HAProxy keeps a period start date in ms and
 *           gives up its lowest bit the same way.)
 *   curr  = k mod 2^32 in the high half, admitted cost of period k in the
 *           low half.
 *   prev  = admitted cost of period k − 1.
 *
 * Decision: the arithmetic and rule of sliding_counter.c, so on one thread
 * the two decide identically: admit n when
 * prev·(I − elapsed) + (curr + n)·I ≤ L·I on a consistent snapshot.
 *
 * Where this differs from HAProxy, and why: HAProxy checks room
 * (freq_ctr_remain) and then adds (update_freq_ctr) in two steps, so
 * concurrent callers can overshoot; and an add racing a rotation may land
 * in either period ("timing variations would have resulted in the same
 * uncertainty"). A limiter's admits are its output, so here the check and
 * the add are one CAS on curr, and curr carries its period's tag: a CAS
 * prepared against period k fails once a rotation has moved curr to k + 1.
 * Every period's count is then exact, and each decision is made on a
 * consistent (prev, curr) pair.
 *
 * Memory orders: relaxed on curr, whose CAS publishes nothing; acquire and
 * release on the tick (its lock bit) and on prev, which is what keeps each
 * (prev, curr) pair consistent — see the orders in acquire and rotate.
 *
 * Races accepted: a thread whose clock read lies in an older period than
 * the tick is counted in the current period at its start (the estimate's
 * largest value: never more room). Callers meeting a rotation in progress
 * wait for it (a few stores) with sched_yield, as HAProxy's spin on the
 * lock bit does: lock-free except for the rotator holding bit 0 once per
 * period. The tag is 32 bits: a CAS prepared against period k could land
 * in period k + m·2^32 if its thread stalled across a jump of exactly that
 * many periods (at I = 1 ms, 49 days); we accept that.
 *
 * Sources: HAProxy, include/haproxy/freq_ctr*.h, documented in their
 * comments; written for ratelab, not copied.
 */
#include "algorithms/rl.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct freq_ctr_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t tick; /* k << 1 | rotation lock */
    _Atomic uint64_t curr;                         /* (k mod 2^32) << 32 | cost in k */
    _Atomic uint64_t prev;                         /* cost in k − 1 */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
};

#define FREQ_CTR_LOCK 1ull

/* The two halves of curr: its period's tag and that period's cost. */
static inline uint32_t curr_tag(uint64_t curr)
{
    return (uint32_t)(curr >> 32);
}
static inline uint64_t curr_cost(uint64_t curr)
{
    return (uint32_t)curr;
}

/* Period 0, nothing counted. NULL with a reason in err when L does not fit
 * the 32-bit count, or on ENOMEM. */
static void *freq_ctr_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit > UINT32_MAX) {
        snprintf(err, err_len, "freq_ctr keeps a period's count in 32 bits: limit must be ≤ %u",
                 UINT32_MAX);
        return NULL;
    }
    struct freq_ctr_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->tick, 0);
    atomic_init(&s->curr, 0);
    atomic_init(&s->prev, 0);
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

/* Moves the counter from the period in `tick` (unlocked, as loaded) to
 * period `to` > its index, if this thread wins the lock bit; a loser
 * returns at once and its caller reloads the tick. */
static void rotate(struct freq_ctr_state *s, uint64_t tick, uint64_t to)
{
    /* acquire: taking the lock orders our stores below after those of the
     * previous rotation, whose release store of the tick we read. */
    if (!atomic_compare_exchange_strong_explicit(&s->tick, &tick, tick | FREQ_CTR_LOCK,
                                                 memory_order_acquire, memory_order_relaxed))
        return;
    uint64_t from = tick >> 1;
    /* relaxed: an RMW, so it takes every add CASed before it; adds still
     * prepared against `from` fail afterwards because the tag changed. */
    uint64_t old =
        atomic_exchange_explicit(&s->curr, (uint64_t)(uint32_t)to << 32, memory_order_relaxed);
    uint64_t carried = curr_tag(old) == (uint32_t)from && to == from + 1 ? curr_cost(old) : 0;
    /* release: whoever reads this prev also sees curr's new tag, so it can
     * never pair the new prev with the old period's curr. */
    atomic_store_explicit(&s->prev, carried, memory_order_release);
    /* release: unlocks; a thread that loads this tick sees the new prev. */
    atomic_store_explicit(&s->tick, to << 1, memory_order_release);
}

/* Admits n when prev·(I − elapsed) + (curr + n)·I ≤ L·I on a consistent
 * snapshot, adding n to curr in the same CAS. n > L is rejected without
 * reading the clock. Never errs. */
static enum rl_decision freq_ctr_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    (void)key;
    struct freq_ctr_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
    uint64_t period = since / s->interval_ns;
    for (;;) {
        /* acquire: pairs with rotate's unlocking store, so the prev we load
         * next is that rotation's or a later one's. */
        uint64_t tick = atomic_load_explicit(&s->tick, memory_order_acquire);
        if (tick & FREQ_CTR_LOCK) {
            sched_yield(); /* a rotation is a few stores from done */
            continue;
        }
        uint64_t current = tick >> 1;
        if (period > current) {
            rotate(s, tick, period);
            continue;
        }
        uint64_t elapsed = period == current ? since % s->interval_ns : 0;
        /* acquire: pairs with rotate's store of prev; if this is a newer
         * period's prev, curr's newer tag is visible below and we retry. */
        uint64_t prev = atomic_load_explicit(&s->prev, memory_order_acquire);
        /* relaxed: the CAS below validates the value. */
        uint64_t curr = atomic_load_explicit(&s->curr, memory_order_relaxed);
        while (curr_tag(curr) == (uint32_t)current) {
            unsigned __int128 weighted = (unsigned __int128)prev * (s->interval_ns - elapsed) +
                                         (unsigned __int128)(curr_cost(curr) + n) * s->interval_ns;
            if (weighted > (unsigned __int128)s->limit * s->interval_ns)
                return RL_REJECT;
            /* relaxed: the count publishes nothing else; a failure reloads
             * curr and re-decides on the new value. */
            if (atomic_compare_exchange_weak_explicit(&s->curr, &curr, curr + n,
                                                      memory_order_relaxed, memory_order_relaxed))
                return RL_ADMIT;
        }
    }
}

/* The checker's copy (rl_algo.snapshot): the tick and both periods' counts. */
static size_t freq_ctr_snapshot(const void *state, void *buf, size_t cap)
{
    const struct freq_ctr_state *s = state;
    uint64_t w[3] = {atomic_load(&s->tick), atomic_load(&s->curr), atomic_load(&s->prev)};
    return rl_snapshot_words(buf, cap, w, sizeof w / sizeof *w);
}

static int freq_ctr_restore(void *state, const void *buf, size_t len)
{
    struct freq_ctr_state *s = state;
    uint64_t w[3];
    if (!rl_restore_words(buf, len, w, sizeof w / sizeof *w))
        return -1;
    atomic_store(&s->tick, w[0]);
    atomic_store(&s->curr, w[1]);
    atomic_store(&s->prev, w[2]);
    return 0;
}

const struct rl_algo rl_freq_ctr_algo = {
    .name = "freq_ctr",
    .family = "sliding_counter",
    .summary = "HAProxy-style lock-free prev/curr counter, rotation under a tick lock bit",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "relaxed+acquire/release",
    .create = freq_ctr_create,
    .destroy = free,
    .acquire = freq_ctr_acquire,
    .snapshot = freq_ctr_snapshot,
    .restore = freq_ctr_restore,
};
