/* check_file.c — the streaming checker on a file (check_file.h): a reader
 * thread fills blocks of parsed events, the calling thread puts them in
 * time order and checks them, and the two meet at a ring of blocks, so
 * parsing and checking run on two cores at once. */
#include "check_file.h"

#include "event_reader.h"
#include "event_reorder.h"
#include "harness/io/errmsg.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* 8192 events (192 KiB) a block, 8 blocks: the reader can run ahead of the
 * checker by a few blocks, and everything in flight stays in the caches. */
#define BLOCK_EVENTS 8192
#define BLOCKS       8

struct pipeline {
    struct rl_event_reader reader;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    struct rl_event *block[BLOCKS];
    long len[BLOCKS];
    uint64_t produced, consumed; /* blocks: block i lives in slot i % BLOCKS */
    bool done;                   /* the reader has finished (end of file or error) */
    bool stop;                   /* the checker wants no more */
    bool failed;
    char err[512];
};

static void *read_blocks(void *arg)
{
    struct pipeline *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->produced - p->consumed == BLOCKS && !p->stop)
            pthread_cond_wait(&p->changed, &p->mu);
        bool stop = p->stop;
        size_t slot = p->produced % BLOCKS;
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

/* The next block the reader filled, or NULL when it has finished (or
 * failed: nothing after a bad line is worth checking). */
static const struct rl_event *next_block(struct pipeline *p, long *len)
{
    pthread_mutex_lock(&p->mu);
    while (p->consumed == p->produced && !p->done)
        pthread_cond_wait(&p->changed, &p->mu);
    const struct rl_event *block = NULL;
    if (p->consumed < p->produced && !p->failed) {
        block = p->block[p->consumed % BLOCKS];
        *len = p->len[p->consumed % BLOCKS];
    }
    pthread_mutex_unlock(&p->mu);
    return block;
}

/* Hands the block back to the reader; stop: and read no more. */
static void release_block(struct pipeline *p, bool stop)
{
    pthread_mutex_lock(&p->mu);
    p->consumed++;
    p->stop |= stop;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
}

/* The checking side: the reorder buffer, and a block of events in time
 * order on their way into the checker. */
struct sorted_feed {
    struct rl_reorder reorder;
    struct rl_checker *checker;
    struct rl_event out[BLOCK_EVENTS];
    size_t out_len;
    size_t peak_bytes;
};

static int flush(struct sorted_feed *f, char *err, size_t err_len)
{
    int rc = rl_checker_add(f->checker, f->out, f->out_len, err, err_len);
    f->out_len = 0;
    size_t bytes = rl_checker_bytes(f->checker);
    f->peak_bytes = bytes > f->peak_bytes ? bytes : f->peak_bytes;
    return rc;
}

/* 0; 1 when an event came further out of order than the buffer allows
 * (its line in *late_line); -1 with err on ENOMEM. */
static int feed_block(struct sorted_feed *f, const struct rl_event *ev, long len,
                      uint64_t *late_line, char *err, size_t err_len)
{
    for (long i = 0; i < len; i++) {
        int got = rl_reorder_push(&f->reorder, &ev[i], &f->out[f->out_len]);
        if (got < 0) {
            *late_line = f->reorder.seq + 2; /* its arrival number; line 1 is the header */
            return 1;
        }
        f->out_len += (size_t)got;
        if (f->out_len == BLOCK_EVENTS && flush(f, err, err_len) != 0)
            return -1;
    }
    return 0;
}

static int feed_rest(struct sorted_feed *f, char *err, size_t err_len)
{
    while (rl_reorder_pop(&f->reorder, &f->out[f->out_len]))
        if (++f->out_len == BLOCK_EVENTS && flush(f, err, err_len) != 0)
            return -1;
    return flush(f, err, err_len);
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

enum rl_check_file_status rl_check_file(const char *path, const struct rl_check_params *params,
                                        bool complete, size_t reorder, struct rl_checked_file *out,
                                        char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    static struct pipeline zero;
    struct pipeline *p = malloc(sizeof *p);
    struct sorted_feed *f = calloc(1, sizeof *f);
    if (p == NULL || f == NULL) {
        free(p);
        free(f);
        rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
        return RL_CHECK_FILE_FAILED;
    }
    *p = zero;
    enum rl_check_file_status status = RL_CHECK_FILE_OK;
    if (rl_event_reader_open(&p->reader, path, err, err_len) != 0) {
        free(p);
        free(f);
        return RL_CHECK_FILE_BAD_INPUT;
    }
    bool blocks = true;
    for (size_t i = 0; i < BLOCKS; i++)
        blocks &= (p->block[i] = malloc(BLOCK_EVENTS * sizeof *p->block[i])) != NULL;
    if (!blocks || (params && rl_reorder_init(&f->reorder, reorder) != 0)) {
        rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
        status = RL_CHECK_FILE_FAILED;
        goto done;
    }
    if (params && (f->checker = rl_checker_new(params, complete, err, err_len)) == NULL) {
        status = RL_CHECK_FILE_FAILED;
        goto done;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->changed, NULL);
    pthread_t reader;
    if (pthread_create(&reader, NULL, read_blocks, p) != 0) {
        rl_set_err(err, err_len, "check: cannot start the reader thread");
        status = RL_CHECK_FILE_FAILED;
        goto threads_done;
    }
    uint64_t late_line = 0;
    int fed = 0;
    const struct rl_event *block;
    long len;
    while ((block = next_block(p, &len)) != NULL) {
        if (params)
            fed = feed_block(f, block, len, &late_line, err, err_len);
        release_block(p, fed != 0);
        if (fed != 0)
            break;
    }
    pthread_join(reader, NULL);
    if (p->failed && fed == 0) {
        memcpy(err, p->err, err_len < sizeof p->err ? err_len : sizeof p->err);
        err[err_len - 1] = '\0';
        status = RL_CHECK_FILE_BAD_INPUT;
    } else if (fed < 0) {
        status = RL_CHECK_FILE_FAILED;
    } else if (fed > 0) {
        snprintf(out->why, sizeof out->why,
                 "%s:%llu: a line earlier than one already checked, more than %zu lines out of "
                 "time order",
                 path, (unsigned long long)late_line, reorder);
        if (!rl_event_reader_rereadable(&p->reader)) {
            rl_set_err(err, err_len,
                       "%s (the reorder depth); a pipe cannot be read twice: sort it "
                       "first, or give a larger depth",
                       out->why);
            status = RL_CHECK_FILE_BAD_INPUT;
        } else {
            rl_event_reader_close(&p->reader);
            status = check_in_memory(path, params, complete, out, err, err_len);
        }
    } else {
        out->events = p->reader.events;
        out->key_names = rl_event_reader_take_names(&p->reader, &out->key_count);
        if (params &&
            (feed_rest(f, err, err_len) != 0 ||
             rl_checker_finish(f->checker, out->key_count, &out->result, err, err_len) != 0))
            status = RL_CHECK_FILE_FAILED;
        out->peak_bytes = f->peak_bytes;
    }
threads_done:
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->mu);
done:
    for (size_t i = 0; i < BLOCKS; i++)
        free(p->block[i]);
    rl_event_reader_close(&p->reader);
    rl_checker_free(f->checker);
    rl_reorder_free(&f->reorder);
    free(p);
    free(f);
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
