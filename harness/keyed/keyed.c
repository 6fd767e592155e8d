/* keyed.c — per-key limiter states in sharded open-addressing tables that
 * operations read without a lock (see keyed.h).
 *
 * Layout. A key's 64-bit hash h picks its shard (the low shard_bits bits)
 * and its home slot (the high bits). A slot is 2 to 4 words: the key word,
 * the state word, then the last access time when keys expire and the
 * permits held when the algorithm needs release. The key word is
 * h >> shard_bits with the top bit set: it names the key exactly within its
 * shard and is never KEY_EMPTY (0) or KEY_TOMB (1). The state word is the
 * key's whole state for a one-word algorithm (rl_algo.one_word_state: gcra_cas,
 * tb_cas, faa, ...), else a pointer to the instance its create() made, in
 * the shard's arena when destroy is free (keyed_arena.h). Linear probing; a
 * table is rebuilt 1.5 times larger (any size: the home slot is a fastrange
 * of the hash) when keys and tombstones fill 3/4 of it, and a table's
 * memory of 64 KiB or more is mapped, so that a freed table leaves the
 * resident set.
 *
 * One-word states. The per-key word is all that differs between two keys'
 * states, so the container keeps one prototype instance and, per thread, a
 * copy of it (scratch). An operation puts the key's word into the copy,
 * calls acquire on the copy, and commits the word the copy now holds with a
 * CAS on the slot; a failed CAS decides again on the new word (a fresh clock
 * read included). When the copy's word is unchanged, the decision stands if
 * the slot still holds the word it was made from, reloaded after the call
 * (so after the time was read). Every decision is thus made on the word the
 * slot held at one instant after the algorithm read the time, as the
 * algorithm's own load-then-CAS makes it: the same decisions, one at a
 * time, as the algorithm running in place (rl.h states the claim). When the
 * last decision read the clock, the next reads it before looking the key up
 * and hands that time to the algorithm's first read (primed_clock): the
 * order the algorithm keeps itself (time, then word), and the read overlaps
 * the slot's cache miss.
 *
 * Concurrency. Operations on existing keys take no lock: they announce
 * themselves (keyed_grace.h), load the shard's table and find the key's slot
 * with seq_cst loads, and use the slot: a CAS on the word, or acquire on the
 * instance. Thread-safe algorithms are called that way; only a non-thread-safe
 * algorithm that keeps an instance per key (fw_plain) takes the shard's
 * mutex across every operation. The mutex also serialises the changes, each
 * made visible with a seq_cst store and followed by a grace period:
 *
 *   - a new key is written into an empty slot (or a tombstone whose grace
 *     period has passed), its key word last, with a release store: a reader
 *     finds the key with its state, or goes on to an empty slot and comes to
 *     the mutex to add it, finding it there;
 *   - a rebuild freezes the table, waits out the operations in flight (so the
 *     frozen table no longer changes), copies it, publishes the copy, waits
 *     again (no reader is still looking at the old table) and frees it; an
 *     operation that finds the table frozen comes to the mutex and retries;
 *   - expiry turns an idle key's key word into a tombstone, waits out the
 *     operations in flight, and looks again: a key that one of them used (its
 *     last access time or permits held changed) gets its key word back;
 *     otherwise its instance is destroyed, its slot reusable, and an
 *     operation that comes for it adds a fresh state. No admit is ever
 *     recorded in a state that expiry then forgets.
 *
 * Readers never block while announced, so a grace period ends once the
 * operations in flight end; the sweeper and lazy expiry run with the mutex
 * held and outside any announcement.
 */
#include "harness/sys/cpus.h"
#include "keyed.h"

#include "keyed_arena.h"
#include "keyed_grace.h"
#include "harness/sys/clock.h"
#include "harness/sys/pages.h"
#include "harness/sys/prefetch.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const char *const rl_keyed_expiry_names[] = {"never", "lazy", "sweeper", NULL};

#define KEY_EMPTY     0u
#define KEY_TOMB      1u
#define KEY_TOP       (1ull << 63) /* set in every key word */
#define SLOT_KEY      0
#define SLOT_STATE    1
#define MIN_SLOTS     16u
#define MAP_BYTES     (64u * 1024) /* tables this large are mapped, so freeing one shrinks RSS */
#define SCRATCH_BYTES 256u         /* the largest one-word state kept in a per-thread copy */
#define EXPIRE_BATCH  256u         /* tombstones per grace period when sweeping */
#define LAZY_LOOKS    2

__extension__ typedef unsigned __int128 u128;

struct table {
    _Alignas(RL_CACHE_LINE) size_t slots;
    _Atomic bool frozen; /* being rebuilt: operations go to the mutex */
    size_t live, tombs;  /* under the shard's mutex */
    size_t bytes;
    bool mapped;
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t words[]; /* slots × stride */
};

struct shard {
    _Alignas(RL_CACHE_LINE) _Atomic(struct table *) table; /* read by every operation */
    /* The table's slot count, stored with each table published: what
     * rl_keyed_prefetch reads instead of the table's own, which may be freed */
    _Atomic size_t slots_hint;
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;    /* changes (see above) */
    uint64_t created, expired;                       /* under lock */
    struct rl_keyed_arena arena;                     /* under lock; when packed */
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t cursor; /* where lazy expiry looks next */
};

struct rl_keyed {
    struct rl_keyed_config config;
    const struct rl_algo *algo;
    void *remote_state; /* RL_REMOTE: one instance keyed by the server itself */
    uint64_t idle_ns;
    bool expires, releases;
    bool one_word;                   /* the state word is the state itself (see above) */
    bool locked;                     /* every operation holds its shard's mutex */
    bool packed;                     /* instances live in the shards' arenas (destroy is free) */
    _Atomic bool reads_time;         /* one_word: the last decision read the clock */
    size_t stride, last_at, held_at; /* words per slot, and where those two live */
    void *proto;                     /* one_word: a fresh instance, copied per thread */
    size_t proto_size;
    uint64_t fresh_word; /* one_word: a new key's word */
    uint64_t id;         /* names the prototype in a thread's copy */
    unsigned shard_bits;
    uint64_t shard_mask;
    struct shard *shards;
    _Atomic uint64_t next_sweep_ns; /* virtual time: when the next sweep is due */
    _Atomic uint64_t sweeps;
    pthread_t sweeper;
    bool sweeper_started;
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    bool stopping;
    /* rl_keyed_set_rate's changes so far, each with a copy of the clock it
     * was made on (virtual: it reads that time again), replayed on every
     * key created after them (under the shard's mutex; set_rate runs alone) */
    struct rate_change {
        struct rl_clock clock;
        uint64_t limit, interval_ns;
    } * rates;
    size_t rate_count;
};

/* This thread's copy of one container's prototype (one-word states). */
static _Thread_local struct {
    uint64_t owner; /* the container id whose prototype it holds; 0: none */
    _Alignas(RL_CACHE_LINE) unsigned char bytes[SCRATCH_BYTES];
} scratch;

static _Atomic uint64_t next_container_id = 1;

static uint64_t mix(uint64_t key)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    return key ^ (key >> 31);
}

uint64_t rl_keyed_default_idle_ns(const struct rl_config *cfg)
{
    uint64_t burst = rl_config_burst(cfg);
    uint64_t refill = (burst + cfg->limit - 1) / cfg->limit; /* intervals to refill B */
    uint64_t periods = 1 + (refill > 2 ? refill : 2);
    return cfg->interval_ns > UINT64_MAX / periods ? UINT64_MAX : cfg->interval_ns * periods;
}

/* ---- tables ------------------------------------------------------------------ */

static struct table *table_new(const struct rl_keyed *k, size_t slots)
{
    size_t bytes = sizeof(struct table) + slots * k->stride * sizeof(uint64_t);
    bool mapped = bytes >= MAP_BYTES;
    struct table *t;
    if (mapped) {
        t = rl_pages_map(&bytes); /* zeroed; on huge pages from 2 MiB */
    } else {
        size_t rounded = (bytes + RL_CACHE_LINE - 1) / RL_CACHE_LINE * RL_CACHE_LINE;
        t = aligned_alloc(RL_CACHE_LINE, rounded);
        if (t)
            memset(t, 0, rounded);
    }
    if (t == NULL)
        return NULL;
    t->slots = slots;
    atomic_init(&t->frozen, false);
    t->bytes = bytes;
    t->mapped = mapped;
    return t;
}

static void table_free(struct table *t)
{
    if (t->mapped)
        munmap(t, t->bytes);
    else
        free(t);
}

static inline _Atomic uint64_t *slot_at(const struct rl_keyed *k, struct table *t, size_t i)
{
    return &t->words[i * k->stride];
}

/* A fastrange of the hash's high bits: key_word << shard_bits is the hash
 * without its shard bits (the top bit shifts out). */
static inline size_t home_of(const struct rl_keyed *k, uint64_t key_word, size_t slots)
{
    return (size_t)(((u128)(key_word << k->shard_bits) * slots) >> 64);
}

static inline size_t next_slot(size_t i, size_t slots)
{
    return i + 1 == slots ? 0 : i + 1;
}

/* The key's slot, probing from its home, or NULL when an empty slot comes
 * first. seq_cst: these loads must see a tombstone stored before a grace
 * period began (keyed_grace.h). A table is never more than 3/4 full, so a
 * probe ends. */
static inline _Atomic uint64_t *find_from(const struct rl_keyed *k, struct table *t,
                                          uint64_t key_word, size_t home)
{
    size_t slots = t->slots;
    for (size_t i = home;; i = next_slot(i, slots)) {
        _Atomic uint64_t *slot = slot_at(k, t, i);
        uint64_t got = atomic_load_explicit(&slot[SLOT_KEY], memory_order_seq_cst);
        if (got == key_word)
            return slot;
        if (got == KEY_EMPTY)
            return NULL;
    }
}

static inline _Atomic uint64_t *find(const struct rl_keyed *k, struct table *t, uint64_t key_word)
{
    return find_from(k, t, key_word, home_of(k, key_word, t->slots));
}

/* An instance's state word: its address, with bit 0 set when it lives in
 * the shard's arena (addresses are cache-line aligned). */
#define IN_ARENA 1u

static inline void *instance_of(_Atomic uint64_t *slot)
{
    /* relaxed: published by the key word's release store, which find's
     * load acquired */
    uint64_t word = atomic_load_explicit(&slot[SLOT_STATE], memory_order_relaxed);
    return (void *)(uintptr_t)(word & ~(uint64_t)IN_ARENA);
}

/* Once nothing can use it: back to the arena, or destroy. */
static void forget_instance(const struct rl_keyed *k, struct shard *s, _Atomic uint64_t *slot)
{
    uint64_t word = atomic_load_explicit(&slot[SLOT_STATE], memory_order_relaxed);
    if (word & IN_ARENA)
        rl_keyed_arena_give(&s->arena, instance_of(slot));
    else
        k->algo->destroy(instance_of(slot));
}

/* ---- deciding ------------------------------------------------------------- */

/* A handle whose first read returns a time read before the key's slot was
 * looked up, so that the read overlaps the slot's cache miss; later reads
 * (a decision taken again after a failed commit) read the clock. The
 * one-word algorithms read the time before they load their word, so this
 * is the order they keep themselves; sim's virtual time is the same either
 * way. `reads` counts the algorithm's reads on the caller's handle. */
struct primed_clock {
    struct rl_clock handle; /* first: what the algorithm is given */
    struct rl_clock *real;
    uint64_t time;
    bool fresh; /* time not handed out yet */
};

static uint64_t primed_read(struct rl_clock *self)
{
    struct primed_clock *p = (struct primed_clock *)self;
    if (!p->fresh)
        return p->real->read(p->real);
    p->fresh = false;
    return p->time;
}

static void prime(struct primed_clock *p, struct rl_clock *real, uint64_t time)
{
    p->handle = *real;
    p->handle.read = primed_read;
    p->handle.reads = 0;
    p->real = real;
    p->time = time;
    p->fresh = true;
}

static inline void *scratch_for(const struct rl_keyed *k)
{
    if (scratch.owner != k->id) {
        memset(scratch.bytes, 0, sizeof scratch.bytes);
        memcpy(scratch.bytes, k->proto, k->proto_size);
        scratch.owner = k->id;
    }
    return scratch.bytes;
}

/* A one-word state's acquire (or release) on this thread's copy, committed
 * to the slot's word (see the file comment). */
static enum rl_decision decide_word(const struct rl_keyed *k, _Atomic uint64_t *word,
                                    struct rl_clock *clock, uint64_t key, uint64_t n, bool release)
{
    void *copy = scratch_for(k);
    _Atomic uint64_t *copy_word = copy;
    enum rl_decision d = RL_ADMIT;
    /* acquire: the decision happens after the commit whose word it reads, as
     * the algorithm's own acquire load orders it */
    uint64_t seen = atomic_load_explicit(word, memory_order_acquire);
    for (;;) {
        atomic_store_explicit(copy_word, seen, memory_order_relaxed); /* this thread's own */
        if (release)
            k->algo->release(copy, clock, key, n);
        else
            d = k->algo->acquire(copy, clock, key, n);
        uint64_t next = atomic_load_explicit(copy_word, memory_order_relaxed);
        if (next == seen) {
            uint64_t again = atomic_load_explicit(word, memory_order_acquire);
            if (again == seen)
                return d; /* the word held `seen` after the time was read */
            seen = again;
            continue;
        }
        /* acq_rel on success: what the caller did before is visible to every
         * later decision on this key (the orders tb_cas gives its callers);
         * acquire on failure, as for the load */
        if (atomic_compare_exchange_weak_explicit(word, &seen, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return d;
    }
}

/* A shaper's request (rl_keyed_shape): its max wait and where the
 * reservation goes; NULL for a plain acquire. */
struct shape_request {
    uint64_t max_wait_ns;
    struct rl_reservation *reservation;
};

/* primed: NULL, or a handle primed from clock (one-word states only). */
static enum rl_decision use_slot(struct rl_keyed *k, _Atomic uint64_t *slot, struct rl_clock *clock,
                                 struct primed_clock *primed, uint64_t key, uint64_t n,
                                 uint64_t now, const struct shape_request *req)
{
    /* relaxed: expiry reads it after a grace period, which orders it */
    if (k->expires)
        atomic_store_explicit(&slot[k->last_at], now, memory_order_relaxed);
    enum rl_decision d;
    if (k->one_word) {
        uint64_t before = clock->reads;
        d = decide_word(k, &slot[SLOT_STATE], primed ? &primed->handle : clock, key, n, false);
        uint64_t reads = primed ? primed->handle.reads : clock->reads - before;
        clock->reads += primed ? reads : 0;
        /* relaxed, and written only when it changes: a hint for the next
         * operation whether to prime a clock */
        if ((reads > 0) != atomic_load_explicit(&k->reads_time, memory_order_relaxed))
            atomic_store_explicit(&k->reads_time, reads > 0, memory_order_relaxed);
    } else if (req) {
        d = k->algo->shape(instance_of(slot), clock, key, n, req->max_wait_ns, req->reservation);
    } else {
        d = k->algo->acquire(instance_of(slot), clock, key, n);
    }
    if (d == RL_ADMIT && k->releases) /* relaxed: as last, and the count orders nothing else */
        atomic_fetch_add_explicit(&slot[k->held_at], n, memory_order_relaxed);
    return d;
}

static void release_slot(const struct rl_keyed *k, _Atomic uint64_t *slot, struct rl_clock *clock,
                         uint64_t key, uint64_t n)
{
    if (k->one_word)
        decide_word(k, &slot[SLOT_STATE], clock, key, n, true);
    else
        k->algo->release(instance_of(slot), clock, key, n);
    _Atomic uint64_t *held = &slot[k->held_at];
    uint64_t was = atomic_load_explicit(held, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(held, &was, was - (n <= was ? n : was),
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

/* ---- changes, under the shard's mutex -------------------------------------- */

static bool looks_idle(const struct rl_keyed *k, _Atomic uint64_t *slot, uint64_t now)
{
    uint64_t last = atomic_load_explicit(&slot[k->last_at], memory_order_relaxed);
    if (k->releases && atomic_load_explicit(&slot[k->held_at], memory_order_relaxed) != 0)
        return false;
    return now > last && now - last >= k->idle_ns;
}

/* A copy of `old` sized for `want` keys, published in its place; NULL on
 * ENOMEM, the old table untouched. */
static struct table *rebuild(struct rl_keyed *k, struct shard *s, size_t want)
{
    struct table *old = atomic_load_explicit(&s->table, memory_order_relaxed);
    size_t slots = 2 * want > MIN_SLOTS ? 2 * want : MIN_SLOTS;
    struct table *t = table_new(k, slots);
    if (t == NULL)
        return NULL;
    if (!k->locked) { /* seq_cst: see keyed_grace.h */
        atomic_store_explicit(&old->frozen, true, memory_order_seq_cst);
        rl_grace_wait(); /* the frozen table no longer changes */
    }
    for (size_t i = 0; i < old->slots; i++) {
        _Atomic uint64_t *from = slot_at(k, old, i);
        uint64_t key_word = atomic_load_explicit(&from[SLOT_KEY], memory_order_relaxed);
        if (key_word < KEY_TOP)
            continue;
        size_t j = home_of(k, key_word, slots);
        while (atomic_load_explicit(&slot_at(k, t, j)[SLOT_KEY], memory_order_relaxed) != KEY_EMPTY)
            j = next_slot(j, slots);
        _Atomic uint64_t *to = slot_at(k, t, j);
        for (size_t w = 0; w < k->stride; w++) /* relaxed: published below */
            atomic_store_explicit(&to[w], atomic_load_explicit(&from[w], memory_order_relaxed),
                                  memory_order_relaxed);
    }
    t->live = old->live;
    /* seq_cst: readers that load the table after the grace period's look at
     * their counts find this one */
    atomic_store_explicit(&s->table, t, memory_order_seq_cst);
    atomic_store_explicit(&s->slots_hint, slots, memory_order_relaxed); /* a hint: see there */
    if (!k->locked)
        rl_grace_wait(); /* nobody still reads the old table */
    table_free(old);
    return t;
}

/* The key's slot in the shard's table, added with a fresh state when
 * absent; NULL on ENOMEM. */
static _Atomic uint64_t *find_or_add(struct rl_keyed *k, struct shard *s, uint64_t key_word,
                                     uint64_t now)
{
    struct table *t = atomic_load_explicit(&s->table, memory_order_relaxed);
    size_t i = home_of(k, key_word, t->slots), reuse = SIZE_MAX;
    for (;; i = next_slot(i, t->slots)) {
        /* relaxed: key words change only under this mutex */
        uint64_t got = atomic_load_explicit(&slot_at(k, t, i)[SLOT_KEY], memory_order_relaxed);
        if (got == key_word)
            return slot_at(k, t, i); /* another thread added it */
        if (got == KEY_TOMB && reuse == SIZE_MAX)
            reuse = i; /* its grace period passed before the mutex was let go */
        if (got == KEY_EMPTY)
            break;
    }
    if (reuse != SIZE_MAX) {
        i = reuse;
        t->tombs--;
    } else if ((t->live + t->tombs + 1) * 4 > t->slots * 3) {
        if ((t = rebuild(k, s, t->live + 1)) == NULL)
            return NULL;
        for (i = home_of(k, key_word, t->slots);
             atomic_load_explicit(&slot_at(k, t, i)[SLOT_KEY], memory_order_relaxed) != KEY_EMPTY;
             i = next_slot(i, t->slots))
            ;
    }
    uint64_t state = k->fresh_word;
    if (!k->one_word) {
        char err[128];
        if (k->packed)
            rl_state_arena_use(&s->arena.base);
        void *instance = k->algo->create(&k->config.cfg, err, sizeof err);
        if (k->packed)
            rl_state_arena_use(NULL);
        /* a key first seen after a rate change lives as if it had existed
         * since the epoch: every change so far, at its time */
        for (size_t r = 0; instance && r < k->rate_count; r++) {
            struct rl_clock at = k->rates[r].clock;
            if (!k->algo->set_rate(instance, &at, k->rates[r].limit, k->rates[r].interval_ns)) {
                if (!k->packed || !rl_keyed_arena_took(&s->arena, instance))
                    k->algo->destroy(instance);
                else
                    rl_keyed_arena_give(&s->arena, instance);
                instance = NULL;
            }
        }
        if (instance == NULL) {
            if (reuse != SIZE_MAX)
                t->tombs++;
            return NULL;
        }
        state = (uint64_t)(uintptr_t)instance;
        if (k->packed && rl_keyed_arena_took(&s->arena, instance))
            state |= IN_ARENA;
    }
    _Atomic uint64_t *slot = slot_at(k, t, i);
    /* relaxed: the key word's release store below publishes them */
    atomic_store_explicit(&slot[SLOT_STATE], state, memory_order_relaxed);
    if (k->expires)
        atomic_store_explicit(&slot[k->last_at], now, memory_order_relaxed);
    if (k->releases)
        atomic_store_explicit(&slot[k->held_at], 0, memory_order_relaxed);
    atomic_store_explicit(&slot[SLOT_KEY], key_word, memory_order_release);
    t->live++;
    s->created++;
    return slot;
}

/* Expires the idle keys among slots `at` of table t (the shard's current
 * one): tombstones, one grace period, then each key is either forgotten or,
 * if an operation used it meanwhile, given back its key word. */
static void expire_slots(struct rl_keyed *k, struct shard *s, struct table *t, const size_t *at,
                         size_t count, uint64_t now)
{
    uint64_t key_word[EXPIRE_BATCH];
    size_t which[EXPIRE_BATCH], marked = 0;
    for (size_t i = 0; i < count && marked < EXPIRE_BATCH; i++) {
        _Atomic uint64_t *slot = slot_at(k, t, at[i]);
        uint64_t got = atomic_load_explicit(&slot[SLOT_KEY], memory_order_relaxed);
        if (got < KEY_TOP || !looks_idle(k, slot, now))
            continue;
        key_word[marked] = got;
        which[marked++] = at[i];
        /* seq_cst: an operation that loads the key word after the grace
         * period's look at its count sees the tombstone */
        atomic_store_explicit(&slot[SLOT_KEY], KEY_TOMB, memory_order_seq_cst);
    }
    if (marked == 0)
        return;
    if (!k->locked)
        rl_grace_wait(); /* the marked slots' last and held are final now */
    for (size_t m = 0; m < marked; m++) {
        _Atomic uint64_t *slot = slot_at(k, t, which[m]);
        if (!looks_idle(k, slot, now)) { /* used while being marked: keep it */
            atomic_store_explicit(&slot[SLOT_KEY], key_word[m], memory_order_release);
            continue;
        }
        if (!k->one_word)
            forget_instance(k, s, slot);
        t->live--;
        t->tombs++;
        s->expired++;
    }
}

/* Lazy expiry, inside an operation: the next two slots of the shard's
 * cursor that hold another key that looks idle. */
static size_t look_lazily(struct rl_keyed *k, struct shard *s, struct table *t, uint64_t key_word,
                          uint64_t now, size_t found[LAZY_LOOKS])
{
    /* relaxed: only a position to look at */
    uint64_t cursor = atomic_fetch_add_explicit(&s->cursor, LAZY_LOOKS, memory_order_relaxed);
    size_t count = 0;
    for (unsigned look = 0; look < LAZY_LOOKS; look++) {
        size_t i = (size_t)((cursor + look) % t->slots);
        _Atomic uint64_t *slot = slot_at(k, t, i);
        uint64_t got = atomic_load_explicit(&slot[SLOT_KEY], memory_order_relaxed);
        if (got >= KEY_TOP && got != key_word && looks_idle(k, slot, now))
            found[count++] = i;
    }
    return count;
}

/* After the operation: expire what look_lazily found, if the table it was
 * found in is still the shard's. (Should that table have been freed and
 * another allocated at its address, expire_slots looks at each slot again
 * and only expires a key that is idle there.) */
static void expire_found(struct rl_keyed *k, struct shard *s, struct table *t, const size_t *found,
                         size_t count, uint64_t now)
{
    pthread_mutex_lock(&s->lock);
    if (atomic_load_explicit(&s->table, memory_order_relaxed) == t)
        expire_slots(k, s, t, found, count, now);
    pthread_mutex_unlock(&s->lock);
}

static void sweep_shard(struct rl_keyed *k, struct shard *s, uint64_t now_ns)
{
    pthread_mutex_lock(&s->lock);
    struct table *t = atomic_load_explicit(&s->table, memory_order_relaxed);
    size_t idle[EXPIRE_BATCH], count = 0;
    for (size_t i = 0; i < t->slots; i++) {
        _Atomic uint64_t *slot = slot_at(k, t, i);
        if (atomic_load_explicit(&slot[SLOT_KEY], memory_order_relaxed) < KEY_TOP ||
            !looks_idle(k, slot, now_ns))
            continue;
        idle[count++] = i;
        if (count == EXPIRE_BATCH) {
            expire_slots(k, s, t, idle, count, now_ns);
            count = 0;
        }
    }
    expire_slots(k, s, t, idle, count, now_ns);
    pthread_mutex_unlock(&s->lock);
}

static void sweep_all(struct rl_keyed *k, uint64_t now_ns)
{
    for (uint64_t i = 0; i <= k->shard_mask; i++)
        sweep_shard(k, &k->shards[i], now_ns);
    atomic_fetch_add_explicit(&k->sweeps, 1, memory_order_relaxed);
}

/* ---- the sweeper ------------------------------------------------------------ */

static void *sweeper_main(void *arg)
{
    struct rl_keyed *k = arg;
    uint64_t period = k->idle_ns / 2 ? k->idle_ns / 2 : 1;
    pthread_mutex_lock(&k->stop_lock);
    while (!k->stopping) {
        uint64_t wake = rl_monotonic_ns() + period;
        struct timespec until = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
        int rc = 0;
        while (!k->stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&k->stop_cond, &k->stop_lock, &until);
        if (k->stopping)
            break;
        pthread_mutex_unlock(&k->stop_lock);
        sweep_all(k, rl_monotonic_ns());
        pthread_mutex_lock(&k->stop_lock);
    }
    pthread_mutex_unlock(&k->stop_lock);
    return NULL;
}

/* Virtual time: run the sweeps the sweeper thread would have run by now. */
static void catch_up_sweeps(struct rl_keyed *k, uint64_t now_ns)
{
    uint64_t period = k->idle_ns / 2 ? k->idle_ns / 2 : 1;
    uint64_t due = atomic_load_explicit(&k->next_sweep_ns, memory_order_relaxed);
    if (now_ns < due)
        return;
    uint64_t next = now_ns - (now_ns - due) % period + period;
    /* relaxed: only whoever moves the schedule sweeps; shard locks order the rest. */
    if (atomic_compare_exchange_strong_explicit(&k->next_sweep_ns, &due, next, memory_order_relaxed,
                                                memory_order_relaxed))
        sweep_all(k, now_ns);
}

/* ---- the container ---------------------------------------------------------- */

/* Whether algo's one-word claim holds for cfg as far as it can be checked:
 * destroy is free and two fresh instances are the same bytes. -1 with err
 * when it does not (a bug in the algorithm). */
static int check_one_word(const struct rl_algo *algo, const struct rl_config *cfg, const void *one,
                          char *err, size_t err_len)
{
    void *two = algo->create(cfg, err, err_len);
    if (two == NULL)
        return -1;
    bool same = memcmp(one, two, algo->one_word_state) == 0;
    algo->destroy(two);
    if (algo->destroy != free || !same) {
        snprintf(err, err_len, "%s claims a one-word state (rl_algo.one_word_state) but %s",
                 algo->name,
                 algo->destroy != free ? "its destroy is not free" : "two fresh instances differ");
        return -1;
    }
    return 0;
}

/* How the container holds algo's states (a one-word table entry, a packed
 * instance, an instance under the shard's lock) and which words an entry
 * carries. first, the instance create() just made, becomes the one-word
 * prototype or is destroyed. -1 with err (first destroyed) when a one-word
 * claim does not hold. */
static int choose_layout(struct rl_keyed *k, const struct rl_keyed_config *config, void *first,
                         char *err, size_t err_len)
{
    const struct rl_algo *algo = config->algo;
    /* a shaper's shape call has no one-word path: its instances are kept whole */
    k->one_word =
        algo->one_word_state > 0 && algo->one_word_state <= SCRATCH_BYTES && algo->shape == NULL;
    if (k->one_word) {
        if (check_one_word(algo, &config->cfg, first, err, err_len) != 0) {
            algo->destroy(first);
            return -1;
        }
        k->proto = first;
        k->proto_size = algo->one_word_state;
        unsigned char word[sizeof k->fresh_word] = {0};
        memcpy(word, first, k->proto_size < sizeof word ? k->proto_size : sizeof word);
        memcpy(&k->fresh_word, word, sizeof word);
    } else {
        algo->destroy(first);
    }
    k->locked = !k->one_word && !(algo->flags & RL_THREAD_SAFE);
    k->packed = !k->one_word && algo->destroy == free;
    k->expires = config->expiry != RL_EXPIRE_NEVER;
    k->releases = algo->flags & RL_NEEDS_RELEASE;
    k->stride = 2;
    if (k->expires)
        k->last_at = k->stride++;
    if (k->releases)
        k->held_at = k->stride++;
    return 0;
}

/* The shards, each with its lock, arena and a first table: wanted_shards
 * of them (0 = 4 per online CPU), rounded up to a power of two, at least 2.
 * -1 on ENOMEM; what was made is freed with k. */
static int create_shards(struct rl_keyed *k, unsigned wanted_shards)
{
    /* A power of two, at least 2: the shard takes the hash's low bits, which
     * frees the key word's top bit (see the file comment). */
    uint64_t wanted = wanted_shards ? wanted_shards : 4 * (uint64_t)rl_cpu_count();
    k->shard_bits = 1;
    while (k->shard_bits < 16 && (1ull << k->shard_bits) < wanted)
        k->shard_bits++;
    k->shard_mask = (1ull << k->shard_bits) - 1;
    size_t shard_count = (size_t)k->shard_mask + 1;
    k->shards = aligned_alloc(RL_CACHE_LINE, shard_count * sizeof *k->shards);
    if (k->shards == NULL)
        return -1;
    memset(k->shards, 0, shard_count * sizeof *k->shards);
    for (size_t i = 0; i < shard_count; i++) {
        struct shard *s = &k->shards[i];
        pthread_mutex_init(&s->lock, NULL);
        rl_keyed_arena_init(&s->arena);
        atomic_init(&s->cursor, 0);
        struct table *t = table_new(k, MIN_SLOTS);
        atomic_init(&s->table, t);
        atomic_init(&s->slots_hint, MIN_SLOTS);
        if (t == NULL)
            return -1;
    }
    return 0;
}

struct rl_keyed *rl_keyed_create(const struct rl_keyed_config *config, char *err, size_t err_len)
{
    const struct rl_algo *algo = config->algo;
    void *first = algo->create(&config->cfg, err, err_len);
    if (first == NULL)
        return NULL;
    struct rl_keyed *k = calloc(1, sizeof *k);
    if (k == NULL) {
        algo->destroy(first);
        snprintf(err, err_len, "out of memory creating the keyed container");
        return NULL;
    }
    k->config = *config;
    k->algo = algo;
    if (algo->flags & RL_REMOTE) { /* the server keeps the keys */
        k->remote_state = first;
        return k;
    }
    if (choose_layout(k, config, first, err, err_len) != 0) {
        free(k);
        return NULL;
    }
    k->idle_ns = config->idle_ns ? config->idle_ns : rl_keyed_default_idle_ns(&config->cfg);
    k->id = atomic_fetch_add_explicit(&next_container_id, 1, memory_order_relaxed);
    atomic_init(&k->next_sweep_ns, 0);
    atomic_init(&k->sweeps, 0);
    atomic_init(&k->reads_time, false);
    pthread_mutex_init(&k->stop_lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&k->stop_cond, &attr);
    pthread_condattr_destroy(&attr);

    if (create_shards(k, config->shards) != 0) {
        rl_keyed_destroy(k);
        snprintf(err, err_len, "out of memory creating the keyed container");
        return NULL;
    }
    if (config->expiry == RL_EXPIRE_SWEEPER && config->realtime) {
        int e = pthread_create(&k->sweeper, NULL, sweeper_main, k);
        if (e != 0) {
            snprintf(err, err_len, "cannot start the sweeper thread: %s", strerror(e));
            rl_keyed_destroy(k);
            return NULL;
        }
        k->sweeper_started = true;
    }
    return k;
}

/* Every operation of a non-thread-safe algorithm with instances. */
static enum rl_decision acquire_locked(struct rl_keyed *k, struct shard *s, uint64_t key_word,
                                       struct rl_clock *clock, uint64_t key, uint64_t n,
                                       uint64_t now, const struct shape_request *req)
{
    pthread_mutex_lock(&s->lock);
    _Atomic uint64_t *slot = find_or_add(k, s, key_word, now);
    enum rl_decision d = RL_ERROR;
    if (slot) {
        d = use_slot(k, slot, clock, NULL, key, n, now, req);
        size_t found[LAZY_LOOKS];
        struct table *t = atomic_load_explicit(&s->table, memory_order_relaxed);
        if (k->config.expiry == RL_EXPIRE_LAZY)
            expire_slots(k, s, t, found, look_lazily(k, s, t, key_word, now, found), now);
    }
    pthread_mutex_unlock(&s->lock);
    return d;
}

/* Inside an announcement: decides for the key on the shard's current
 * table, when the table is not frozen and holds the key. *t is the table
 * looked at. false when nothing was decided (the caller leaves, goes to the
 * mutex, and tries again). */
__attribute__((always_inline)) static inline bool
decide_announced(struct rl_keyed *k, struct shard *s, uint64_t key_word, struct rl_clock *clock,
                 uint64_t key, uint64_t n, uint64_t now, const struct shape_request *req,
                 struct table **t, enum rl_decision *d)
{
    /* seq_cst, both: see keyed_grace.h */
    *t = atomic_load_explicit(&s->table, memory_order_seq_cst);
    if (atomic_load_explicit(&(*t)->frozen, memory_order_seq_cst))
        return false;
    size_t home = home_of(k, key_word, (*t)->slots);
    /* for writing: the commit's CAS then needs no second trip for
     * ownership; and the clock is read while it comes */
    rl_prefetch_for_write(slot_at(k, *t, home));
    struct primed_clock primed, *primed_if = NULL;
    if (k->one_word && atomic_load_explicit(&k->reads_time, memory_order_relaxed)) {
        prime(&primed, clock, k->expires ? now : clock->read(clock));
        primed_if = &primed;
    }
    _Atomic uint64_t *slot = find_from(k, *t, key_word, home);
    if (slot == NULL)
        return false;
    *d = use_slot(k, slot, clock, primed_if, key, n, now, req);
    return true;
}

/* Absent, or the table being rebuilt: the key added under the mutex (which
 * also waits for a rebuild); false on ENOMEM. Outside any announcement. */
static bool add_under_mutex(struct rl_keyed *k, struct shard *s, uint64_t key_word, uint64_t now)
{
    pthread_mutex_lock(&s->lock);
    _Atomic uint64_t *slot = find_or_add(k, s, key_word, now);
    pthread_mutex_unlock(&s->lock);
    return slot != NULL;
}

/* rl_keyed_acquire (req NULL, folded away) and rl_keyed_shape. */
__attribute__((always_inline)) static inline enum rl_decision
keyed_decide(struct rl_keyed *k, struct rl_clock *clock, uint64_t key, uint64_t n,
             const struct shape_request *req)
{
    if (k->remote_state)
        return req ? k->algo->shape(k->remote_state, clock, key, n, req->max_wait_ns,
                                    req->reservation)
                   : k->algo->acquire(k->remote_state, clock, key, n);
    /* Read straight through the handle so the algorithm's own reads are
     * what `reads` counts. */
    uint64_t now = 0;
    if (k->expires) {
        now = clock->read(clock);
        if (k->config.expiry == RL_EXPIRE_SWEEPER && !k->config.realtime)
            catch_up_sweeps(k, now);
    }
    uint64_t h = mix(key);
    struct shard *s = &k->shards[h & k->shard_mask];
    uint64_t key_word = h >> k->shard_bits | KEY_TOP;
    if (k->locked)
        return acquire_locked(k, s, key_word, clock, key, n, now, req);
    struct rl_grace_thread *me = rl_grace_self();
    if (me == NULL)
        return RL_ERROR;
    for (;;) {
        rl_grace_enter(me);
        struct table *t;
        enum rl_decision d;
        if (decide_announced(k, s, key_word, clock, key, n, now, req, &t, &d)) {
            size_t found[LAZY_LOOKS], count = 0;
            if (k->config.expiry == RL_EXPIRE_LAZY)
                count = look_lazily(k, s, t, key_word, now, found);
            rl_grace_leave(me);
            if (count)
                expire_found(k, s, t, found, count, now);
            return d;
        }
        rl_grace_leave(me);
        if (!add_under_mutex(k, s, key_word, now))
            return RL_ERROR;
    }
}

void rl_keyed_prefetch(struct rl_keyed *k, uint64_t key)
{
    if (k->remote_state)
        return;
    uint64_t h = mix(key);
    struct shard *s = &k->shards[h & k->shard_mask];
    uint64_t key_word = h >> k->shard_bits | KEY_TOP;
    /* Relaxed, and neither dereferenced: the table may be frozen, replaced
     * or freed by now, and the count may belong to another table than the
     * pointer. The address is then a wrong one, which a prefetch ignores
     * (it never faults); a right one is the usual case. */
    struct table *t = atomic_load_explicit(&s->table, memory_order_relaxed);
    size_t slots = atomic_load_explicit(&s->slots_hint, memory_order_relaxed);
    uintptr_t words = (uintptr_t)t + offsetof(struct table, words);
    rl_prefetch_for_write(
        (const void *)(words + home_of(k, key_word, slots) * k->stride * sizeof(uint64_t)));
}

void rl_keyed_acquire_batch(struct rl_keyed *k, struct rl_clock *clock, const uint64_t *keys,
                            size_t count, uint64_t n, enum rl_decision *out)
{
    for (size_t i = 0; i < count; i++)
        rl_keyed_prefetch(k, keys[i]);
    /* Expiry reads the time and may sweep or expire between two keys, a
     * non-thread-safe algorithm takes the mutex for each: one at a time. */
    if (k->remote_state || k->locked || k->expires) {
        for (size_t i = 0; i < count; i++)
            out[i] = keyed_decide(k, clock, keys[i], n, NULL);
        return;
    }
    struct rl_grace_thread *me = rl_grace_self();
    for (size_t i = 0; i < count && me == NULL; i++)
        out[i] = RL_ERROR;
    /* One announcement for the keys found in a row: a reader never waits
     * while announced, and each decision is what it would be alone (the same
     * loads and the same calls in the same order); a key that needs the
     * mutex ends the announcement first, exactly as keyed_decide does. */
    for (size_t i = 0; me && i < count;) {
        rl_grace_enter(me);
        for (; i < count; i++) {
            uint64_t h = mix(keys[i]);
            struct shard *s = &k->shards[h & k->shard_mask];
            struct table *t;
            if (!decide_announced(k, s, h >> k->shard_bits | KEY_TOP, clock, keys[i], n, 0, NULL,
                                  &t, &out[i]))
                break;
        }
        rl_grace_leave(me);
        if (i < count) {
            uint64_t h = mix(keys[i]);
            if (add_under_mutex(k, &k->shards[h & k->shard_mask], h >> k->shard_bits | KEY_TOP, 0))
                continue; /* and decide it, announced again */
            out[i++] = RL_ERROR;
        }
    }
}

enum rl_decision rl_keyed_acquire(struct rl_keyed *k, struct rl_clock *clock, uint64_t key,
                                  uint64_t n)
{
    return keyed_decide(k, clock, key, n, NULL);
}

enum rl_decision rl_keyed_shape(struct rl_keyed *k, struct rl_clock *clock, uint64_t key,
                                uint64_t n, uint64_t max_wait_ns,
                                struct rl_reservation *reservation)
{
    const struct shape_request req = {.max_wait_ns = max_wait_ns, .reservation = reservation};
    return keyed_decide(k, clock, key, n, &req);
}

void rl_keyed_release(struct rl_keyed *k, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    if (k->remote_state) {
        k->algo->release(k->remote_state, clock, key, n);
        return;
    }
    uint64_t h = mix(key);
    struct shard *s = &k->shards[h & k->shard_mask];
    uint64_t key_word = h >> k->shard_bits | KEY_TOP;
    if (k->locked) {
        pthread_mutex_lock(&s->lock);
        _Atomic uint64_t *slot =
            find(k, atomic_load_explicit(&s->table, memory_order_relaxed), key_word);
        if (slot) /* held > 0 kept it from expiring */
            release_slot(k, slot, clock, key, n);
        pthread_mutex_unlock(&s->lock);
        return;
    }
    /* Without a record (ENOMEM) the permit stays held: the key keeps it,
     * fail-closed, and never expires. */
    struct rl_grace_thread *me = rl_grace_self();
    if (me == NULL)
        return;
    for (;;) {
        rl_grace_enter(me);
        struct table *t = atomic_load_explicit(&s->table, memory_order_seq_cst);
        if (!atomic_load_explicit(&t->frozen, memory_order_seq_cst)) {
            _Atomic uint64_t *slot = find(k, t, key_word);
            if (slot)
                release_slot(k, slot, clock, key, n);
            rl_grace_leave(me);
            return;
        }
        rl_grace_leave(me);
        pthread_mutex_lock(&s->lock); /* the rebuild ends before the mutex is let go */
        pthread_mutex_unlock(&s->lock);
    }
}

bool rl_keyed_cancel(struct rl_keyed *k, struct rl_clock *clock, uint64_t key, uint64_t n,
                     const struct rl_reservation *reservation)
{
    if (k->remote_state)
        return k->algo->cancel(k->remote_state, clock, key, n, reservation);
    uint64_t h = mix(key);
    struct shard *s = &k->shards[h & k->shard_mask];
    uint64_t key_word = h >> k->shard_bits | KEY_TOP;
    if (k->locked) {
        pthread_mutex_lock(&s->lock);
        _Atomic uint64_t *slot =
            find(k, atomic_load_explicit(&s->table, memory_order_relaxed), key_word);
        bool back = slot && k->algo->cancel(instance_of(slot), clock, key, n, reservation);
        pthread_mutex_unlock(&s->lock);
        return back;
    }
    struct rl_grace_thread *me = rl_grace_self();
    if (me == NULL)
        return false;
    for (;;) {
        rl_grace_enter(me);
        struct table *t = atomic_load_explicit(&s->table, memory_order_seq_cst);
        if (!atomic_load_explicit(&t->frozen, memory_order_seq_cst)) {
            _Atomic uint64_t *slot = find(k, t, key_word);
            /* an expired key kept nothing to give back: its fresh state is full */
            bool back = slot && k->algo->cancel(instance_of(slot), clock, key, n, reservation);
            rl_grace_leave(me);
            return back;
        }
        rl_grace_leave(me);
        pthread_mutex_lock(&s->lock); /* the rebuild ends before the mutex is let go */
        pthread_mutex_unlock(&s->lock);
    }
}

bool rl_keyed_set_rate(struct rl_keyed *k, struct rl_clock *clock, uint64_t limit,
                       uint64_t interval_ns)
{
    if (k->remote_state)
        return k->algo->set_rate(k->remote_state, clock, limit, interval_ns);
    if (k->one_word)
        return false; /* a key's word alone is kept: no state to change (none claims both) */
    struct rate_change *grown = realloc(k->rates, (k->rate_count + 1) * sizeof *grown);
    if (grown == NULL)
        return false;
    k->rates = grown;
    k->rates[k->rate_count++] =
        (struct rate_change){.clock = *clock, .limit = limit, .interval_ns = interval_ns};
    bool all = true;
    for (uint64_t i = 0; i <= k->shard_mask; i++) {
        struct shard *s = &k->shards[i];
        pthread_mutex_lock(&s->lock);
        struct table *t = atomic_load_explicit(&s->table, memory_order_relaxed);
        for (size_t j = 0; t && j < t->slots; j++)
            if (atomic_load_explicit(&slot_at(k, t, j)[SLOT_KEY], memory_order_relaxed) >= KEY_TOP)
                all = k->algo->set_rate(instance_of(slot_at(k, t, j)), clock, limit, interval_ns) &&
                      all;
        pthread_mutex_unlock(&s->lock);
    }
    return all;
}

void rl_keyed_stats(struct rl_keyed *k, struct rl_keyed_stats *out)
{
    memset(out, 0, sizeof *out);
    if (k->remote_state)
        return;
    for (uint64_t i = 0; i <= k->shard_mask; i++) {
        struct shard *s = &k->shards[i];
        pthread_mutex_lock(&s->lock);
        out->live_keys += atomic_load_explicit(&s->table, memory_order_relaxed)->live;
        out->created += s->created;
        out->expired += s->expired;
        pthread_mutex_unlock(&s->lock);
    }
    out->sweeps = atomic_load_explicit(&k->sweeps, memory_order_relaxed);
}

void rl_keyed_destroy(struct rl_keyed *k)
{
    if (k == NULL)
        return;
    if (k->remote_state) {
        k->algo->destroy(k->remote_state);
        free(k);
        return;
    }
    if (k->sweeper_started) {
        pthread_mutex_lock(&k->stop_lock);
        k->stopping = true;
        pthread_cond_signal(&k->stop_cond);
        pthread_mutex_unlock(&k->stop_lock);
        pthread_join(k->sweeper, NULL);
    }
    for (uint64_t i = 0; k->shards && i <= k->shard_mask; i++) {
        struct shard *s = &k->shards[i];
        struct table *t = atomic_load_explicit(&s->table, memory_order_relaxed);
        if (t == NULL) /* create ran out of memory here */
            break;
        for (size_t j = 0; !k->one_word && j < t->slots; j++)
            if (atomic_load_explicit(&slot_at(k, t, j)[SLOT_KEY], memory_order_relaxed) >= KEY_TOP)
                forget_instance(k, s, slot_at(k, t, j));
        rl_keyed_arena_free(&s->arena);
        table_free(t);
        pthread_mutex_destroy(&s->lock);
    }
    free(k->shards);
    if (k->proto)
        k->algo->destroy(k->proto);
    pthread_cond_destroy(&k->stop_cond);
    pthread_mutex_destroy(&k->stop_lock);
    free(k->rates);
    free(k);
}
