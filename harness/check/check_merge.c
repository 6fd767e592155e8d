/* check_merge.c — several decision logs checked as one (check_merge.h):
 * each log a source of events in its own time order, a heap of the
 * sources' next events for the k-way merge, and the checkers fed a block
 * at a time: the exact one on the merged stamps, one per log on that log
 * alone, and with a skew two more (plus one for window_excess's upper
 * bound) whose figures bound the true ones from below and above. The
 * merged checkers run on a thread of their own, a block behind the merge.
 *
 * A log found out of time order after some of it was merged cannot be
 * taken back: the merge starts again from the start of every log with
 * that log through the reorder buffer (and, if even that is too little,
 * sorted in memory), as check_file.c reads one log again. */
#include "check_merge.h"

#include "event_reader.h"
#include "event_reorder.h"
#include "harness/io/errmsg.h"
#include "harness/io/key_table.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_EVENTS 8192

/* Merged blocks on their way to the checking thread: while it checks one,
 * the merging thread fills the next (parsing and the logs' own checkers are
 * about half the work, the merged checks the other half). */
#define RING 4

enum source_mode { MODE_DIRECT, MODE_REORDER, MODE_MEMORY };

/* What a step returns: go on, the input is bad, memory ran out, or the
 * source named by the merge's `escalate` needs a stronger mode. */
enum step { STEP_OK = 0, STEP_BAD, STEP_NOMEM, STEP_ESCALATE };

/* One log: its events in time order, a block at a time, with their keys
 * still the log's own ids (map turns them into the merge's). */
struct source {
    const char *path;
    enum source_mode mode;
    struct rl_event_reader reader; /* open all along: it names the log's keys */
    bool reader_open, reader_done;
    struct rl_reorder reorder;  /* MODE_REORDER */
    struct rl_event *raw;       /* MODE_REORDER: lines as read, before the buffer */
    struct rl_event_log sorted; /* MODE_MEMORY: the whole log, sorted */
    size_t sorted_pos;          /* MODE_MEMORY: the next event to hand out */
    struct rl_event *block;     /* events [pos, len) not merged yet */
    size_t len, pos;
    uint64_t last_ns; /* MODE_DIRECT: the newest time handed out, to see disorder */
    bool any;
    uint32_t *map; /* the log's key id → the merge's */
    uint32_t mapped;
    struct rl_checker *own; /* this log alone */
};

struct merge {
    const struct rl_check_params *params;
    bool complete;
    size_t reorder;
    uint64_t skew_ns;
    struct source *src;
    size_t count;
    size_t escalate; /* the source that needs a stronger mode */
    struct rl_key_table keys;
    /* exact: the stamps as written. With a skew, certain: stamps + s with a
     * gap of 2s (checker.h's certain maxima then count only what lies in
     * one window under every shift, and window_excess weighs the cost by t
     * against the allowance at t + s); possible: windows of I + 2s;
     * late: stamps − s (window_excess against the allowance at t − s);
     * narrow: windows of I − 2s (what every shift keeps in one window of
     * I). The gap is 32 bits: past a skew of 2^31 ns the certain aligned
     * maximum is not measured and taken as 0, which is still a lower bound. */
    struct rl_checker *exact, *certain, *possible, *late, *narrow;
    struct rl_event *ring[RING], *shifted;
    size_t ring_len[RING];
    struct rl_event *out; /* the ring slot being filled */
    size_t out_len;
    /* The checking thread takes blocks [consumed, produced) of the ring;
     * under mu. failed: a checker ran out of memory (check_err says so). */
    pthread_t checking;
    bool checking_started;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    uint64_t produced, consumed;
    bool merged_all, failed;
    char check_err[512];
    size_t *heap; /* source indices, earliest next event first */
    size_t heap_len;
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- a source ------------------------------------------------------------- */

/* Gives the log's keys read since the last call their ids in the merge. */
static enum step map_keys(struct merge *mg, struct source *s, char *err, size_t err_len)
{
    uint32_t count = s->reader.keys.count;
    if (count <= s->mapped)
        return STEP_OK;
    uint32_t *map = realloc(s->map, (size_t)count * sizeof *map);
    if (map == NULL)
        goto nomem;
    s->map = map;
    for (uint32_t id = s->mapped; id < count; id++) {
        const char *name = s->reader.keys.names[id];
        size_t len = strlen(name);
        bool too_many = false;
        int64_t global =
            rl_key_table_intern(&mg->keys, name, len, rl_key_hash(name, len), &too_many);
        if (global < 0)
            goto nomem;
        s->map[id] = (uint32_t)global;
    }
    s->mapped = count;
    return STEP_OK;
nomem:
    rl_set_err(err, err_len, "check: cannot hold the keys of %s: %s", s->path, strerror(ENOMEM));
    return STEP_NOMEM;
}

/* MODE_MEMORY: the whole log read and sorted (stably, as rl_check would). */
static enum step read_sorted(struct source *s, char *err, size_t err_len)
{
    for (;;) {
        if (s->sorted.cap - s->sorted.len < BLOCK_EVENTS) {
            size_t cap = s->sorted.cap ? s->sorted.cap * 2 : 4 * BLOCK_EVENTS;
            struct rl_event *events = realloc(s->sorted.events, cap * sizeof *events);
            if (events == NULL) {
                rl_set_err(err, err_len, "check: cannot sort %s in memory: %s", s->path,
                           strerror(ENOMEM));
                return STEP_NOMEM;
            }
            s->sorted.events = events;
            s->sorted.cap = cap;
        }
        long got = rl_event_reader_next(&s->reader, s->sorted.events + s->sorted.len, BLOCK_EVENTS,
                                        err, err_len);
        if (got < 0)
            return STEP_BAD;
        if (got == 0)
            break;
        s->sorted.len += (size_t)got;
    }
    s->reader_done = true;
    rl_event_log_sort(&s->sorted);
    return STEP_OK;
}

static enum step open_source(struct merge *mg, struct source *s, int fields, char *err,
                             size_t err_len)
{
    if (rl_event_reader_open(&s->reader, s->path, err, err_len) != 0)
        return STEP_BAD;
    s->reader_open = true;
    s->reader.drop_truncated_last = true;
    if (fields != 0 && s->reader.fields != fields) {
        rl_set_err(err, err_len,
                   "%s:1: header has %d fields where %s has %d: every log in a merge has the "
                   "same header",
                   s->path, s->reader.fields, mg->src[0].path, fields);
        return STEP_BAD;
    }
    s->block = malloc(BLOCK_EVENTS * sizeof *s->block);
    s->own = rl_checker_new(mg->params, false, err, err_len);
    if (s->block == NULL || s->own == NULL)
        goto nomem;
    if (s->mode == MODE_REORDER && ((s->raw = malloc(BLOCK_EVENTS * sizeof *s->raw)) == NULL ||
                                    rl_reorder_init(&s->reorder, mg->reorder) != 0))
        goto nomem;
    if (s->mode == MODE_MEMORY)
        return read_sorted(s, err, err_len);
    return STEP_OK;
nomem:
    rl_set_err(err, err_len, "check: cannot read %s: %s", s->path, strerror(ENOMEM));
    return STEP_NOMEM;
}

static void close_source(struct source *s)
{
    if (s->reader_open)
        rl_event_reader_close(&s->reader);
    rl_reorder_free(&s->reorder);
    free(s->raw);
    free(s->sorted.events);
    free(s->block);
    free(s->map);
    rl_checker_free(s->own);
    enum source_mode mode = s->mode;
    const char *path = s->path;
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->path = path;
}

/* The next events of a log in time order into its block (len 0 at its
 * end), its keys mapped and its own checker fed. */
static enum step fill(struct merge *mg, struct source *s, char *err, size_t err_len)
{
    s->len = s->pos = 0;
    if (s->mode == MODE_DIRECT && !s->reader_done) {
        long got = rl_event_reader_next(&s->reader, s->block, BLOCK_EVENTS, err, err_len);
        if (got < 0)
            return STEP_BAD;
        s->reader_done = got == 0;
        for (long i = 0; i < got; i++) {
            if (s->any && s->block[i].t_ns < s->last_ns)
                return STEP_ESCALATE;
            s->last_ns = s->block[i].t_ns;
            s->any = true;
        }
        s->len = (size_t)got;
    }
    while (s->mode == MODE_REORDER && s->len == 0) {
        if (s->reader_done) {
            while (s->len < BLOCK_EVENTS && rl_reorder_pop(&s->reorder, &s->block[s->len]))
                s->len++;
            break;
        }
        long got = rl_event_reader_next(&s->reader, s->raw, BLOCK_EVENTS, err, err_len);
        if (got < 0)
            return STEP_BAD;
        s->reader_done = got == 0;
        for (long i = 0; i < got; i++) {
            int given = rl_reorder_push(&s->reorder, &s->raw[i], &s->block[s->len]);
            if (given < 0)
                return STEP_ESCALATE;
            s->len += (size_t)given;
        }
    }
    if (s->mode == MODE_MEMORY) {
        size_t left = s->sorted.len - s->sorted_pos;
        s->len = left < BLOCK_EVENTS ? left : BLOCK_EVENTS;
        memcpy(s->block, s->sorted.events + s->sorted_pos, s->len * sizeof *s->block);
        s->sorted_pos += s->len;
    }
    enum step rc = map_keys(mg, s, err, err_len);
    if (rc == STEP_OK && rl_checker_add(s->own, s->block, s->len, err, err_len) != 0)
        rc = STEP_NOMEM;
    return rc;
}

/* ---- the merge -------------------------------------------------------------- */

/* Source a's next event comes before b's: earlier, or as early and from a
 * log earlier in the list (each log's own order is kept by its block). */
static bool sooner(const struct merge *mg, size_t a, size_t b)
{
    uint64_t ta = mg->src[a].block[mg->src[a].pos].t_ns;
    uint64_t tb = mg->src[b].block[mg->src[b].pos].t_ns;
    return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct merge *mg, size_t i)
{
    size_t *h = mg->heap;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= mg->heap_len)
            return;
        if (child + 1 < mg->heap_len && sooner(mg, h[child + 1], h[child]))
            child++;
        if (!sooner(mg, h[child], h[i]))
            return;
        size_t t = h[i];
        h[i] = h[child];
        h[child] = t;
        i = child;
    }
}

/* A merged block to every merged checker: on the checking thread, which
 * alone touches them (and `shifted`) until it is joined. -1 with err. */
static int check_block(struct merge *mg, const struct rl_event *block, size_t n, char *err,
                       size_t err_len)
{
    if (rl_checker_add(mg->exact, block, n, err, err_len) != 0)
        return -1;
    if (mg->skew_ns == 0)
        return 0;
    if (rl_checker_add(mg->possible, block, n, err, err_len) != 0 ||
        rl_checker_add(mg->narrow, block, n, err, err_len) != 0)
        return -1;
    uint64_t s = mg->skew_ns;
    uint32_t gap = 2 * s > UINT32_MAX ? 0 : (uint32_t)(2 * s);
    for (size_t i = 0; i < n; i++) {
        mg->shifted[i] = block[i];
        mg->shifted[i].t_ns = add_sat(block[i].t_ns, s);
        mg->shifted[i].gap_ns = gap;
    }
    if (rl_checker_add(mg->certain, mg->shifted, n, err, err_len) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        mg->shifted[i] = block[i];
        mg->shifted[i].t_ns = block[i].t_ns > s ? block[i].t_ns - s : 0;
    }
    return rl_checker_add(mg->late, mg->shifted, n, err, err_len);
}

/* The checking thread: every block handed over, in order, until the merge
 * has finished and none is left, or a checker fails. */
static void *check_blocks(void *arg)
{
    struct merge *mg = arg;
    for (;;) {
        pthread_mutex_lock(&mg->mu);
        while (mg->consumed == mg->produced && !mg->merged_all)
            pthread_cond_wait(&mg->changed, &mg->mu);
        bool left = mg->consumed < mg->produced;
        size_t slot = mg->consumed % RING;
        pthread_mutex_unlock(&mg->mu);
        if (!left)
            return NULL;
        char err[sizeof mg->check_err];
        int rc = check_block(mg, mg->ring[slot], mg->ring_len[slot], err, sizeof err);
        pthread_mutex_lock(&mg->mu);
        mg->consumed++;
        if (rc != 0) {
            mg->failed = true;
            memcpy(mg->check_err, err, sizeof err);
        }
        pthread_cond_broadcast(&mg->changed);
        pthread_mutex_unlock(&mg->mu);
        if (rc != 0)
            return NULL;
    }
}

/* Hands the filled block to the checking thread and takes the next free
 * slot, waiting while every slot is still being checked. */
static enum step flush(struct merge *mg, char *err, size_t err_len)
{
    pthread_mutex_lock(&mg->mu);
    mg->ring_len[mg->produced % RING] = mg->out_len;
    mg->produced++;
    pthread_cond_broadcast(&mg->changed);
    while (mg->produced - mg->consumed == RING && !mg->failed)
        pthread_cond_wait(&mg->changed, &mg->mu);
    bool failed = mg->failed;
    pthread_mutex_unlock(&mg->mu);
    mg->out = mg->ring[mg->produced % RING];
    mg->out_len = 0;
    if (failed) {
        rl_set_err(err, err_len, "%s", mg->check_err);
        return STEP_NOMEM;
    }
    return STEP_OK;
}

/* Tells the checking thread the merge is over and waits for it: it checks
 * what is left first. STEP_NOMEM with err when a checker failed. */
static enum step stop_checking(struct merge *mg, char *err, size_t err_len)
{
    if (!mg->checking_started)
        return STEP_OK;
    pthread_mutex_lock(&mg->mu);
    mg->merged_all = true;
    pthread_cond_broadcast(&mg->changed);
    pthread_mutex_unlock(&mg->mu);
    pthread_join(mg->checking, NULL);
    mg->checking_started = false;
    pthread_cond_destroy(&mg->changed);
    pthread_mutex_destroy(&mg->mu);
    if (mg->failed) {
        rl_set_err(err, err_len, "%s", mg->check_err);
        return STEP_NOMEM;
    }
    return STEP_OK;
}

static enum step merge_all(struct merge *mg, char *err, size_t err_len)
{
    for (size_t i = 0; i < mg->count; i++) {
        enum step rc = fill(mg, &mg->src[i], err, err_len);
        if (rc == STEP_ESCALATE)
            mg->escalate = i;
        if (rc != STEP_OK)
            return rc;
        if (mg->src[i].len > 0)
            mg->heap[mg->heap_len++] = i;
    }
    for (size_t i = mg->heap_len; i-- > 0;)
        sift_down(mg, i);
    while (mg->heap_len > 0) {
        size_t top = mg->heap[0];
        struct source *s = &mg->src[top];
        struct rl_event *e = &mg->out[mg->out_len++];
        *e = s->block[s->pos++];
        e->key = s->map[e->key];
        if (mg->out_len == BLOCK_EVENTS) {
            enum step rc = flush(mg, err, err_len);
            if (rc != STEP_OK)
                return rc;
        }
        if (s->pos == s->len) {
            enum step rc = fill(mg, s, err, err_len);
            if (rc == STEP_ESCALATE)
                mg->escalate = top;
            if (rc != STEP_OK)
                return rc;
            if (s->len == 0)
                mg->heap[0] = mg->heap[--mg->heap_len];
        }
        sift_down(mg, 0);
    }
    return mg->out_len > 0 ? flush(mg, err, err_len) : STEP_OK;
}

/* ---- the bounds ------------------------------------------------------------- */

/* certain and possible per key and over all keys, from the checkers' and
 * the logs' own results (check_merge.h; the derivation: docs/commands.md,
 * check --skew). */
static int bound(struct merge *mg, struct rl_merged_check *out, const struct rl_check_result *c,
                 const struct rl_check_result *p, const struct rl_check_result *l,
                 const struct rl_check_result *nw)
{
    const struct rl_check_result *res = &out->result;
    size_t keys = res->key_count ? res->key_count : 1;
    out->certain = malloc(keys * sizeof *out->certain);
    out->possible = malloc(keys * sizeof *out->possible);
    uint32_t *logs_of = calloc(keys, sizeof *logs_of);
    if (out->certain == NULL || out->possible == NULL || logs_of == NULL) {
        free(logs_of);
        return -1;
    }
    for (uint32_t k = 0; k < res->key_count; k++) {
        struct rl_key_metrics *lo = &out->certain[k], *hi = &out->possible[k];
        *lo = *hi = res->per_key[k];
        if (mg->skew_ns == 0)
            continue;
        lo->certain_max_sliding = nw->per_key[k].max_sliding;
        lo->certain_max_aligned =
            2 * mg->skew_ns > UINT32_MAX ? 0 : c->per_key[k].certain_max_aligned;
        lo->window_excess = c->per_key[k].window_excess;
        hi->max_sliding = p->per_key[k].max_sliding;
        hi->max_aligned = p->per_key[k].max_sliding; /* any aligned window lies in one of I + 2s */
        hi->window_excess = l->per_key[k].window_excess;
    }
    /* One log's clock is one clock: its own windows are exact whatever its
     * offset, so what it admitted in one is certain, and a key only one log
     * holds has its exact maximum as its upper bound too. */
    for (size_t j = 0; j < out->log_count; j++) {
        const struct rl_check_result *own = &out->logs[j].result;
        for (uint32_t k = 0; k < own->key_count && k < mg->src[j].mapped; k++) {
            uint32_t g = mg->src[j].map[k];
            out->certain[g].certain_max_sliding =
                max_u64(out->certain[g].certain_max_sliding, own->per_key[k].max_sliding);
            logs_of[g]++;
        }
    }
    out->certain_total = out->possible_total = res->total;
    struct rl_key_metrics *lo = &out->certain_total, *hi = &out->possible_total;
    lo->certain_max_sliding = lo->certain_max_aligned = lo->window_excess = 0;
    hi->max_sliding = hi->max_aligned = hi->window_excess = 0;
    for (uint32_t k = 0; k < res->key_count; k++) {
        if (logs_of[k] == 1)
            out->possible[k].max_sliding = res->per_key[k].max_sliding;
        lo->certain_max_sliding =
            max_u64(lo->certain_max_sliding, out->certain[k].certain_max_sliding);
        lo->certain_max_aligned =
            max_u64(lo->certain_max_aligned, out->certain[k].certain_max_aligned);
        lo->window_excess = max_u64(lo->window_excess, out->certain[k].window_excess);
        hi->max_sliding = max_u64(hi->max_sliding, out->possible[k].max_sliding);
        hi->max_aligned = max_u64(hi->max_aligned, out->possible[k].max_aligned);
        hi->window_excess = max_u64(hi->window_excess, out->possible[k].window_excess);
    }
    free(logs_of);
    return 0;
}

/* ---- one pass ----------------------------------------------------------------- */

static struct rl_checker *skew_checker(const struct merge *mg, uint64_t interval_ns, char *err,
                                       size_t err_len)
{
    struct rl_check_params p = *mg->params;
    p.interval_ns = interval_ns;
    return rl_checker_new(&p, false, err, err_len);
}

static void free_merge(struct merge *mg)
{
    for (size_t i = 0; i < mg->count; i++)
        close_source(&mg->src[i]);
    rl_key_table_free(&mg->keys);
    rl_checker_free(mg->exact);
    rl_checker_free(mg->certain);
    rl_checker_free(mg->possible);
    rl_checker_free(mg->late);
    rl_checker_free(mg->narrow);
    char ignored[8];
    stop_checking(mg, ignored, sizeof ignored); /* a failure is already said */
    for (int i = 0; i < RING; i++) {
        free(mg->ring[i]);
        mg->ring[i] = NULL;
    }
    free(mg->shifted);
    free(mg->heap);
    mg->exact = mg->certain = mg->possible = mg->late = mg->narrow = NULL;
    mg->out = mg->shifted = NULL;
    mg->heap = NULL;
    mg->heap_len = mg->out_len = 0;
    mg->produced = mg->consumed = 0;
    mg->merged_all = mg->failed = false;
}

/* Opens every log in its mode, merges them and reports; the merge is
 * freed whatever happens. */
static enum step merge_once(struct merge *mg, struct rl_merged_check *out, char *err,
                            size_t err_len)
{
    enum step rc = STEP_OK;
    if (rl_key_table_init(&mg->keys) != 0)
        goto nomem;
    for (int i = 0; i < RING; i++)
        if ((mg->ring[i] = malloc(BLOCK_EVENTS * sizeof *mg->ring[i])) == NULL)
            goto nomem;
    mg->out = mg->ring[0];
    mg->shifted = malloc(BLOCK_EVENTS * sizeof *mg->shifted);
    mg->heap = malloc(mg->count * sizeof *mg->heap);
    if (mg->shifted == NULL || mg->heap == NULL)
        goto nomem;
    if ((mg->exact = rl_checker_new(mg->params, mg->complete, err, err_len)) == NULL)
        goto failed;
    uint64_t s = mg->skew_ns, interval = mg->params->interval_ns;
    if (s > 0 &&
        ((mg->certain = skew_checker(mg, interval, err, err_len)) == NULL ||
         (mg->possible = skew_checker(mg, add_sat(interval, 2 * s), err, err_len)) == NULL ||
         (mg->late = skew_checker(mg, interval, err, err_len)) == NULL ||
         (mg->narrow = skew_checker(mg, interval - 2 * s, err, err_len)) == NULL))
        goto failed;
    for (size_t i = 0; i < mg->count && rc == STEP_OK; i++)
        rc = open_source(mg, &mg->src[i], i ? mg->src[0].reader.fields : 0, err, err_len);
    if (rc == STEP_OK) {
        pthread_mutex_init(&mg->mu, NULL);
        pthread_cond_init(&mg->changed, NULL);
        if (pthread_create(&mg->checking, NULL, check_blocks, mg) != 0) {
            pthread_cond_destroy(&mg->changed);
            pthread_mutex_destroy(&mg->mu);
            rl_set_err(err, err_len, "check: cannot start the checking thread");
            goto failed;
        }
        mg->checking_started = true;
        rc = merge_all(mg, err, err_len);
        char check_err[512];
        enum step checked = stop_checking(mg, check_err, sizeof check_err);
        if (rc == STEP_OK && checked != STEP_OK) {
            rl_set_err(err, err_len, "%s", check_err);
            rc = checked;
        }
    }
    if (rc == STEP_ESCALATE)
        for (size_t i = 0; i < mg->count; i++)
            if (!rl_event_reader_rereadable(&mg->src[i].reader)) {
                rl_set_err(err, err_len,
                           "%s: out of time order, and the merge must then read %s again from "
                           "its start, which a pipe cannot: sort the logs first",
                           mg->src[mg->escalate].path, mg->src[i].path);
                rc = STEP_BAD;
            }
    if (rc != STEP_OK) {
        free_merge(mg);
        return rc;
    }
    uint32_t key_count = mg->keys.count;
    struct rl_check_result c = {0}, p = {0}, l = {0}, nw = {0};
    out->logs = calloc(mg->count, sizeof *out->logs);
    out->log_count = mg->count;
    if (out->logs == NULL)
        goto nomem;
    for (size_t j = 0; j < mg->count; j++) {
        struct source *src = &mg->src[j];
        struct rl_merged_log *log = &out->logs[j];
        log->path = src->path;
        log->events = src->reader.events;
        log->dropped_line = src->reader.dropped_line;
        memcpy(log->dropped_why, src->reader.dropped_why, sizeof log->dropped_why);
        log->reordered = src->mode == MODE_REORDER;
        log->in_memory = src->mode == MODE_MEMORY;
        out->events += log->events;
        if (rl_checker_finish(src->own, src->reader.keys.count, &log->result, err, err_len) != 0)
            goto failed;
    }
    if (rl_checker_finish(mg->exact, key_count, &out->result, err, err_len) != 0 ||
        (s > 0 && (rl_checker_finish(mg->certain, key_count, &c, err, err_len) != 0 ||
                   rl_checker_finish(mg->possible, key_count, &p, err, err_len) != 0 ||
                   rl_checker_finish(mg->late, key_count, &l, err, err_len) != 0 ||
                   rl_checker_finish(mg->narrow, key_count, &nw, err, err_len) != 0)))
        rc = STEP_NOMEM;
    if (rc == STEP_OK && bound(mg, out, &c, &p, &l, &nw) != 0) {
        rl_set_err(err, err_len, "check: cannot bound %u keys: %s", key_count, strerror(ENOMEM));
        rc = STEP_NOMEM;
    }
    rl_check_result_free(&c);
    rl_check_result_free(&p);
    rl_check_result_free(&l);
    rl_check_result_free(&nw);
    out->key_names = rl_key_table_take_names(&mg->keys, &out->name_count);
    free_merge(mg);
    return rc;
nomem:
    rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
failed:
    free_merge(mg);
    return STEP_NOMEM;
}

enum rl_check_file_status rl_check_merged(const char *const *paths, size_t count,
                                          const struct rl_check_params *params, bool complete,
                                          size_t reorder, uint64_t skew_ns,
                                          struct rl_merged_check *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->skew_ns = skew_ns;
    if (count == 0 || 2 * skew_ns >= params->interval_ns || skew_ns > params->interval_ns) {
        rl_set_err(err, err_len, "check: a merge needs a log and a skew under half the interval");
        return RL_CHECK_FILE_BAD_INPUT;
    }
    struct merge mg = {
        .params = params, .complete = complete, .reorder = reorder, .skew_ns = skew_ns};
    mg.src = calloc(count, sizeof *mg.src);
    if (mg.src == NULL) {
        rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
        return RL_CHECK_FILE_FAILED;
    }
    mg.count = count;
    for (size_t i = 0; i < count; i++)
        mg.src[i].path = paths[i];
    enum step rc;
    /* each log at most twice stronger: at most 2·count + 1 passes */
    while ((rc = merge_once(&mg, out, err, err_len)) == STEP_ESCALATE &&
           mg.src[mg.escalate].mode != MODE_MEMORY)
        mg.src[mg.escalate].mode++;
    free(mg.src);
    if (rc == STEP_OK)
        return RL_CHECK_FILE_OK;
    return rc == STEP_BAD ? RL_CHECK_FILE_BAD_INPUT : RL_CHECK_FILE_FAILED;
}

void rl_merged_check_free(struct rl_merged_check *m)
{
    rl_check_result_free(&m->result);
    for (uint32_t i = 0; m->key_names && i < m->name_count; i++)
        free(m->key_names[i]);
    free(m->key_names);
    for (size_t j = 0; m->logs && j < m->log_count; j++)
        rl_check_result_free(&m->logs[j].result);
    free(m->logs);
    free(m->certain);
    free(m->possible);
    memset(m, 0, sizeof *m);
}
