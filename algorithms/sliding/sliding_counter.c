/* sliding_counter.c — the sliding-window counter as Cloudflare describes it:
 * two counts per limiter, the previous window's and the current one's,
 * under a mutex.
 *
 * Promise: approx. Error bounds (derived in tests/algorithms/test_windows.c and
 * checked there):
 *   - curr + n ≤ L at every admit, so each aligned window admits ≤ L: the
 *     weak bound holds exactly (max_aligned ≤ L).
 *   - a sliding window meets at most two aligned windows, and holding a
 *     of the previous window's admits it holds fewer than L + a: at most
 *     2L − 1, nearly reached by L admitted at the very end of one window
 *     (prev's weight then ≈ 0) and the next admitting L·elapsed/I as that
 *     weight fades.
 *   - decisions against the exact log replaying the same attempts: on
 *     1000-key Poisson or uniform traces at 1.1–4× the limit, 15–37% differ
 *     (`ratelab sim --algo sliding_counter --workload poisson --limit 100
 *     --interval 1s --duration 60s --keys 1000 --rate 110000`). Far from
 *     Cloudflare's 0.003%: here only admits count, so one different
 *     decision shifts every later one of that key, while Cloudflare counts
 *     every request, so the state never depends on the decisions, and its
 *     traffic is mostly far below or far above the limit.
 *
 * State: the current window's index k since the epoch, the cost admitted
 * in it (curr) and in window k − 1 (prev). Windows are
 * [epoch + k·I, epoch + (k+1)·I).
 *
 * Decision: the rate is estimated as
 *
 *     prev · (I − elapsed) / I + curr
 *
 * where elapsed is how far the current window has run, i.e. the previous
 * window's count weighted by how much of it the sliding window [t − I, t)
 * still overlaps, assuming its admits were spread evenly. In integers
 * (weights in ns, no rounding):
 *     admit n  ⇔  prev · (I − elapsed) + (curr + n) · I ≤ L · I
 * Only admitted cost is counted. (Cloudflare counts every request of a
 * client, because an over-limit client is then blocked for a while; here a
 * rejected attempt costs nothing, as in every other ratelab limiter.)
 *
 * Memory orders: mutex.
 *
 * Races accepted: none; the clock is read under the lock, so reads come
 * in lock order. A time read before the current window (a trace that goes
 * backwards) is counted in
 * the current window at elapsed = 0, where the estimate is largest; a
 * stale time inside the current window only weights prev more. Neither
 * ever admits more. The same rule is used by freq_ctr.c, so the two decide
 * identically on one thread.
 *
 * Sources: Cloudflare, "How we built rate limiting capable of scaling to
 * millions of domains" (2017).
 */
#include "algorithms/rl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct sliding_counter_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    uint64_t window; /* index k of the current window since the epoch */
    uint64_t curr;   /* admitted cost in window k */
    uint64_t prev;   /* admitted cost in window k − 1 */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
};

/* Window 0, nothing counted. Never fails but for ENOMEM. */
static void *sliding_counter_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct sliding_counter_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

/* Frees the counter; no call may be in flight. */
static void sliding_counter_destroy(void *state)
{
    struct sliding_counter_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Admits n when the weighted estimate plus n is at most L (see the file
 * comment). n > L is rejected without reading the clock. */
static enum rl_decision sliding_counter_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                                uint64_t n)
{
    (void)key;
    struct sliding_counter_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    pthread_mutex_lock(&s->lock);
    uint64_t now = rl_clock_now(clock);
    uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
    uint64_t window = since / s->interval_ns;
    uint64_t elapsed = since % s->interval_ns;
    if (window > s->window) {
        s->prev = window == s->window + 1 ? s->curr : 0;
        s->curr = 0;
        s->window = window;
    } else if (window < s->window) {
        elapsed = 0; /* stale: the current window at its start */
    }
    unsigned __int128 weighted = (unsigned __int128)s->prev * (s->interval_ns - elapsed) +
                                 (unsigned __int128)(s->curr + n) * s->interval_ns;
    bool admit = weighted <= (unsigned __int128)s->limit * s->interval_ns;
    if (admit)
        s->curr += n;
    pthread_mutex_unlock(&s->lock);
    return admit ? RL_ADMIT : RL_REJECT;
}

const struct rl_algo rl_sliding_counter_algo = {
    .name = "sliding_counter",
    .family = "sliding_counter",
    .summary = "Cloudflare's estimate prev·(I−elapsed)/I + curr, epoch-aligned windows, mutex",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = sliding_counter_create,
    .destroy = sliding_counter_destroy,
    .acquire = sliding_counter_acquire,
};
