/* tb_debt.c — "the next request pays": Guava's RateLimiter in its
 * SmoothBursty form, as tryAcquire(n) with no timeout behaves, under a
 * mutex.
 *
 * Promise: approx — it limits the long-run rate exactly, yet no window
 * bound holds for arbitrary costs. Over a long run it admits at rate L/I as
 * tb_mutex does, and admits cost ≤ L + L·w/I + n_last in any window of
 * length w (stored permits, refill, and the last request's unpaid cost),
 * so with n = 1 it behaves as a bucket of L + 1, but one request of any
 * cost passes at once when no debt is outstanding.
 *
 * State: storedPermits and nextFreeTicket, as Guava keeps them, but as
 * exact integer ticks (tb_ticks.h) in 128 bits where Guava has doubles and
 * a µs clock: there is no drift and no overflow for any L and I with
 * L/g + I/g ≤ 2^64 (g = gcd(L, I); create() checks).
 *
 * Decision, from Guava's documentation of SmoothRateLimiter: a request is
 * granted when nextFreeTicket ≤ now, i.e. no earlier request's debt is
 * outstanding, whatever its own size ("the cost of a request is paid by the
 * next request, not by the request itself"). Granting it first brings the
 * limiter up to date: the idle time since nextFreeTicket becomes stored
 * permits, at most maxPermits = maxBurstSeconds·rate, and nextFreeTicket
 * moves to now; then the request spends stored permits first and charges
 * the rest (n − spent)·T to nextFreeTicket. A refused request changes
 * nothing. SmoothBursty starts with nothing stored and nextFreeTicket at
 * creation, so the very first request is free, and maxBurstSeconds = 1.
 *
 * Mapping (docs/design.md, The contract): rate L per I, so "one second" is
 * I, T = I/L and at most L permits (one interval's worth) are stored while
 * idle. The burst setting B is not used: SmoothBursty has no capacity for
 * requests, only for stored permits. Creation is the epoch.
 *
 * A key first seen long after the epoch: every key's limiter counts from
 * the run's epoch, not from the key's first attempt. ratelab sim builds a
 * key's state at its first attempt, but with the run's epoch for every key
 * (trace t = 0; harness/run/sim.c, keyed.c), so a key first seen at t
 * starts with no debt and min(L, t·L/I) permits stored: from t ≥ I on it
 * starts full, as if idle since the epoch, and at t takes any n ≤ L with
 * no debt left, or L + 1 requests of n = 1. A Guava RateLimiter created at
 * that moment starts empty with its ticket at t: its first request passes
 * too, but owes all of its n permits (n·T), so with n = 1 it passes one
 * request at t and one per T after. Example (L = 3, I = 3000 ns, a key
 * first seen at 30000 with n = 3, then n = 1 at 30000): here both pass
 * (3 stored spent, 1 charged); Guava passes the first and, in debt until
 * 33000, refuses the second. Keys first seen at the epoch start alike in
 * both, and a key's two states meet once it has idled I past its debt.
 * Expiry (sim --expiry lazy|sweeper) keeps this: a dropped key comes back
 * full, as it would have been, where a Guava limiter evicted from a cache
 * comes back empty. The Guava conformance driver creates each key's
 * limiter at its first attempt, so such keys decide differently there
 * (tests/conformance/guava/README.md); `--created-at epoch` creates them
 * at the epoch, as here.
 *
 * Time that goes backwards: a read before nextFreeTicket is refused, as
 * any request inside the debt is; nextFreeTicket is never before the last
 * grant's read, so a stale read neither stores permits nor moves the
 * limiter back.
 *
 * Difference from tb_mutex, worked on one sequence (L = 3 per I = 3000 ns,
 * so T = 1000 ns; B = L = 3 for tb_mutex):
 *
 *   t (ns)  n   tb_debt                                 tb_mutex
 *   0      10   admit: no debt; pays until 10000        reject: n > B
 *   0       1   reject: in debt                         admit: 3 tokens, 2 left
 *   5000    1   reject: in debt                         admit: refilled to 3, 2 left
 *   10000   1   admit: debt paid; next free 11000       admit: 3, 2 left
 *   30000   5   admit: 19000 ns idle stores 3 (at most  reject: n > B
 *               L); 3 spent, 2 charged: free at 32000
 *   30000   3   reject: in debt until 32000             admit: 3 tokens, 0 left
 *
 * tb_debt took 10 at once, more than tb_mutex may take in any window of I
 * (B + L = 6), and made everyone wait for it afterwards.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none. The clock is read under the lock, as Guava's
 * tryAcquire reads its stopwatch inside synchronized(mutex()): read before
 * it, a thread that lost the lock to a later reader was refused as in debt
 * where a fresh time admits (one such reject seen by `bench --suite
 * linearizable`). A stale time then comes only from a trace, refused as above.
 *
 * Sources: Guava, com.google.common.util.concurrent.SmoothRateLimiter
 * (SmoothBursty) and RateLimiter.tryAcquire, from their documentation.
 */
#include "tb_ticks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct tb_debt_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    rl_u128 next_free;  /* ticks since the epoch: Guava's nextFreeTicket */
    rl_u128 stored;     /* ticks of permits: Guava's storedPermits */
    rl_u128 max_stored; /* L·I' ticks: maxPermits with maxBurstSeconds = I */
    uint64_t epoch_ns;
    struct tb_ticks ticks;
};

/* Creates a limiter with nothing stored and no debt at the epoch. NULL with
 * a reason in err for a zero limit or interval, L/g + I/g over 2^64 (the
 * sums below must fit 128 bits), or ENOMEM. */
static void *tb_debt_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "tb_debt: limit and interval must be at least 1");
        return NULL;
    }
    struct tb_ticks ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    if (ticks.per_ns > UINT64_MAX - ticks.per_token) {
        snprintf(err, err_len,
                 "tb_debt: L/gcd(L,I) + I/gcd(L,I) must stay below 2^64 so that a debt "
                 "(time·L' + n·I') fits 128 bits");
        return NULL;
    }
    struct tb_debt_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->next_free = 0;
    s->stored = 0;
    s->ticks = ticks;
    s->max_stored = (rl_u128)cfg->limit * ticks.per_token;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static void tb_debt_destroy(void *state)
{
    struct tb_debt_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Grants n (any n) when no debt is outstanding at the time read, charging
 * what stored permits do not cover to the next caller; otherwise changes
 * nothing. Never fails; one clock read. */
static enum rl_decision tb_debt_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                        uint64_t n)
{
    (void)key;
    struct tb_debt_state *s = state;
    pthread_mutex_lock(&s->lock);
    rl_u128 now = (rl_u128)tb_since_epoch(rl_clock_now(clock), s->epoch_ns) * s->ticks.per_ns;
    rl_u128 cost = (rl_u128)n * s->ticks.per_token;
    if (now < s->next_free) {
        pthread_mutex_unlock(&s->lock);
        return RL_REJECT;
    }
    /* resync: idle time since the debt was paid becomes stored permits */
    rl_u128 idle = now - s->next_free;
    rl_u128 room = s->max_stored - s->stored;
    s->stored = idle >= room ? s->max_stored : s->stored + idle;
    rl_u128 spent = cost < s->stored ? cost : s->stored;
    s->stored -= spent;
    s->next_free = now + (cost - spent); /* the next caller pays the rest */
    pthread_mutex_unlock(&s->lock);
    return RL_ADMIT;
}

const struct rl_algo rl_tb_debt_algo = {
    .name = "tb_debt",
    .family = "token_bucket",
    .summary = "Guava SmoothBursty, next request pays: any n passes when no debt is due (approx)",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = tb_debt_create,
    .destroy = tb_debt_destroy,
    .acquire = tb_debt_acquire,
};
