/* history_recorder.c — the full-history recorder behind `stress --history`:
 * the witness clock wrapper, the recorded loop with its quiescent cut, and
 * the history file writer. */
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

/* Out of the window: count this thread parked, wait until every thread is
 * (or the run stops), so no unrecorded call begins before every recorded
 * one returned. */
static void park_at_cut(struct rl_hist_cut *cut, const _Atomic bool *stop)
{
    atomic_fetch_add_explicit(&cut->parked, 1, memory_order_acq_rel);
    while (atomic_load_explicit(&cut->parked, memory_order_acquire) < cut->threads &&
           !atomic_load_explicit(stop, memory_order_relaxed))
        sched_yield();
}

void rl_hist_thread_run(struct rl_hist_thread *t, struct rl_hist_cut *cut, const _Atomic bool *stop,
                        struct rl_stamp_clock *stamp, rl_hist_decide_fn decide, void *arg)
{
    /* One stamp an operation: its return is the next one's call. The stamp
     * reads the same source in program order (stamp.h), so call ≤ every
     * read the call made ≤ return; the call's span is wider than the call
     * by this loop's own few instructions, which only weakens real-time
     * order between threads by as much (a second read per call would cost
     * more than the limiter). */
    uint64_t call = rl_stamp_now(stamp);
    while (!atomic_load_explicit(stop, memory_order_relaxed) &&
           !atomic_load_explicit(&cut->cut, memory_order_acquire)) {
        uint32_t key = 0;
        witness_reads = 0;
        enum rl_decision d = decide(arg, &key);
        uint64_t ret = rl_stamp_now(stamp);
        t->ops[t->len++] = (struct rl_hist_record){.call_ns = call,
                                                   .return_ns = ret,
                                                   .witness_ns = witness_last_ns,
                                                   .key = key,
                                                   .thread = t->index,
                                                   .admitted = d == RL_ADMIT,
                                                   .has_witness = witness_reads > 0};
        call = ret;
        if (t->len == t->cap) {
            uint64_t expected = 0;
            atomic_compare_exchange_strong(&cut->cut_ns, &expected, ret);
            atomic_store_explicit(&cut->cut, true, memory_order_release);
        }
    }
    park_at_cut(cut, stop);
    while (!atomic_load_explicit(stop, memory_order_relaxed)) {
        uint32_t key = 0;
        decide(arg, &key);
    }
}

size_t rl_hist_log_len(const struct rl_hist_log *log)
{
    size_t n = 0;
    for (unsigned i = 0; i < log->count; i++)
        n += log->threads[i].len;
    return n;
}

/* When an operation took effect as far as the file's order goes: its
 * witness, else its call. */
static uint64_t order_time(const struct rl_hist_record *r)
{
    return r->has_witness ? r->witness_ns : r->call_ns;
}

/* The threads' operations merged in order_time (each thread's are in that
 * order already), one at a time: next[i] is thread i's next. */
static const struct rl_hist_record *next_in_time(const struct rl_hist_log *log, size_t *next)
{
    const struct rl_hist_record *best = NULL;
    unsigned from = 0;
    for (unsigned i = 0; i < log->count; i++) {
        const struct rl_hist_thread *t = &log->threads[i];
        if (next[i] < t->len && (best == NULL || order_time(&t->ops[next[i]]) < order_time(best))) {
            best = &t->ops[next[i]];
            from = i;
        }
    }
    if (best)
        next[from]++;
    return best;
}

int rl_hist_log_write(const struct rl_hist_log *log, const char *algo, const char *path, char *err,
                      size_t err_len)
{
    struct rl_outfile out;
    if (rl_outfile_open(&out, path, err, err_len) != 0)
        return -1;
    fprintf(out.fp, "# ratelab history algo=%s epoch_ns=%llu\n", algo,
            (unsigned long long)log->epoch_ns);
    fputs("thread,key,cost,call_ns,return_ns,answer,witness_ns\n", out.fp);
    size_t *next = calloc(log->count ? log->count : 1, sizeof *next);
    if (next == NULL) {
        rl_outfile_abort(&out);
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    for (;;) {
        const struct rl_hist_record *r = next_in_time(log, next);
        if (r == NULL)
            break;
        {
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

int rl_hist_log_to_history(const struct rl_hist_log *log, const char *algo, struct rl_history *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->algo, sizeof h->algo, "%s", algo);
    h->epoch_ns = log->epoch_ns;
    h->has_epoch = true;
    for (unsigned i = 0; i < log->count; i++)
        for (size_t j = 0; j < log->threads[i].len; j++) {
            const struct rl_hist_record *r = &log->threads[i].ops[j];
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

void rl_hist_log_free(struct rl_hist_log *log)
{
    if (log->threads)
        for (unsigned i = 0; i < log->count; i++)
            free(log->threads[i].ops);
    free(log->threads);
    memset(log, 0, sizeof *log);
}
