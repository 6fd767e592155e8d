/* concurrency.c — at most L in flight: an atomic counter incremented on
 * entry and decremented on release.
 *
 * Promise: concurrency, ≤ L admitted and not yet released.
 *
 * State: the cost in flight; cost n takes n slots. Time is never read.
 *
 * Decision: the article's pattern, increment-then-check: take the slots,
 * and give them back at once when the count came out above L. n > L is
 * rejected untouched. The article starts its AtomicInteger at 1, which
 * caps it at L − 1; here it starts at 0.
 *
 * Memory orders: acquire on entry and release on release, a semaphore's P
 * and V: a new holder sees everything the holder before it did while it
 * held the slot. Giving back a slot never used is relaxed.
 *
 * Races accepted: a thread that overshoots holds the count above L for an
 * instant, so others can be refused while a slot is really free (a false
 * reject); nobody is ever admitted above L.
 *
 * Sources: the Redis article, "Redis'e Dayalı Akım Sınırlama Sisteminin
 * Tasarımı" (Design of a Redis-based rate limiting system), its first
 * strategy: an atomic in-flight counter.
 */
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdlib.h>

struct concurrency_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t in_flight;
    uint64_t limit;
};

static void *concurrency_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct concurrency_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s)
        s->limit = cfg->limit;
    return s;
}

static enum rl_decision concurrency_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                            uint64_t n)
{
    (void)clock, (void)key;
    struct concurrency_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    /* acquire: pairs with release() below, so a new holder sees everything
     * the holder before it did while it held the slot (a semaphore's P). */
    uint64_t after = atomic_fetch_add_explicit(&s->in_flight, n, memory_order_acquire) + n;
    if (after <= s->limit)
        return RL_ADMIT;
    /* relaxed: giving back a slot we never used publishes nothing. */
    atomic_fetch_sub_explicit(&s->in_flight, n, memory_order_relaxed);
    return RL_REJECT;
}

static void concurrency_release(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    (void)clock, (void)key;
    struct concurrency_state *s = state;
    /* release: the holder's work happens-before the next holder's entry. */
    atomic_fetch_sub_explicit(&s->in_flight, n, memory_order_release);
}

const struct rl_algo rl_concurrency_algo = {
    .name = "concurrency",
    .family = "concurrency",
    .summary = "at most L in flight: atomic increment, check, decrement on release (Redis article)",
    .promise = RL_PROMISE_CONCURRENCY,
    .flags = RL_THREAD_SAFE | RL_NEEDS_RELEASE,
    .orders = "acquire/release",
    .create = concurrency_create,
    .destroy = free,
    .acquire = concurrency_acquire,
    .release = concurrency_release,
};
