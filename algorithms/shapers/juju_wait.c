/* juju_wait.c — juju/ratelimit's Bucket as a shaper: Take / Wait (take the
 * tokens now, sleep for the time returned) and TakeMaxDuration /
 * WaitMaxDuration (take them only if that time is within the max wait),
 * on its whole-tick arithmetic.
 *
 * Promise: approx, as guava_bursty: Take never refuses a count, so one
 * request above B goes into debt and is released whole, past any window
 * bound. With n ≤ B a span u releases at most B + L/g + L·u/I, not the
 * curve B + L·u/I: a quantum of L/g tokens arrives whole at each tick, so
 * a release just before a tick and the quantum at it go almost together
 * (check --promise shape, L = 3 per s, B = 3, a poisson load at 2L: 61
 * releases over the curve, held = no; with quantum 1, L = 10 per s: none).
 *
 * State, under a mutex as the Bucket's sync.Mutex: availableTokens (signed:
 * negative while takers wait) as of latestTick, a tick being fillInterval
 * ns and counted from the epoch (the Bucket's startTime).
 *
 * Decision at now, count n, from the package's documentation and code:
 * tick = ⌊(now − start)/fillInterval⌋; the bucket gains (tick − latestTick)
 * quanta, at most up to its capacity, and latestTick = tick. When
 * available − n ≥ 0 the tokens are taken and the caller goes now.
 * Otherwise the missing tokens arrive at endTick = tick + ⌈missing/quantum⌉
 * and the wait is start + endTick·fillInterval − now (whole ns: nothing is
 * rounded); a wait above the max wait takes nothing (TakeMaxDuration's
 * false), else the tokens are taken (available goes negative). n = 0 goes
 * at once and changes nothing. No max wait is Take / Wait; acquire is max
 * wait 0 and admits only what needs no wait.
 *
 * The package's own flaw, not reproduced: in 1.0.1 (Debian's
 * golang-github-juju-ratelimit-dev) a full bucket does not move latestTick,
 * so tokens taken from it are refilled at once by the ticks it spent full
 * (juju/ratelimit #30, "Bonus Token by adjustavailableTokens", fixed by
 * PR #31 after 1.0.1). ratelab moves latestTick always, as the fix does;
 * conformance classifies the difference as the peer's known bug.
 *
 * Mapping: L per I is quantum L' = L/g every fillInterval I' = I/g ns,
 * g = gcd(L, I) (NewBucketWithQuantum(I', B, L'): the finest whole-ns tick
 * with the exact rate; NewBucketWithRate would pick a quantum within 1 %
 * instead); capacity B (default L); full at the epoch.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none beyond a stale clock (the clock is read under the
 * lock, as juju's Take does): a read whose tick is before latestTick
 * is counted from latestTick: it gains nothing and takes nothing back
 * (the package would subtract the ticks, outside what its adjust allows:
 * "must be in the future"), and its wait runs from its own read, so it is
 * never released early.
 *
 * Sources: github.com/juju/ratelimit 1.0.1, ratelimit.go (Bucket, take,
 * adjustavailableTokens, TakeMaxDuration, Wait); juju/ratelimit issue #30
 * and PR #31 (docs/references.md).
 */
#include "algorithms/buckets/tb_ticks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__extension__ typedef __int128 juju_i128;

struct juju_wait_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    juju_i128 available;  /* tokens as of latest_tick; < 0 while takers wait */
    uint64_t latest_tick; /* ticks since the epoch */
    uint64_t capacity;    /* B */
    uint64_t quantum;     /* L' tokens a tick */
    uint64_t fill_ns;     /* I' ns a tick */
    uint64_t epoch_ns;
};

static void *juju_wait_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "juju_wait: limit and interval must be at least 1");
        return NULL;
    }
    struct juju_wait_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    struct tb_ticks t = tb_ticks_of(cfg->limit, cfg->interval_ns);
    s->quantum = t.per_ns;    /* L / g */
    s->fill_ns = t.per_token; /* I / g */
    s->capacity = rl_config_burst(cfg);
    s->available = s->capacity;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static void juju_wait_destroy(void *state)
{
    struct juju_wait_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static enum rl_decision juju_wait_shape(void *state, struct rl_clock *clock, uint64_t key,
                                        uint64_t n, uint64_t max_wait_ns,
                                        struct rl_reservation *reservation)
{
    (void)key;
    struct juju_wait_state *s = state;
    pthread_mutex_lock(&s->lock); /* juju's Take locks, then reads the clock */
    uint64_t read = rl_clock_now(clock);
    uint64_t since = tb_since_epoch(read, s->epoch_ns);
    uint64_t from = read > s->epoch_ns ? read : s->epoch_ns;
    *reservation = (struct rl_reservation){.release_ns = from};
    if (n == 0) {
        pthread_mutex_unlock(&s->lock);
        return RL_ADMIT; /* count <= 0: go now, nothing taken */
    }
    uint64_t tick = since / s->fill_ns;
    juju_i128 available = s->available;
    uint64_t latest = s->latest_tick;
    if (tick > latest) { /* the quanta of the ticks since, up to capacity (#31) */
        juju_i128 gained = (juju_i128)(tick - latest) * s->quantum;
        juju_i128 room = (juju_i128)s->capacity - available;
        available += gained < room ? gained : room > 0 ? room : 0;
        latest = tick;
    }
    juju_i128 left = available - (juju_i128)n;
    uint64_t wait_ns = 0;
    if (left < 0) {
        rl_u128 missing = (rl_u128)-left;
        rl_u128 end_tick = latest + (missing + s->quantum - 1) / s->quantum;
        rl_u128 wait = end_tick * s->fill_ns - since; /* > 0: end_tick > latest >= tick */
        if (wait > max_wait_ns) {
            pthread_mutex_unlock(&s->lock);
            return RL_REJECT; /* nothing taken, nothing written */
        }
        if (wait > UINT64_MAX - from) {
            pthread_mutex_unlock(&s->lock);
            return RL_ERROR;
        }
        wait_ns = (uint64_t)wait;
    }
    s->available = left;
    s->latest_tick = latest;
    pthread_mutex_unlock(&s->lock);
    reservation->release_ns = from + wait_ns;
    return RL_ADMIT;
}

static enum rl_decision juju_wait_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                          uint64_t n)
{
    struct rl_reservation reservation;
    return juju_wait_shape(state, clock, key, n, 0, &reservation);
}

const struct rl_algo rl_juju_wait_algo = {
    .name = "juju_wait",
    .family = "shaper",
    .summary = "juju/ratelimit Take/TakeMaxDuration/Wait: a quantum per fill-interval tick",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = juju_wait_create,
    .destroy = juju_wait_destroy,
    .acquire = juju_wait_acquire,
    .shape = juju_wait_shape,
};
