/* tb_mutex.c — the token bucket as it is usually drawn, under a mutex:
 * a token count and the time it was last brought up to date.
 *
 * Promise: bucket: tokens admitted in any window of length w are at most
 * B + L·w/I (what is in the bucket at the start plus what arrives during
 * the window), so ≤ B + L in any window of length I.
 *
 * State: tokens in ticks (tb_ticks.h) in a 128-bit integer, and the time
 * they were counted at, which only moves forward. Exact: there is no
 * rounding and no drift, and no configuration overflows: capacity
 * B·I' < 2^128 and a refill (Δt·L') < 2^128 for any 64-bit values, and the
 * refill is compared with the room left before it is added. The bound this
 * bucket supports is therefore everything struct rl_config can hold (L, I,
 * B up to 2^64 − 1; L = 2^32 at I = 4 h is a tested case).
 *
 * Decision, from the configuration (docs/design.md, The contract): rate L
 * tokens per I, capacity B (default L), full at the epoch. An attempt of
 * cost n is admitted when the bucket holds n tokens, and takes them; a
 * denied attempt changes nothing; n > B is always denied, before the clock
 * is read.
 *
 * Time that goes backwards. `last` only moves forward, so a stale read is
 * never applied as the bucket's time: applying it would hand out again the
 * refill between the stale and the fresh read, the real-world bug in which
 * a limiter exceeds its rate thousands of times. Nor is a stale read simply
 * treated as `last`: it sees the bucket as it stood at its own time, without
 * the refill that arrived after it, so it sees fewer tokens, never more.
 * Treating it as `last` would let an attempt stamped at t take tokens that
 * arrived only later, and the bound would fail over stamped times: with B = 2
 * and T = I/L = 10 ns, admits of 2 at t = 100 and 1 at t = 5000, then a
 * stale read at t = 101 would be admitted from the token left at 5000,
 * putting 3 > B + L·2/I in the window [100, 102). The lock-free buckets,
 * which cannot keep `last` beside their one word, behave the same way by
 * construction, so all of tb_mutex, tb_cas, tb_cas_relaxed and gcra_cas
 * decide identically on every sequence, sorted or not (a test).
 *
 * Why they agree: while tokens < B (always true after an admit), the
 * pair (tokens, last) is one theoretical arrival time TAT = last·L' + B·I' −
 * tokens in ticks (the time the bucket is full again), and the rules below
 * are, case by case, the TAT rules of tb_tat.h.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none. The clock is read under the lock, so reads come in lock order and no
 * thread decides on a time older than an earlier holder's: a read before
 * the lock may be decided after a later one, a reject no sequential order
 * at non-decreasing times explains (check --linearizable counts them). A
 * stale time then comes only from a trace, decided as above.
 *
 * Sources: none; the textbook token bucket.
 */
#include "tb_ticks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct tb_mutex_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    rl_u128 tokens;   /* in ticks of tokens, ≤ capacity; valid as of last_ns */
    uint64_t last_ns; /* since the epoch; only moves forward */
    rl_u128 capacity; /* B·I' */
    uint64_t burst;   /* B */
    uint64_t epoch_ns;
    struct tb_ticks ticks;
};

/* Creates a full bucket at the epoch. Fails (NULL, reason in err) only for a
 * zero limit or interval, or when memory runs out. */
static void *tb_mutex_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "tb_mutex: limit and interval must be at least 1");
        return NULL;
    }
    struct tb_mutex_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    s->burst = rl_config_burst(cfg);
    s->capacity = (rl_u128)s->burst * s->ticks.per_token;
    s->tokens = s->capacity;
    s->last_ns = 0;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static void tb_mutex_destroy(void *state)
{
    struct tb_mutex_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Admits cost n if the bucket holds n tokens at the time read, and takes
 * them; otherwise changes nothing. Never fails. One clock read, none for
 * n > B. */
static enum rl_decision tb_mutex_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    (void)key;
    struct tb_mutex_state *s = state;
    if (n > s->burst)
        return RL_REJECT;
    pthread_mutex_lock(&s->lock);
    uint64_t now = tb_since_epoch(rl_clock_now(clock), s->epoch_ns);
    rl_u128 cost = (rl_u128)n * s->ticks.per_token;
    rl_u128 tokens;
    if (now >= s->last_ns) {
        /* forward: refill up to capacity */
        rl_u128 refill = (rl_u128)(now - s->last_ns) * s->ticks.per_ns;
        tokens = refill >= s->capacity - s->tokens ? s->capacity : s->tokens + refill;
    } else {
        /* a stale read: the bucket as it stood then, before the later refill */
        rl_u128 later = (rl_u128)(s->last_ns - now) * s->ticks.per_ns;
        tokens = s->tokens > later ? s->tokens - later : 0;
    }
    enum rl_decision d = RL_REJECT;
    if (tokens >= cost) {
        if (now >= s->last_ns) {
            s->tokens = tokens - cost;
            s->last_ns = now;
        } else {
            s->tokens -= cost; /* the state stays dated last_ns */
        }
        d = RL_ADMIT;
    }
    pthread_mutex_unlock(&s->lock);
    return d;
}

const struct rl_algo rl_tb_mutex_algo = {
    .name = "tb_mutex",
    .family = "token_bucket",
    .summary = "token bucket (rate L/I, capacity B, starts full): count + last time under a mutex",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = tb_mutex_create,
    .destroy = tb_mutex_destroy,
    .acquire = tb_mutex_acquire,
};
