/* history_recorder.c — the full-history recorder behind `stress --history`:
 * the witness clock wrapper, the recorded loop with its windows, quiescent
 * cuts and start gate, and the history file writer. */
#include "history_recorder.h"

#include "harness/io/outfile.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The source's reader the wrapper calls (one per process run: a run has one
 * clock), and the calling thread's reads since its operation began. */
static uint64_t (*witness_inner)(struct rl_clock *self);
static _Thread_local uint64_t witness_last_ns;
static _Thread_local uint32_t witness_reads;

static uint64_t witness_read(struct rl_clock *self)
{
    uint64_t now = witness_inner(self);
    witness_last_ns = now;
    witness_reads++;
    return now;
}

void rl_witness_clock_wrap(struct rl_clock *clock)
{
    if (clock->read == witness_read)
        return;
    witness_inner = clock->read;
    clock->read = witness_read;
}

/* A limiter whose own thread changes its state (rl_algo.own_thread) keeps
 * moving with every caller parked, and its snapshot records that mode,
 * which a virtual-time model restored from it would follow without the
 * thread. */
bool rl_hist_can_snapshot(const struct rl_algo *algo)
{
    if (algo->own_thread)
        return false;
    return (algo->snapshot && algo->restore) || algo->one_word_state >= sizeof(uint64_t);
}

size_t rl_hist_state_snapshot(const struct rl_algo *algo, const void *state, void *buf, size_t cap)
{
    if (algo->snapshot && algo->restore)
        return algo->snapshot(state, buf, cap);
    if (algo->one_word_state < sizeof(uint64_t))
        return 0;
    /* the one word changes by one read-modify-write: every thread is parked */
    if (cap >= sizeof(uint64_t))
        memcpy(buf, state, sizeof(uint64_t));
    return sizeof(uint64_t);
}

int rl_hist_cut_init(struct rl_hist_cut *cut, unsigned threads, unsigned windows,
                     uint64_t duration_ns, rl_hist_snapshot_fn snapshot, void *snapshot_arg)
{
    memset(cut, 0, sizeof *cut);
    cut->threads = threads;
    cut->windows = windows ? windows : 1;
    cut->spacing_ns = duration_ns / cut->windows;
    cut->snapshot = snapshot;
    cut->snapshot_arg = snapshot_arg;
    cut->members = calloc(threads ? threads : 1, sizeof *cut->members);
    cut->window = calloc(cut->windows, sizeof *cut->window);
    if (cut->members == NULL || cut->window == NULL) {
        rl_hist_cut_free(cut);
        return -1;
    }
    return 0;
}

void rl_hist_cut_free(struct rl_hist_cut *cut)
{
    for (unsigned w = 0; cut->window && w < cut->windows; w++)
        free(cut->window[w].state);
    free(cut->window);
    free(cut->members);
    memset(cut, 0, sizeof *cut);
}

int rl_hist_thread_init(struct rl_hist_thread *t, struct rl_hist_cut *cut, uint16_t index,
                        size_t cap)
{
    memset(t, 0, sizeof *t);
    t->index = index;
    t->cap = cap;
    size_t n = cap * cut->windows;
    if (cap == 0 || n / cut->windows != cap || n > SIZE_MAX / sizeof *t->ops)
        return -1;
    t->ops = malloc(n * sizeof *t->ops);
    t->lens = calloc(cut->windows, sizeof *t->lens);
    if (t->ops == NULL || t->lens == NULL) {
        rl_hist_thread_free(t);
        return -1;
    }
    /* touched now: a first touch faults (10 to 90 us here, one a 128
     * operations), which would land inside the recorded calls */
    memset(t->ops, 0, n * sizeof *t->ops);
    cut->members[index] = t;
    return 0;
}

void rl_hist_thread_free(struct rl_hist_thread *t)
{
    free(t->ops);
    free(t->lens);
    t->ops = NULL;
    t->lens = NULL;
}

/* A hint to the core that this is a spin-wait loop. */
static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* What the last thread to park does before it lets the others on. */
typedef void (*at_cut_fn)(struct rl_hist_cut *cut, struct rl_stamp_clock *stamp);

/* A quiescent cut: counts this thread parked and waits until every thread
 * is, so nothing before it overlaps anything after it; the last to arrive
 * runs at_cut (when not NULL) meanwhile. false when the run stopped first
 * (the cut may then not hold). */
static bool park_at_cut(struct rl_hist_cut *cut, const _Atomic bool *stop,
                        struct rl_stamp_clock *stamp, at_cut_fn at_cut)
{
    unsigned gen = atomic_load_explicit(&cut->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&cut->parked, 1, memory_order_acq_rel) + 1 == cut->threads) {
        atomic_store_explicit(&cut->parked, 0, memory_order_relaxed);
        if (at_cut)
            at_cut(cut, stamp);
        atomic_store_explicit(&cut->generation, gen + 1, memory_order_release);
        return true;
    }
    /* Spin a while before yielding: a waiter that is on a CPU sees the
     * release within ~100 ns, so the threads' first calls of a window race
     * as they would unrecorded (a yield-only wait woke microseconds after
     * the last thread had started, and the first window's races, e.g.
     * fw_cas_nofirst's, rarely showed). */
    for (unsigned spins = 0; atomic_load_explicit(&cut->generation, memory_order_acquire) == gen;
         spins++) {
        if (atomic_load_explicit(stop, memory_order_relaxed))
            return false;
        if (spins < (1u << 16))
            spin_pause();
        else
            sched_yield();
    }
    return true;
}

/* The opening cut of window cut->current: its start state and time, and
 * every thread's gate reset (all are parked). */
static void open_window(struct rl_hist_cut *cut, struct rl_stamp_clock *stamp)
{
    struct rl_hist_window *w = &cut->window[cut->current];
    if (cut->current > 0 && cut->snapshot) {
        size_t len = cut->snapshot(cut->snapshot_arg, NULL, 0);
        w->state = len ? malloc(len) : NULL;
        if (w->state && cut->snapshot(cut->snapshot_arg, w->state, len) == len)
            w->state_len = len;
        if (w->state_len == 0)
            return; /* no memory: the window stays closed, recorded by none */
    }
    for (unsigned i = 0; i < cut->threads; i++) {
        atomic_store_explicit(&cut->members[i]->at_last, false, memory_order_relaxed);
        atomic_store_explicit(&cut->members[i]->done, false, memory_order_relaxed);
    }
    atomic_store_explicit(&cut->cut_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&cut->cut, false, memory_order_relaxed);
    w->start_ns = rl_stamp_now(stamp);
    w->opened = true;
}

/* The closing cut: how the window ended. */
static void close_window(struct rl_hist_cut *cut, struct rl_stamp_clock *stamp)
{
    (void)stamp;
    cut->window[cut->current].cut_ns = atomic_load_explicit(&cut->cut_ns, memory_order_relaxed);
    cut->current++;
}

/* Ends the window being recorded, at the stamp now. */
static void end_window(struct rl_hist_cut *cut, uint64_t now, bool filled)
{
    uint64_t expected = 0;
    if (atomic_compare_exchange_strong(&cut->cut_ns, &expected, now))
        cut->window[cut->current].filled = filled;
    atomic_store_explicit(&cut->cut, true, memory_order_release);
}

/* A thread's last operation of the window, once decided: its return is
 * stamped only when every other thread has called its own last one (or is
 * out of the window), so that every two threads' last operations overlap. */
static void hold_last_open(const struct rl_hist_thread *t, struct rl_hist_cut *cut,
                           const _Atomic bool *stop)
{
    for (;;) {
        bool open = true;
        for (unsigned i = 0; i < cut->threads && open; i++) {
            const struct rl_hist_thread *o = cut->members[i];
            if (o != t && !atomic_load_explicit(&o->at_last, memory_order_acquire) &&
                !atomic_load_explicit(&o->done, memory_order_acquire))
                open = false;
        }
        if (open || atomic_load_explicit(stop, memory_order_relaxed))
            return;
        sched_yield();
    }
}

/* Window w of thread t: its operations until the window ends. */
static void record_window(struct rl_hist_thread *t, struct rl_hist_cut *cut, unsigned w,
                          const _Atomic bool *stop, struct rl_stamp_clock *stamp,
                          rl_hist_decide_fn decide, void *arg)
{
    struct rl_hist_record *ops = t->ops + (size_t)w * t->cap;
    size_t len = 0;
    uint64_t due =
        w + 1 < cut->windows ? cut->window[0].start_ns + (w + 1) * cut->spacing_ns : UINT64_MAX;
    /* One stamp an operation: its return is the next one's call. The stamp
     * reads the same source in program order (stamp.h), so call ≤ every
     * read the call made ≤ return; the call's span is wider than the call
     * by this loop's own few instructions, which only weakens real-time
     * order between threads by as much (a second read per call would cost
     * more than the limiter). */
    uint64_t call = rl_stamp_now(stamp);
    while (!atomic_load_explicit(stop, memory_order_relaxed) &&
           !atomic_load_explicit(&cut->cut, memory_order_acquire)) {
        bool last = len + 1 == t->cap;
        if (last) /* called: the others may stamp their last returns */
            atomic_store_explicit(&t->at_last, true, memory_order_release);
        uint32_t key = 0;
        witness_reads = 0;
        enum rl_decision d = decide(arg, &key);
        if (last) /* its span only grows: still sound, and it overlaps theirs */
            hold_last_open(t, cut, stop);
        uint64_t ret = rl_stamp_now(stamp);
        ops[len++] = (struct rl_hist_record){.call_ns = call,
                                             .return_ns = ret,
                                             .witness_ns = witness_last_ns,
                                             .key = key,
                                             .thread = t->index,
                                             .admitted = d == RL_ADMIT,
                                             .has_witness = witness_reads > 0};
        call = ret;
        if (last || ret >= due) {
            /* a stop may have cut the hold short: not full then */
            end_window(cut, ret, last && !atomic_load_explicit(stop, memory_order_relaxed));
            break;
        }
    }
    atomic_store_explicit(&t->done, true, memory_order_release);
    t->lens[w] = len;
    t->len += len;
}

/* Decides unrecorded until the stamp reaches until or the run stops. */
static void run_unrecorded(const _Atomic bool *stop, struct rl_stamp_clock *stamp, uint64_t until,
                           rl_hist_decide_fn decide, void *arg)
{
    while (!atomic_load_explicit(stop, memory_order_relaxed) &&
           (until == UINT64_MAX || rl_stamp_now(stamp) < until)) {
        uint32_t key = 0;
        decide(arg, &key);
    }
}

void rl_hist_thread_run(struct rl_hist_thread *t, struct rl_hist_cut *cut, const _Atomic bool *stop,
                        struct rl_stamp_clock *stamp, rl_hist_decide_fn decide, void *arg)
{
    for (unsigned w = 0; w < cut->windows; w++) {
        if (w > 0)
            run_unrecorded(stop, stamp, cut->window[0].start_ns + w * cut->spacing_ns, decide, arg);
        if (!park_at_cut(cut, stop, stamp, open_window) || !cut->window[w].opened)
            break;
        record_window(t, cut, w, stop, stamp, decide, arg);
        if (!park_at_cut(cut, stop, stamp, close_window))
            break;
    }
    run_unrecorded(stop, stamp, UINT64_MAX, decide, arg);
}

size_t rl_hist_log_len(const struct rl_hist_log *log)
{
    size_t n = 0;
    for (unsigned i = 0; i < log->count; i++)
        n += log->threads[i].len;
    return n;
}

size_t rl_hist_log_window_len(const struct rl_hist_log *log, unsigned w, unsigned i)
{
    return w < log->window_count && i < log->count ? log->threads[i].lens[w] : 0;
}

/* When an operation took effect as far as the file's order goes: its
 * witness, else its call. */
static uint64_t order_time(const struct rl_hist_record *r)
{
    return r->has_witness ? r->witness_ns : r->call_ns;
}

/* Thread i's operations of window w. */
static const struct rl_hist_record *window_ops(const struct rl_hist_log *log, unsigned w,
                                               unsigned i)
{
    return log->threads[i].ops + (size_t)w * log->threads[i].cap;
}

/* The threads' operations of window w merged in order_time (each thread's
 * are in that order already), one at a time: next[i] is thread i's next. */
static const struct rl_hist_record *next_in_time(const struct rl_hist_log *log, unsigned w,
                                                 size_t *next)
{
    const struct rl_hist_record *best = NULL;
    unsigned from = 0;
    for (unsigned i = 0; i < log->count; i++) {
        const struct rl_hist_record *ops = window_ops(log, w, i);
        if (next[i] < log->threads[i].lens[w] &&
            (best == NULL || order_time(&ops[next[i]]) < order_time(best))) {
            best = &ops[next[i]];
            from = i;
        }
    }
    if (best)
        next[from]++;
    return best;
}

/* "a/b/…": each thread's operations in window w (-1: over every window). */
static void write_per_thread(FILE *fp, const struct rl_hist_log *log, int w)
{
    for (unsigned i = 0; i < log->count; i++)
        fprintf(fp, "%s%zu", i ? "/" : "",
                w < 0 ? log->threads[i].len : log->threads[i].lens[(unsigned)w]);
}

/* "# window W start_ns=T state=HEX ops_by_thread=a/b ended=…": where a
 * window's operations begin, and the state they start from. */
static void write_window_line(FILE *fp, const struct rl_hist_log *log, unsigned w)
{
    const struct rl_hist_window *win = &log->windows[w];
    /* no call before the start, even were a clock read on another core a
     * little behind the opening stamp: the state holds until the first call */
    uint64_t start = win->start_ns;
    for (unsigned i = 0; i < log->count; i++)
        if (log->threads[i].lens[w] && window_ops(log, w, i)[0].call_ns < start)
            start = window_ops(log, w, i)[0].call_ns;
    fprintf(fp, "# window %u start_ns=%llu", w, (unsigned long long)start);
    if (win->state_len) {
        fputs(" state=", fp);
        for (size_t i = 0; i < win->state_len; i++)
            fprintf(fp, "%02x", win->state[i]);
    }
    fputs(" ops_by_thread=", fp);
    write_per_thread(fp, log, (int)w);
    fprintf(fp, " ended=%s\n", win->filled ? "full" : win->cut_ns ? "time" : "run");
}

int rl_hist_log_write(const struct rl_hist_log *log, const char *algo, const char *path, char *err,
                      size_t err_len)
{
    struct rl_outfile out;
    if (rl_outfile_open(&out, path, err, err_len) != 0)
        return -1;
    fprintf(out.fp, "# ratelab history algo=%s epoch_ns=%llu windows=%u ops_by_thread=", algo,
            (unsigned long long)log->epoch_ns, log->window_count);
    write_per_thread(out.fp, log, -1);
    fputs("\nthread,key,cost,call_ns,return_ns,answer,witness_ns\n", out.fp);
    size_t *next = calloc(log->count ? log->count : 1, sizeof *next);
    if (next == NULL) {
        rl_outfile_abort(&out);
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    for (unsigned w = 0; w < log->window_count; w++) {
        if (log->window_count > 1)
            write_window_line(out.fp, log, w);
        memset(next, 0, (log->count ? log->count : 1) * sizeof *next);
        for (;;) {
            const struct rl_hist_record *r = next_in_time(log, w, next);
            if (r == NULL)
                break;
            rl_outfile_u64(&out, r->thread);
            rl_outfile_bytes(&out, ",", 1);
            rl_outfile_u64(&out, r->key);
            rl_outfile_bytes(&out, ",1,", 3);
            rl_outfile_u64(&out, r->call_ns);
            rl_outfile_bytes(&out, ",", 1);
            rl_outfile_u64(&out, r->return_ns);
            rl_outfile_bytes(&out, r->admitted ? ",1," : ",0,", 3);
            if (r->has_witness)
                rl_outfile_u64(&out, r->witness_ns);
            rl_outfile_bytes(&out, "\n", 1);
        }
    }
    free(next);
    return rl_outfile_commit(&out, err, err_len);
}

int rl_hist_log_window_to_history(const struct rl_hist_log *log, unsigned w, const char *algo,
                                  struct rl_history *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->algo, sizeof h->algo, "%s", algo);
    h->epoch_ns = log->epoch_ns;
    h->has_epoch = true;
    for (unsigned i = 0; w < log->window_count && i < log->count; i++)
        for (size_t j = 0; j < log->threads[i].lens[w]; j++) {
            const struct rl_hist_record *r = &window_ops(log, w, i)[j];
            struct rl_hist_op op = {.call_ns = r->call_ns,
                                    .return_ns = r->return_ns,
                                    .witness_ns = r->witness_ns,
                                    .cost = 1,
                                    .thread = r->thread,
                                    .key = r->key,
                                    .has_witness = r->has_witness,
                                    .admitted = r->admitted};
            if (r->key >= h->key_count)
                h->key_count = r->key + 1;
            if (rl_history_push(h, &op) != 0) {
                rl_history_free(h);
                return -1;
            }
        }
    return 0;
}

int rl_hist_log_to_history(const struct rl_hist_log *log, const char *algo, struct rl_history *h)
{
    return rl_hist_log_window_to_history(log, 0, algo, h);
}

void rl_hist_log_free(struct rl_hist_log *log)
{
    if (log->threads)
        for (unsigned i = 0; i < log->count; i++)
            rl_hist_thread_free(&log->threads[i]);
    free(log->threads);
    for (unsigned w = 0; log->windows && w < log->window_count; w++)
        free(log->windows[w].state);
    free(log->windows);
    memset(log, 0, sizeof *log);
}
