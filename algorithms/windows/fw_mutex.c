/* fw_mutex.c — the C++ article's limiter (step 0's logic) under a pthread
 * mutex: the same semantics as fw_cas, made safe the simple way.
 *
 * Promise: window (fw_article.h).
 *
 * State: the article's count and window start, and the mutex.
 *
 * Decision: fw_plain_decide (fw_article.h), under the lock, so fw_plain and
 * fw_mutex share their semantics by construction.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none.
 *
 * Sources: the C++ article (fw_article.h).
 */
#include "fw_article.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fw_mutex_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    uint64_t count;
    uint64_t timestamp_ns;
    uint64_t limit;
    int64_t interval_ns;
};

static void *fw_mutex_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > INT64_MAX) {
        snprintf(err, err_len, "interval too large for a signed nanosecond clock");
        return NULL;
    }
    struct fw_mutex_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->count = UINT64_MAX;
    s->timestamp_ns = 0;
    s->limit = cfg->limit;
    s->interval_ns = (int64_t)cfg->interval_ns;
    return s;
}

static void fw_mutex_destroy(void *state)
{
    struct fw_mutex_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static enum rl_decision fw_mutex_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    (void)key;
    struct fw_mutex_state *s = state;
    pthread_mutex_lock(&s->lock);
    enum rl_decision d =
        fw_plain_decide(&s->count, &s->timestamp_ns, s->limit, s->interval_ns, clock, n);
    pthread_mutex_unlock(&s->lock);
    return d;
}

/* The checker's copy (rl_algo.snapshot): count and window start. */
static size_t fw_mutex_snapshot(const void *state, void *buf, size_t cap)
{
    const struct fw_mutex_state *s = state;
    uint64_t w[2] = {s->count, s->timestamp_ns};
    return rl_snapshot_words(buf, cap, w, sizeof w / sizeof *w);
}

static int fw_mutex_restore(void *state, const void *buf, size_t len)
{
    struct fw_mutex_state *s = state;
    uint64_t w[2];
    if (!rl_restore_words(buf, len, w, sizeof w / sizeof *w))
        return -1;
    s->count = w[0];
    s->timestamp_ns = w[1];
    return 0;
}

const struct rl_algo rl_fw_mutex_algo = {
    .name = "fw_mutex",
    .family = "fixed_window",
    .summary = "the C++ article's count + timestamp window under a pthread mutex",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = fw_mutex_create,
    .destroy = fw_mutex_destroy,
    .acquire = fw_mutex_acquire,
    .snapshot = fw_mutex_snapshot,
    .restore = fw_mutex_restore,
};
