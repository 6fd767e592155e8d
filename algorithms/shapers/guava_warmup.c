/* guava_warmup.c — Guava's RateLimiter in its SmoothWarmingUp form as a
 * shaper: a limiter that starts cold (each permit costs up to three stable
 * intervals) and speeds up to its rate as stored permits are spent, with
 * acquire(n) waiting for the moment reserved before it ("the next request
 * pays") and tryAcquire(n, timeout) giving up when that moment is more than
 * the timeout away.
 *
 * Promise: approx, as guava_bursty: the next request pays for the last
 * one, so one request of any cost is released as soon as no earlier debt
 * is due, and no window bound holds for arbitrary costs.
 *
 * State: storedPermits and nextFreeTicket in exact 128-bit half ticks
 * (tb_ticks.h's ticks doubled, so that the threshold B/2 is a whole
 * number), under a mutex, as Guava's synchronized methods.
 *
 * Rule, from the documentation of SmoothRateLimiter (SmoothWarmingUp) with
 * coldFactor 3, RateLimiter.create(rate, warmupPeriod)'s fixed value:
 * stableInterval T = I/L; coldInterval = 3·T;
 *   thresholdPermits = 0.5·warmupPeriod/T,
 *   maxPermits = thresholdPermits + 2·warmupPeriod/(T + coldInterval),
 * which with coldFactor 3 is warmupPeriod/T; stored permits grow by one per
 * warmupPeriod/maxPermits = T of idle time, up to maxPermits. A permit
 * taken with x stored permits above the threshold costs T + x·slope,
 * slope = (coldInterval − T)/(maxPermits − thresholdPermits); taking k
 * permits from a above the threshold costs the trapezoid under that line,
 * k·(time(a) + time(a − k))/2 = k·T + 2T·k·(2a − k)/maxPermits; stored
 * permits below the threshold and fresh ones cost T each. A new limiter is
 * cold: maxPermits stored ("initial state is cold"). Decision: at now, a
 * request goes at moment = max(now, nextFreeTicket); a moment more than the
 * max wait after now is a reject that changes nothing (tryAcquire's
 * canAcquire); otherwise idle time is stored (resync), the request spends
 * stored permits first, and its whole cost is charged to nextFreeTicket,
 * so the next request pays it. RL_BLOCKING is not set (tryAcquire gives
 * up); acquire (ratelab's) is the max wait 0.
 *
 * Guava #3552 (https://github.com/google/guava/issues/3552, open):
 * create(10/s, 500 ms) polled with tryAcquire() every 120 ms never reaches
 * 10/s (the log, with real sleeps, shows every other poll; on exact
 * 120 ms steps both Guava 31.1 and this rule admit every third, 3.3/s):
 * polls below the rate store permits faster than the admits spend them, so
 * the limiter stays cold. This rule
 * keeps that behaviour, as the real limiter does (tests/algorithms, and the
 * conformance driver on Guava's own code).
 *
 * Rate change, setRate(rate') as SmoothWarmingUp's doSetRate: resync at
 * the old rate, then warmupPeriod kept, thresholdPermits' = 0.5·W/T',
 * maxPermits' = W/T' (coldFactor 3), storedPermits scaled by
 * maxPermits'/maxPermits, nextFreeTicket kept as a moment. Each of these
 * is the same time before and after (stored permits times T is the time
 * they took to store), so in half ticks only the unit changes (rounded:
 * the moment up, the amounts down); the trapezoid's divisor is the
 * warm-up period W = maxPermits·T, which the state keeps (max_stored).
 *
 * Mapping: rate L per I; maxPermits = B (warmupPeriod = B·T, so the
 * threshold is B/2; B = 0 is L, a warm-up of one interval). Creation is the
 * epoch. Where Guava rounds and this does not: its clock and its warm-up
 * are whole µs, its permits and intervals doubles, each charge cut to whole
 * µs; here time is exact, and each warm charge is rounded up to a half tick
 * (1/(2L') ns, L' = L/gcd(L, I)).
 *
 * Memory orders: mutex.
 *
 * Races accepted: none (the stopwatch is read under the lock, as Guava
 * reads it inside synchronized(mutex())).
 *
 * Sources: Guava, com.google.common.util.concurrent.SmoothRateLimiter
 * (SmoothWarmingUp) and RateLimiter.create(double, Duration),
 * acquire(int), tryAcquire(int, long, TimeUnit), setRate, from their documentation
 * (docs/references.md); the class's own diagram of the warm-up integral.
 */
#include "algorithms/buckets/tb_ticks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct guava_warmup_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    rl_u128 next_free;  /* half ticks since the epoch: nextFreeTicket */
    rl_u128 stored;     /* half ticks of permits: storedPermits */
    rl_u128 max_stored; /* B permits: maxPermits */
    rl_u128 threshold;  /* B/2 permits: thresholdPermits */
    uint64_t per_ns;    /* half ticks a ns: 2·L' */
    uint64_t per_token; /* half ticks a permit (= T): 2·I' */
    uint64_t burst;     /* B = maxPermits */
    uint64_t epoch_ns;
};

static void *guava_warmup_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "guava_warmup: limit and interval must be at least 1");
        return NULL;
    }
    struct tb_ticks ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    uint64_t burst = rl_config_burst(cfg);
    /* The trapezoid multiplies two amounts of at most B permits: keep
     * B·2I' below 2^62 so that their product fits 128 bits. */
    if (ticks.per_ns >= 1ull << 62 || ticks.per_token >= 1ull << 61 ||
        (rl_u128)burst * 2 * ticks.per_token >= (rl_u128)1 << 62) {
        snprintf(err, err_len,
                 "guava_warmup: B·I/gcd(L,I) must stay below 2^61 and L/gcd(L,I) below 2^62 "
                 "so that the warm-up integral is exact in 128 bits");
        return NULL;
    }
    struct guava_warmup_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->per_ns = 2 * ticks.per_ns;
    s->per_token = 2 * ticks.per_token;
    s->burst = burst;
    s->max_stored = (rl_u128)burst * s->per_token;
    s->threshold = (rl_u128)burst * ticks.per_token;
    s->stored = s->max_stored; /* cold */
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static void guava_warmup_destroy(void *state)
{
    struct guava_warmup_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The time, in half ticks, that taking `spend` of the stored permits costs
 * beyond T each: the part of the trapezoid above the stable line,
 * 2T·k·(2a − k)/B for the k taken from the a above the threshold, rounded
 * up. In half ticks (T = pt): 2·K·(2A − K)/(B·pt). */
static rl_u128 warm_extra(const struct guava_warmup_state *s, rl_u128 spend)
{
    if (s->stored <= s->threshold)
        return 0;
    rl_u128 above = s->stored - s->threshold;
    rl_u128 k = spend < above ? spend : above;
    rl_u128 num = 2 * k * (2 * above - k), den = s->max_stored; /* B·pt: warmupPeriod */
    return num / den + (num % den != 0);
}

static enum rl_decision guava_warmup_shape(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n, uint64_t max_wait_ns,
                                           struct rl_reservation *reservation)
{
    (void)key;
    struct guava_warmup_state *s = state;
    pthread_mutex_lock(&s->lock);
    uint64_t read = rl_clock_now(clock);
    rl_u128 now = (rl_u128)tb_since_epoch(read, s->epoch_ns) * s->per_ns;
    rl_u128 cost = (rl_u128)n * s->per_token;
    rl_u128 wait_ticks = s->next_free > now ? s->next_free - now : 0;
    rl_u128 wait_ns = wait_ticks / s->per_ns + (wait_ticks % s->per_ns != 0);
    if (wait_ns > max_wait_ns) {
        pthread_mutex_unlock(&s->lock);
        return RL_REJECT;
    }
    if (now > s->next_free) { /* resync: one permit stored per T idle */
        rl_u128 idle = now - s->next_free, room = s->max_stored - s->stored;
        s->stored = idle >= room ? s->max_stored : s->stored + idle;
        s->next_free = now;
    }
    rl_u128 spent = cost < s->stored ? cost : s->stored;
    rl_u128 charge = cost + warm_extra(s, spent); /* every permit T, plus the warm part */
    s->stored -= spent;
    s->next_free += charge; /* the next caller pays it */
    pthread_mutex_unlock(&s->lock);
    reservation->release_ns = (read > s->epoch_ns ? read : s->epoch_ns) + (uint64_t)wait_ns;
    reservation->ticket = 0; /* no cancel */
    return RL_ADMIT;
}

static bool guava_warmup_set_rate(void *state, struct rl_clock *clock, uint64_t limit,
                                  uint64_t interval_ns)
{
    struct guava_warmup_state *s = state;
    struct tb_ticks to = tb_ticks_of(limit, interval_ns);
    if (to.per_ns >= 1ull << 62 || to.per_token >= 1ull << 61)
        return false; /* as create */
    pthread_mutex_lock(&s->lock);
    rl_u128 now = (rl_u128)tb_since_epoch(rl_clock_now(clock), s->epoch_ns) * s->per_ns;
    rl_u128 stored = s->stored, next_free = s->next_free;
    if (now > next_free) { /* resync at the old rate */
        rl_u128 idle = now - next_free, room = s->max_stored - stored;
        stored = idle >= room ? s->max_stored : stored + idle;
        next_free = now;
    }
    /* every amount here is a time (the warm-up period and its half, the
     * stored permits as the time they took to store, the moment): only
     * its unit changes, 2·L' half ticks a ns */
    uint64_t from = s->per_ns, per_ns = 2 * to.per_ns;
    rl_u128 next_to, stored_to, max_to, threshold_to;
    bool fits = tb_ticks_rescale(next_free, from, per_ns, true, &next_to) &&
                tb_ticks_rescale(stored, from, per_ns, false, &stored_to) &&
                tb_ticks_rescale(s->max_stored, from, per_ns, false, &max_to) &&
                tb_ticks_rescale(s->threshold, from, per_ns, false, &threshold_to) &&
                max_to < (rl_u128)1 << 62 && max_to > 0;
    if (fits) {
        s->next_free = next_to;
        s->stored = stored_to < max_to ? stored_to : max_to;
        s->max_stored = max_to;
        s->threshold = threshold_to;
        s->per_ns = per_ns;
        s->per_token = 2 * to.per_token;
    }
    pthread_mutex_unlock(&s->lock);
    return fits;
}

static enum rl_decision guava_warmup_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                             uint64_t n)
{
    struct rl_reservation reservation;
    return guava_warmup_shape(state, clock, key, n, 0, &reservation);
}

const struct rl_algo rl_guava_warmup_algo = {
    .name = "guava_warmup",
    .family = "shaper",
    .summary = "Guava SmoothWarmingUp acquire/tryAcquire(n, timeout): cold x3, maxPermits B",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = guava_warmup_create,
    .destroy = guava_warmup_destroy,
    .acquire = guava_warmup_acquire,
    .shape = guava_warmup_shape,
    .set_rate = guava_warmup_set_rate,
};
