/* check_file.c — the streaming checker on a file (check_file.h): a reader
 * thread fills blocks of parsed events, the calling thread puts them in
 * time order and checks them, and the two meet at a ring of blocks, so
 * parsing and checking run on two cores at once.
 *
 * Blocks that arrive in time order (every log ratelab writes) are checked
 * where they lie: the checking side only holds on to the newest `depth`
 * events, as the reorder buffer would, before it hands a block to the core.
 * At the first block out of order it pours what it holds into the reorder
 * buffer and goes on through it, judged as if every event had come that
 * way. */
#include "check_file.h"

#include "event_reader.h"
#include "event_reorder.h"
#include "harness/io/errmsg.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* 8192 events (192 KiB) a block; the ring holds the blocks kept for the
 * reorder depth and 4 more, so the reader can run ahead of the checker. */
#define BLOCK_EVENTS 8192
#define BLOCKS_AHEAD 4

/* A side that finds nothing to do spins this many times (some tens of
 * microseconds, about a tenth of a block's work) before it sleeps on the
 * condition variable: the other side is usually about to hand something
 * over, and a sleep and a wake cost more than that. */
#define SPINS 2000

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

struct pipeline {
    struct rl_event_reader reader;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    struct rl_event **block;
    long *len;
    size_t blocks; /* in the ring */
    /* Written under mu; read without it too, by a side that spins a
     * little before it sleeps. Block i lives in slot i % blocks. */
    _Atomic uint64_t produced, released;
    _Atomic bool done; /* the reader has finished (end of file or error) */
    _Atomic bool stop; /* the checker wants no more */
    bool failed;
    char err[512];
};

static void *read_blocks(void *arg)
{
    struct pipeline *p = arg;
    for (;;) {
        for (int spin = 0; spin < SPINS && p->produced - p->released == p->blocks && !p->stop;
             spin++)
            spin_pause();
        pthread_mutex_lock(&p->mu);
        while (p->produced - p->released == p->blocks && !p->stop)
            pthread_cond_wait(&p->changed, &p->mu);
        bool stop = p->stop;
        size_t slot = p->produced % p->blocks;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            break;
        char err[sizeof p->err];
        long got = rl_event_reader_next(&p->reader, p->block[slot], BLOCK_EVENTS, err, sizeof err);
        pthread_mutex_lock(&p->mu);
        if (got < 0) {
            p->failed = true;
            memcpy(p->err, err, sizeof err);
        }
        if (got > 0) {
            p->len[slot] = got;
            p->produced++;
        }
        p->done = got <= 0;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->mu);
        if (got <= 0)
            return NULL;
    }
    pthread_mutex_lock(&p->mu);
    p->done = true;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Block number `taken`, once the reader has filled it; NULL when it has
 * finished without (or failed: nothing after a bad line is worth
 * checking). */
static const struct rl_event *wait_block(struct pipeline *p, uint64_t taken, long *len)
{
    for (int spin = 0; spin < SPINS && p->produced == taken && !p->done; spin++)
        spin_pause();
    pthread_mutex_lock(&p->mu);
    while (p->produced == taken && !p->done)
        pthread_cond_wait(&p->changed, &p->mu);
    const struct rl_event *block = NULL;
    if (taken < p->produced && !p->failed) {
        block = p->block[taken % p->blocks];
        *len = p->len[taken % p->blocks];
    }
    pthread_mutex_unlock(&p->mu);
    return block;
}

/* Hands the oldest block back to the reader. */
static void release_block(struct pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    p->released++;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
}

static void stop_reader(struct pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
}

/* The checking side. Blocks from p->released up to `taken` are held: in
 * order, `held` events, not checked yet. */
struct checking {
    struct pipeline *p;
    struct rl_checker *checker;
    struct rl_reorder reorder;
    size_t depth;
    uint64_t taken, held, passed;      /* passed: checked straight from their blocks */
    uint64_t newest_ns;                /* the time of the newest event held */
    uint64_t passed_ns;                /* the time of the last event passed */
    bool in_order;                     /* every event so far came in time order */
    struct rl_event out[BLOCK_EVENTS]; /* the reorder buffer's output, on its way in */
    size_t out_len;
    size_t peak_bytes;
    uint64_t late_line; /* the line the reorder buffer refused */
};

static int check_events(struct checking *c, const struct rl_event *ev, size_t len, char *err,
                        size_t err_len)
{
    int rc = rl_checker_add(c->checker, ev, len, err, err_len);
    size_t bytes = rl_checker_bytes(c->checker);
    c->peak_bytes = bytes > c->peak_bytes ? bytes : c->peak_bytes;
    return rc;
}

/* Through the reorder buffer: 0; 1 when an event came further out of order
 * than it allows (its line in late_line); -1 with err on ENOMEM. */
static int reorder_events(struct checking *c, const struct rl_event *ev, long len, char *err,
                          size_t err_len)
{
    for (long i = 0; i < len; i++) {
        int got = rl_reorder_push(&c->reorder, &ev[i], &c->out[c->out_len]);
        if (got < 0) {
            c->late_line = c->reorder.seq + 2; /* its arrival number; line 1 is the header */
            return 1;
        }
        c->out_len += (size_t)got;
        if (c->out_len == BLOCK_EVENTS) {
            c->out_len = 0;
            if (check_events(c, c->out, BLOCK_EVENTS, err, err_len) != 0)
                return -1;
        }
    }
    return 0;
}

static bool block_in_order(const struct rl_event *ev, long len, bool any, uint64_t newest_ns)
{
    bool in_order = !any || ev[0].t_ns >= newest_ns;
    for (long i = 1; i < len; i++)
        in_order &= ev[i - 1].t_ns <= ev[i].t_ns;
    return in_order;
}

/* One more block from the reader: held if it is in order, else the held
 * blocks and it go through the reorder buffer. 0, 1 (too disordered) or
 * -1, as reorder_events. */
static int take_block(struct checking *c, const struct rl_event *ev, long len, char *err,
                      size_t err_len)
{
    struct pipeline *p = c->p;
    c->taken++;
    if (c->in_order && block_in_order(ev, len, c->taken > 1, c->newest_ns)) {
        c->newest_ns = ev[len - 1].t_ns;
        c->held += (uint64_t)len;
        /* check the oldest blocks while the rest still hold depth events */
        while (p->released < c->taken) {
            long oldest_len = p->len[p->released % p->blocks];
            if (c->held - (uint64_t)oldest_len < c->depth)
                break;
            const struct rl_event *oldest = p->block[p->released % p->blocks];
            if (check_events(c, oldest, (size_t)oldest_len, err, err_len) != 0)
                return -1;
            c->held -= (uint64_t)oldest_len;
            c->passed += (uint64_t)oldest_len;
            c->passed_ns = oldest[oldest_len - 1].t_ns;
            release_block(p);
        }
        return 0;
    }
    if (c->in_order) {
        /* the first block out of order: from here on through the buffer */
        c->in_order = false;
        rl_reorder_passed(&c->reorder, c->passed, c->passed_ns);
        while (p->released + 1 < c->taken) {
            size_t slot = p->released % p->blocks;
            int rc = reorder_events(c, p->block[slot], p->len[slot], err, err_len);
            if (rc != 0)
                return rc;
            release_block(p);
        }
    }
    int rc = reorder_events(c, ev, len, err, err_len);
    if (rc == 0)
        release_block(p);
    return rc;
}

/* The end of the file: what is held, then what the buffer holds. */
static int check_rest(struct checking *c, char *err, size_t err_len)
{
    struct pipeline *p = c->p;
    for (; p->released < c->taken; p->released++) {
        size_t slot = p->released % p->blocks;
        if (check_events(c, p->block[slot], (size_t)p->len[slot], err, err_len) != 0)
            return -1;
    }
    while (rl_reorder_pop(&c->reorder, &c->out[c->out_len]))
        if (++c->out_len == BLOCK_EVENTS) {
            c->out_len = 0;
            if (check_events(c, c->out, BLOCK_EVENTS, err, err_len) != 0)
                return -1;
        }
    return check_events(c, c->out, c->out_len, err, err_len);
}

/* The fallback for a log too disordered for the buffer: read whole, sorted
 * and checked in memory, as before streaming. */
static enum rl_check_file_status check_in_memory(const char *path,
                                                 const struct rl_check_params *params,
                                                 bool complete, struct rl_checked_file *out,
                                                 char *err, size_t err_len)
{
    struct rl_event_log log;
    if (rl_event_log_read_csv(path, &log, err, err_len) != 0)
        return RL_CHECK_FILE_BAD_INPUT;
    log.complete = complete;
    int rc = rl_check(&log, params, &out->result, err, err_len);
    out->events = log.len;
    out->key_names = log.key_names;
    out->key_count = log.key_count;
    log.key_names = NULL;
    log.key_count = 0;
    rl_event_log_free(&log);
    out->in_memory = true;
    return rc == 0 ? RL_CHECK_FILE_OK : RL_CHECK_FILE_FAILED;
}

/* Runs the reader thread and checks what it reads: 0, 1 (too disordered),
 * -1 (err set: out of memory) or -2 (the reader failed: its err in p). */
static int stream(struct pipeline *p, struct checking *c, bool measure, char *err, size_t err_len)
{
    pthread_t reader;
    if (pthread_create(&reader, NULL, read_blocks, p) != 0) {
        rl_set_err(err, err_len, "check: cannot start the reader thread");
        return -1;
    }
    int rc = 0;
    const struct rl_event *block;
    long len;
    while (rc == 0 && (block = wait_block(p, c->taken, &len)) != NULL) {
        if (measure) {
            rc = take_block(c, block, len, err, err_len);
        } else {
            c->taken++;
            release_block(p);
        }
    }
    if (rc != 0)
        stop_reader(p);
    pthread_join(reader, NULL);
    if (rc == 0 && p->failed)
        return -2;
    if (rc == 0 && measure)
        rc = check_rest(c, err, err_len);
    return rc;
}

/* About 80 lines on purpose: the pipeline is set up, run and torn down in one
 * place, so every path that frees a part is seen beside the one that made it. */
enum rl_check_file_status rl_check_file(const char *path, const struct rl_check_params *params,
                                        bool complete, size_t reorder, struct rl_checked_file *out,
                                        char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct pipeline *p = calloc(1, sizeof *p);
    struct checking *c = calloc(1, sizeof *c);
    if (p == NULL || c == NULL) {
        free(p);
        free(c);
        rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
        return RL_CHECK_FILE_FAILED;
    }
    enum rl_check_file_status status = RL_CHECK_FILE_OK;
    if (rl_event_reader_open(&p->reader, path, err, err_len) != 0) {
        free(p);
        free(c);
        return RL_CHECK_FILE_BAD_INPUT;
    }
    c->p = p;
    c->depth = reorder;
    c->in_order = true;
    p->blocks = (reorder + BLOCK_EVENTS - 1) / BLOCK_EVENTS + 1 + BLOCKS_AHEAD;
    p->block = calloc(p->blocks, sizeof *p->block);
    p->len = calloc(p->blocks, sizeof *p->len);
    bool ready = p->block != NULL && p->len != NULL;
    for (size_t i = 0; ready && i < p->blocks; i++)
        ready = (p->block[i] = malloc(BLOCK_EVENTS * sizeof *p->block[i])) != NULL;
    if (!ready || (params && rl_reorder_init(&c->reorder, reorder) != 0)) {
        rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
        status = RL_CHECK_FILE_FAILED;
        goto done;
    }
    if (params && (c->checker = rl_checker_new(params, complete, err, err_len)) == NULL) {
        status = RL_CHECK_FILE_FAILED;
        goto done;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->changed, NULL);
    int rc = stream(p, c, params != NULL, err, err_len);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->mu);
    if (rc == -2) {
        rl_set_err(err, err_len, "%s", p->err);
        status = RL_CHECK_FILE_BAD_INPUT;
    } else if (rc < 0) {
        status = RL_CHECK_FILE_FAILED;
    } else if (rc > 0) {
        snprintf(out->why, sizeof out->why,
                 "%s:%llu: earlier than a line already checked: more out of time order than "
                 "--reorder %zu allows",
                 path, (unsigned long long)c->late_line, reorder);
        if (!rl_event_reader_rereadable(&p->reader)) {
            rl_set_err(err, err_len,
                       "%s, and a pipe cannot be read twice: sort the log first, or raise "
                       "--reorder",
                       out->why);
            status = RL_CHECK_FILE_BAD_INPUT;
        } else {
            rl_event_reader_close(&p->reader);
            status = check_in_memory(path, params, complete, out, err, err_len);
        }
    } else {
        out->events = p->reader.events;
        out->key_names = rl_event_reader_take_names(&p->reader, &out->key_count);
        /* its tables of keys are not needed to report: freed before the
         * report is made, so the two are never held at once */
        rl_event_reader_close(&p->reader);
        if (params &&
            rl_checker_finish(c->checker, out->key_count, &out->result, err, err_len) != 0)
            status = RL_CHECK_FILE_FAILED;
        out->peak_bytes = c->peak_bytes;
    }
done:
    for (size_t i = 0; p->block && i < p->blocks; i++)
        free(p->block[i]);
    free(p->block);
    free(p->len);
    rl_event_reader_close(&p->reader);
    rl_checker_free(c->checker);
    rl_reorder_free(&c->reorder);
    free(p);
    free(c);
    return status;
}

void rl_checked_file_free(struct rl_checked_file *f)
{
    rl_check_result_free(&f->result);
    for (uint32_t i = 0; f->key_names && i < f->key_count; i++)
        free(f->key_names[i]);
    free(f->key_names);
    memset(f, 0, sizeof *f);
}
