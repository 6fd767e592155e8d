/* rl.h — the plug-in contract every ratelab limiter implements.
 *
 * A limiter is configured with a limit L (cost) per interval I (ns) and
 * answers attempts (key, n) with admit, reject or error; a shaper may also
 * answer admit at a later release time (struct rl_algo, shape). The harness reaches
 * an algorithm only through struct rl_algo and the registry; an algorithm
 * reaches time only through struct rl_clock, and only when it needs it
 * (docs/design.md, The contract).
 */
#ifndef RL_H
#define RL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The answer to one attempt. The third, error, is never folded into admit or
 * reject: the caller decides (fail-open or fail-closed) and the report counts
 * it. RL_ERROR means "no decision was made, nothing was admitted": RL_REMOTE
 * algorithms answer it whenever the server cannot be asked or answers
 * anything but admit or reject; a local algorithm answers it only at a limit
 * of its own that its file comment states (tb_cas, tb_cas_relaxed and
 * gcra_cas past their horizon, sliding_log and sliding_log_sweeper when the
 * log cannot grow). */
enum rl_decision {
    RL_REJECT = 0,
    RL_ADMIT = 1,
    RL_ERROR = 2,
};

/* What an algorithm claims; the checker measures each claim
 * (docs/design.md, Definitions). Costs are summed per key.
 *   STRONG  ≤ L in every sliding window [t, t+I)
 *   WEAK    ≤ L in every epoch-aligned window [k·I, (k+1)·I)
 *   WINDOW  ≤ L in each of its own windows (length ≥ I, not aligned), hence
 *           ≤ 2L in any sliding window
 *   BUCKET  ≤ B + L in any sliding window (capacity plus one interval's refill),
 *           plus the excess an algorithm states (struct rl_algo, bucket_excess)
 *   APPROX  an estimate; error is reported, nothing is promised
 *   NONE    no limit at all (baselines, broken steps kept for teaching)
 *   CONCURRENCY  ≤ L admitted and not yet released at any instant */
enum rl_promise {
    RL_PROMISE_STRONG,
    RL_PROMISE_WEAK,
    RL_PROMISE_WINDOW,
    RL_PROMISE_BUCKET,
    RL_PROMISE_APPROX,
    RL_PROMISE_NONE,
    RL_PROMISE_CONCURRENCY,
};

enum rl_flags {
    /* acquire (and release) may run on one instance from many threads at
     * once; without it, one thread at a time (stress refuses more threads
     * unless --unsafe is given) */
    RL_THREAD_SAFE = 1u << 0,
    /* concurrency limiters: every admit is released (struct rl_algo) */
    RL_NEEDS_RELEASE = 1u << 1,
    /* state lives outside the process (Redis): one instance serves every key,
     * and acquire answers RL_ERROR when the server cannot decide */
    RL_REMOTE = 1u << 2,
    /* shapers whose shape never rejects (a blocking Take: uber-go/ratelimit):
     * max_wait_ns is ignored (struct rl_algo, shape) */
    RL_BLOCKING = 1u << 3,
};

/* The clock handle (docs/design.md, Clocks). Each thread owns one, so
 * nothing here is shared and `reads` costs no contention. Algorithms read
 * time only through rl_clock_now, and only when a decision needs it. The
 * time is in nanoseconds on the clock's own timeline, which does not start
 * at zero (as CLOCK_MONOTONIC does not): algorithms must not assume t = 0
 * is special. The run's epoch, where aligned windows are anchored, is in
 * struct rl_config. */
struct rl_clock {
    uint64_t (*read)(struct rl_clock *self); /* the source's reader: call rl_clock_now */
    uint64_t reads;                          /* how many times the algorithm looked at the time */
    const char *name; /* "monotonic", "coarse", "tsc", "cached", "virtual": may be compared */
    /* The source's own state (virtual time, TSC calibration, a client's
     * skew), laid out and used by the harness only (harness/sys/clock.c). */
    uint64_t source[5];
};

/* The time in ns on the clock's timeline, counted in clock->reads. */
static inline uint64_t rl_clock_now(struct rl_clock *clock)
{
    clock->reads++;
    return clock->read(clock);
}

/* True when copies of a and b read the same time (same source, same state):
 * what may share one sweeper thread. The read counters do not matter. */
static inline bool rl_clock_same(const struct rl_clock *a, const struct rl_clock *b)
{
    return a->read == b->read && memcmp(a->source, b->source, sizeof a->source) == 0;
}

/* One configuration maps onto every algorithm (docs/design.md, The
 * contract), so comparisons are like for like. Costs (limit, burst) are in
 * the units of acquire's n; times are ns. Zero means "the documented
 * default" where a default is named. create reads it during the call only. */
struct rl_config {
    uint64_t limit;       /* L: cost admitted per interval; > 0 */
    uint64_t interval_ns; /* I: > 0 */
    uint64_t burst;       /* B: bucket capacity; 0 = L (rl_config_burst). leaky_nginx
                             alone reads it as nginx's burst=, where 0 means 0 */
    uint32_t slots;       /* S: time-wheel slots of ⌈I/S⌉ ns each, tb_sharded's batch k;
                             0 = RL_DEFAULT_SLOTS */
    uint64_t epoch_ns;    /* the run's t = 0 on the clock's timeline: where aligned
                             windows and bucket time start; earlier reads count as it */
    const char *remote;   /* RL_REMOTE algorithms: "unix:PATH", "HOST:PORT" or
                             "cluster:HOST:PORT[,...]" (copied); the others ignore it */
    bool virtual_time;    /* the clock is sim's virtual one: RL_REMOTE algorithms then
                             follow the trace's time, never the server's clock */
};

#define RL_DEFAULT_SLOTS 10u

static inline uint64_t rl_config_burst(const struct rl_config *cfg)
{
    return cfg->burst ? cfg->burst : cfg->limit;
}

/* What a shaper's admit promises (struct rl_algo, shape). */
struct rl_reservation {
    uint64_t release_ns; /* when the caller may go, on the clock's timeline */
    uint64_t ticket;     /* the shaper's own record of it, for cancel; opaque */
};

/* For a snapshot hook whose state is a few words: writes them when cap
 * holds them, and returns their size either way (rl_algo.snapshot). */
static inline size_t rl_snapshot_words(void *buf, size_t cap, const uint64_t *w, size_t n)
{
    size_t size = n * sizeof *w;
    if (cap >= size)
        memcpy(buf, w, size);
    return size;
}

/* Its restore's half: false when len is not n words. */
static inline bool rl_restore_words(const void *buf, size_t len, uint64_t *w, size_t n)
{
    if (len != n * sizeof *w)
        return false;
    memcpy(w, buf, len);
    return true;
}

/* One implementation: a row of `ratelab list` and of every CSV, and four
 * calls. The harness reaches an algorithm only through this table and the
 * registry.
 *
 * An instance lives from create to destroy. The harness keeps one instance
 * per key, created on the key's first attempt by whichever thread makes it,
 * and may destroy it when the key has been idle; RL_REMOTE algorithms have
 * one instance for every key (the server keeps the keys apart). */
struct rl_algo {
    const char *name;        /* snake_case, unique, stable: a CSV column */
    const char *family;      /* fixed_window, sliding_log, token_bucket, baseline, … */
    const char *summary;     /* one line for `ratelab list` */
    enum rl_promise promise; /* what the checker holds it to */
    unsigned flags;          /* enum rl_flags, or'ed */
    /* The memory orders of the hot path, a CSV column (`orders`): "seq_cst",
     * "acq_rel", "acquire/release", "relaxed", "mutex", "none" (no shared
     * state, or plain memory on one thread) or "redis" (decided on the
     * server); a mix joined with '+', the dominant one first. Never a comma.
     * The file comment's "Memory orders:" paragraph says why. */
    const char *orders;
    /* Its own thread changes the state (a sweeper on a real clock): a
     * quiescent cut of the callers is not a cut of the state, so a history
     * recorded in windows cannot restore a model from a snapshot of it. */
    bool own_thread;

    /* A new limiter for cfg, in its initial state. NULL with a one-line
     * reason in err (err_len bytes) when cfg is outside what the algorithm
     * can honour, or on ENOMEM. Any thread, any number of times: the harness
     * creates and destroys one up front to validate cfg. */
    void *(*create)(const struct rl_config *cfg, char *err, size_t err_len);
    /* Frees a limiter that create returned (never NULL): once, after every
     * acquire and release on it has returned. Never fails. */
    void (*destroy)(void *state);
    /* Decides one attempt of cost n for key, reading the time through the
     * calling thread's own clock handle, and only if the decision needs it.
     * key: RL_REMOTE algorithms keep one limiter per key; the others ignore
     * it (each key has its own instance). n: in units of L; the harness
     * sends n ≥ 1 (traces and event logs refuse 0). An n that can never fit
     * (n > L, or n > B for buckets) is rejected, mostly before the clock is
     * read; tb_debt, whose debt may exceed L, admits it. n = 0 is not
     * special-cased: it is decided as a cost of nothing, admitted while the
     * limiter is not already past its limit (a ticket count or estimate past
     * L, a closed window or an unpaid debt still rejects it), and it may
     * change state as any attempt does (open a window, move time forward);
     * leaky_nginx alone admits it untouched. RL_ERROR: see enum
     * rl_decision. */
    enum rl_decision (*acquire)(void *state, struct rl_clock *clock, uint64_t key, uint64_t n);
    /* Gives back what an admit holds. RL_NEEDS_RELEASE algorithms only (NULL
     * for the others): once per RL_ADMIT, with that acquire's key and n,
     * after it returned, from any thread; never after RL_REJECT or
     * RL_ERROR. */
    void (*release)(void *state, struct rl_clock *clock, uint64_t key, uint64_t n);
    /* BUCKET algorithms whose bound exceeds B + L by an amount they state
     * (tb_sharded: tokens its per-thread caches carry into a window): that
     * amount for cfg and `threads` calling threads, which the harness adds
     * to B + L when it judges the promise. NULL: none. */
    uint64_t (*bucket_excess)(const struct rl_config *cfg, unsigned threads);
    /* Optional (0 claims nothing): sizeof the state, for a limiter whose
     * acquire (and release) changes only the state's first 64-bit word, in
     * one step: loads it, decides from it, the time it reads and n, and then
     * writes it at most once, by one read-modify-write (a fetch-add, or a CAS
     * loop that reloads and decides again). Every other byte is written by
     * create alone, the same in every instance created from one rl_config,
     * and destroy is free. The keyed container then keeps only that word per
     * key and runs acquire on a per-thread copy, committing the word with its
     * own CAS (harness/keyed/keyed.c, docs/keys.md). */
    size_t one_word_state;
    /* Optional, both or neither (NULL: the linearizability checker copies
     * the state by replaying the steps that made it): the state's
     * sequential meaning as bytes, for a state that is not one word.
     * snapshot writes at most cap bytes of what every later decision
     * depends on and returns the length it needs (> cap: call again with
     * more); two states of one rl_config with equal snapshots decide alike
     * from then on, whatever the times and costs. restore makes a state
     * fresh from create (same rl_config) into the snapshotted one: 0, or -1
     * on ENOMEM. buf is aligned for uint64_t. Single-threaded, virtual time
     * (harness/run/lin_model.c). */
    size_t (*snapshot)(const void *state, void *buf, size_t cap);
    int (*restore)(void *state, const void *buf, size_t len);

    /* Shapers only (NULL for the others, which then answer admit-now or
     * reject through acquire alone; docs/design.md, Shaping). Decides one
     * attempt of cost n that may wait: RL_ADMIT with *reservation filled
     * (struct rl_reservation: its release_ns never before the read it
     * decided on; equal to that read: admitted now); RL_REJECT when
     * the release would come more than max_wait_ns after that read, with the
     * state unchanged; RL_ERROR as acquire. max_wait_ns UINT64_MAX waits for
     * as long as it takes. An RL_BLOCKING shaper never rejects an n it can
     * ever honour: it ignores max_wait_ns, as a blocking Take does. The
     * shaper's acquire is this call's admit-now part: it admits only what
     * would be released at once and otherwise rejects, changing nothing. */
    enum rl_decision (*shape)(void *state, struct rl_clock *clock, uint64_t key, uint64_t n,
                              uint64_t max_wait_ns, struct rl_reservation *reservation);
    /* Optional, shapers only (NULL: reservations cannot be cancelled, and a
     * harness refuses a cancellation for this algorithm as bad input): the
     * caller gives up a reservation that shape made on this state for key
     * and n. The shaper gives back what its rule says (as x/time/rate's
     * CancelAt: the part no later reservation relies on, nothing once the
     * release has passed); true when something was given back. */
    bool (*cancel)(void *state, struct rl_clock *clock, uint64_t key, uint64_t n,
                   const struct rl_reservation *reservation);
    /* Optional (NULL: the rate is fixed at create, and a harness refuses a
     * rate change for this algorithm as bad input): an operator changes the
     * rate to limit per interval_ns (both > 0; the burst is kept) at the
     * time the clock reads now, as Guava's setRate and x/time's SetLimitAt
     * do; the file comment states the rule (what the state carries across,
     * what pending reservations keep). Called while no other call runs on
     * the state. false, with the state unchanged, when the new rate cannot
     * be held (its numbers overflow the state's). */
    bool (*set_rate)(void *state, struct rl_clock *clock, uint64_t limit, uint64_t interval_ns);
};

/* Registry (registry.c): a NULL-terminated array of every implementation,
 * in the order of algorithms.def. */
extern const struct rl_algo *const rl_registry[];

const struct rl_algo *rl_registry_find(const char *name);
const char *rl_promise_name(enum rl_promise promise);

/* MOVED and ASK replies the Redis Cluster client (algorithms/redis/cluster/)
 * followed in this process since it started, over every limiter: 0 unless
 * a Redis limiter ran on a cluster. The harness reads it after a run (the
 * limiters' states are opaque to it); defined in redis_common.c. */
uint64_t rl_remote_redirects(void);

/* --wait-replicas N: after each admitting script call the Redis limiters
 * send WAIT N RL_REDIS_WAIT_TIMEOUT_MS to the node that ran it (one more
 * round trip). Fewer than N acknowledgements in time make the decision
 * RL_ERROR (the caller's --on-error policy decides), so an admit given is
 * on N replicas. 0, the default: no WAIT. Set before the limiters are
 * created. */
#define RL_REDIS_WAIT_TIMEOUT_MS 100
void rl_remote_set_wait_replicas(unsigned replicas);

/* The hash slot of the key the last cluster call named (any thread), -1
 * before any: a fault injected mid-run aims at the node serving it. */
int rl_remote_last_slot(void);

/* Shared helper for create(): a zeroed, cache-line aligned allocation, so
 * one limiter's hot words never share a line with another's. NULL on ENOMEM
 * with a reason in err. Taken from this thread's arena when one is in use. */
void *rl_state_alloc(size_t size, char *err, size_t err_len);

/* An arena rl_state_alloc takes its blocks from, set per thread around
 * create() by a harness that keeps many instances (the keyed container,
 * which then frees them itself, for algorithms whose destroy is free).
 * take: a cache-line aligned block of `size` bytes (a multiple of
 * RL_CACHE_LINE), or NULL. NULL restores aligned_alloc. */
struct rl_state_arena {
    void *(*take)(struct rl_state_arena *self, size_t size);
};
void rl_state_arena_use(struct rl_state_arena *arena);

#define RL_CACHE_LINE 64

#endif
