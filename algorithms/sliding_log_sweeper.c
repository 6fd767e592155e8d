/* sliding_log_sweeper.c — the .NET article's "pipeline" limiter as written:
 * a list of admit times of capacity L per limiter, admission = the list is
 * not full, and entries removed only by a sweeper on its own schedule.
 * Promises `strong`, as the article claims; it under-admits by design.
 *
 * The article's parameters, read from its code (limit 10 per second):
 *   - admission: CounterAdd(10, DateTime.Now) fails when Count ≥ 10; with
 *     cost n we admit when the listed cost + n ≤ L.
 *   - removal age: the sweeper drops an entry when
 *     DateTime.Now.AddSeconds(-3) > dt, i.e. when it is older than 3 s =
 *     3·I. We keep RL_SWEEPER_AGE_INTERVALS = 3 intervals, strictly older.
 *   - sweep period: its loop sleeps 100 ms only when the container is
 *     empty, and otherwise sweeps again at once. We sweep every I/10 (the
 *     100 ms at I = 1 s) always, so that a real sweeper thread does not spin
 *     on a core the stress threads need; the entries it keeps live between
 *     3·I and 3·I + I/10, where the article's live 3·I plus one pass.
 *
 * Why strong holds: an entry leaves only after ≥ 3·I ≥ I, so at every
 * decision all admits of (t − I, t] are still listed and counted, and at
 * most L is ever listed. Why it under-admits: under sustained overload the
 * list fills in the first instant and then admits only as sweeps free
 * entries 3·I later — about L per 3.1·I, a third of the ideal. Measured
 * (`ratelab sim --algo sliding_log_sweeper --workload W --duration 20s`,
 * L = 1000 per 100 ms): utilization 0.325 on uniform, poisson and flash at
 * the default 4× load and at 1×, and still 0.64–0.65 at 0.5× (`--rate
 * 5000`): its effective limit is about L/3 per I whatever the offered load.
 *
 * Who sweeps:
 *   - on a real clock, a background thread, started by the first acquire
 *     (so the thousands of per-key instances of a simulation never start
 *     one) and stopped and joined by destroy. It wakes at the scheduled
 *     instants epoch + k·P and removes what is older than 3·I at the time
 *     it actually runs, through its own copy of the clock handle. The
 *     article has one sweeper per container of many pipelines; ratelab's
 *     harness gives each key its own instance, so here it is one per
 *     limiter — a keyed container should share one.
 *   - on the virtual clock, which a thread cannot follow, acquire applies
 *     the sweeps whose scheduled instant s = epoch + k·P has passed, each
 *     removing entries older than s − 3·I. A later sweep removes a superset
 *     of an earlier one's, so applying only the latest is exact. Should the
 *     thread fail to start, the same lazy sweeping takes over.
 *
 * Time is clamped to the newest time seen, as in sliding_log.c, so the list
 * stays in time order and a sweep looks only at its head.
 */
#include "stamp_ring.h"

#include "rl.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RL_SWEEPER_AGE_INTERVALS        3  /* the article's 3 s at a limit per 1 s */
#define RL_SWEEPER_PERIODS_PER_INTERVAL 10 /* the article's 100 ms at 1 s */

enum sweeper_mode {
    SWEEP_UNDECIDED, /* no acquire yet: the clock is not known */
    SWEEP_THREAD,    /* a real clock: the background thread sweeps */
    SWEEP_LAZY,      /* the virtual clock (or no thread): acquire sweeps */
};

struct sweeper_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t wake;                          /* destroy → thread: stop now */
    struct rl_stamp_ring list;
    enum sweeper_mode mode;
    bool stop;
    pthread_t thread;
    struct rl_clock thread_clock; /* the sweeper thread's own handle */
    bool started;
    uint64_t newest_ns;
    uint64_t last_sweep; /* index k of the latest lazy sweep applied */
    uint64_t limit;
    uint64_t epoch_ns;
    uint64_t age_ns;    /* entries this old are removed: 3·I */
    uint64_t period_ns; /* sweeps at epoch + k·period: I/10 */
};

/* Creates an empty list; no thread yet. NULL with a reason in err on bad
 * config or ENOMEM. */
static void *sweeper_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > UINT64_MAX / RL_SWEEPER_AGE_INTERVALS) {
        snprintf(err, err_len, "sliding_log_sweeper keeps entries 3·I: interval too large");
        return NULL;
    }
    struct sweeper_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    size_t max_entries = cfg->limit < SIZE_MAX ? (size_t)cfg->limit : SIZE_MAX;
    if (rl_stamp_ring_init(&s->list, max_entries) != 0) {
        snprintf(err, err_len, "out of memory for a sweeper list");
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &attr);
    pthread_condattr_destroy(&attr);
    s->limit = cfg->limit;
    s->epoch_ns = cfg->epoch_ns;
    s->age_ns = RL_SWEEPER_AGE_INTERVALS * cfg->interval_ns;
    s->period_ns = cfg->interval_ns / RL_SWEEPER_PERIODS_PER_INTERVAL;
    if (s->period_ns == 0)
        s->period_ns = 1;
    return s;
}

/* Removes every entry older than age_ns at time now_ns. Lock held. */
static void sweep_at(struct sweeper_state *s, uint64_t now_ns)
{
    if (now_ns > s->age_ns)
        rl_stamp_ring_drop_before(&s->list, now_ns - s->age_ns);
}

/* CLOCK_MONOTONIC now + delta_ns, as pthread_cond_timedwait wants it. */
static struct timespec deadline_after(uint64_t delta_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + delta_ns % 1000000000u;
    ts.tv_sec += (time_t)(delta_ns / 1000000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

/* The background sweeper: sweep, sleep to the next scheduled instant on
 * the limiter's clock, repeat until destroy sets stop. Runs with the lock
 * held except while waiting. */
static void *sweeper_main(void *arg)
{
    struct sweeper_state *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        uint64_t now = rl_clock_now(&s->thread_clock);
        /* The sweep joins the limiter's timeline: an acquire that read the
         * clock before this pass decides as of this pass's time, so it can
         * never count a window that reaches back to an entry swept here. */
        if (!s->started || now > s->newest_ns)
            s->newest_ns = now;
        s->started = true;
        sweep_at(s, now);
        uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
        uint64_t next = (since / s->period_ns + 1) * s->period_ns;
        struct timespec deadline = deadline_after(next - since);
        int e = 0;
        while (!s->stop && e != ETIMEDOUT)
            e = pthread_cond_timedwait(&s->wake, &s->lock, &deadline);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Stops the sweeper thread, if one runs, and waits for it to leave before
 * freeing what it touches. Never fails. */
static void sweeper_destroy(void *state)
{
    struct sweeper_state *s = state;
    pthread_mutex_lock(&s->lock);
    bool joined = s->mode == SWEEP_THREAD;
    s->stop = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    if (joined)
        pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    rl_stamp_ring_free(&s->list);
    free(s);
}

/* First acquire: a real clock gets the sweeper thread, the virtual clock
 * (or a failed pthread_create) lazy sweeps. Lock held. */
static void choose_mode(struct sweeper_state *s, const struct rl_clock *clock)
{
    s->mode = SWEEP_LAZY;
    if (clock->name != NULL && strcmp(clock->name, "virtual") == 0)
        return;
    s->thread_clock = *clock;
    s->thread_clock.reads = 0;
    if (pthread_create(&s->thread, NULL, sweeper_main, s) == 0)
        s->mode = SWEEP_THREAD;
}

/* Admits n when the listed cost + n ≤ L. In lazy mode first applies the
 * latest sweep whose scheduled instant has passed. n > L is rejected
 * without reading the clock. Error only when the list cannot grow. */
static enum rl_decision sweeper_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                        uint64_t n)
{
    (void)key;
    struct sweeper_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    pthread_mutex_lock(&s->lock);
    if (s->mode == SWEEP_UNDECIDED)
        choose_mode(s, clock);
    if (s->started && now < s->newest_ns)
        now = s->newest_ns;
    s->started = true;
    s->newest_ns = now;
    if (s->mode == SWEEP_LAZY && now > s->epoch_ns) {
        uint64_t k = (now - s->epoch_ns) / s->period_ns;
        if (k > s->last_sweep) {
            s->last_sweep = k;
            sweep_at(s, s->epoch_ns + k * s->period_ns);
        }
    }
    enum rl_decision d = RL_REJECT;
    if (n <= s->limit - s->list.sum)
        d = rl_stamp_ring_push(&s->list, now, n) == 0 ? RL_ADMIT : RL_ERROR;
    pthread_mutex_unlock(&s->lock);
    return d;
}

const struct rl_algo rl_sliding_log_sweeper_algo = {
    .name = "sliding_log_sweeper",
    .family = "sliding_log",
    .summary = ".NET article: list of ≤ L admits, swept every I/10 of entries older than 3·I",
    .promise = RL_PROMISE_STRONG,
    .flags = RL_THREAD_SAFE,
    .create = sweeper_create,
    .destroy = sweeper_destroy,
    .acquire = sweeper_acquire,
};
