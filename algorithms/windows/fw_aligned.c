/* fw_aligned.c — a truly epoch-aligned fixed window: the weak limiter done
 * right.
 *
 * Promise: weak: windows are [epoch + k·I, epoch + (k+1)·I).
 *
 * State: one 64-bit word, window index (high 32 bits) and admitted cost
 * (low 32), changed by CAS. The index is kept modulo 2^32 and compared as a
 * serial number.
 *
 * Decision: admit n when the window of the time read has room for it; the
 * first attempt in a newer window opens it. An attempt whose time falls in
 * a window just before the stored one (a thread that read the clock before
 * another opened the next window) is rejected: that window is closed.
 *
 * Memory orders: relaxed. One word means one modification order that every
 * thread agrees on, and no other memory is published with it, so nothing
 * here needs acquire or release.
 *
 * Races accepted: after an idle gap near a multiple of 2^32 windows (at
 * I = 1 ms, 49 days) one window may be taken for a stale one; the error can
 * only reject more, never admit more.
 *
 * Sources: none; `weak` is the C++ article's weak statement
 * (docs/design.md, Definitions).
 */
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct fw_aligned_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t word; /* index << 32 | used */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
};

/* How many windows back an attempt may be before we call it a wrap. */
#define FW_ALIGNED_STALE_WINDOWS 1024

static void *fw_aligned_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit > UINT32_MAX) {
        snprintf(err, err_len, "fw_aligned keeps the count in 32 bits: limit must be ≤ %u",
                 UINT32_MAX);
        return NULL;
    }
    struct fw_aligned_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->word, 0); /* window 0, nothing used */
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static enum rl_decision fw_aligned_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    (void)key;
    struct fw_aligned_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    uint64_t since_epoch = now > s->epoch_ns ? now - s->epoch_ns : 0;
    uint32_t index = (uint32_t)(since_epoch / s->interval_ns);

    uint64_t word = atomic_load_explicit(&s->word, memory_order_relaxed);
    for (;;) {
        uint32_t stored_index = (uint32_t)(word >> 32);
        uint64_t used = (uint32_t)word;
        int32_t ahead = (int32_t)(index - stored_index);
        if (ahead < 0 && ahead > -FW_ALIGNED_STALE_WINDOWS)
            return RL_REJECT; /* our window has already closed */
        if (ahead != 0)
            used = 0; /* a new window opens with our attempt */
        if (n > s->limit - used)
            return RL_REJECT;
        uint64_t next = (uint64_t)index << 32 | (used + n);
        /* relaxed: see the file comment; a failed CAS reloads `word`. */
        if (atomic_compare_exchange_weak_explicit(&s->word, &word, next, memory_order_relaxed,
                                                  memory_order_relaxed))
            return RL_ADMIT;
    }
}

const struct rl_algo rl_fw_aligned_algo = {
    .name = "fw_aligned",
    .family = "fixed_window",
    .summary = "epoch-aligned window, index and count in one atomic word (weak, done right)",
    .promise = RL_PROMISE_WEAK,
    .flags = RL_THREAD_SAFE,
    .orders = "relaxed",
    .create = fw_aligned_create,
    .destroy = free,
    .acquire = fw_aligned_acquire,
    .one_word_state = sizeof(struct fw_aligned_state),
};
