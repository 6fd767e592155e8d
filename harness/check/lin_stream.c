/* lin_stream.c — witness mode streamed (lin_stream.h): a block reader, a
 * line parser that hands anything unusual to the full reader, and the
 * per-key replay. */
#include "lin_stream.h"

#include "harness/io/key_table.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK       (1u << 20)
#define MAX_THREADS 4096u /* more thread ids than this: the full reader */

/* The next line (without its end) in *line, *len: 1, 0 at the end, -1 on a
 * read error or no memory. The buffer grows only for a line longer than it. */
static int next_line(struct rl_lin_stream *s, const char **line, size_t *len)
{
    for (;;) {
        char *nl = memchr(s->buf + s->start, '\n', s->end - s->start);
        if (nl || (s->eof && s->end > s->start)) {
            size_t l = (size_t)((nl ? nl : s->buf + s->end) - (s->buf + s->start));
            *line = s->buf + s->start;
            s->start += l + (nl != NULL);
            if (l > 0 && (*line)[l - 1] == '\r')
                l--;
            *len = l;
            return 1;
        }
        if (s->eof)
            return 0;
        if (s->start > 0) {
            memmove(s->buf, s->buf + s->start, s->end - s->start);
            s->end -= s->start;
            s->start = 0;
        }
        if (s->end == s->cap) {
            char *grown = realloc(s->buf, 2 * s->cap);
            if (grown == NULL)
                return -1;
            s->buf = grown;
            s->cap *= 2;
        }
        ssize_t got = read(s->fd, s->buf + s->end, s->cap - s->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        s->end += (size_t)got;
        s->eof = got == 0;
    }
}

int rl_lin_stream_open(struct rl_lin_stream *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (s->fd < 0)
        return 1;
    if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rl_lin_stream_close(s);
        return 1;
    }
    s->cap = BLOCK;
    s->buf = malloc(s->cap);
    if (s->buf == NULL) {
        rl_lin_stream_close(s);
        return -1;
    }
    static const char header[] = "thread,key,cost,call_ns,return_ns,answer,witness_ns";
    const char *line;
    size_t len;
    int got;
    while ((got = next_line(s, &line, &len)) == 1 && len > 0 && line[0] == '#')
        rl_history_read_comment(line, len, &s->head);
    /* a BOM, a header without witnesses, or anything else: the full reader */
    if (got != 1 || len != sizeof header - 1 || memcmp(line, header, len) != 0) {
        rl_lin_stream_close(s);
        return got < 0 ? -1 : 1;
    }
    return 0;
}

/* A decimal u64 from *p up to the next comma (or end, for the last field),
 * *p moved past the comma; false when empty, not digits or over 19 digits
 * (19 never overflow; longer numbers go to the full reader). */
/* Eight ASCII digits at s as a number, when all eight are digits (SWAR:
 * the nanosecond times are most of a history's bytes). */
static inline bool eight_digits(const char *s, uint64_t *out)
{
    uint64_t x;
    memcpy(&x, s, sizeof x);
    /* every byte 0x30..0x39: high nibble 3, and adding 6 does not carry out */
    if ((x & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
        ((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
        return false;
    x -= 0x3030303030303030ull; /* bytes d0 (first, lowest) .. d7 */
    x = x * 10 + (x >> 8);      /* byte 2i: 10·d2i + d2i+1, pairs of digits */
    x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
        32;
    *out = x;
    return true;
}

__attribute__((always_inline)) static inline bool take_u64(const char **p, const char *end,
                                                           bool last, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0, eight;
    size_t n = 0;
    while (end - s >= 8 && n < 16 && eight_digits(s, &eight)) {
        v = v * 100000000u + eight;
        s += 8;
        n += 8;
    }
    for (; s < end && *s != ','; s++, n++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9)
            return false;
        v = v * 10 + d;
    }
    if (n == 0 || n > 19 || (last ? s != end : s == end))
        return false;
    *p = s + !last;
    *out = v;
    return true;
}

/* One parsed operation, handed from the reader to the replay. */
struct parsed_op {
    uint64_t witness, cost;
    uint32_t key_at, key_len; /* the key's bytes in its batch's arena */
    bool admitted;
};

/* The reader's side: the file's lines parsed and checked as the full reader
 * would (fields, each thread's order, keys interned). */
struct reader {
    struct rl_lin_stream *s;
    uint64_t last_call[MAX_THREADS], last_return[MAX_THREADS];
    bool seen[MAX_THREADS];
    uint32_t threads;
};

/* A batch's keys, copied out of the read buffer (which the next read
 * overwrites), for the replay to intern. */
struct arena {
    char *bytes;
    size_t len, cap;
};

/* One line into *op, its key into keys: 0, 1 fall back, -1 no memory. */
static int parse_line(struct reader *r, const char *line, size_t len, struct parsed_op *op,
                      struct arena *keys)
{
    /* one pass over the line: the fields parsed as they are found */
    const char *p = line, *end = line + len;
    uint64_t thread, cost, call, ret, answer, witness;
    if (!take_u64(&p, end, false, &thread) || thread >= MAX_THREADS)
        return 1;
    const char *key = p, *comma = memchr(p, ',', (size_t)(end - p));
    if (comma == NULL)
        return 1;
    size_t key_len = (size_t)(comma - key);
    p = comma + 1;
    if (!take_u64(&p, end, false, &cost) || cost == 0 || !take_u64(&p, end, false, &call) ||
        !take_u64(&p, end, false, &ret) || !take_u64(&p, end, false, &answer) || answer > 1 ||
        !take_u64(&p, end, true, &witness) || ret < call || witness < call || witness > ret)
        return 1;
    /* each thread in call order, one call at a time */
    if (r->seen[thread] && (call < r->last_call[thread] || call < r->last_return[thread]))
        return 1;
    if (!r->seen[thread]) {
        r->seen[thread] = true;
        r->threads++;
    }
    r->last_call[thread] = call;
    r->last_return[thread] = ret;
    if (key_len > UINT32_MAX / 2)
        return 1;
    if (keys->len + key_len > keys->cap) {
        size_t cap = 2 * (keys->cap + key_len);
        char *grown = cap <= UINT32_MAX ? realloc(keys->bytes, cap) : NULL;
        if (grown == NULL)
            return cap <= UINT32_MAX ? -1 : 1;
        keys->bytes = grown;
        keys->cap = cap;
    }
    memcpy(keys->bytes + keys->len, key, key_len);
    *op = (struct parsed_op){.witness = witness,
                             .cost = cost,
                             .key_at = (uint32_t)keys->len,
                             .key_len = (uint32_t)key_len,
                             .admitted = answer == 1};
    keys->len += key_len;
    return 0;
}

/* Parsing is most of the work, so it runs on a thread of its own and hands
 * batches to the replay through a ring of BATCHES (bounded memory). */
#define BATCH   4096
#define BATCHES 8

struct pipeline {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct parsed_op ops[BATCHES][BATCH];
    struct arena keys[BATCHES];
    size_t len[BATCHES];
    uint64_t filled, emptied; /* batches handed over, and taken */
    bool done;                /* the reader stopped: end of file, or reader_rc */
    int reader_rc;            /* 0, 1 fall back, -1 no memory or a read error */
    bool stop;                /* the replay stopped: the reader should too */
    struct reader reader;
};

static void *read_batches(void *arg)
{
    struct pipeline *pl = arg;
    struct reader *r = &pl->reader;
    int rc = 0, got = 1;
    while (rc == 0 && got == 1) {
        pthread_mutex_lock(&pl->lock);
        while (pl->filled - pl->emptied == BATCHES && !pl->stop)
            pthread_cond_wait(&pl->changed, &pl->lock);
        bool stop = pl->stop;
        pthread_mutex_unlock(&pl->lock);
        if (stop)
            break;
        /* the slot is the reader's until it is handed over */
        unsigned slot = (unsigned)(pl->filled % BATCHES);
        size_t n = 0;
        const char *line;
        size_t len;
        pl->keys[slot].len = 0;
        while (n < BATCH && rc == 0 && (got = next_line(r->s, &line, &len)) == 1)
            if (len > 0) {
                rc = parse_line(r, line, len, &pl->ops[slot][n], &pl->keys[slot]);
                n += rc == 0;
            }
        if (got < 0)
            rc = -1;
        pthread_mutex_lock(&pl->lock);
        pl->len[slot] = n;
        pl->filled++;
        pthread_cond_broadcast(&pl->changed);
        pthread_mutex_unlock(&pl->lock);
    }
    pthread_mutex_lock(&pl->lock);
    pl->reader_rc = rc;
    pl->done = true;
    pthread_cond_broadcast(&pl->changed);
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

/* Each key's replay: its sequential limiter and the witness it reached. */
struct key_replay {
    void *state;
    uint64_t at_ns;
};

struct replay {
    struct rl_key_table keys;
    size_t checked_keys; /* ids below this passed rl_key_problem */
    struct key_replay *per_key;
    size_t cap;
};

/* The replay state of key id (new keys get a fresh limiter). NULL on no
 * memory. */
static struct key_replay *key_state(struct replay *r, const struct rl_lin_model *m, uint32_t id)
{
    if (id >= r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        while (cap <= id)
            cap *= 2;
        struct key_replay *grown = realloc(r->per_key, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        memset(grown + r->cap, 0, (cap - r->cap) * sizeof *grown);
        r->per_key = grown;
        r->cap = cap;
    }
    struct key_replay *k = &r->per_key[id];
    if (k->state == NULL && (k->state = m->create(m->ctx, 0)) == NULL)
        return NULL;
    return k;
}

/* The id of a key (interned here, so the two threads share the work). -1
 * no memory, -2 fall back (a key the reader refuses, too many keys). */
static int64_t key_id(struct replay *r, const char *key, size_t len)
{
    bool too_many = false;
    int64_t id = rl_key_table_intern(&r->keys, key, len, rl_key_hash(key, len), &too_many);
    if (id < 0)
        return too_many ? -2 : -1;
    /* a key seen before passed this when it was new */
    if ((uint32_t)id + 1 == r->keys.count && (size_t)id >= r->checked_keys) {
        if (rl_key_problem(key, len) != NULL)
            return -2;
        r->checked_keys = (size_t)id + 1;
    }
    return id;
}

/* One batch replayed: 0 every answer given, 1 fall back, -1 no memory. */
static int replay_batch(struct replay *r, const struct rl_lin_model *m, const struct parsed_op *ops,
                        size_t n, const struct arena *keys)
{
    for (size_t i = 0; i < n; i++) {
        const struct parsed_op *op = &ops[i];
        int64_t id = key_id(r, keys->bytes + op->key_at, op->key_len);
        if (id < 0)
            return id == -1 ? -1 : 1;
        struct key_replay *k = key_state(r, m, (uint32_t)id);
        if (k == NULL)
            return -1;
        if (op->witness < k->at_ns)
            return 1;
        k->at_ns = op->witness;
        if (m->step(m->ctx, k->state, op->witness, (uint32_t)id, op->cost) != op->admitted)
            return 1;
    }
    return 0;
}

/* The replay's loop: takes batches until the reader is done or one fails. */
static int replay_all(struct pipeline *pl, struct replay *r, const struct rl_lin_model *model,
                      uint64_t *ops)
{
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&pl->lock);
        while (pl->filled == pl->emptied && !pl->done)
            pthread_cond_wait(&pl->changed, &pl->lock);
        bool more = pl->filled != pl->emptied;
        pthread_mutex_unlock(&pl->lock);
        if (!more)
            break;
        unsigned slot = (unsigned)(pl->emptied % BATCHES);
        rc = replay_batch(r, model, pl->ops[slot], pl->len[slot], &pl->keys[slot]);
        *ops += pl->len[slot];
        pthread_mutex_lock(&pl->lock);
        pl->emptied++;
        pl->stop = rc != 0;
        pthread_cond_broadcast(&pl->changed);
        pthread_mutex_unlock(&pl->lock);
        if (rc != 0)
            break;
    }
    return rc;
}

int rl_lin_stream_run(struct rl_lin_stream *s, const struct rl_lin_model *model,
                      struct rl_lin_stream_result *out)
{
    memset(out, 0, sizeof *out);
    struct pipeline *pl = calloc(1, sizeof *pl);
    if (pl == NULL)
        return -1;
    pl->reader.s = s;
    struct replay r = {0};
    if (rl_key_table_init(&r.keys) != 0) {
        free(pl);
        return -1;
    }
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->changed, NULL);
    pthread_t reader;
    int rc;
    if (pthread_create(&reader, NULL, read_batches, pl) != 0) {
        rc = 1; /* no thread: the whole-history check, which needs none */
    } else {
        rc = replay_all(pl, &r, model, &out->ops);
        pthread_join(reader, NULL);
        if (rc == 0)
            rc = pl->reader_rc;
    }
    out->keys = r.keys.count;
    out->threads = pl->reader.threads;
    for (size_t i = 0; i < r.cap; i++)
        if (r.per_key[i].state)
            model->destroy(model->ctx, r.per_key[i].state);
    free(r.per_key);
    rl_key_table_free(&r.keys);
    for (unsigned i = 0; i < BATCHES; i++)
        free(pl->keys[i].bytes);
    pthread_cond_destroy(&pl->changed);
    pthread_mutex_destroy(&pl->lock);
    free(pl);
    return rc;
}

void rl_lin_stream_close(struct rl_lin_stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    s->fd = -1;
    s->buf = NULL;
}
