/* redis_sliding_log_scan.c — the .NET article's sorted-set limiter as
 * written: the admit script only counts and adds (lua/sliding_log_scan.lua),
 * and a separate cleanup scans the keyspace with KEYS and removes old
 * members (lua/sliding_log_scan_cleanup.lua). It exists to measure what that
 * design costs: KEYS is O(every key on the server), and the server serves
 * nobody while it runs.
 *
 * Promise: strong, as long as the cleanup's clock is not ahead of the
 * clients'. Between cleanups, members older than I still count, so the
 * limiter refuses some attempts the trimming log (redis_sliding_log)
 * admits: it is stricter, never looser.
 *
 * State, on the server: redis_sliding_log's sorted sets, trimmed only by
 * the cleanup. Here: the cleanup's schedule, or its thread.
 *
 * Decision: admit n when the key's set holds at most L − n members. A cost
 * n is n members; n > L is refused without a call. Scores are client ns
 * since the epoch (< 2^53, else RL_ERROR). When the cleanup runs (our
 * choice; the article runs it as "a service for separate processing"
 * without saying how often): every P = I/10 of time, removing members
 * scored at or before now − I.
 * - Real time: a background thread with its own connection sleeps P (at
 *   least 1 ms, so a small I does not spin the server), then runs the
 *   cleanup with now = CLOCK_MONOTONIC − epoch, the timeline the harness's
 *   clocks share (monotonic, coarse and tsc; a skewed client's scores are
 *   off by its skew).
 * - Virtual time (sim): no thread; the first acquire at or after the due
 *   time runs the cleanup inline before deciding, with its own (virtual)
 *   now, and the next one is due P after that. Decisions are then a
 *   deterministic function of the trace (hand-worked in a test).
 *
 * Memory orders: redis, as every Redis limiter; in sim a relaxed CAS elects
 * which caller runs a due cleanup (the server orders its effects).
 *
 * Races accepted: a failed cleanup is left for the next run (admits still
 * decide, on a longer log); arrival order is not time order, as in
 * redis_sliding_log. RL_ERROR when the server cannot be asked.
 *
 * Sources: the .NET article, "How does .Net simulate session-level
 * semaphores, limit the http interface call frequency",
 * http://www.cnblogs.com/1996V/p/8127576.html, its "Distributed Redis"
 * version as written.
 */
#include "redis_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

extern const char rl_lua_sliding_log_scan[];
extern const char rl_lua_sliding_log_scan_cleanup[];

#define MIN_REAL_PERIOD_NS 1000000ull

struct redis_scan_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
    uint64_t ttl_ms;
    uint64_t period_ns;
    char pattern[96];
    /* virtual time: when the next inline cleanup is due (ns since the epoch) */
    _Atomic uint64_t next_cleanup_ns;
    /* real time: the cleanup thread */
    pthread_t cleaner;
    bool cleaner_started;
    bool stopping; /* guarded by stop_lock */
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
};

/* Runs the article's cleanup once for time `since`; failures are left for
 * the next run (an admit still decides, on a log that is merely longer). */
static void cleanup(struct redis_scan_state *s, uint64_t since)
{
    if (since < s->interval_ns)
        return; /* no member can be I old yet */
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_str(&args, s->pattern);
    rl_redis_arg_u64(&args, since - s->interval_ns);
    long long visited;
    (void)rl_redis_eval(s->redis, 1, 0, NULL, &args, &visited);
}

static void *cleaner_main(void *arg)
{
    struct redis_scan_state *s = arg;
    pthread_mutex_lock(&s->stop_lock);
    while (!s->stopping) {
        struct timespec due;
        clock_gettime(CLOCK_MONOTONIC, &due);
        uint64_t ns = (uint64_t)due.tv_nsec + s->period_ns;
        due.tv_sec += (time_t)(ns / 1000000000ull);
        due.tv_nsec = (long)(ns % 1000000000ull);
        while (!s->stopping && pthread_cond_timedwait(&s->stop_cond, &s->stop_lock, &due) == 0)
            ;
        if (s->stopping)
            break;
        pthread_mutex_unlock(&s->stop_lock);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t mono = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
        cleanup(s, mono > s->epoch_ns ? mono - s->epoch_ns : 0);
        pthread_mutex_lock(&s->stop_lock);
    }
    pthread_mutex_unlock(&s->stop_lock);
    return NULL;
}

static void redis_scan_destroy(void *state)
{
    struct redis_scan_state *s = state;
    if (s->cleaner_started) {
        pthread_mutex_lock(&s->stop_lock);
        s->stopping = true;
        pthread_cond_signal(&s->stop_cond);
        pthread_mutex_unlock(&s->stop_lock);
        pthread_join(s->cleaner, NULL);
    }
    pthread_cond_destroy(&s->stop_cond);
    pthread_mutex_destroy(&s->stop_lock);
    rl_redis_destroy(s); /* after the join: frees the cleaner's connection too */
}

/* NULL with one line in err: no server, no PING, zero L or I, I ≥ 2^53, or
 * the cleanup thread cannot start. */
static void *redis_scan_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > RL_LUA_INT_MAX) {
        snprintf(err, err_len, "redis_sliding_log_scan: I must be below 2^53 ns (104 days)");
        return NULL;
    }
    const struct rl_redis_script scripts[] = {
        {"sliding_log_scan", rl_lua_sliding_log_scan},
        {"sliding_log_scan_cleanup", rl_lua_sliding_log_scan_cleanup}};
    struct redis_scan_state *s =
        rl_redis_create(cfg, "redis_sliding_log_scan", sizeof *s, scripts, 2, err, err_len);
    if (s == NULL)
        return NULL;
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    s->ttl_ms = rl_redis_ttl_ms(s->redis, cfg->interval_ns);
    s->period_ns = cfg->interval_ns / 10 ? cfg->interval_ns / 10 : 1;
    rl_redis_key_pattern(s->redis, s->pattern, sizeof s->pattern);
    atomic_init(&s->next_cleanup_ns, s->period_ns);
    pthread_mutex_init(&s->stop_lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->stop_cond, &attr);
    pthread_condattr_destroy(&attr);
    if (!cfg->virtual_time) {
        if (s->period_ns < MIN_REAL_PERIOD_NS)
            s->period_ns = MIN_REAL_PERIOD_NS;
        int e = pthread_create(&s->cleaner, NULL, cleaner_main, s);
        if (e != 0) {
            snprintf(err, err_len, "redis_sliding_log_scan: cannot start the cleanup thread: %s",
                     strerror(e));
            redis_scan_destroy(s);
            return NULL;
        }
        s->cleaner_started = true;
    }
    return s;
}

/* One clock read (none for n > L); in sim, a due cleanup first. */
static enum rl_decision redis_scan_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    struct redis_scan_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
    if (since > RL_LUA_INT_MAX)
        return RL_ERROR;
    if (!s->cleaner_started) {
        /* relaxed: the word only elects which caller runs the cleanup; the
         * cleanup's effects are ordered by the server, not by this word */
        uint64_t due = atomic_load_explicit(&s->next_cleanup_ns, memory_order_relaxed);
        if (since >= due &&
            atomic_compare_exchange_strong_explicit(&s->next_cleanup_ns, &due, since + s->period_ns,
                                                    memory_order_relaxed, memory_order_relaxed))
            cleanup(s, since);
    }
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_u64(&args, s->limit);
    rl_redis_arg_u64(&args, n);
    rl_redis_arg_u64(&args, since);
    rl_redis_arg_u64(&args, rl_redis_unique());
    rl_redis_arg_u64(&args, s->ttl_ms);
    return rl_redis_decide(s->redis, 0, key, &args);
}

const struct rl_algo rl_redis_sliding_log_scan_algo = {
    .name = "redis_sliding_log_scan",
    .family = "sliding_log",
    .summary = ".NET article as written: ZCARD + ZADD, old members removed by a KEYS-scan cleanup",
    .promise = RL_PROMISE_STRONG,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_scan_create,
    .destroy = redis_scan_destroy,
    .acquire = redis_scan_acquire,
};
