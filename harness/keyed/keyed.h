/* keyed.h — one shared container that turns any per-key-capable algorithm
 * into a keyed limiter: N shards, each an open-addressing table of per-key
 * limiter states, with idle keys expired (or not).
 *
 * Operations on a key already there take no lock: thread-safe algorithms
 * are called without one. Only adding a key, rebuilding a table and
 * expiring keys take the shard's mutex; a grace period (keyed_grace.h)
 * keeps them from freeing or forgetting what an operation in flight still
 * uses. A one-word algorithm (rl_algo.one_word_state: gcra_cas, tb_cas,
 * faa, ...) costs its key 8 bytes of state in the table itself; any other
 * keeps one instance per key from its create(), and a non-thread-safe one
 * holds its shard's mutex across every operation (keyed.c says how and why
 * it is sound; docs/keys.md what it costs).
 *
 * Expiry resets a key to a fresh limiter. The default idle time,
 * I·(1 + max(2, ⌈B/L⌉)), is long enough for a window to have restarted, a
 * bucket to have refilled and a log to have emptied, so a fresh limiter is
 * in the state the idle one would be in. Not for every design: the C++
 * article's window restarts lazily and keeps an old window's unused tickets,
 * which a fresh limiter forgets (it is then stricter). Expiry is therefore a
 * choice (never by default in sim and stress), and its effect on decisions
 * can be measured like anything else. A key with permits still held
 * (limiters that need release) is never expired. RL_REMOTE algorithms keep
 * their keys on the server: the container passes every call to one instance.
 */
#ifndef RL_KEYED_H
#define RL_KEYED_H

#include "algorithms/rl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rl_keyed_expiry {
    RL_EXPIRE_NEVER,   /* the time-wheel article's manager: keys live forever */
    RL_EXPIRE_LAZY,    /* each access also looks at two other entries of its shard, and
                          expires them after it if idle */
    RL_EXPIRE_SWEEPER, /* a sweep of every shard every idle/2 */
};

/* NULL-terminated: never, lazy, sweeper. */
extern const char *const rl_keyed_expiry_names[];

struct rl_keyed_config {
    const struct rl_algo *algo;
    struct rl_config cfg; /* every key's limiter is created with this */
    unsigned shards;      /* 0 = 4 per online CPU; rounded up to a power of two, at
                             least 2 (at most 65536) */
    enum rl_keyed_expiry expiry;
    uint64_t idle_ns; /* 0 = the default above */
    /* The sweeper runs as a thread on the monotonic clock when realtime is
     * set; otherwise (virtual time) each acquire first runs the sweeps whose
     * scheduled time has passed, so sim reproduces the same schedule. */
    bool realtime;
};

struct rl_keyed_stats {
    uint64_t live_keys; /* keys held now */
    uint64_t created;   /* states ever created */
    uint64_t expired;   /* states freed as idle */
    uint64_t sweeps;    /* sweeper passes run */
};

struct rl_keyed;

/* -1 style: NULL with one line in err for a bad config (the algorithm's own
 * create is tried once, so its complaints surface here) or ENOMEM. */
struct rl_keyed *rl_keyed_create(const struct rl_keyed_config *config, char *err, size_t err_len);

/* The key's limiter decides; RL_ERROR when a new key's state cannot be
 * allocated (never a silent admit or reject). */
enum rl_decision rl_keyed_acquire(struct rl_keyed *keyed, struct rl_clock *clock, uint64_t key,
                                  uint64_t n);

/* Announces that key will be decided soon: asks for its home slot's cache
 * line for writing, so that the miss runs while the caller does other work
 * (decides earlier keys). Changes nothing and decides nothing; safe from any
 * thread at any time (it reads only the shard's fields, never a table that
 * may have been freed: docs/keys.md, Look-ahead). */
void rl_keyed_prefetch(struct rl_keyed *keyed, uint64_t key);

/* out[i] = rl_keyed_acquire(keyed, clock, keys[i], n) for i = 0 .. count-1,
 * in that order and with exactly those decisions and clock reads, cheaper:
 * every key's home slot is prefetched first, and the keys are decided under
 * one announcement (keyed_grace.h) rather than one each. */
void rl_keyed_acquire_batch(struct rl_keyed *keyed, struct rl_clock *clock, const uint64_t *keys,
                            size_t count, uint64_t n, enum rl_decision *out);

/* A shaper's decision for the key (rl_algo.shape, which must be set):
 * RL_ADMIT with *reservation, or RL_REJECT when the release would come more
 * than max_wait_ns after the read; RL_ERROR as rl_keyed_acquire. Shapers
 * claim no one-word state (rl_keyed_create refuses one that does). */
enum rl_decision rl_keyed_shape(struct rl_keyed *keyed, struct rl_clock *clock, uint64_t key,
                                uint64_t n, uint64_t max_wait_ns,
                                struct rl_reservation *reservation);

/* A shaper with cancel (rl_algo.cancel, which must be set): gives up a
 * reservation rl_keyed_shape made for key and n; true when the key's
 * shaper gave something back (false too for a key no longer held). */
bool rl_keyed_cancel(struct rl_keyed *keyed, struct rl_clock *clock, uint64_t key, uint64_t n,
                     const struct rl_reservation *reservation);

/* An algorithm with set_rate (rl_algo.set_rate, which must be set), in
 * virtual time only: changes every key's rate to limit per interval_ns at
 * the time clock reads, live keys now and keys created later at that time
 * (each key lives as if it had existed since the epoch). Call it while no
 * other operation runs on the container. false when a key's state could
 * not take the new rate (its numbers overflow) or on ENOMEM. */
bool rl_keyed_set_rate(struct rl_keyed *keyed, struct rl_clock *clock, uint64_t limit,
                       uint64_t interval_ns);

/* For limiters that need release: returns a permit taken by key. */
void rl_keyed_release(struct rl_keyed *keyed, struct rl_clock *clock, uint64_t key, uint64_t n);

void rl_keyed_stats(struct rl_keyed *keyed, struct rl_keyed_stats *out);

/* Stops the sweeper, frees every state. */
void rl_keyed_destroy(struct rl_keyed *keyed);

/* The default idle time for cfg (see above). */
uint64_t rl_keyed_default_idle_ns(const struct rl_config *cfg);

#endif
