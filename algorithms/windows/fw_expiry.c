/* fw_expiry.c — a counter that expires I after it was created, under a
 * mutex.
 *
 * Promise: window. Windows are not aligned, so two of them can straddle
 * one second: the .NET article's 3+7 / 7+3 picture.
 *
 * State: the window's start and the cost admitted in it.
 *
 * Decision: the window starts at the first attempt after the previous one
 * expired (≥ I after its start), admitted or not, unlike the C++
 * article's, which restarts only on an over-limit attempt. Within it, admit
 * while the cost fits in L. A time before the current window (a trace
 * that goes backwards) is counted in it rather than restarting it.
 *
 * Not Linux's ___ratelimit: the kernel opens a new window only when
 * jiffies is after begin + interval, so an attempt at exactly begin + I is
 * still in the old window there and opens a new one here. That rule, one
 * tick later, is fw_trylock's; tests/conformance/linux compares both with
 * the kernel's own code.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none (the clock is read under the lock: reads come in
 * lock order).
 *
 * Sources: the .NET article's cache-expiry counter, "How does .Net
 * simulate session-level semaphores, limit the http interface call
 * frequency", http://www.cnblogs.com/1996V/p/8127576.html.
 */
#include "algorithms/rl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct fw_expiry_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    bool started;
    uint64_t window_start_ns;
    uint64_t used; /* admitted cost in this window */
    uint64_t limit;
    uint64_t interval_ns;
};

static void *fw_expiry_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct fw_expiry_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    return s;
}

static void fw_expiry_destroy(void *state)
{
    struct fw_expiry_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static enum rl_decision fw_expiry_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                          uint64_t n)
{
    (void)key;
    struct fw_expiry_state *s = state;
    pthread_mutex_lock(&s->lock);
    uint64_t now = rl_clock_now(clock);
    /* A time before the current window (now < start; a trace that goes
     * backwards) is counted in that window rather than restarting it. */
    if (!s->started || (now > s->window_start_ns && now - s->window_start_ns >= s->interval_ns)) {
        s->started = true;
        s->window_start_ns = now;
        s->used = 0;
    }
    bool admit = n <= s->limit - s->used;
    if (admit)
        s->used += n;
    pthread_mutex_unlock(&s->lock);
    return admit ? RL_ADMIT : RL_REJECT;
}

/* The checker's copy (rl_algo.snapshot): whether started, the window's
 * start and the cost admitted in it. */
static size_t fw_expiry_snapshot(const void *state, void *buf, size_t cap)
{
    const struct fw_expiry_state *s = state;
    uint64_t w[3] = {s->started, s->started ? s->window_start_ns : 0, s->used};
    return rl_snapshot_words(buf, cap, w, sizeof w / sizeof *w);
}

static int fw_expiry_restore(void *state, const void *buf, size_t len)
{
    struct fw_expiry_state *s = state;
    uint64_t w[3];
    if (!rl_restore_words(buf, len, w, sizeof w / sizeof *w))
        return -1;
    s->started = w[0] != 0;
    s->window_start_ns = w[1];
    s->used = w[2];
    return 0;
}

const struct rl_algo rl_fw_expiry_algo = {
    .name = "fw_expiry",
    .family = "fixed_window",
    .summary =
        "counter expiring I after its first attempt: new window at now - begin >= I (.NET cache)",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = fw_expiry_create,
    .destroy = fw_expiry_destroy,
    .acquire = fw_expiry_acquire,
    .snapshot = fw_expiry_snapshot,
    .restore = fw_expiry_restore,
};
