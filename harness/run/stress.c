/* stress.c — closed-loop threads on one shared limiter, with an optional
 * recorder that stamps every admit into a per-thread buffer. */
#include "harness/sys/cpus.h"
#include "stress.h"

#include "run_clock.h"
#include "harness/sys/clock.h"
#include "harness/sys/clock_sleep.h"
#include "harness/sys/interrupt.h"
#include "harness/sys/rss.h"
#include "harness/sys/stamp.h"
#include "workloads/keys.h"
#include "workloads/rng.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct stress_shared {
    _Alignas(RL_CACHE_LINE) _Atomic bool stop; /* alone on its line: read by all, written once */
    _Atomic bool go;                           /* the start line every thread waits at */
    _Atomic unsigned arrived;                  /* workers past the start line */
    unsigned threads;
    bool oversubscribed; /* more workers than CPUs */
    /* The harness's own count of permits held, for limiters that need
     * release: raised after the limiter admits, lowered before it is told
     * of the release, so it never exceeds the limiter's true count. */
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t in_flight;
    uint64_t hold_ns;
    const struct rl_algo *algo;
    void *state;            /* one key: the limiter itself */
    struct rl_keyed *keyed; /* several keys: the container, and how keys are drawn */
    struct rl_key_sampler sampler;
    uint64_t epoch_ns;
    bool record;
    bool error_admits;
    bool shapes;          /* the algorithm is a shaper: run_shaped */
    bool without_sleep;   /* run_shape_decisions: the decision part alone */
    unsigned lookahead;   /* run_pipelined's depth; 0: run_plain */
    double cancel_share;  /* of waiting reservations, given up halfway */
    uint64_t max_wait_ns; /* each shape call's */
    bool history;         /* run_history: every operation (history_recorder.h) */
    struct rl_hist_cut hist_cut;
};

/* Each worker's counters and buffer sit on their own cache lines. */
struct worker {
    _Alignas(RL_CACHE_LINE) struct stress_shared *shared;
    pthread_t thread;
    unsigned index;
    struct rl_clock clock;       /* the algorithm's handle */
    struct rl_stamp_clock stamp; /* the recorder's, so `reads` stays the algorithm's */
    uint64_t decisions[3];       /* by enum rl_decision, after the error policy */
    uint64_t errors;
    uint64_t start_ns, end_ns;
    struct rl_event *events;
    uint64_t *release_ns, *woke_ns, *cancel_ns; /* a shaper's recorded run: beside events */
    uint64_t cancels;
    size_t len, cap;
    uint64_t dropped, max_gap_ns;
    uint64_t max_in_flight;
    struct rl_rng rng;             /* draws this thread's keys */
    struct rl_histogram overshoot; /* a shaper's run: woke − release */
    struct rl_hist_thread hist;    /* --history: this thread's operations */
};

/* One attempt on the limiter, or on the drawn key's limiter; an error is
 * counted and then turned into what the caller does with it. */
__attribute__((always_inline)) static inline enum rl_decision decide(struct worker *w,
                                                                     uint32_t *key, bool *failed)
{
    struct stress_shared *sh = w->shared;
    enum rl_decision d;
    if (sh->keyed == NULL) {
        d = sh->algo->acquire(sh->state, &w->clock, 0, 1);
    } else {
        *key = rl_key_sampler_draw(&sh->sampler, &w->rng);
        d = rl_keyed_acquire(sh->keyed, &w->clock, *key, 1);
    }
    *failed = d == RL_ERROR;
    if (__builtin_expect(*failed, 0)) {
        w->errors++;
        d = sh->error_admits ? RL_ADMIT : RL_REJECT;
    }
    return d;
}

/* Holds an admitted permit for hold_ns (spinning: holds are short and a
 * sleep would hand the core away for far longer), then releases it. */
static void hold_and_release(struct worker *w, uint32_t key)
{
    struct stress_shared *sh = w->shared;
    /* Raised after the limiter's acquire returned, lowered before its
     * release is called, so the count is sound through the limiter's own
     * release/acquire pairing (concurrency.c), not through this order;
     * seq_cst costs nothing here beside the hold and keeps it obvious. */
    uint64_t held = atomic_fetch_add_explicit(&sh->in_flight, 1, memory_order_seq_cst) + 1;
    if (held > w->max_in_flight)
        w->max_in_flight = held;
    if (sh->hold_ns) {
        uint64_t until = rl_monotonic_ns() + sh->hold_ns;
        while (rl_monotonic_ns() < until)
            ;
    }
    atomic_fetch_sub_explicit(&sh->in_flight, 1, memory_order_seq_cst);
    if (sh->keyed)
        rl_keyed_release(sh->keyed, &w->clock, key, 1);
    else
        sh->algo->release(sh->state, &w->clock, 0, 1);
}

static void run_plain(struct worker *w)
{
    struct stress_shared *sh = w->shared;
    const struct rl_algo *algo = sh->algo;
    bool needs_release = algo->flags & RL_NEEDS_RELEASE;
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        uint32_t key = 0;
        bool failed;
        enum rl_decision d = decide(w, &key, &failed);
        w->decisions[d]++;
        if (d == RL_ADMIT && needs_release && !failed) /* a fail-open admit holds nothing */
            hold_and_release(w, key);
    }
}

/* run_plain's loop over keys drawn `lookahead` attempts ahead: while one
 * batch is decided (one announcement for all of it), the next batch's
 * slots are on their way, each prefetched as its key was drawn. The keys
 * are the ones run_plain would draw, in the same order; the last batch
 * drawn when the run stops is never decided, so attempts count decisions
 * only. */
static void run_pipelined(struct worker *w)
{
    struct stress_shared *sh = w->shared;
    unsigned depth = sh->lookahead;
    uint64_t keys[2][RL_STRESS_MAX_LOOKAHEAD];
    enum rl_decision decided[RL_STRESS_MAX_LOOKAHEAD];
    for (unsigned j = 0; j < depth; j++) {
        keys[0][j] = rl_key_sampler_draw(&sh->sampler, &w->rng);
        rl_keyed_prefetch(sh->keyed, keys[0][j]);
    }
    for (unsigned now = 0; !atomic_load_explicit(&sh->stop, memory_order_relaxed); now ^= 1) {
        for (unsigned j = 0; j < depth; j++) {
            keys[now ^ 1][j] = rl_key_sampler_draw(&sh->sampler, &w->rng);
            rl_keyed_prefetch(sh->keyed, keys[now ^ 1][j]);
        }
        rl_keyed_acquire_batch(sh->keyed, &w->clock, keys[now], depth, 1, decided);
        for (unsigned j = 0; j < depth; j++) {
            enum rl_decision d = decided[j];
            if (__builtin_expect(d == RL_ERROR, 0)) {
                w->errors++;
                d = sh->error_admits ? RL_ADMIT : RL_REJECT;
            }
            w->decisions[d]++;
        }
    }
}

/* The recorder reads the stamp clock (stamp.h: the run's own source, in
 * program order) after every admit and once per batch of rejects, never
 * before a call. Why an admit's interval [stamp − gap, stamp] holds its
 * decision:
 *
 * - The stamp is read after acquire returned, so it is at least every time
 *   the call read (stamp.h's ordering). The gap runs back to `last`, the
 *   thread's latest stamp read before the call: that read came before the
 *   call began, so it is at most every time the call read. Whatever lies
 *   between (earlier calls, rejects, preemption, a migration to another
 *   CPU, this loop's own work) only widens the interval: nothing in the
 *   argument assumes how long anything takes. For a limiter that reads no
 *   clock (faa), the interval holds the call itself.
 * - Stamps and the limiter's reads are on one timebase: the same source,
 *   unskewed (a skewed client's reads are off by its skew, as it means
 *   them to be), so no conversion error enters. Across CPUs the kernel
 *   keeps monotonic and coarse consistent; the tsc clock assumes what
 *   rl_clock_init requires of it (an invariant TSC, synchronized, as the
 *   limiter itself does. A machine without one refuses --clock tsc, and
 *   the recorder never needs the TSC otherwise).
 * - A gap of UINT32_MAX ns (4.29 s) or more is stored as UINT32_MAX. For
 *   I up to 4.29 s the checker then counts that admit in no certain window,
 *   as it would with the true gap; above, a thread stalled that long could
 *   be counted where it should not be (a limit of the 24-byte event).
 *
 * The reject path is what overload runs: a read per reject would cost a
 * clock read per call (1.8x for fw_cas with monotonic). Reading none would
 * stretch the gap of the first admit after rejects to the whole reject run
 * (about I under overload), and that admit, the first of a new window, is
 * the one near the boundary where certainty matters. So rejects read once
 * per `batch`, which doubles while a batch takes under half of
 * REJECT_SPAN_NS and halves while it takes more: an admit after rejects has
 * a gap of about REJECT_SPAN_NS at most (plus its own call and any
 * preemption), and the reads cost about one per REJECT_SPAN_NS of calls,
 * whatever the limiter's speed. Consecutive admits keep a gap of one call.
 * The batch stops at MAX_REJECT_BATCH: a coarse clock shows spans of 0
 * between its ticks, and would otherwise let a batch grow without limit.
 */
#define REJECT_SPAN_NS   512
#define MAX_REJECT_BATCH 128

/* Whether writing *e was the first touch of a page of the buffer (4 KiB,
 * the smallest page: a larger one only adds reads). The buffer is touched
 * only as used, and a first touch faults (10 to 90 us on this VM), between
 * a stamp and the next call: a fresh read after it keeps it out of that
 * call's gap. */
static inline bool touched_new_page(const struct rl_event *e)
{
    uintptr_t first = (uintptr_t)e, last = first + sizeof *e - 1;
    return (last >> 12) != ((first - 1) >> 12);
}

static void run_recorded(struct worker *w)
{
    struct stress_shared *sh = w->shared;
    const struct rl_algo *algo = sh->algo;
    struct rl_stamp_clock *stamp = &w->stamp;
    unsigned batch = 1, countdown = 1;
    uint64_t last = rl_stamp_now(stamp); /* every later call begins after this read */
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        uint32_t key = 0;
        bool failed;
        enum rl_decision d = decide(w, &key, &failed);
        w->decisions[d]++;
        if (d != RL_ADMIT) {
            if (__builtin_expect(--countdown == 0, 0)) {
                uint64_t now = rl_stamp_now(stamp), span = now - last;
                if (span < REJECT_SPAN_NS / 2 && batch < MAX_REJECT_BATCH)
                    batch *= 2;
                else if (span > REJECT_SPAN_NS && batch > 1)
                    batch /= 2;
                last = now;
                countdown = batch;
            }
            continue;
        }
        uint64_t after = rl_stamp_now(stamp), gap = after - last;
        last = after;
        countdown = batch;
        if (gap > w->max_gap_ns)
            w->max_gap_ns = gap;
        if (w->len < w->cap) {
            struct rl_event *e = &w->events[w->len++];
            *e = (struct rl_event){.t_ns = after - sh->epoch_ns,
                                   .key = key,
                                   .n = 1,
                                   .thread = (uint16_t)w->index,
                                   .admitted = 1,
                                   .gap_ns = gap < UINT32_MAX ? (uint32_t)gap : UINT32_MAX};
            if (__builtin_expect(touched_new_page(e), 0))
                last = rl_stamp_now(stamp); /* the page fault stays out of the next gap */
        } else {
            w->dropped++;
        }
        if ((algo->flags & RL_NEEDS_RELEASE) && !failed) {
            hold_and_release(w, key);
            last = rl_stamp_now(stamp); /* so the hold is not in the next call's gap */
        }
    }
}

/* An admitted caller waits for its release, or (cancel_share) gives up
 * halfway: *woke is the stamp when its sleep ended, or *cancelled the one
 * before its cancel; the other stays RL_NO_RELEASE. A cancellation that
 * wakes at or past the release finds it gone and waits it out instead. */
static void wait_for_release(struct worker *w, uint32_t key, uint64_t arrival,
                             const struct rl_reservation *reservation, uint64_t *woke,
                             uint64_t *cancelled)
{
    struct stress_shared *sh = w->shared;
    uint64_t release = reservation->release_ns;
    if (sh->cancel_share > 0 && release > arrival && rl_rng_uniform(&w->rng) < sh->cancel_share) {
        rl_clock_sleep_until(&w->clock, arrival + (release - arrival) / 2);
        uint64_t now = rl_stamp_now(&w->stamp);
        if (now < release) {
            if (sh->keyed)
                rl_keyed_cancel(sh->keyed, &w->clock, key, 1, reservation);
            else
                sh->algo->cancel(sh->state, &w->clock, 0, 1, reservation);
            *cancelled = now;
            w->cancels++;
            return;
        }
    }
    rl_clock_sleep_until(&w->clock, release);
    *woke = rl_stamp_now(&w->stamp);
    rl_histogram_record(&w->overshoot, *woke > release ? *woke - release : 0);
}

/* A shaper's loop: shape, sleep until the release on the run's clock,
 * stamp the wake-up, go again. The arrival is the stamp before the call
 * (every clock read of the call is later, so the release is never before
 * it), the gap the call alone; the release is the shaper's promise and
 * woke − release the timer's overshoot, kept apart. A recorded run logs
 * every attempt (rejects too), so the log is complete. */
static void run_shaped(struct worker *w)
{
    struct stress_shared *sh = w->shared;
    struct rl_stamp_clock *stamp = &w->stamp;
    /* sleeps end within 1 µs of their time rather than the default 50 µs
     * (as replay's): the overshoot left is the timer's and the scheduler's */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        uint32_t key = 0;
        if (sh->keyed)
            key = rl_key_sampler_draw(&sh->sampler, &w->rng);
        uint64_t arrival = rl_stamp_now(stamp);
        struct rl_reservation reservation = {.release_ns = arrival};
        enum rl_decision d =
            sh->keyed ? rl_keyed_shape(sh->keyed, &w->clock, key, 1, sh->max_wait_ns, &reservation)
                      : sh->algo->shape(sh->state, &w->clock, 0, 1, sh->max_wait_ns, &reservation);
        uint64_t decided = rl_stamp_now(stamp);
        if (__builtin_expect(d == RL_ERROR, 0)) {
            w->errors++;
            d = sh->error_admits ? RL_ADMIT : RL_REJECT;
            reservation.release_ns = arrival; /* a fail-open admit goes at once */
        }
        w->decisions[d]++;
        uint64_t woke = RL_NO_RELEASE, cancelled = RL_NO_RELEASE;
        if (d == RL_ADMIT)
            wait_for_release(w, key, arrival, &reservation, &woke, &cancelled);
        if (!sh->record)
            continue;
        if (w->len == w->cap) {
            w->dropped++;
            continue;
        }
        uint64_t gap = decided - arrival;
        if (gap > w->max_gap_ns)
            w->max_gap_ns = gap;
        size_t i = w->len++;
        w->events[i] = (struct rl_event){.t_ns = arrival - sh->epoch_ns,
                                         .key = key,
                                         .n = 1,
                                         .thread = (uint16_t)w->index,
                                         .admitted = d == RL_ADMIT,
                                         .gap_ns = gap < UINT32_MAX ? (uint32_t)gap : UINT32_MAX};
        w->release_ns[i] = d == RL_ADMIT ? reservation.release_ns - sh->epoch_ns : RL_NO_RELEASE;
        w->woke_ns[i] = woke != RL_NO_RELEASE ? woke - sh->epoch_ns : RL_NO_RELEASE;
        if (w->cancel_ns)
            w->cancel_ns[i] = cancelled != RL_NO_RELEASE ? cancelled - sh->epoch_ns : RL_NO_RELEASE;
    }
}

/* A shaper's decision part alone (rl_stress_params.shape_without_sleep):
 * run_plain's loop through shape, nothing waited for. */
static void run_shape_decisions(struct worker *w)
{
    struct stress_shared *sh = w->shared;
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        struct rl_reservation reservation;
        enum rl_decision d;
        if (sh->keyed == NULL) {
            d = sh->algo->shape(sh->state, &w->clock, 0, 1, sh->max_wait_ns, &reservation);
        } else {
            uint32_t key = rl_key_sampler_draw(&sh->sampler, &w->rng);
            d = rl_keyed_shape(sh->keyed, &w->clock, key, 1, sh->max_wait_ns, &reservation);
        }
        if (__builtin_expect(d == RL_ERROR, 0)) {
            w->errors++;
            d = sh->error_admits ? RL_ADMIT : RL_REJECT;
        }
        w->decisions[d]++;
    }
}

/* --history's attempt: decide, count, as run_plain does (no release: a
 * limiter that needs one is refused), called by the recorder's loop. */
static enum rl_decision decide_for_history(void *arg, uint32_t *key)
{
    struct worker *w = arg;
    bool failed;
    enum rl_decision d = decide(w, key, &failed);
    w->decisions[d]++;
    return d;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct stress_shared *sh = w->shared;
    /* acquire pairs with the release that opens the start, so each worker
     * sees the limiter fully created. Yield: the main thread holds a core
     * until it opens the start. */
    while (!atomic_load_explicit(&sh->go, memory_order_acquire))
        sched_yield();
    /* Then a rendezvous: a worker that was not on a core when the start
     * opened would begin microseconds late, and races that need two
     * threads at once (a first window) would be missed. Spin when every
     * worker has a core of its own, yield when they do not. */
    atomic_fetch_add_explicit(&sh->arrived, 1, memory_order_relaxed);
    while (atomic_load_explicit(&sh->arrived, memory_order_relaxed) < sh->threads)
        if (sh->oversubscribed)
            sched_yield();
    w->start_ns = rl_monotonic_ns();
    if (w->shared->shapes && w->shared->without_sleep)
        run_shape_decisions(w);
    else if (w->shared->shapes)
        run_shaped(w);
    else if (w->shared->history)
        rl_hist_thread_run(&w->hist, &sh->hist_cut, &sh->stop, &w->stamp, decide_for_history, w);
    else if (w->shared->record)
        run_recorded(w);
    else if (w->shared->lookahead)
        run_pipelined(w);
    else
        run_plain(w);
    w->end_ns = rl_monotonic_ns();
    return NULL;
}

static void pin_to_cpu(pthread_t thread, unsigned index)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(index % (unsigned)rl_cpu_count(), &set);
    pthread_setaffinity_np(thread, sizeof set, &set);
}

static size_t default_capacity(const struct rl_stress_params *p)
{
    /* Twice what a correct limiter can admit over all keys, plus slack; a
     * broken one that admits more fills the buffer, and the drop is reported. */
    double windows = (double)p->duration_ns / (double)p->cfg.interval_ns + 2.0;
    double keys = p->keys > 1 ? (double)p->keys : 1.0;
    double wanted = 2.0 * (double)p->cfg.limit * windows * keys + 4096.0;
    double most = (double)(1u << 22); /* 96 MiB a thread, touched only as used */
    return (size_t)(wanted < most ? wanted : most);
}

/* Sleeps out the run in short steps so a signal can end it early. */
static bool wait_for_duration(uint64_t duration_ns)
{
    uint64_t end = rl_monotonic_ns() + duration_ns;
    for (;;) {
        if (rl_interrupted)
            return false;
        uint64_t now = rl_monotonic_ns();
        if (now >= end)
            return true;
        uint64_t step = end - now < 10000000u ? end - now : 10000000u;
        struct timespec pause = {0, (long)step};
        nanosleep(&pause, NULL);
    }
}

/* The workers and their event buffers (those not yet merged). */
static void free_workers(struct worker *workers, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++) {
        free(workers[i].events);
        free(workers[i].release_ns);
        free(workers[i].woke_ns);
        free(workers[i].cancel_ns);
        rl_histogram_free(&workers[i].overshoot);
        rl_hist_thread_free(&workers[i].hist);
    }
    free(workers);
}

static int merge_events(struct worker *workers, unsigned threads, uint32_t keys,
                        struct rl_event_log *log)
{
    size_t total = 0;
    for (unsigned i = 0; i < threads; i++)
        total += workers[i].len;
    memset(log, 0, sizeof *log);
    log->events = malloc((total ? total : 1) * sizeof *log->events);
    bool shaped = workers[0].release_ns != NULL, cancels = workers[0].cancel_ns != NULL;
    if (shaped) {
        log->release_ns = malloc((total ? total : 1) * sizeof *log->release_ns);
        log->woke_ns = malloc((total ? total : 1) * sizeof *log->woke_ns);
    }
    if (cancels)
        log->cancel_ns = malloc((total ? total : 1) * sizeof *log->cancel_ns);
    if (log->events == NULL || (shaped && (log->release_ns == NULL || log->woke_ns == NULL)) ||
        (cancels && log->cancel_ns == NULL)) {
        rl_event_log_free(log);
        return -1;
    }
    log->cap = total;
    for (unsigned i = 0; i < threads; i++) {
        if (shaped) {
            memcpy(log->release_ns + log->len, workers[i].release_ns,
                   workers[i].len * sizeof *log->release_ns);
            memcpy(log->woke_ns + log->len, workers[i].woke_ns,
                   workers[i].len * sizeof *log->woke_ns);
        }
        if (cancels)
            memcpy(log->cancel_ns + log->len, workers[i].cancel_ns,
                   workers[i].len * sizeof *log->cancel_ns);
        memcpy(log->events + log->len, workers[i].events, workers[i].len * sizeof *log->events);
        log->len += workers[i].len;
        log->dropped += workers[i].dropped;
        if (workers[i].max_gap_ns > log->uncertainty_ns)
            log->uncertainty_ns = workers[i].max_gap_ns;
    }
    log->key_count = keys ? keys : 1;
    log->complete = shaped; /* a shaper's run logs its rejects too */
    if (!shaped) {
        rl_event_log_sort(log);
        return 0;
    }
    if (rl_event_log_sort_with_columns(log) != 0) {
        rl_event_log_free(log);
        return -1;
    }
    return 0;
}

/* The limiter the threads share: one instance, or the keyed container with
 * its key sampler; epoch at the clock's now. Also the resident set before,
 * for bytes per key. */
static int create_limiter(const struct rl_stress_params *p, struct rl_clock *clock,
                          struct stress_shared *shared, uint64_t *rss_before, char *err,
                          size_t err_len)
{
    struct rl_config cfg = p->cfg;
    cfg.epoch_ns = shared->epoch_ns = clock->read(clock);
    if (p->keys <= 1) {
        shared->state = p->algo->create(&cfg, err, err_len);
        return shared->state ? 0 : -1;
    }
    malloc_trim(0); /* so that memory freed by earlier runs does not hide growth */
    *rss_before = rl_rss_bytes();
    struct rl_keyed_config keyed_cfg = {
        .algo = p->algo, .cfg = cfg, .expiry = p->expiry, .realtime = true};
    enum rl_key_dist dist = p->zipf_s > 0 ? RL_KEYS_ZIPF : RL_KEYS_UNIFORM;
    if (rl_key_sampler_init(&shared->sampler, dist, p->keys, p->zipf_s) != 0) {
        snprintf(err, err_len, "out of memory for %u keys", p->keys);
        return -1;
    }
    shared->keyed = rl_keyed_create(&keyed_cfg, err, err_len);
    if (shared->keyed == NULL) {
        rl_key_sampler_free(&shared->sampler);
        return -1;
    }
    return 0;
}

/* What create_limiter made, on every path out of a run. */
static void destroy_limiter(const struct rl_stress_params *p, struct stress_shared *shared)
{
    if (shared->keyed) {
        rl_keyed_destroy(shared->keyed);
        rl_key_sampler_free(&shared->sampler);
    } else {
        p->algo->destroy(shared->state);
    }
}

/* Each worker gets the run's clock (skewed for --client-skew), its own key
 * stream and, recorded, its event buffer. NULL with err on no memory. */
static struct worker *make_workers(const struct rl_stress_params *p, struct stress_shared *shared,
                                   const struct rl_clock *clock, char *err, size_t err_len)
{
    struct worker *workers = aligned_alloc(RL_CACHE_LINE, p->threads * sizeof *workers);
    if (workers == NULL) {
        snprintf(err, err_len, "out of memory for %u threads", p->threads);
        return NULL;
    }
    memset(workers, 0, p->threads * sizeof *workers);
    size_t cap = p->record_capacity ? p->record_capacity : default_capacity(p);
    for (unsigned i = 0; i < p->threads; i++) {
        struct worker *w = &workers[i];
        w->shared = shared;
        w->index = i;
        w->clock = *clock;
        rl_stamp_clock_init(&w->stamp, clock);
        w->clock.reads = 0;
        rl_rng_seed(&w->rng, 1, i); /* thread i's own stream of keys */
        /* Thread i's clock is off by −skew + 2·skew·i/(T−1): evenly spread
         * over ±skew, so two threads disagree by up to 2·skew. */
        if (p->client_skew_ns && p->threads > 1)
            rl_clock_set_skew(&w->clock,
                              -(int64_t)p->client_skew_ns +
                                  (int64_t)(2 * p->client_skew_ns * i / (p->threads - 1)));
        if (shared->shapes && rl_histogram_init(&w->overshoot) != 0) {
            snprintf(err, err_len, "out of memory for %u threads", p->threads);
            free_workers(workers, p->threads);
            return NULL;
        }
        if (p->history) {
            rl_witness_clock_wrap(&w->clock); /* after the stamp copied the plain reader */
            if (rl_hist_thread_init(&w->hist, &shared->hist_cut, (uint16_t)i,
                                    p->history_capacity) != 0) {
                snprintf(err, err_len, "out of memory for %zu recorded operations a thread",
                         p->history_capacity * shared->hist_cut.windows);
                free_workers(workers, p->threads);
                return NULL;
            }
        }
        if (p->record) {
            w->cap = cap;
            w->events = malloc(cap * sizeof *w->events);
            if (shared->shapes) {
                w->release_ns = malloc(cap * sizeof *w->release_ns);
                w->woke_ns = malloc(cap * sizeof *w->woke_ns);
            }
            if (shared->cancel_share > 0)
                w->cancel_ns = malloc(cap * sizeof *w->cancel_ns);
            if (w->events == NULL ||
                (shared->shapes && (w->release_ns == NULL || w->woke_ns == NULL)) ||
                (shared->cancel_share > 0 && w->cancel_ns == NULL)) {
                snprintf(err, err_len, "out of memory for %zu recorded events a thread", cap);
                free_workers(workers, p->threads);
                return NULL;
            }
        }
    }
    return workers;
}

/* Starts the threads together, lets them run for the duration (or until a
 * signal), stops and joins them. -1 with err when a thread cannot start. */
static int run_workers(const struct rl_stress_params *p, struct stress_shared *shared,
                       struct worker *workers, bool *interrupted, char *err, size_t err_len)
{
    unsigned started = 0;
    for (; started < p->threads; started++) {
        int e = pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]);
        if (e != 0) {
            snprintf(err, err_len, "cannot start thread %u: %s", started, strerror(e));
            break;
        }
        if (p->pin)
            pin_to_cpu(workers[started].thread, started);
    }
    if (started < p->threads) { /* let the started ones run out at once */
        atomic_store_explicit(&shared->stop, true, memory_order_relaxed);
        shared->threads = started;
    }
    atomic_store_explicit(&shared->go, true, memory_order_release);
    /* The run's time starts when the last worker is past the start line,
     * so a worker the scheduler was slow to wake cannot miss a short run. */
    while (atomic_load_explicit(&shared->arrived, memory_order_relaxed) < shared->threads)
        sched_yield();
    if (started == p->threads)
        *interrupted = !wait_for_duration(p->duration_ns);
    /* relaxed: workers need only notice the flag eventually, and join()
     * orders everything they wrote before we read it. */
    atomic_store_explicit(&shared->stop, true, memory_order_relaxed);
    for (unsigned i = 0; i < started; i++)
        pthread_join(workers[i].thread, NULL);
    return started == p->threads ? 0 : -1;
}

/* Sums the workers' counters into out; keyed runs add the container's
 * stats and bytes per live key. */
static void sum_outcome(const struct rl_stress_params *p, const struct stress_shared *shared,
                        const struct worker *workers, uint64_t rss_before,
                        struct rl_stress_outcome *out)
{
    uint64_t first_start = UINT64_MAX, last_end = 0, busy_ns = 0;
    for (unsigned i = 0; i < p->threads; i++) {
        const struct worker *w = &workers[i];
        out->admits += w->decisions[RL_ADMIT];
        out->rejects += w->decisions[RL_REJECT];
        out->errors += w->errors;
        out->clock_reads += w->clock.reads;
        if (w->max_in_flight > out->max_in_flight)
            out->max_in_flight = w->max_in_flight;
        busy_ns += w->end_ns - w->start_ns;
        if (w->start_ns < first_start)
            first_start = w->start_ns;
        if (w->end_ns > last_end)
            last_end = w->end_ns;
    }
    out->attempts = out->admits + out->rejects;
    out->wall_ns = last_end - first_start;
    for (unsigned i = 0; shared->shapes && i < p->threads; i++) {
        rl_histogram_merge(&out->overshoot, &workers[i].overshoot);
        out->cancels += workers[i].cancels;
    }
    out->ns_per_op = out->attempts ? (double)busy_ns / (double)out->attempts : 0;
    out->mops = out->wall_ns ? (double)out->attempts * 1e3 / (double)out->wall_ns : 0;
    if (shared->keyed) {
        rl_keyed_stats(shared->keyed, &out->keyed);
        uint64_t rss_after = rl_rss_bytes();
        if (out->keyed.live_keys && rss_after > rss_before)
            out->bytes_per_key = (double)(rss_after - rss_before) / (double)out->keyed.live_keys;
    }
}

/* Moves each worker's recorded operations, and the opened windows, into
 * the outcome. */
static int hand_back_history(struct worker *workers, const struct rl_stress_params *p,
                             struct stress_shared *shared, struct rl_hist_log *log)
{
    log->threads = calloc(p->threads, sizeof *log->threads);
    if (log->threads == NULL)
        return -1;
    log->count = p->threads;
    log->epoch_ns = shared->epoch_ns;
    for (unsigned i = 0; i < p->threads; i++) {
        log->threads[i] = workers[i].hist;
        workers[i].hist.ops = NULL;
        workers[i].hist.lens = NULL;
    }
    struct rl_hist_cut *cut = &shared->hist_cut;
    while (log->window_count < cut->windows && cut->window[log->window_count].opened)
        log->window_count++;
    log->windows = cut->window;
    cut->window = NULL;
    log->cut_ns = log->window_count ? log->windows[0].cut_ns : 0;
    return 0;
}

/* --history's start states: the limiter's, taken while every thread is
 * parked at a window's opening cut. */
static size_t snapshot_for_history(void *arg, void *buf, size_t cap)
{
    const struct stress_shared *sh = arg;
    return rl_hist_state_snapshot(sh->algo, sh->state, buf, cap);
}

/* One measurement: clock, limiter, workers, run, sums; each step above. */
int rl_stress_run(const struct rl_stress_params *p, struct rl_stress_outcome *out, char *err,
                  size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_clock clock;
    if (p->started_clock)
        clock = *p->started_clock;
    else if (rl_run_clock_start(p->clock, "stress", &clock, err, err_len) != 0)
        return -1;

    struct stress_shared shared = {.algo = p->algo,
                                   .record = p->record,
                                   .hold_ns = p->hold_ns,
                                   .error_admits = p->error_admits,
                                   .shapes = p->algo->shape != NULL,
                                   .without_sleep = p->shape_without_sleep && !p->record,
                                   .cancel_share = p->algo->shape ? p->cancel_share : 0,
                                   .max_wait_ns = p->max_wait_ns};
    if (shared.shapes && p->client_skew_ns) {
        snprintf(err, err_len,
                 "%s is a shaper: its callers sleep until releases on the run's clock, which "
                 "a client skew would move (no --client-skew)",
                 p->algo->name);
        return -1;
    }
    if (p->history && (p->record || shared.shapes || (p->algo->flags & RL_NEEDS_RELEASE) ||
                       p->client_skew_ns || p->history_capacity == 0 || p->threads > 65535)) {
        snprintf(err, err_len,
                 "--history records acquire calls on the true clock, one run at a time: not "
                 "with --record, a shaper, a limiter that needs release or --client-skew");
        return -1;
    }
    unsigned windows = p->history_windows ? p->history_windows : 1;
    if (p->history && windows > 1 && (p->keys > 1 || !rl_hist_can_snapshot(p->algo))) {
        snprintf(err, err_len,
                 "--history-windows %u: a later window starts from the limiter's state, and %s",
                 windows,
                 p->keys > 1 ? "a keyed run's many limiters have none to take"
                             : "this algorithm has neither snapshot nor a one-word state");
        return -1;
    }
    shared.history = p->history;
    if (p->lookahead > RL_STRESS_MAX_LOOKAHEAD ||
        (p->lookahead && (p->keys <= 1 || p->record || p->history || shared.shapes ||
                          (p->algo->flags & RL_NEEDS_RELEASE)))) {
        snprintf(err, err_len,
                 "a look-ahead of %u: at most %u, and only for an unrecorded keyed run (--keys) "
                 "of a limiter that needs no release and does not shape",
                 p->lookahead, RL_STRESS_MAX_LOOKAHEAD);
        return -1;
    }
    shared.lookahead = p->lookahead;
    if (shared.cancel_share > 0 && p->algo->cancel == NULL) {
        snprintf(err, err_len, "%s cannot cancel a reservation (no cancel share)", p->algo->name);
        return -1;
    }
    out->shaped = shared.shapes;
    if (shared.shapes && rl_histogram_init(&out->overshoot) != 0) {
        snprintf(err, err_len, "out of memory for the overshoot histogram");
        return -1;
    }
    atomic_init(&shared.stop, false);
    atomic_init(&shared.go, false);
    atomic_init(&shared.arrived, 0);
    shared.threads = p->threads;
    shared.oversubscribed = p->threads > (unsigned)rl_cpu_count();
    atomic_init(&shared.in_flight, 0);
    uint64_t rss_before = 0;
    if (create_limiter(p, &clock, &shared, &rss_before, err, err_len) != 0)
        return -1;

    int rc = -1;
    struct worker *workers = NULL;
    if (p->history && rl_hist_cut_init(&shared.hist_cut, p->threads, windows, p->duration_ns,
                                       snapshot_for_history, &shared) != 0) {
        snprintf(err, err_len, "out of memory for the history's windows");
        goto done_state;
    }
    workers = make_workers(p, &shared, &clock, err, err_len);
    if (workers == NULL)
        goto done_state;
    if (run_workers(p, &shared, workers, &out->interrupted, err, err_len) != 0)
        goto done_workers;
    sum_outcome(p, &shared, workers, rss_before, out);
    if (p->record && merge_events(workers, p->threads, p->keys, &out->log) != 0) {
        snprintf(err, err_len, "out of memory merging recorded events");
        goto done_workers;
    }
    if (p->history && hand_back_history(workers, p, &shared, &out->history) != 0) {
        snprintf(err, err_len, "out of memory handing back the history");
        goto done_workers;
    }
    rc = 0;

done_workers:
    free_workers(workers, p->threads);
done_state:
    rl_hist_cut_free(&shared.hist_cut);
    destroy_limiter(p, &shared);
    if (rc != 0)
        rl_stress_outcome_free(out);
    return rc;
}

void rl_stress_outcome_free(struct rl_stress_outcome *out)
{
    rl_event_log_free(&out->log);
    rl_histogram_free(&out->overshoot);
    rl_hist_log_free(&out->history);
}
