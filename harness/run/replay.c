/* replay.c — open-loop threads that send a trace's attempts on time and
 * count latency from when each was due (replay.h). The start line, the
 * per-thread buffers and the error policy follow stress.c; the pacing
 * follows wrk2's answer to coordinated omission (Gil Tene). */
#include "harness/sys/cpus.h"
#include "replay.h"

#include "run_clock.h"
#include "harness/sys/clock.h"
#include "harness/sys/clock_sleep.h"
#include "harness/sys/interrupt.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS       200000u   /* spin (not sleep) through the last 200 µs before a due time */
#define SLEEP_STEP_NS 10000000u /* longer sleeps in 10 ms steps, so a signal can end the run */
#define MAX_THREADS   1024u     /* struct rl_event keeps the thread in 16 bits */

/* More than any lag of a clock behind CLOCK_MONOTONIC seen here: a coarse
 * tick at HZ = 100, a cached clock's period and its publisher's delays. */
#define STAMP_SLACK_NS 50000000u /* 50 ms */

struct replay_shared {
    _Alignas(RL_CACHE_LINE) _Atomic bool go; /* the start: t0 and the limiter are ready */
    _Atomic bool abort;                      /* set before go when the setup failed */
    _Atomic unsigned arrived;                /* workers at the start line */
    unsigned threads;
    bool oversubscribed; /* more workers than CPUs: yield instead of spinning */
    bool stamps_on_mono; /* the run's clock is CLOCK_MONOTONIC: one read serves both */
    /* Written before go is released, read-only after. */
    uint64_t t0_ns;    /* CLOCK_MONOTONIC: trace t = 0 */
    uint64_t epoch_ns; /* t0 on the run's clock: the limiter's and the stamps' epoch */
    /* Added to every stamp: 0 on monotonic, whose stamps never precede t0;
     * on a clock that lags (coarse, cached) a read just after t0 can fall
     * before the epoch estimated from it, and would be clamped to 0 (a
     * false admit burst at t = 0). The smallest multiple of I of at least
     * STAMP_SLACK_NS keeps every aligned window where it was. */
    uint64_t stamp_offset_ns;
    double speed;
    const struct rl_trace *trace;
    const struct rl_algo *algo;
    void *state;            /* one key: the limiter itself */
    struct rl_keyed *keyed; /* several keys: the container */
    bool error_admits;
    bool shapes;          /* a shaper: run_shaped_attempt */
    uint64_t max_wait_ns; /* its max wait where the trace gives none */
};

/* Each worker's counters, buffer and histograms sit on their own lines. */
struct worker {
    _Alignas(RL_CACHE_LINE) struct replay_shared *shared;
    pthread_t thread;
    unsigned index;
    struct rl_clock clock;       /* the algorithm's handle (skewed with --client-skew) */
    struct rl_clock stamp_clock; /* the recorder's, so `reads` stays the algorithm's */
    uint64_t decisions[2];       /* by enum rl_decision, after the error policy */
    uint64_t errors;
    struct rl_event *events;                    /* room for every attempt this thread sends */
    uint64_t *release_ns, *woke_ns, *cancel_ns; /* a shaper's run: beside events */
    uint64_t cancels_missed;
    struct rl_histogram overshoot;
    size_t len, cap;
    uint64_t max_gap_ns;
    uint64_t last_done_ns; /* CLOCK_MONOTONIC */
    bool stopped;          /* interrupted before its last attempt */
    struct rl_histogram latency, lateness, service;
};

/* Offset of trace time t from t0 on the wall clock. */
static uint64_t due_offset(uint64_t t_ns, double speed)
{
    return speed == 1.0 ? t_ns : (uint64_t)llround((double)t_ns / speed);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Waits until CLOCK_MONOTONIC reaches due and returns the read that saw it
 * (the actual send time) in *now_out; false when a signal asked the run to
 * stop first. A thread already past due returns at once: it sends late,
 * and the lateness is measured, never skipped. */
static bool wait_until(uint64_t due, bool yield, uint64_t *now_out)
{
    for (;;) {
        uint64_t now = rl_monotonic_ns();
        if (now >= due) {
            *now_out = now;
            return true;
        }
        if (rl_interrupted)
            return false;
        if (due - now > SPIN_NS) {
            uint64_t wake = due - SPIN_NS;
            if (wake - now > SLEEP_STEP_NS)
                wake = now + SLEEP_STEP_NS;
            struct timespec until = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
        } else if (yield) {
            sched_yield();
        } else {
            cpu_relax();
        }
    }
}

/* One attempt on the limiter, or on its key's limiter; an error is counted
 * and then turned into what the caller does with it (as in stress). */
static inline enum rl_decision decide(struct worker *w, const struct rl_attempt *a, bool *failed)
{
    struct replay_shared *sh = w->shared;
    enum rl_decision d = sh->keyed ? rl_keyed_acquire(sh->keyed, &w->clock, a->key, a->n)
                                   : sh->algo->acquire(sh->state, &w->clock, a->key, a->n);
    *failed = d == RL_ERROR;
    if (__builtin_expect(*failed, 0)) {
        w->errors++;
        d = sh->error_admits ? RL_ADMIT : RL_REJECT;
    }
    return d;
}

static void release(struct worker *w, const struct rl_attempt *a)
{
    struct replay_shared *sh = w->shared;
    if (sh->keyed)
        rl_keyed_release(sh->keyed, &w->clock, a->key, a->n);
    else
        sh->algo->release(sh->state, &w->clock, a->key, a->n);
}

/* A time on the run's clock as the log's t_ns (replay.h, Timeline). */
static uint64_t log_time(const struct replay_shared *sh, uint64_t clock_ns)
{
    return clock_ns + sh->stamp_offset_ns > sh->epoch_ns
               ? clock_ns + sh->stamp_offset_ns - sh->epoch_ns
               : 0;
}

/* A shaper's attempt i (replay.h, Shapers): shape, sleep until the release
 * (or the cancellation's due time, then cancel), log arrival, release,
 * wake-up and cancellation. Returns the decision after the error policy. */
static enum rl_decision run_shaped_attempt(struct worker *w, size_t i, uint64_t before,
                                           uint64_t *after_out)
{
    struct replay_shared *sh = w->shared;
    const struct rl_trace *trace = sh->trace;
    const struct rl_attempt *a = &trace->attempts[i];
    uint64_t own = trace->max_wait_ns ? trace->max_wait_ns[i] : RL_TRACE_WAIT_DEFAULT;
    uint64_t wait = own != RL_TRACE_WAIT_DEFAULT ? own : sh->max_wait_ns;
    struct rl_reservation reservation = {.release_ns = before};
    enum rl_decision d =
        sh->keyed ? rl_keyed_shape(sh->keyed, &w->clock, a->key, a->n, wait, &reservation)
                  : sh->algo->shape(sh->state, &w->clock, a->key, a->n, wait, &reservation);
    *after_out = w->stamp_clock.read(&w->stamp_clock);
    if (__builtin_expect(d == RL_ERROR, 0)) {
        w->errors++;
        d = sh->error_admits ? RL_ADMIT : RL_REJECT;
        reservation.release_ns = before; /* a fail-open admit goes at once */
    }
    uint64_t cancel = trace->cancel_ns ? trace->cancel_ns[i] : RL_TRACE_NO_CANCEL;
    size_t k = w->len;
    w->release_ns[k] = w->woke_ns[k] = w->cancel_ns[k] = RL_NO_RELEASE;
    if (d != RL_ADMIT) {
        w->cancels_missed += cancel != RL_TRACE_NO_CANCEL;
        return d;
    }
    w->release_ns[k] = log_time(sh, reservation.release_ns);
    uint64_t until = reservation.release_ns;
    uint64_t cancel_at =
        cancel == RL_TRACE_NO_CANCEL ? UINT64_MAX : sh->epoch_ns + due_offset(cancel, sh->speed);
    if (cancel_at < until)
        until = cancel_at;
    rl_clock_sleep_until(&w->clock, until);
    uint64_t woke = w->stamp_clock.read(&w->stamp_clock);
    if (cancel_at < reservation.release_ns && woke < reservation.release_ns) {
        if (sh->keyed)
            rl_keyed_cancel(sh->keyed, &w->clock, a->key, a->n, &reservation);
        else
            sh->algo->cancel(sh->state, &w->clock, a->key, a->n, &reservation);
        w->cancel_ns[k] = log_time(sh, woke);
        return d;
    }
    if (cancel_at < reservation.release_ns) { /* woke past the release: nothing left */
        w->cancels_missed++;
    } else if (cancel != RL_TRACE_NO_CANCEL) {
        w->cancels_missed++; /* released before its cancellation came */
    }
    if (woke < reservation.release_ns) { /* woken for the cancellation too late: sleep on */
        rl_clock_sleep_until(&w->clock, reservation.release_ns);
        woke = w->stamp_clock.read(&w->stamp_clock);
    }
    rl_histogram_record(&w->overshoot, woke - reservation.release_ns);
    w->woke_ns[k] = log_time(sh, woke);
    return d;
}

static void run_attempts(struct worker *w)
{
    struct replay_shared *sh = w->shared;
    const struct rl_trace *trace = sh->trace;
    struct rl_clock *stamp = &w->stamp_clock;
    bool needs_release = sh->algo->flags & RL_NEEDS_RELEASE;
    for (size_t i = w->index; i < trace->len; i += sh->threads) {
        const struct rl_attempt *a = &trace->attempts[i];
        uint64_t due = sh->t0_ns + due_offset(a->t_ns, sh->speed), sent;
        if (!wait_until(due, sh->oversubscribed, &sent)) {
            w->stopped = true;
            return;
        }
        uint64_t before = sh->stamps_on_mono ? sent : stamp->read(stamp);
        bool failed = false;
        uint64_t after;
        enum rl_decision d;
        if (sh->shapes) {
            d = run_shaped_attempt(w, i, before, &after);
        } else {
            d = decide(w, a, &failed);
            after = stamp->read(stamp);
        }
        uint64_t done = sh->stamps_on_mono ? after : rl_monotonic_ns();
        w->decisions[d]++;
        rl_histogram_record(&w->latency, done - due);
        rl_histogram_record(&w->lateness, sent - due);
        rl_histogram_record(&w->service, done - sent);
        w->last_done_ns = done;
        /* The stamp is when the caller holds the decision; the gap bounds
         * how much earlier the algorithm's own clock read may have been. */
        uint64_t gap = after > before ? after - before : 0;
        if (gap > w->max_gap_ns)
            w->max_gap_ns = gap;
        /* a shaper's attempt is logged at its arrival (replay.h, Shapers) */
        w->events[w->len++] =
            (struct rl_event){.t_ns = log_time(sh, sh->shapes ? before : after),
                              .key = a->key,
                              .n = a->n,
                              .thread = (uint16_t)w->index,
                              .admitted = d == RL_ADMIT,
                              .gap_ns = gap < UINT32_MAX ? (uint32_t)gap : UINT32_MAX};
        if (d == RL_ADMIT && needs_release && !failed) /* a fail-open admit holds nothing */
            release(w, a);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct replay_shared *sh = w->shared;
    /* Sleeps end within 1 µs of their time rather than the default 50 µs:
     * the spin that follows a sleep then stays short. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    atomic_fetch_add_explicit(&sh->arrived, 1, memory_order_relaxed);
    /* acquire pairs with the release that opens the start: t0, the epoch
     * and the limiter are fully written before any worker reads them. */
    while (!atomic_load_explicit(&sh->go, memory_order_acquire))
        sched_yield();
    if (!atomic_load_explicit(&sh->abort, memory_order_relaxed))
        run_attempts(w);
    return NULL;
}

static int check_params(const struct rl_replay_params *p, struct rl_clock *clock, char *err,
                        size_t err_len)
{
    if (p->started_clock)
        *clock = *p->started_clock;
    else if (rl_run_clock_start(p->clock, "replay", clock, err, err_len) != 0)
        return -1;
    if (p->threads < 1 || p->threads > MAX_THREADS) {
        snprintf(err, err_len, "replay needs 1 to %u threads, not %u", MAX_THREADS, p->threads);
        return -1;
    }
    return rl_replay_check_trace(p->trace, p->speed, err, err_len);
}

int rl_replay_check_trace(const struct rl_trace *trace, double speed, char *err, size_t err_len)
{
    if (speed == 0)
        speed = 1.0;
    if (!(speed > 0) || !isfinite(speed)) {
        snprintf(err, err_len, "speed must be a number greater than 0, not %g", speed);
        return -1;
    }
    for (size_t i = 1; i < trace->len; i++)
        if (trace->attempts[i].t_ns < trace->attempts[i - 1].t_ns) {
            snprintf(err, err_len,
                     "the trace is not sorted by time: attempt %zu is earlier than "
                     "attempt %zu",
                     i + 1, i);
            return -1;
        }
    if (trace->len && (double)trace->attempts[trace->len - 1].t_ns / speed > 1e18) {
        snprintf(err, err_len, "at speed %g the trace would last more than 10^9 s", speed);
        return -1;
    }
    return 0;
}

/* Gathers every thread's decisions, counts and histograms into out. */
static int collect(struct worker *workers, unsigned threads, const struct rl_trace *trace,
                   struct rl_replay_outcome *out)
{
    struct rl_event_log *log = &out->log;
    size_t total = 0;
    for (unsigned i = 0; i < threads; i++)
        total += workers[i].len;
    log->events = malloc((total ? total : 1) * sizeof *log->events);
    log->key_count = trace->key_count ? trace->key_count : 1; /* a log names at least one key */
    if (log->events == NULL ||
        rl_event_log_copy_key_names(log, trace->key_names, trace->key_count) != 0)
        return -1;
    log->cap = total;
    log->complete = true;
    bool shaped = workers[0].shared->shapes;
    out->shaped = shaped;
    bool cancels = shaped && trace->cancel_ns != NULL;
    if (shaped) {
        log->release_ns = malloc((total ? total : 1) * sizeof *log->release_ns);
        log->woke_ns = malloc((total ? total : 1) * sizeof *log->woke_ns);
        if (cancels)
            log->cancel_ns = malloc((total ? total : 1) * sizeof *log->cancel_ns);
        if (log->release_ns == NULL || log->woke_ns == NULL || (cancels && !log->cancel_ns) ||
            rl_histogram_init(&out->overshoot) != 0)
            return -1;
    }
    uint64_t t0 = workers[0].shared->t0_ns;
    for (unsigned i = 0; i < threads; i++) {
        struct worker *w = &workers[i];
        if (shaped) {
            memcpy(log->release_ns + log->len, w->release_ns, w->len * sizeof *log->release_ns);
            memcpy(log->woke_ns + log->len, w->woke_ns, w->len * sizeof *log->woke_ns);
            if (cancels)
                memcpy(log->cancel_ns + log->len, w->cancel_ns, w->len * sizeof *log->cancel_ns);
            rl_histogram_merge(&out->overshoot, &w->overshoot);
            out->cancels_missed += w->cancels_missed;
        }
        memcpy(log->events + log->len, w->events, w->len * sizeof *log->events);
        log->len += w->len;
        if (w->max_gap_ns > log->uncertainty_ns)
            log->uncertainty_ns = w->max_gap_ns;
        out->admits += w->decisions[RL_ADMIT];
        out->rejects += w->decisions[RL_REJECT];
        out->errors += w->errors;
        out->clock_reads += w->clock.reads;
        out->interrupted |= w->stopped;
        if (w->len && w->last_done_ns - t0 > out->wall_ns)
            out->wall_ns = w->last_done_ns - t0;
        rl_histogram_merge(&out->latency, &w->latency);
        rl_histogram_merge(&out->lateness, &w->lateness);
        rl_histogram_merge(&out->service, &w->service);
    }
    out->attempts = out->admits + out->rejects;
    if (!shaped)
        rl_event_log_sort(log);
    else if (rl_event_log_sort_with_columns(log) != 0)
        return -1;
    return 0;
}

/* Creates the limiter with its epoch at t0 (after the workers are at the
 * start line, so thread start-up is not inside the lead). */
static int create_limiter(const struct rl_replay_params *p, struct replay_shared *sh,
                          struct rl_clock *clock, char *err, size_t err_len)
{
    uint64_t now = rl_monotonic_ns();
    sh->t0_ns = now + RL_REPLAY_LEAD_NS;
    sh->epoch_ns =
        sh->stamps_on_mono ? sh->t0_ns : clock->read(clock) + (sh->t0_ns - rl_monotonic_ns());
    struct rl_config cfg = p->cfg;
    cfg.epoch_ns = sh->epoch_ns;
    sh->stamp_offset_ns = sh->stamps_on_mono ? 0
                                             : (STAMP_SLACK_NS + cfg.interval_ns - 1) /
                                                   cfg.interval_ns * cfg.interval_ns;
    if (p->trace->key_count > 1) {
        struct rl_keyed_config keyed_cfg = {
            .algo = p->algo, .cfg = cfg, .expiry = p->expiry, .realtime = true};
        sh->keyed = rl_keyed_create(&keyed_cfg, err, err_len);
        return sh->keyed ? 0 : -1;
    }
    sh->state = p->algo->create(&cfg, err, err_len);
    return sh->state ? 0 : -1;
}

static void free_workers(struct worker *workers, unsigned threads)
{
    for (unsigned i = 0; workers && i < threads; i++) {
        free(workers[i].events);
        free(workers[i].release_ns);
        free(workers[i].woke_ns);
        free(workers[i].cancel_ns);
        rl_histogram_free(&workers[i].overshoot);
        rl_histogram_free(&workers[i].latency);
        rl_histogram_free(&workers[i].lateness);
        rl_histogram_free(&workers[i].service);
    }
    free(workers);
}

/* Workers with their buffers sized to their share of the trace. */
static struct worker *make_workers(const struct rl_replay_params *p, struct replay_shared *sh,
                                   const struct rl_clock *clock)
{
    unsigned threads = p->threads;
    struct worker *workers = aligned_alloc(RL_CACHE_LINE, threads * sizeof *workers);
    if (workers == NULL)
        return NULL;
    memset(workers, 0, threads * sizeof *workers);
    for (unsigned i = 0; i < threads; i++) {
        struct worker *w = &workers[i];
        w->shared = sh;
        w->index = i;
        w->clock = w->stamp_clock = *clock;
        w->clock.reads = 0;
        /* Thread i's clock is off by −skew + 2·skew·i/(T−1), as in stress. */
        if (p->client_skew_ns && threads > 1)
            rl_clock_set_skew(&w->clock, -(int64_t)p->client_skew_ns +
                                             (int64_t)(2 * p->client_skew_ns * i / (threads - 1)));
        w->cap = p->trace->len > i ? (p->trace->len - i + threads - 1) / threads : 0;
        w->events = malloc((w->cap ? w->cap : 1) * sizeof *w->events);
        if (sh->shapes) {
            w->release_ns = malloc((w->cap ? w->cap : 1) * sizeof *w->release_ns);
            w->woke_ns = malloc((w->cap ? w->cap : 1) * sizeof *w->woke_ns);
            w->cancel_ns = malloc((w->cap ? w->cap : 1) * sizeof *w->cancel_ns);
        }
        if (w->events == NULL ||
            (sh->shapes && (w->release_ns == NULL || w->woke_ns == NULL || w->cancel_ns == NULL ||
                            rl_histogram_init(&w->overshoot) != 0)) ||
            rl_histogram_init(&w->latency) != 0 || rl_histogram_init(&w->lateness) != 0 ||
            rl_histogram_init(&w->service) != 0) {
            free_workers(workers, i + 1);
            return NULL;
        }
    }
    return workers;
}

void rl_replay_outcome_free(struct rl_replay_outcome *out)
{
    rl_histogram_free(&out->latency);
    rl_histogram_free(&out->lateness);
    rl_histogram_free(&out->service);
    rl_histogram_free(&out->overshoot);
    rl_event_log_free(&out->log);
}

int rl_replay_run(const struct rl_replay_params *p, struct rl_replay_outcome *out, char *err,
                  size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_clock clock;
    if (check_params(p, &clock, err, err_len) != 0)
        return -1;
    if (rl_histogram_init(&out->latency) != 0 || rl_histogram_init(&out->lateness) != 0 ||
        rl_histogram_init(&out->service) != 0) {
        rl_replay_outcome_free(out);
        snprintf(err, err_len, "out of memory for the latency histograms");
        return -1;
    }
    struct replay_shared shared = {
        .threads = p->threads,
        .oversubscribed = p->threads > (unsigned)rl_cpu_count(),
        .stamps_on_mono = strcmp(clock.name, "monotonic") == 0,
        .speed = p->speed == 0 ? 1.0 : p->speed,
        .trace = p->trace,
        .algo = p->algo,
        .error_admits = p->error_admits,
        .shapes = p->algo->shape != NULL,
        .max_wait_ns = p->max_wait_ns,
    };
    if (shared.shapes && p->client_skew_ns) {
        rl_replay_outcome_free(out);
        snprintf(err, err_len,
                 "%s is a shaper: its callers sleep until releases on the run's clock, which "
                 "a client skew would move (no --client-skew)",
                 p->algo->name);
        return -1;
    }
    if (p->trace->cancel_ns && (p->algo->shape == NULL || p->algo->cancel == NULL)) {
        rl_replay_outcome_free(out);
        snprintf(err, err_len, "the trace cancels reservations, and %s cannot cancel one",
                 p->algo->name);
        return -1;
    }
    atomic_init(&shared.go, false);
    atomic_init(&shared.abort, false);
    atomic_init(&shared.arrived, 0);
    const struct rl_trace *trace = p->trace;
    out->span_ns = trace->len ? due_offset(trace->attempts[trace->len - 1].t_ns, shared.speed) : 0;

    struct worker *workers = make_workers(p, &shared, &clock);
    if (workers == NULL) {
        rl_replay_outcome_free(out);
        snprintf(err, err_len, "out of memory for %u threads and %zu decisions", p->threads,
                 trace->len);
        return -1;
    }
    unsigned started = 0;
    for (; started < p->threads; started++) {
        int e = pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]);
        if (e != 0) {
            snprintf(err, err_len, "cannot start thread %u: %s", started, strerror(e));
            break;
        }
    }
    while (atomic_load_explicit(&shared.arrived, memory_order_relaxed) < started)
        sched_yield();
    bool ready = started == p->threads && create_limiter(p, &shared, &clock, err, err_len) == 0;
    /* relaxed: published by the release store of go that follows */
    atomic_store_explicit(&shared.abort, !ready, memory_order_relaxed);
    atomic_store_explicit(&shared.go, true, memory_order_release);
    for (unsigned i = 0; i < started; i++)
        pthread_join(workers[i].thread, NULL);

    int rc = -1;
    if (ready) {
        if (collect(workers, p->threads, trace, out) == 0) {
            rc = 0;
            if (shared.keyed)
                rl_keyed_stats(shared.keyed, &out->keyed);
        } else {
            snprintf(err, err_len, "out of memory merging %zu decisions", trace->len);
        }
    }
    if (shared.keyed)
        rl_keyed_destroy(shared.keyed);
    else if (shared.state)
        p->algo->destroy(shared.state);
    free_workers(workers, p->threads);
    if (rc != 0)
        rl_replay_outcome_free(out);
    return rc;
}
