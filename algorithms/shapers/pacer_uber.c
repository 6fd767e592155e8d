/* pacer_uber.c — uber-go/ratelimit's atomic int64 pacer (Take with slack,
 * v0.3.1), ported from its documented rule: a blocking Take that never
 * rejects, pacing callers one per I/L after an idle gap's slack is spent.
 *
 * Promise: bucket, with B = slack + 1 (a pacer after idle releases at most
 * slack + 1 at once) and the excess bucket_excess states when uber-go's
 * default slack 10 exceeds B = L, or its per = ⌊I/L⌋ runs fast.
 *
 * State: the next permission issue in one atomic int64 (pacer_uber.h);
 * slack = B − 1 (uber-go's default 10 without --burst; --burst 1 is
 * WithoutSlack).
 *
 * Decision: pacer_uber.h's rule, n Takes at once; shape ignores the max
 * wait (RL_BLOCKING: Take has no reject); acquire admits only what would go
 * at once and rejects, writing nothing, what would sleep.
 *
 * Memory orders: seq_cst, as Go's sync/atomic: one load and one CAS.
 *
 * Races accepted: a caller whose clock read is older than the word's last
 * write is paced from the word, never released before its own read.
 *
 * Sources: uber-go/ratelimit, limiter_atomic_int64.go as of v0.3.1 and the
 * fix for #119 (PR #120, "Fix immediate slack re-apply issue").
 */
#include "pacer_uber.h"

#include <stdio.h>
#include <stdlib.h>

#define PACER_UBER_DEFAULT_SLACK 10u

void *pacer_uber_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0 || cfg->interval_ns < cfg->limit ||
        cfg->interval_ns > (uint64_t)INT64_MAX / 4) {
        snprintf(err, err_len,
                 "pacer_uber paces one request per whole ns of I/L: needs 1 <= L <= I in ns");
        return NULL;
    }
    uint64_t slack = cfg->burst ? cfg->burst - 1 : PACER_UBER_DEFAULT_SLACK;
    int64_t per = (int64_t)(cfg->interval_ns / cfg->limit);
    if (slack > (uint64_t)(INT64_MAX / 4 / per)) {
        snprintf(err, err_len, "pacer_uber: slack B - 1 = %llu times I/L overflows 64 bits",
                 (unsigned long long)slack);
        return NULL;
    }
    struct pacer_uber_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->next, 0);
    s->per_ns = per;
    s->slack = slack;
    s->max_slack_ns = (int64_t)slack * per;
    return s;
}

uint64_t pacer_uber_excess(const struct rl_config *cfg, unsigned threads)
{
    (void)threads;
    uint64_t b = rl_config_burst(cfg);
    uint64_t at_once = cfg->burst ? cfg->burst : PACER_UBER_DEFAULT_SLACK + 1;
    /* ⌊I/L⌋ < I/L fits one more release into a window of I */
    uint64_t fast = cfg->interval_ns % cfg->limit != 0;
    return (at_once > b ? at_once - b : 0) + fast;
}

static enum rl_decision pacer_uber_shape(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n, uint64_t max_wait_ns,
                                         struct rl_reservation *reservation)
{
    (void)key;
    (void)max_wait_ns; /* RL_BLOCKING */
    return pacer_uber_take(state, clock, n, false, PACER_UBER_FIXED, reservation);
}

static enum rl_decision pacer_uber_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    (void)key;
    struct rl_reservation reservation;
    return pacer_uber_take(state, clock, n, true, PACER_UBER_FIXED, &reservation);
}

const struct rl_algo rl_pacer_uber_algo = {
    .name = "pacer_uber",
    .family = "shaper",
    .summary = "uber-go/ratelimit atomic int64 pacer: blocking Take, slack B-1 (default 10)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_BLOCKING,
    .orders = "seq_cst",
    .create = pacer_uber_create,
    .destroy = free,
    .acquire = pacer_uber_acquire,
    .bucket_excess = pacer_uber_excess,
    .shape = pacer_uber_shape,
};
