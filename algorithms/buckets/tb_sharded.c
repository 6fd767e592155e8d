/* tb_sharded.c — the token bucket past one cache line: each thread spends
 * tokens from a cache of its own, refilled k at a time from tb_cas's shared
 * bucket, so most admits touch no shared memory and read no clock.
 *
 * Promise: bucket, with an excess it states (rl_algo.bucket_excess): in any
 * window of length I it admits at most
 *
 *   B + L + (k − 1)·C,   C = min(threads calling this instance, 64),
 *
 * hence at most B + L + k·threads. Why (every admitted token is first taken
 * from the shared bucket, then spent from a cache):
 *
 *  1. The shared bucket is tb_cas's TAT word, and a take of t tokens follows
 *     tb_tat.h's rule for an admit of cost t. So takes whose clock reads lie
 *     in [x, y] total at most B + (y − x)·L/I, whatever order threads decide
 *     in (tb_tat.h).
 *  2. Between calls a cache holds at most k − 1 tokens. A hit only lowers
 *     it; a refill for n with `have` cached takes t ≤ max(k, n − have)
 *     tokens, pays n at once and leaves t − (n − have) ≤ k − 1; a reject
 *     writes nothing.
 *  3. Take a window [s, s + I). A token spent by an admit decided in it was
 *     either taken by a refill whose read lies in the window (at most
 *     B + L·(I − 1)/I < B + L of those, by 1) or sat in a cache at instant s
 *     (at most k − 1 in each, by 2; a call under way at s whose read came
 *     before s pays its own n before it returns, and its admit was decided
 *     before s). Idle caches count at their full k − 1, so the bound holds
 *     however long ago a cached token was taken. Over a window of any length
 *     w the same argument gives B + L·w/I + (k − 1)·C: the long-run rate
 *     stays L per I.
 *
 * C counts caches, not threads: a slot given back by an exiting thread is
 * reused, tokens and all, by the next thread that takes it, so no window
 * sees more than one cache per slot. A recorded run checks the bound
 * (`stress --record`: the result row's promise_held uses it; `ratelab check
 * --promise bucket --burst B+(k−1)·T` judges a saved log the same way).
 *
 * Cached tokens do not expire. Expiry would replace (k − 1)·C by the tokens
 * taken in the E ns before the window, at most B + L·E/I (worse unless E is
 * short), and knowing a token's age needs a clock read on every hit, the
 * cost the cache exists to avoid. Linux's CFS bandwidth control made the
 * same choice for its per-CPU slices (Sources).
 *
 * State: the shared bucket (tb_tat_create: one cache line, its TAT word, B,
 * the ticks); B and k copied here, since a hit must not read the bucket's
 * line (every refill writes it); and a table of 64 cache pointers indexed
 * by thread slot. A cache is one cache line, allocated by its slot's thread
 * at its first call on this instance, so an instance used by two threads
 * holds two lines, not 64. k is the configuration's S (`--slots`, default
 * 10) at most B: a batch larger than the bucket could never be taken whole.
 *
 * Thread slots: process-wide, 64 of them. A thread takes the lowest free one
 * at its first call on any tb_sharded (under a mutex, once per thread) and
 * keeps it in a _Thread_local; a pthread key destructor gives it back when
 * the thread exits, so threads that come and go leak nothing. Each instance's
 * table starts empty (create), so an instance never sees another's tokens. A
 * thread that finds all 64 taken uses the shared bucket alone for its life:
 * it takes exactly n and holds nothing (C counts it as no cache).
 *
 * Decision: a cache holding ≥ n pays n: admit, no clock read. Otherwise,
 * with need = n − have, read the clock; reject (writing nothing) when the
 * bucket holds fewer than need tokens; else take min(max(k, need), held) by
 * CAS on the TAT word, pay n, keep the rest. n > B is rejected without a
 * clock read, as tb_cas does. With k = 1 nothing is ever cached and every
 * decision is tb_cas's (tests/algorithms/test_tb_sharded.c checks it on seeded traces).
 * RL_ERROR past the bucket's horizon (tb_tat.h).
 *
 * Memory orders: none + relaxed. A cache is plain memory, touched by one
 * thread at a time: the slot mutex orders its last holder's writes (the
 * unlock in the exit destructor) before its next holder's (the lock that
 * takes the slot), and destroy runs after every call returned (rl.h). The
 * TAT word is relaxed, load and CAS, as in tb_cas_relaxed, whose file says
 * why a one-word bucket loses nothing for the limit: every take is an RMW
 * and so starts from the previous take's TAT. acq_rel would give callers a
 * happens-before edge from one admit to the next, which a cache hit (touching
 * nothing shared) cannot give, so tb_sharded does not offer it: it cannot
 * replace a mutex-based limiter whose callers rely on that edge.
 *
 * Races accepted: tokens in one thread's cache serve no other thread, so a
 * thread may be rejected while others hold up to k − 1 each (false rejects,
 * at most (k − 1)·(C − 1) tokens out of reach at once); they are spent
 * later, within the bound. A thread preempted between its clock read and its
 * CAS proposes an older `now`, which shows fewer tokens, never more
 * (tb_tat.h).
 *
 * Sources: Linux's CFS bandwidth control hands a group's quota to CPU-local
 * "silos" in slices (Documentation/scheduler/sched-bwc.rst,
 * <https://docs.kernel.org/scheduler/sched-bwc.html>); commit de53fd7aedb1
 * ("sched/fair: Fix low cpu usage with high throttling by removing
 * expiration of cpu-local slices", 2019) stopped expiring them and accepted
 * a burst past quota of the unused slice on each CPU, the (k − 1)·C above.
 * The shared bucket is tb_cas's (tb_tat.h).
 */
#include "tb_tat.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Threads that can hold a cache at once, process-wide: one bit each below. */
#define TB_SHARDED_SLOTS 64

/* One thread's tokens, alone on its cache line. */
struct cache {
    _Alignas(RL_CACHE_LINE) uint64_t tokens;
};

struct tb_sharded {
    struct tb_tat_state *bucket; /* shared: written by every refill */
    uint64_t burst;              /* B, copied so a hit reads no shared line */
    uint64_t batch;              /* k, 1 ≤ k ≤ B */
    /* Slot i's cache, or NULL before slot i's first call here. Written only
     * by the thread holding slot i, read by it and by destroy. */
    struct cache *caches[TB_SHARDED_SLOTS];
};

/* ---- thread slots --------------------------------------------------------- */

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t slots_taken; /* bit i: slot i held by a live thread; under slots_lock */
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t slot_key;
static bool slot_key_made;

/* This thread's slot + 1; 0 before its first call, −1 when it has none
 * (every slot was taken, or it is exiting). */
static _Thread_local int my_slot;

/* The exiting thread's destructor: its slot goes back, its caches stay (the
 * next holder inherits their tokens, which the bound counts per slot). A
 * call made after this, from a later destructor, uses the shared bucket. */
static void give_back_slot(void *value)
{
    unsigned slot = (unsigned)((uintptr_t)value - 1);
    pthread_mutex_lock(&slots_lock);
    slots_taken &= ~(1ull << slot);
    pthread_mutex_unlock(&slots_lock);
    my_slot = -1;
}

static void make_slot_key(void)
{
    slot_key_made = pthread_key_create(&slot_key, give_back_slot) == 0;
}

/* Takes the lowest free slot for this thread, or records that there is none
 * to be had (then it never asks again). Returns my_slot. */
static int take_slot(void)
{
    pthread_once(&slot_key_once, make_slot_key);
    my_slot = -1;
    if (!slot_key_made)
        return my_slot;
    pthread_mutex_lock(&slots_lock);
    if (~slots_taken != 0) {
        unsigned slot = (unsigned)__builtin_ctzll(~slots_taken);
        /* the destructor runs only for a non-NULL value: slot + 1 */
        if (pthread_setspecific(slot_key, (void *)(uintptr_t)(slot + 1)) == 0) {
            slots_taken |= 1ull << slot;
            my_slot = (int)slot + 1;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    return my_slot;
}

/* This thread's cache in s, allocated on its first call here; NULL when it
 * has no slot or no memory for one (then the shared bucket alone serves). */
static inline struct cache *my_cache(struct tb_sharded *s)
{
    int slot = my_slot;
    if (__builtin_expect(slot <= 0, 0) && (slot < 0 || (slot = take_slot()) < 0))
        return NULL;
    struct cache *c = s->caches[slot - 1];
    if (__builtin_expect(c == NULL, 0)) {
        c = aligned_alloc(RL_CACHE_LINE, sizeof *c);
        if (c == NULL)
            return NULL;
        c->tokens = 0;
        s->caches[slot - 1] = c;
    }
    return c;
}

/* ---- the limiter ---------------------------------------------------------- */

/* k: S when given, else B/100 between 1 and 10 (an excess of at most 1%
 * of B a thread, and 9 admits in 10 that are hits once B ≥ 1000); never
 * more than B. */
static uint64_t batch_of(const struct rl_config *cfg)
{
    uint64_t burst = rl_config_burst(cfg), k = cfg->slots;
    if (k == 0) {
        k = burst / 100;
        k = k < 1 ? 1 : k > RL_DEFAULT_SLOTS ? RL_DEFAULT_SLOTS : k;
    }
    return k < burst ? k : burst;
}

static void *tb_sharded_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct tb_tat_state *bucket = tb_tat_create(cfg, "tb_sharded", err, err_len);
    if (bucket == NULL)
        return NULL;
    struct tb_sharded *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL) {
        free(bucket);
        return NULL;
    }
    s->bucket = bucket;
    s->burst = bucket->burst;
    s->batch = batch_of(cfg);
    return s;
}

static void tb_sharded_destroy(void *state)
{
    struct tb_sharded *s = state;
    for (size_t i = 0; i < TB_SHARDED_SLOTS; i++)
        free(s->caches[i]);
    free(s->bucket);
    free(s);
}

/* Takes between need and want tokens (need ≤ want ≤ B) from the shared
 * bucket at the clock's time, into *took: RL_ADMIT, or RL_REJECT when it
 * holds fewer than need (nothing written), or RL_ERROR past the horizon. */
static enum rl_decision take_from_bucket(struct tb_tat_state *b, struct rl_clock *clock,
                                         uint64_t need, uint64_t want, uint64_t *took)
{
    uint64_t now;
    if (!tb_tat_now(b, clock, &now))
        return RL_ERROR;
    uint64_t per_token = b->ticks.per_token;
    uint64_t tat = atomic_load_explicit(&b->tat, memory_order_relaxed);
    for (;;) {
        uint64_t lacking = tat > now ? tat - now : 0;
        /* what the bucket holds, in ticks (a stale `now` may see it lacking
         * more than its capacity: nothing held) */
        uint64_t held = lacking < b->capacity ? b->capacity - lacking : 0;
        if (held < need * per_token)
            return RL_REJECT;
        uint64_t take = held >= want * per_token ? want : held / per_token;
        /* ≤ now + capacity, which fits below the horizon (tb_tat.h) */
        uint64_t next = now + lacking + take * per_token;
        /* weak: a spurious failure only reloads `tat` and decides again */
        if (atomic_compare_exchange_weak_explicit(&b->tat, &tat, next, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *took = take;
            return RL_ADMIT;
        }
    }
}

/* Pays n from this thread's cache, refilling it by a batch from the shared
 * bucket when it holds less; RL_ERROR past the horizon. */
static enum rl_decision tb_sharded_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    (void)key;
    struct tb_sharded *s = state;
    if (n > s->burst)
        return RL_REJECT;
    struct cache *c = my_cache(s);
    uint64_t have = c ? c->tokens : 0;
    if (c && have >= n) {
        c->tokens = have - n;
        return RL_ADMIT;
    }
    uint64_t need = n - have; /* ≥ 1 with a cache; n without one */
    uint64_t want = c && s->batch > need ? s->batch : need, took;
    enum rl_decision d = take_from_bucket(s->bucket, clock, need, want, &took);
    if (d == RL_ADMIT && c)
        c->tokens = took - need; /* ≤ k − 1 */
    return d;
}

/* The checker's copy (rl_algo.snapshot): the TAT word, then (slot, tokens)
 * for each cache holding tokens, by slot. A cache with none and a slot with
 * no cache yet decide alike (a hit needs tokens; a refill finds 0 either
 * way), so they are left out: equal states give equal bytes. Relaxed, as
 * every access to the word here; single-threaded (rl.h). */
static size_t tb_sharded_snapshot(const void *state, void *buf, size_t cap)
{
    const struct tb_sharded *s = state;
    size_t len = sizeof(uint64_t);
    for (size_t i = 0; i < TB_SHARDED_SLOTS; i++)
        if (s->caches[i] && s->caches[i]->tokens)
            len += 2 * sizeof(uint64_t);
    if (cap < len)
        return len;
    uint64_t *out = buf;
    *out++ = atomic_load_explicit(&s->bucket->tat, memory_order_relaxed);
    for (size_t i = 0; i < TB_SHARDED_SLOTS; i++)
        if (s->caches[i] && s->caches[i]->tokens) {
            *out++ = i;
            *out++ = s->caches[i]->tokens;
        }
    return len;
}

/* Into a state fresh from create (no caches yet): the word, and a cache
 * for each listed slot. -1 on ENOMEM or bytes no snapshot wrote. */
static int tb_sharded_restore(void *state, const void *buf, size_t len)
{
    struct tb_sharded *s = state;
    if (len < sizeof(uint64_t) || (len - sizeof(uint64_t)) % (2 * sizeof(uint64_t)) != 0)
        return -1;
    const uint64_t *in = buf;
    atomic_store_explicit(&s->bucket->tat, in[0], memory_order_relaxed);
    for (size_t i = 0; i < TB_SHARDED_SLOTS; i++)
        if (s->caches[i])
            s->caches[i]->tokens = 0;
    for (size_t at = 1; at < len / sizeof(uint64_t); at += 2) {
        uint64_t slot = in[at];
        if (slot >= TB_SHARDED_SLOTS)
            return -1;
        if (s->caches[slot] == NULL) {
            s->caches[slot] = aligned_alloc(RL_CACHE_LINE, sizeof(struct cache));
            if (s->caches[slot] == NULL)
                return -1;
        }
        s->caches[slot]->tokens = in[at + 1];
    }
    return 0;
}

/* (k − 1)·C: the most tokens the caches of `threads` callers carry into a
 * window (file comment). */
static uint64_t tb_sharded_excess(const struct rl_config *cfg, unsigned threads)
{
    uint64_t k = batch_of(cfg);
    uint64_t caches = threads < TB_SHARDED_SLOTS ? threads : TB_SHARDED_SLOTS;
    return (k - 1) * caches;
}

const struct rl_algo rl_tb_sharded_algo = {
    .name = "tb_sharded",
    .family = "token_bucket",
    .summary = "token bucket with per-thread caches refilled k = S at a time from tb_cas's word; "
               "<= B + L + (k-1)*threads",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "none+relaxed",
    .create = tb_sharded_create,
    .destroy = tb_sharded_destroy,
    .acquire = tb_sharded_acquire,
    .bucket_excess = tb_sharded_excess,
    .snapshot = tb_sharded_snapshot,
    .restore = tb_sharded_restore,
};
