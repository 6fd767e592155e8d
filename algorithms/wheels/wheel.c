/* wheel.c — the time-wheel article's limiter (CRateLimitMgr): S slots of
 * I/S each, a running total over them, the wheel rotated on access by the
 * slots elapsed since the last rotation (clearing each slot it passes and
 * subtracting it from the total), all under one mutex.
 *
 * Promise: window. The total covers the current slot and the S − 1 before
 * it, a span of S·⌈I/S⌉ ≥ I on the wheel's grid, so every run of S
 * consecutive slots admits ≤ L: ≤ L in each of its own windows, which are
 * ≥ I long and begin at or after the epoch — the `window` promise, checked
 * by the checker's window_excess. A sliding window that is not on the grid
 * meets S + 1 slots, and can hold up to 2L: L admitted at the very end of
 * one slot, nothing for S − 1 slots, then L at the start of the slot after
 * the wheel has moved past the first (tests/algorithms/test_windows.c shows it). More
 * slots make that pattern narrower and typical error smaller, never the
 * worst case better. Had the grid been anchored at the epoch instead of the
 * first attempt, the same argument would give `weak`.
 *
 * State: the slots' admitted costs, their total, the current slot and the
 * start of its slot time.
 *
 * Decision: mapping from (L, I, S): the article's nSlots = S (cfg->slots,
 * default 10), nSlotDuration = ⌈I/S⌉ ns (rounded up so the S slots span at
 * least I), nMsgLimitCnt = L. An attempt of cost n is admitted when
 * total + n ≤ L (the article: refused when total ≥ limit, i.e. n = 1). As
 * in the article, the wheel's grid starts at the first attempt (its object
 * is created then, with m_tpLastRotation = now), and a rotation keeps the
 * grid: the last rotation moves to now − elapsed mod slot. A time that goes
 * backwards (before the last rotation) rotates nothing and is counted in
 * the current slot, as the article's steady_clock never does.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none (the clock is read under the lock: reads come in
 * lock order).
 *
 * Sources: the time-wheel article (CRateLimitMgr::RotateWheel; Chinese,
 * limiting the packets a user sends in a period with a time wheel).
 */
#include "algorithms/rl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define RL_WHEEL_MAX_SLOTS 65536u

struct wheel_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    bool started;
    uint64_t last_rotation_ns; /* start of the current slot */
    uint64_t total;            /* sum of slots[] */
    uint32_t current;          /* index of the current slot */
    uint32_t slot_count;
    uint64_t slot_ns;
    uint64_t limit;
    uint64_t slots[]; /* admitted cost per slot */
};

/* Validates S (1..65536, at most one slot per ns of I; wheel_atomic.c
 * accepts the same) and allocates the wheel, not yet started. NULL with a
 * reason in err on bad config or ENOMEM. */
static void *wheel_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    uint32_t slots = cfg->slots ? cfg->slots : RL_DEFAULT_SLOTS;
    if (slots > RL_WHEEL_MAX_SLOTS || slots > cfg->interval_ns) {
        snprintf(err, err_len, "wheel: slots must be 1..%u and at most the interval in ns",
                 RL_WHEEL_MAX_SLOTS);
        return NULL;
    }
    struct wheel_state *s = rl_state_alloc(sizeof *s + slots * sizeof s->slots[0], err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->slot_count = slots;
    s->slot_ns = (cfg->interval_ns + slots - 1) / slots;
    s->limit = cfg->limit;
    return s;
}

/* Frees the wheel; no call may be in flight. */
static void wheel_destroy(void *state)
{
    struct wheel_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The article's RotateWheel: clears the slots passed since the last
 * rotation (all of them after an idle gap of S slots or more). Lock held. */
static void wheel_rotate(struct wheel_state *s, uint64_t now)
{
    if (now <= s->last_rotation_ns)
        return;
    uint64_t elapsed = now - s->last_rotation_ns;
    uint64_t passed = elapsed / s->slot_ns;
    if (passed == 0)
        return;
    uint32_t clear = passed < s->slot_count ? (uint32_t)passed : s->slot_count;
    for (uint32_t i = 1; i <= clear; i++) {
        uint32_t slot = (s->current + i) % s->slot_count;
        s->total -= s->slots[slot];
        s->slots[slot] = 0;
    }
    s->current = (s->current + clear) % s->slot_count;
    s->last_rotation_ns = now - elapsed % s->slot_ns;
}

/* Admits n when the wheel's total + n ≤ L, after rotating it to now. n > L
 * is rejected without reading the clock. Never errs. */
static enum rl_decision wheel_acquire(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)key;
    struct wheel_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    pthread_mutex_lock(&s->lock);
    uint64_t now = rl_clock_now(clock);
    if (!s->started) {
        s->started = true;
        s->last_rotation_ns = now;
    }
    wheel_rotate(s, now);
    bool admit = n <= s->limit - s->total;
    if (admit) {
        s->slots[s->current] += n;
        s->total += n;
    }
    pthread_mutex_unlock(&s->lock);
    return admit ? RL_ADMIT : RL_REJECT;
}

const struct rl_algo rl_wheel_algo = {
    .name = "wheel",
    .family = "time_wheel",
    .summary = "time-wheel article: S slots of I/S, running total, rotated on access, mutex",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = wheel_create,
    .destroy = wheel_destroy,
    .acquire = wheel_acquire,
};
