/* rl.h — the plug-in contract every ratelab limiter implements.
 *
 * A limiter is configured with a limit L (cost) per interval I (ns) and
 * answers attempts (key, n) with admit, reject or error. The harness reaches
 * an algorithm only through struct rl_algo and the registry; an algorithm
 * reaches time only through struct rl_clock, and only when it needs it.
 */
#ifndef RL_H
#define RL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The third answer, error, is never folded into admit or reject: the caller
 * decides (fail-open or fail-closed) and the report counts it. */
enum rl_decision {
    RL_REJECT = 0,
    RL_ADMIT = 1,
    RL_ERROR = 2,
};

/* What an algorithm claims; the checker measures each claim (DESIGN §1).
 *   STRONG  ≤ L in every sliding window [t, t+I)
 *   WEAK    ≤ L in every epoch-aligned window [k·I, (k+1)·I)
 *   WINDOW  ≤ L in each of its own windows (length ≥ I, not aligned), hence
 *           ≤ 2L in any sliding window
 *   BUCKET  ≤ B + L in any sliding window (capacity plus one interval's refill)
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
    RL_THREAD_SAFE = 1u << 0,   /* acquire may be called from many threads at once */
    RL_NEEDS_RELEASE = 1u << 1, /* concurrency limiters: every admit is released */
    RL_REMOTE = 1u << 2,        /* state lives outside the process (Redis): one instance
                                   serves every key, and acquire may answer RL_ERROR */
};

/* The clock handle. Each thread owns one, so nothing here is shared and
 * `reads` costs no contention. `read` returns nanoseconds on the clock's
 * own timeline, which does not start at zero (as CLOCK_MONOTONIC does not):
 * algorithms must not assume t = 0 is special. The run's epoch, where
 * aligned windows are anchored, is in struct rl_config. */
struct rl_clock {
    uint64_t (*read)(struct rl_clock *self);
    uint64_t reads;      /* how many times the algorithm looked at the time */
    uint64_t virtual_ns; /* the virtual clock's current time, set by the simulator */
    uint64_t tsc_base;   /* tsc clock: counter at calibration */
    uint64_t ns_base;    /* tsc clock: monotonic ns at calibration */
    uint64_t tsc_mult;   /* tsc clock: ns per tick in 32.32 fixed point */
    int64_t skew_ns;     /* this client's clock error (stress --client-skew) */
    const char *name;
};

static inline uint64_t rl_clock_now(struct rl_clock *clock)
{
    clock->reads++;
    return clock->read(clock) + (uint64_t)clock->skew_ns;
}

/* One configuration maps onto every algorithm (DESIGN §3), so comparisons
 * are like for like. Zero means "the documented default". */
struct rl_config {
    uint64_t limit;       /* L: admitted cost per interval; must be > 0 */
    uint64_t interval_ns; /* I: must be > 0 */
    uint64_t burst;       /* B: bucket capacity; 0 = L */
    uint32_t slots;       /* S: wheel slots of I/S each; 0 = 10 */
    uint64_t epoch_ns;    /* the run's t = 0 on the clock's timeline */
    const char *remote;   /* RL_REMOTE algorithms: "unix:PATH" or "HOST:PORT" */
    bool virtual_time;    /* sim: server-time scripts take the clock's time instead */
};

#define RL_DEFAULT_SLOTS 10u

static inline uint64_t rl_config_burst(const struct rl_config *cfg)
{
    return cfg->burst ? cfg->burst : cfg->limit;
}

/* One implementation. acquire(state, clock, key, n) decides one attempt of
 * cost n for key; an algorithm that keeps one limiter per key uses key,
 * the others ignore it (the harness gives each key its own instance).
 * create returns NULL and writes a one-line reason into err on bad config. */
struct rl_algo {
    const char *name;    /* snake_case, unique, stable: a CSV column */
    const char *family;  /* fixed_window, sliding_log, token_bucket, baseline, … */
    const char *summary; /* one line for `ratelab list` */
    enum rl_promise promise;
    unsigned flags; /* enum rl_flags */

    void *(*create)(const struct rl_config *cfg, char *err, size_t err_len);
    void (*destroy)(void *state);
    enum rl_decision (*acquire)(void *state, struct rl_clock *clock, uint64_t key, uint64_t n);
    void (*release)(void *state, struct rl_clock *clock, uint64_t key, uint64_t n);
};

/* Registry (registry.c): a NULL-terminated array of every implementation. */
extern const struct rl_algo *const rl_registry[];

const struct rl_algo *rl_registry_find(const char *name);
const char *rl_promise_name(enum rl_promise promise);

/* Shared helper for create(): a zeroed, cache-line aligned allocation, so
 * one limiter's hot words never share a line with another's. NULL on ENOMEM
 * with a reason in err. */
void *rl_state_alloc(size_t size, char *err, size_t err_len);

#define RL_CACHE_LINE 64

#endif
