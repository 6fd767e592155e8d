/* sliding_log.c — the exact sliding-window limiter: a log of the admits of
 * the last I, under a mutex.
 *
 * Promise: strong. Every window [x, x + I) that holds an admit at t lies
 * within (t − I, t + I), so if each admit checks (t − I, t] no window ever
 * holds more than L.
 *
 * State: (time, cost) pairs with a running sum (stamp_ring.h), so a cost
 * n > 1 is one entry, not n, and equal times share an entry; and the newest
 * time decided at.
 *
 * Decision: an attempt (t, n) is admitted when the cost admitted in
 * (t − I, t] plus n is at most L — the same rule as the checker's strong
 * oracle, so on one thread it agrees with the oracle decision for
 * decision. RL_ERROR only when the log cannot grow (ENOMEM).
 *
 * Memory orders: mutex.
 *
 * Races accepted: none that admit more. Time is read before the lock (a
 * short critical section) and clamped to the newest time this limiter has
 * seen: a thread that read the clock, then lost the lock to one that read
 * it later, decides as of that later time. The clamped times are
 * non-decreasing in lock order and never later than the real time of the
 * decision, which keeps the log sorted (expiry looks only at its head) and
 * the strong promise intact under threads. In sim a trace that goes
 * backwards is decided the same way: never with more room than at the
 * newest time seen.
 *
 * Sources: none; `strong` is the C++ article's strong statement
 * (docs/design.md, Definitions).
 */
#include "stamp_ring.h"

#include "algorithms/rl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct sliding_log_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    struct rl_stamp_ring log; /* admits in (newest − I, newest] */
    bool started;
    uint64_t newest_ns; /* latest time decided at */
    uint64_t limit;
    uint64_t interval_ns;
};

/* Creates an empty log. NULL with a reason in err on ENOMEM. */
static void *sliding_log_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct sliding_log_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    size_t max_entries = cfg->limit < SIZE_MAX ? (size_t)cfg->limit : SIZE_MAX;
    if (rl_stamp_ring_init(&s->log, max_entries) != 0) {
        snprintf(err, err_len, "out of memory for a sliding log");
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    return s;
}

/* Frees the log; no call may be in flight. */
static void sliding_log_destroy(void *state)
{
    struct sliding_log_state *s = state;
    pthread_mutex_destroy(&s->lock);
    rl_stamp_ring_free(&s->log);
    free(s);
}

/* Admits n if (t − I, t] holds at most L − n, t being the clock clamped to
 * the newest time seen. n > L is rejected without reading the clock. Error
 * only when the log cannot grow (ENOMEM); nothing is admitted then. */
static enum rl_decision sliding_log_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                            uint64_t n)
{
    (void)key;
    struct sliding_log_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    pthread_mutex_lock(&s->lock);
    if (s->started && now < s->newest_ns)
        now = s->newest_ns;
    s->started = true;
    s->newest_ns = now;
    /* an entry at e is outside (now − I, now] when now − e ≥ I */
    if (now >= s->interval_ns)
        rl_stamp_ring_drop_before(&s->log, now - s->interval_ns + 1);
    enum rl_decision d = RL_REJECT;
    if (n <= s->limit - s->log.sum)
        d = rl_stamp_ring_push(&s->log, now, n) == 0 ? RL_ADMIT : RL_ERROR;
    pthread_mutex_unlock(&s->lock);
    return d;
}

/* The checker's copy (rl_algo.snapshot): whether started, the newest
 * time, then the logged (time, cost) stamps oldest first. */
static size_t sliding_log_snapshot(const void *state, void *buf, size_t cap)
{
    const struct sliding_log_state *s = state;
    const struct rl_stamp_ring *r = &s->log;
    size_t len = (2 + 2 * r->len) * sizeof(uint64_t);
    if (cap < len)
        return len;
    uint64_t *out = buf; /* the scratch is malloc'd: aligned for words */
    out[0] = s->started;
    out[1] = s->newest_ns;
    for (size_t i = 0; i < r->len; i++) {
        const struct rl_stamp *e = &r->entries[(r->head + i) % r->cap];
        out[2 + 2 * i] = e->t_ns;
        out[3 + 2 * i] = e->n;
    }
    return len;
}

static int sliding_log_restore(void *state, const void *buf, size_t len)
{
    struct sliding_log_state *s = state;
    if (len < 2 * sizeof(uint64_t) || len % (2 * sizeof(uint64_t)) != 0)
        return -1;
    const uint64_t *in = buf;
    s->started = in[0] != 0;
    s->newest_ns = in[1];
    s->log.head = s->log.len = 0; /* emptied, its storage kept */
    s->log.sum = 0;
    for (size_t i = 2; i < len / sizeof(uint64_t); i += 2)
        if (rl_stamp_ring_push(&s->log, in[i], in[i + 1]) != 0)
            return -1;
    return 0;
}

const struct rl_algo rl_sliding_log_algo = {
    .name = "sliding_log",
    .family = "sliding_log",
    .summary = "exact log of (time, cost) admits in the last I, mutex (strong)",
    .promise = RL_PROMISE_STRONG,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = sliding_log_create,
    .destroy = sliding_log_destroy,
    .acquire = sliding_log_acquire,
    .snapshot = sliding_log_snapshot,
    .restore = sliding_log_restore,
};
