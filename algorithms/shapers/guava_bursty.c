/* guava_bursty.c — Guava's RateLimiter in its SmoothBursty form as a
 * shaper: acquire(n) sleeps until the moment the limiter had reserved
 * before it ("the next request pays"), and tryAcquire(n, timeout) gives up
 * when that moment is more than the timeout away.
 *
 * Promise: approx, as tb_debt (the same limiter answering at once): one
 * request of any cost is released as soon as no earlier debt is due, so no
 * window bound holds for arbitrary costs; with n = 1 it releases at most
 * L + 1 in any window of I.
 *
 * State: tb_debt's storedPermits and nextFreeTicket in exact 128-bit ticks
 * (tb_ticks.h), under a mutex, as Guava's synchronized methods.
 *
 * Decision, from the documentation of SmoothRateLimiter: at time now, a
 * request may go at moment = max(now, nextFreeTicket). With a max wait,
 * a moment more than that after now is a reject and nothing changes
 * (tryAcquire with a timeout). Otherwise: when now is past nextFreeTicket,
 * the idle time becomes stored permits (at most L, maxBurstSeconds = I)
 * and nextFreeTicket moves to now; the request spends stored permits first
 * and charges the rest (n − spent)·T to nextFreeTicket; it is released at
 * the moment, rounded up to a ns. RL_BLOCKING is not set: acquire() never
 * gives up, but tryAcquire(n, timeout) does, and shape takes the timeout
 * as its max wait (none: as acquire). acquire (ratelab's) is the max wait
 * 0, and decides exactly as tb_debt.
 *
 * Mapping: rate L per I, T = I/L; it stores at most L permits (Guava's
 * RateLimiter.create fixes maxBurstSeconds at 1: one interval's worth), so
 * --burst is accepted only as B = L, and any other B is refused: a run
 * judged at a burst the limiter does not keep would be judged against a
 * promise it never made. Creation is the epoch.
 *
 * Rate change, setRate(rate') as SmoothRateLimiter documents it: resync at
 * the old rate (idle time to stored permits, nextFreeTicket to now), then
 * the new interval; nextFreeTicket stays the same moment, so the request
 * already charged is paid at the old rate (the next caller waits for it),
 * and SmoothBursty rescales storedPermits by maxPermits'/maxPermits, the
 * burst time (the interval at create) kept: maxPermits' = L'·I/I'. Exact
 * in ticks, stored permits rounded down and the moment up to a tick.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none; the stopwatch is read under the lock, as Guava
 * reads it inside synchronized(mutex()). A stale time (a trace) is released
 * at its own moment or later, never before nextFreeTicket.
 *
 * Sources: Guava, com.google.common.util.concurrent.SmoothRateLimiter
 * (SmoothBursty: doSetRate), RateLimiter.acquire, tryAcquire(permits, timeout) and setRate,
 * from their documentation (docs/references.md).
 */
#include "algorithms/buckets/tb_ticks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct guava_bursty_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    rl_u128 next_free;  /* ticks since the epoch: nextFreeTicket */
    rl_u128 stored;     /* ticks of permits: storedPermits */
    rl_u128 max_stored; /* L·I' ticks: maxPermits */
    uint64_t burst_ns;  /* maxBurstSeconds: the interval at create */
    uint64_t epoch_ns;
    struct tb_ticks ticks;
};

static void *guava_bursty_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "guava_bursty: limit and interval must be at least 1");
        return NULL;
    }
    if (cfg->burst != 0 && cfg->burst != cfg->limit) {
        snprintf(err, err_len,
                 "stores one interval of permits (B = L = %llu, as "
                 "RateLimiter.create): --burst %llu cannot be honoured; leave --burst out",
                 (unsigned long long)cfg->limit, (unsigned long long)cfg->burst);
        return NULL;
    }
    struct tb_ticks ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    if (ticks.per_ns > UINT64_MAX - ticks.per_token) {
        snprintf(err, err_len,
                 "guava_bursty: L/gcd(L,I) + I/gcd(L,I) must stay below 2^64 so that a debt "
                 "fits 128 bits");
        return NULL;
    }
    struct guava_bursty_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->ticks = ticks;
    s->max_stored = (rl_u128)cfg->limit * ticks.per_token;
    s->burst_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static void guava_bursty_destroy(void *state)
{
    struct guava_bursty_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static enum rl_decision guava_bursty_shape(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n, uint64_t max_wait_ns,
                                           struct rl_reservation *reservation)
{
    (void)key;
    struct guava_bursty_state *s = state;
    pthread_mutex_lock(&s->lock);
    uint64_t read = rl_clock_now(clock);
    uint64_t since = tb_since_epoch(read, s->epoch_ns);
    rl_u128 now = (rl_u128)since * s->ticks.per_ns;
    rl_u128 cost = (rl_u128)n * s->ticks.per_token;
    rl_u128 wait_ticks = s->next_free > now ? s->next_free - now : 0;
    rl_u128 wait_ns = wait_ticks / s->ticks.per_ns + (wait_ticks % s->ticks.per_ns != 0);
    if (wait_ns > max_wait_ns) {
        pthread_mutex_unlock(&s->lock);
        return RL_REJECT;
    }
    if (now > s->next_free) { /* resync: idle time becomes stored permits */
        rl_u128 idle = now - s->next_free, room = s->max_stored - s->stored;
        s->stored = idle >= room ? s->max_stored : s->stored + idle;
        s->next_free = now;
    }
    rl_u128 spent = cost < s->stored ? cost : s->stored;
    s->stored -= spent;
    s->next_free += cost - spent; /* the next caller pays the rest */
    pthread_mutex_unlock(&s->lock);
    reservation->release_ns = (read > s->epoch_ns ? read : s->epoch_ns) + (uint64_t)wait_ns;
    reservation->ticket = 0; /* no cancel */
    return RL_ADMIT;
}

static bool guava_bursty_set_rate(void *state, struct rl_clock *clock, uint64_t limit,
                                  uint64_t interval_ns)
{
    struct guava_bursty_state *s = state;
    struct tb_ticks to = tb_ticks_of(limit, interval_ns);
    if (to.per_ns > UINT64_MAX - to.per_token)
        return false; /* as create: a debt must fit 128 bits */
    pthread_mutex_lock(&s->lock);
    rl_u128 now = (rl_u128)tb_since_epoch(rl_clock_now(clock), s->epoch_ns) * s->ticks.per_ns;
    rl_u128 stored = s->stored, next_free = s->next_free;
    if (now > next_free) { /* resync at the old rate */
        rl_u128 idle = now - next_free, room = s->max_stored - stored;
        stored = idle >= room ? s->max_stored : stored + idle;
        next_free = now;
    }
    /* nextFreeTicket stays the same moment; storedPermits scale by
     * maxPermits'/maxPermits = rate'/rate, which in ticks is per_ns'/per_ns */
    rl_u128 next_to, stored_to;
    bool fits = tb_ticks_rescale(next_free, s->ticks.per_ns, to.per_ns, true, &next_to) &&
                tb_ticks_rescale(stored, s->ticks.per_ns, to.per_ns, false, &stored_to);
    if (fits) {
        rl_u128 max_to = (rl_u128)s->burst_ns * to.per_ns; /* rate'·maxBurstSeconds */
        s->next_free = next_to;
        s->stored = stored_to < max_to ? stored_to : max_to;
        s->max_stored = max_to;
        s->ticks = to;
    }
    pthread_mutex_unlock(&s->lock);
    return fits;
}

static enum rl_decision guava_bursty_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                             uint64_t n)
{
    struct rl_reservation reservation;
    return guava_bursty_shape(state, clock, key, n, 0, &reservation);
}

const struct rl_algo rl_guava_bursty_algo = {
    .name = "guava_bursty",
    .family = "shaper",
    .summary = "Guava SmoothBursty acquire/tryAcquire(n, timeout): waits for the moment reserved",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = guava_bursty_create,
    .destroy = guava_bursty_destroy,
    .acquire = guava_bursty_acquire,
    .shape = guava_bursty_shape,
    .set_rate = guava_bursty_set_rate,
};
