/* keyed.c — sharded hash tables of per-key limiter states (see keyed.h).
 *
 * Each shard is an open-addressing table with linear probing, grown at 70%
 * load and never shrunk; deletion shifts the following entries back rather
 * than leaving tombstones, so a table under churn does not fill with them.
 * The shard's mutex is held across the key's own acquire: one lock per call
 * whatever the algorithm, and no state can be expired while in use.
 */
#include "keyed.h"

#include "harness/sys/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const rl_keyed_expiry_names[] = {"never", "lazy", "sweeper", NULL};

struct entry {
    uint64_t key;
    void *state; /* NULL: the slot is empty */
    uint64_t last_ns;
    uint64_t held; /* permits not yet released */
};

struct shard {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    struct entry *slots;
    size_t cap; /* a power of two */
    size_t len;
    size_t cursor; /* where lazy expiry looks next */
    uint64_t created, expired;
};

struct rl_keyed {
    struct rl_keyed_config config;
    void *remote_state; /* RL_REMOTE: one instance keyed by the server itself */
    uint64_t idle_ns;
    unsigned shard_count;
    struct shard *shards;
    _Atomic uint64_t next_sweep_ns; /* virtual time: when the next sweep is due */
    _Atomic uint64_t sweeps;
    pthread_t sweeper;
    bool sweeper_started;
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    bool stopping;
};

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

/* ---- one shard's table ---------------------------------------------------- */

static size_t home_of(const struct shard *s, uint64_t key)
{
    return mix(key) & (s->cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static struct entry *probe(struct shard *s, uint64_t key)
{
    size_t mask = s->cap - 1;
    for (size_t i = home_of(s, key);; i = (i + 1) & mask)
        if (s->slots[i].state == NULL || s->slots[i].key == key)
            return &s->slots[i];
}

static int grow(struct shard *s)
{
    size_t old_cap = s->cap;
    struct entry *old = s->slots;
    struct entry *slots = calloc(old_cap * 2, sizeof *slots);
    if (slots == NULL)
        return -1;
    s->slots = slots;
    s->cap = old_cap * 2;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].state)
            *probe(s, old[i].key) = old[i];
    free(old);
    return 0;
}

/* Frees slot i's state and shifts back the entries that probed past it. */
static void remove_at(struct shard *s, size_t i, const struct rl_algo *algo)
{
    size_t mask = s->cap - 1;
    algo->destroy(s->slots[i].state);
    for (size_t j = (i + 1) & mask; s->slots[j].state; j = (j + 1) & mask) {
        size_t home = home_of(s, s->slots[j].key);
        /* j's entry may move to i only if its home is not in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i].state = NULL;
    s->len--;
    s->expired++;
}

static bool is_idle(const struct rl_keyed *k, const struct entry *e, uint64_t now_ns)
{
    return e->state && e->held == 0 && now_ns > e->last_ns && now_ns - e->last_ns >= k->idle_ns;
}

static void sweep_shard(struct rl_keyed *k, struct shard *s, uint64_t now_ns)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->cap;)
        if (is_idle(k, &s->slots[i], now_ns))
            remove_at(s, i, k->config.algo); /* i now holds a shifted entry: look again */
        else
            i++;
    pthread_mutex_unlock(&s->lock);
}

static void sweep_all(struct rl_keyed *k, uint64_t now_ns)
{
    for (unsigned i = 0; i < k->shard_count; i++)
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

struct rl_keyed *rl_keyed_create(const struct rl_keyed_config *config, char *err, size_t err_len)
{
    void *probe_state = config->algo->create(&config->cfg, err, err_len);
    if (probe_state == NULL)
        return NULL;
    config->algo->destroy(probe_state);

    struct rl_keyed *k = calloc(1, sizeof *k);
    if (k == NULL)
        goto nomem;
    k->config = *config;
    if (config->algo->flags & RL_REMOTE) { /* the server keeps the keys */
        k->remote_state = config->algo->create(&config->cfg, err, err_len);
        if (k->remote_state == NULL) {
            free(k);
            return NULL;
        }
        return k;
    }
    k->idle_ns = config->idle_ns ? config->idle_ns : rl_keyed_default_idle_ns(&config->cfg);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    k->shard_count = config->shards ? config->shards : 4 * (unsigned)(cpus > 0 ? cpus : 1);
    k->shards = aligned_alloc(RL_CACHE_LINE, k->shard_count * sizeof *k->shards);
    if (k->shards == NULL)
        goto nomem;
    memset(k->shards, 0, k->shard_count * sizeof *k->shards);
    for (unsigned i = 0; i < k->shard_count; i++) {
        pthread_mutex_init(&k->shards[i].lock, NULL);
        k->shards[i].cap = 16;
        k->shards[i].slots = calloc(16, sizeof *k->shards[i].slots);
        if (k->shards[i].slots == NULL)
            goto nomem;
    }
    atomic_init(&k->next_sweep_ns, 0);
    atomic_init(&k->sweeps, 0);
    pthread_mutex_init(&k->stop_lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&k->stop_cond, &attr);
    pthread_condattr_destroy(&attr);
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

nomem:
    snprintf(err, err_len, "out of memory creating the keyed container");
    if (k && k->shards)
        for (unsigned i = 0; i < k->shard_count; i++)
            free(k->shards[i].slots);
    if (k)
        free(k->shards);
    free(k);
    return NULL;
}

enum rl_decision rl_keyed_acquire(struct rl_keyed *k, struct rl_clock *clock, uint64_t key,
                                  uint64_t n)
{
    const struct rl_algo *algo = k->config.algo;
    if (k->remote_state)
        return algo->acquire(k->remote_state, clock, key, n);
    bool expires = k->config.expiry != RL_EXPIRE_NEVER;
    /* Read straight through the handle so the algorithm's own reads are
     * what `reads` counts. */
    uint64_t now = expires ? clock->read(clock) : 0;
    if (expires && k->config.expiry == RL_EXPIRE_SWEEPER && !k->config.realtime)
        catch_up_sweeps(k, now);

    uint64_t h = mix(key);
    struct shard *s = &k->shards[(h >> 32) % k->shard_count];
    pthread_mutex_lock(&s->lock);
    struct entry *e = probe(s, key);
    if (e->state == NULL) {
        if ((s->len + 1) * 10 > s->cap * 7) {
            if (grow(s) != 0) {
                pthread_mutex_unlock(&s->lock);
                return RL_ERROR;
            }
            e = probe(s, key);
        }
        char err[128];
        e->state = algo->create(&k->config.cfg, err, sizeof err);
        if (e->state == NULL) {
            pthread_mutex_unlock(&s->lock);
            return RL_ERROR;
        }
        e->key = key;
        e->held = 0;
        s->len++;
        s->created++;
    }
    e->last_ns = now;
    enum rl_decision d = algo->acquire(e->state, clock, key, n);
    if (d == RL_ADMIT && (algo->flags & RL_NEEDS_RELEASE))
        e->held += n;
    if (k->config.expiry == RL_EXPIRE_LAZY)
        for (int look = 0; look < 2; look++) {
            size_t i = s->cursor++ & (s->cap - 1);
            if (s->slots[i].key != key && is_idle(k, &s->slots[i], now))
                remove_at(s, i, algo);
        }
    pthread_mutex_unlock(&s->lock);
    return d;
}

void rl_keyed_release(struct rl_keyed *k, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    if (k->remote_state) {
        k->config.algo->release(k->remote_state, clock, key, n);
        return;
    }
    struct shard *s = &k->shards[(mix(key) >> 32) % k->shard_count];
    pthread_mutex_lock(&s->lock);
    struct entry *e = probe(s, key);
    if (e->state) { /* held > 0 kept it from expiring */
        k->config.algo->release(e->state, clock, key, n);
        e->held -= n <= e->held ? n : e->held;
    }
    pthread_mutex_unlock(&s->lock);
}

void rl_keyed_stats(struct rl_keyed *k, struct rl_keyed_stats *out)
{
    memset(out, 0, sizeof *out);
    if (k->remote_state)
        return;
    for (unsigned i = 0; i < k->shard_count; i++) {
        struct shard *s = &k->shards[i];
        pthread_mutex_lock(&s->lock);
        out->live_keys += s->len;
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
        k->config.algo->destroy(k->remote_state);
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
    for (unsigned i = 0; i < k->shard_count; i++) {
        struct shard *s = &k->shards[i];
        for (size_t j = 0; j < s->cap; j++)
            if (s->slots[j].state)
                k->config.algo->destroy(s->slots[j].state);
        free(s->slots);
        pthread_mutex_destroy(&s->lock);
    }
    free(k->shards);
    pthread_cond_destroy(&k->stop_cond);
    pthread_mutex_destroy(&k->stop_lock);
    free(k);
}
