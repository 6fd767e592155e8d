/* fw_plain.c — the C++ article's limiter, step 0: no synchronisation.
 *
 * Promise: window (fw_article.h), on one thread.
 *
 * State: the article's count and window start, in plain memory.
 *
 * Decision: fw_plain_decide (fw_article.h), the article's step 0.
 *
 * Memory orders: none: plain loads and stores, for one thread.
 *
 * Races accepted: all of them. With several threads it is a data race
 * (undefined behaviour), kept so its failure can be shown; `stress`
 * refuses it with more than one thread unless --unsafe is given.
 *
 * Sources: the C++ article (fw_article.h), step 0.
 */
#include "fw_article.h"

#include <stdio.h>
#include <stdlib.h>

struct fw_plain_state {
    _Alignas(RL_CACHE_LINE) uint64_t count;
    uint64_t timestamp_ns;
    uint64_t limit;
    int64_t interval_ns;
};

static void *fw_plain_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > INT64_MAX) {
        snprintf(err, err_len, "interval too large for a signed nanosecond clock");
        return NULL;
    }
    struct fw_plain_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    s->count = UINT64_MAX;
    s->timestamp_ns = 0;
    s->limit = cfg->limit;
    s->interval_ns = (int64_t)cfg->interval_ns;
    return s;
}

static enum rl_decision fw_plain_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    (void)key;
    struct fw_plain_state *s = state;
    return fw_plain_decide(&s->count, &s->timestamp_ns, s->limit, s->interval_ns, clock, n);
}

const struct rl_algo rl_fw_plain_algo = {
    .name = "fw_plain",
    .family = "fixed_window",
    .summary = "C++ article step 0: count + timestamp, no synchronisation (one thread only)",
    .promise = RL_PROMISE_WINDOW,
    .flags = 0,
    .orders = "none",
    .create = fw_plain_create,
    .destroy = free,
    .acquire = fw_plain_acquire,
};
