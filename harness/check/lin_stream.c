/* lin_stream.c — witness mode streamed (lin_stream.h): a block reader, a
 * line parser that hands anything unusual to the full reader, and the
 * per-key replay.
 *
 * The work is split in two threads of about equal weight: the reader
 * parses the lines (a fast parser for the lines every writer writes, eight
 * bytes at a time as check/event_reader.c parses decision logs, and a
 * field-by-field one for the rest), checks each thread's order and finds
 * each key's id; the replay steps each key's limiter at the witnesses. */
#include "lin_stream.h"

#include "harness/io/key_table.h"
#include "swar_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The read size; the fuzzing build (tests/fuzz/fuzz_lin_stream.c) makes it
 * tiny, so that its small inputs cross block ends and grow the buffer. */
#ifndef LIN_STREAM_BLOCK
#define LIN_STREAM_BLOCK (1u << 20)
#endif
#define BLOCK       LIN_STREAM_BLOCK
#define MAX_THREADS 4096u /* more thread ids than this: the full reader */
/* Bytes kept readable (and zeroed) after the buffer's end: the fast parser
 * loads a field's bytes eight at a time, up to 24 past its start, and a
 * last line without '\n' is given one. */
#define SLACK 64

/* A buffer of cap + SLACK bytes, the new ones zeroed (so the parser's
 * loads past the data never read undefined bytes). */
static char *grow_buffer(char *buf, size_t old_cap, size_t cap)
{
    char *grown = realloc(buf, cap + SLACK);
    if (grown != NULL)
        memset(grown + old_cap, 0, cap + SLACK - old_cap);
    return grown;
}

/* One read after the data, the buffer first doubled when it has less than
 * room bytes free: 0 (s->eof set at the end), or -1 on a read error or no
 * memory. */
static int read_more(struct rl_lin_stream *s, size_t room)
{
    if (s->cap - s->end < room) {
        char *grown = grow_buffer(s->buf, s->cap, 2 * s->cap);
        if (grown == NULL)
            return -1;
        s->buf = grown;
        s->cap *= 2;
    }
    for (;;) {
        ssize_t got = read(s->fd, s->buf + s->end, s->cap - s->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        s->end += (size_t)got;
        s->eof = got == 0;
        return 0;
    }
}

/* The next line (without its end) in *line, *len: 1, 0 at the end, -1 on a
 * read error or no memory. The buffer grows only for a line longer than it.
 * Used for the comment lines and the header. */
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
            s->lines++;
            return 1;
        }
        if (s->eof)
            return 0;
        if (s->start > 0) {
            memmove(s->buf, s->buf + s->start, s->end - s->start);
            s->end -= s->start;
            s->start = 0;
        }
        if (read_more(s, 1) != 0)
            return -1;
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
    s->buf = grow_buffer(NULL, 0, s->cap);
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

/* ---- the fast parser ------------------------------------------------------- */

/* One line's fields, as either parser found them. */
struct fields {
    uint64_t thread, cost, call, ret, witness;
    const char *key;
    size_t key_len;
    uint64_t w0, w1; /* a key of up to 16 bytes, zero-padded */
    bool admitted;
};

/* The line at p as every writer writes it: a thread of 1–19 digits, a key
 * of 1–16 bytes from 0x20 up (no comma, no 0x7F), a cost, call, return
 * (1–19 digits each), 0 or 1, a witness, then '\n' or "\r\n". The buffer
 * holds a '\n' at or after p and SLACK readable bytes after its end, so
 * the loads need no bounds. The next line's start, or NULL for any other
 * line (the field-by-field parser decides it). */
static inline const char *parse_fast(const char *p, struct fields *f)
{
    const char *s = p;
    if (!parse_small(&s, &f->thread) || *s != ',')
        return NULL;
    const char *k = ++s;
    uint64_t a, b;
    unsigned len = scan_short_key(k, &a, &b);
    if (len == 0)
        return NULL;
    s = k + len + 1;
    if (!parse_small(&s, &f->cost) || *s != ',')
        return NULL;
    s++;
    if (!parse_digits(&s, &f->call) || *s != ',')
        return NULL;
    s++;
    if (!parse_digits(&s, &f->ret) || *s != ',')
        return NULL;
    unsigned answer = (unsigned)(unsigned char)s[1] - '0';
    if (answer > 1 || s[2] != ',')
        return NULL;
    s += 3;
    if (!parse_digits(&s, &f->witness))
        return NULL;
    if (*s == '\r')
        s++;
    if (*s != '\n')
        return NULL;
    f->key = k;
    f->key_len = len;
    f->w0 = a;
    f->w1 = b;
    f->admitted = answer == 1;
    return s + 1;
}

/* ---- the field-by-field parser --------------------------------------------- */

/* A decimal u64 from *p up to the next comma (or the end, for the last
 * field), *p moved past the comma; false when empty, not digits or over 19
 * digits (19 never overflow; longer numbers go to the full reader). */
static bool take_u64(const char **p, const char *end, bool last, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t n = 0;
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

/* The line [line, line + len) (its end excluded) split into f; false for
 * a line the stream does not take. */
static bool parse_slow(const char *line, size_t len, struct fields *f)
{
    const char *p = line, *end = line + len;
    uint64_t answer;
    if (!take_u64(&p, end, false, &f->thread))
        return false;
    const char *comma = memchr(p, ',', (size_t)(end - p));
    if (comma == NULL)
        return false;
    f->key = p;
    f->key_len = (size_t)(comma - p);
    p = comma + 1;
    if (!take_u64(&p, end, false, &f->cost) || !take_u64(&p, end, false, &f->call) ||
        !take_u64(&p, end, false, &f->ret) || !take_u64(&p, end, false, &answer) || answer > 1 ||
        !take_u64(&p, end, true, &f->witness))
        return false;
    f->admitted = answer == 1;
    f->w0 = f->w1 = 0;
    if (f->key_len <= 16) /* the key's 16 bytes are in the buffer (slack) */
        key_words(f->key, f->key_len, &f->w0, &f->w1);
    return true;
}

/* ---- the reader ------------------------------------------------------------ */

/* One parsed operation, handed from the reader to the replay, with its key
 * as its bytes: finding keys is the replay's work, which leaves the two
 * threads about equal. */
struct parsed_op {
    uint64_t witness, cost;
    uint64_t w0, w1;  /* a key of up to 16 bytes, zero-padded; a longer one: */
    uint32_t key_len; /* its bytes at w0 in the batch's arena */
    bool admitted;
};

/* A batch's keys longer than 16 bytes, copied out of the read buffer
 * (which the next read overwrites). */
struct arena {
    char *bytes;
    size_t len, cap;
};

/* The reader's side: the file's lines parsed and checked as the full reader
 * would (fields, each thread's order). */
struct reader {
    struct rl_lin_stream *s;
    size_t limit;   /* buf[start, limit): whole lines not parsed yet */
    size_t scanned; /* buf[limit, scanned) is known to hold no '\n' */
    uint64_t last_call[MAX_THREADS], last_return[MAX_THREADS];
    bool seen[MAX_THREADS];
};

/* A parsed line checked as the full reader would, into *op: 0, 1 fall
 * back, -1 no memory. */
static inline int accept(struct reader *r, const struct fields *f, struct parsed_op *op,
                         struct arena *keys)
{
    if (f->thread >= MAX_THREADS || f->cost == 0 || f->ret < f->call || f->witness < f->call ||
        f->witness > f->ret || f->key_len == 0 || f->key_len > UINT32_MAX / 2)
        return 1;
    /* each thread in call order, one call at a time (an unseen thread's
     * last call and return are 0, which no call precedes) */
    uint64_t t = f->thread;
    if (f->call < r->last_call[t] || f->call < r->last_return[t])
        return 1;
    r->seen[t] = true;
    r->last_call[t] = f->call;
    r->last_return[t] = f->ret;
    *op = (struct parsed_op){.witness = f->witness,
                             .cost = f->cost,
                             .w0 = f->w0,
                             .w1 = f->w1,
                             .key_len = (uint32_t)f->key_len,
                             .admitted = f->admitted};
    if (f->key_len > 16) {
        if (keys->len + f->key_len > keys->cap) {
            size_t cap = 2 * (keys->cap + f->key_len);
            char *grown = realloc(keys->bytes, cap);
            if (grown == NULL)
                return -1;
            keys->bytes = grown;
            keys->cap = cap;
        }
        memcpy(keys->bytes + keys->len, f->key, f->key_len);
        op->w0 = keys->len;
        keys->len += f->key_len;
    }
    return 0;
}

/* Reads more after buf[start, end), moving that to the front first and
 * growing the buffer when it is nearly full (a line longer than a block).
 * 0, or -1 on a read error or no memory. */
static int refill(struct reader *r)
{
    struct rl_lin_stream *s = r->s;
    size_t kept = s->end - s->start;
    if (s->start > 0) {
        memmove(s->buf, s->buf + s->start, kept);
        r->scanned = r->scanned > s->start ? r->scanned - s->start : 0;
        r->limit = 0; /* every whole line was parsed: limit was start */
        s->start = 0;
        s->end = kept;
    }
    return read_more(s, BLOCK / 2);
}

/* Whole lines in buf[start, *limit) (past the last '\n'), reading as
 * needed; a last line without '\n' is given one. 1, 0 at the end, -1 on a
 * read error or no memory. */
static int whole_lines(struct reader *r, size_t *limit)
{
    struct rl_lin_stream *s = r->s;
    for (;;) {
        if (s->eof && s->end > s->start && s->buf[s->end - 1] != '\n')
            s->buf[s->end++] = '\n'; /* the slack has room; nothing is read after */
        if (r->limit > s->start) {
            *limit = r->limit;
            return 1;
        }
        size_t from = r->scanned > s->start ? r->scanned : s->start;
        const char *nl = memrchr(s->buf + from, '\n', s->end - from);
        r->scanned = s->end;
        if (nl != NULL) {
            *limit = r->limit = (size_t)(nl - s->buf) + 1;
            return 1;
        }
        if (s->eof)
            return 0;
        if (refill(r) != 0)
            return -1;
    }
}

/* Parsing is half the work, so it runs on a thread of its own and hands
 * batches to the replay through a ring of BATCHES (bounded memory). */
#ifndef LIN_STREAM_BATCH
#define LIN_STREAM_BATCH 4096 /* the fuzzing build: a few, so the ring turns */
#endif
#define BATCH   LIN_STREAM_BATCH
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

/* Up to BATCH operations from the file into ops: their number, with *rc
 * 0, 1 fall back or -1, and *more false at the end of the file. */
static size_t read_batch(struct reader *r, struct parsed_op *ops, struct arena *keys, int *rc,
                         bool *more)
{
    struct rl_lin_stream *s = r->s;
    size_t n = 0, limit;
    *rc = 0;
    keys->len = 0;
    while (n < BATCH) {
        int got = whole_lines(r, &limit);
        if (got <= 0) {
            *rc = got < 0 ? -1 : 0;
            *more = false;
            return n;
        }
        const char *p = s->buf + s->start, *stop = s->buf + limit;
        while (p < stop && n < BATCH) {
            struct fields f;
            const char *next = parse_fast(p, &f);
            s->lines++;
            if (next == NULL) {
                const char *eol = memchr(p, '\n', (size_t)(stop - p));
                size_t len = (size_t)(eol - p);
                if (len > 0 && p[len - 1] == '\r')
                    len--;
                next = eol + 1;
                if (len == 0) { /* a blank line, which the full reader skips */
                    p = next;
                    continue;
                }
                if (!parse_slow(p, len, &f)) {
                    *rc = 1;
                    break;
                }
            }
            p = next;
            if ((*rc = accept(r, &f, &ops[n], keys)) != 0)
                break;
            n++;
        }
        s->start = (size_t)(p - s->buf);
        /* the full reader numbers lines in 32 bits */
        if (*rc == 0 && s->lines >= UINT32_MAX - 1)
            *rc = 1;
        if (*rc != 0) {
            *more = false;
            return n;
        }
    }
    *more = true;
    return n;
}

static void *read_batches(void *arg)
{
    struct pipeline *pl = arg;
    int rc = 0;
    bool more = true;
    while (rc == 0 && more) {
        pthread_mutex_lock(&pl->lock);
        while (pl->filled - pl->emptied == BATCHES && !pl->stop)
            pthread_cond_wait(&pl->changed, &pl->lock);
        bool stop = pl->stop;
        pthread_mutex_unlock(&pl->lock);
        if (stop)
            break;
        /* the slot is the reader's until it is handed over */
        unsigned slot = (unsigned)(pl->filled % BATCHES);
        size_t n = read_batch(&pl->reader, pl->ops[slot], &pl->keys[slot], &rc, &more);
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

/* ---- the replay ------------------------------------------------------------ */

/* Keys of up to 16 bytes (nearly every key) are found in the replay's own
 * table, as two zero-padded words, which also hold the key's replay: no
 * byte loop, no call, one cache line. The key table (key_table.h) hands
 * out the ids and checks each key once, when it is new; longer keys are
 * found there. */
struct key_replay {
    uint64_t w0, w1;
    uint32_t len; /* 0: an empty slot */
    uint32_t id;
    void *state;    /* its sequential limiter */
    uint64_t at_ns; /* the witness it reached */
};

struct replay {
    const struct rl_lin_model *m;
    struct rl_key_table keys;
    size_t checked_keys; /* ids below this passed rl_key_problem */
    struct key_replay *slots;
    unsigned bits;
    size_t used;
    struct key_replay *long_keys; /* by id, for keys over 16 bytes */
    size_t long_cap;
};

/* The id of a key from the key table, which adds it when new (checked
 * then). -1 no memory, -2 fall back (a key the reader refuses, too many). */
static int64_t intern(struct replay *r, const char *key, size_t len)
{
    bool too_many = false;
    int64_t id = rl_key_table_intern(&r->keys, key, len, rl_key_hash(key, len), &too_many);
    if (id < 0)
        return too_many ? -2 : -1;
    if ((uint32_t)id + 1 == r->keys.count && (size_t)id >= r->checked_keys) {
        if (rl_key_problem(key, len) != NULL)
            return -2;
        r->checked_keys = (size_t)id + 1;
    }
    return id;
}

/* Doubles the short-key table. -1 on no memory. */
static int slots_grow(struct replay *r)
{
    unsigned bits = r->bits + 1;
    struct key_replay *slots = calloc((size_t)1 << bits, sizeof *slots);
    if (slots == NULL)
        return -1;
    size_t mask = ((size_t)1 << bits) - 1, old_size = (size_t)1 << r->bits;
    for (size_t i = 0; i < old_size; i++) {
        const struct key_replay *k = &r->slots[i];
        if (k->len == 0)
            continue;
        size_t j = short_key_hash(k->w0, k->w1, k->len) >> (64 - bits);
        while (slots[j].len != 0)
            j = (j + 1) & mask;
        slots[j] = *k;
    }
    free(r->slots);
    r->slots = slots;
    r->bits = bits;
    return 0;
}

/* A key seen the first time: interned, given a limiter and a slot. NULL
 * with *rc -1 no memory or 1 fall back. */
static struct key_replay *new_short_key(struct replay *r, struct key_replay *slot,
                                        const struct parsed_op *op, int *rc)
{
    char bytes[16];
    memcpy(bytes, &op->w0, 8);
    memcpy(bytes + 8, &op->w1, 8);
    int64_t id = intern(r, bytes, op->key_len);
    void *state = id < 0 ? NULL : r->m->create(r->m->ctx, 0);
    if (state == NULL) {
        *rc = id == -2 ? 1 : -1;
        return NULL;
    }
    *slot = (struct key_replay){op->w0, op->w1, op->key_len, (uint32_t)id, state, 0};
    size_t size = (size_t)1 << r->bits;
    if (++r->used * 2 <= size)
        return slot;
    if (slots_grow(r) != 0) {
        *rc = -1;
        return NULL;
    }
    /* the slots moved: find it again */
    size_t mask = ((size_t)1 << r->bits) - 1;
    size_t i = short_key_hash(op->w0, op->w1, op->key_len) >> (64 - r->bits);
    while (r->slots[i].id != (uint32_t)id || r->slots[i].len != op->key_len)
        i = (i + 1) & mask;
    return &r->slots[i];
}

/* A key over 16 bytes, its bytes in the batch's arena. */
static struct key_replay *long_key(struct replay *r, const struct parsed_op *op,
                                   const struct arena *keys, int *rc)
{
    int64_t id = intern(r, keys->bytes + op->w0, op->key_len);
    if (id < 0) {
        *rc = id == -2 ? 1 : -1;
        return NULL;
    }
    if ((size_t)id >= r->long_cap) {
        size_t cap = r->long_cap ? 2 * r->long_cap : 64;
        while (cap <= (size_t)id)
            cap *= 2;
        struct key_replay *grown = realloc(r->long_keys, cap * sizeof *grown);
        if (grown == NULL) {
            *rc = -1;
            return NULL;
        }
        memset(grown + r->long_cap, 0, (cap - r->long_cap) * sizeof *grown);
        r->long_keys = grown;
        r->long_cap = cap;
    }
    struct key_replay *k = &r->long_keys[id];
    if (k->state == NULL) {
        k->id = (uint32_t)id;
        if ((k->state = r->m->create(r->m->ctx, 0)) == NULL) {
            *rc = -1;
            return NULL;
        }
    }
    return k;
}

/* The replay of op's key: NULL with *rc -1 no memory or 1 fall back. */
static inline struct key_replay *find_key(struct replay *r, const struct parsed_op *op,
                                          const struct arena *keys, int *rc)
{
    if (op->key_len > 16)
        return long_key(r, op, keys, rc);
    size_t mask = ((size_t)1 << r->bits) - 1;
    size_t i = short_key_hash(op->w0, op->w1, op->key_len) >> (64 - r->bits);
    struct key_replay *slot = &r->slots[i];
    while (slot->len != 0 &&
           (slot->len != op->key_len || slot->w0 != op->w0 || slot->w1 != op->w1)) {
        i = (i + 1) & mask;
        slot = &r->slots[i];
    }
    return slot->len != 0 ? slot : new_short_key(r, slot, op, rc);
}

/* One batch replayed: 0 every answer given, 1 fall back, -1 no memory. */
static int replay_batch(struct replay *r, const struct parsed_op *ops, size_t n,
                        const struct arena *keys)
{
    const struct rl_lin_model *m = r->m;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const struct parsed_op *op = &ops[i];
        struct key_replay *k = find_key(r, op, keys, &rc);
        if (k == NULL)
            return rc;
        /* each key's witnesses in order: the replay order is theirs */
        if (op->witness < k->at_ns)
            return 1;
        k->at_ns = op->witness;
        if (m->step(m->ctx, k->state, op->witness, k->id, op->cost) != op->admitted)
            return 1;
    }
    return 0;
}

/* The replay's loop: takes batches until the reader is done or one fails. */
static int replay_all(struct pipeline *pl, struct replay *r, uint64_t *ops)
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
        rc = replay_batch(r, pl->ops[slot], pl->len[slot], &pl->keys[slot]);
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
    struct replay r = {.m = model, .bits = 10};
    r.slots = calloc((size_t)1 << r.bits, sizeof *r.slots);
    if (pl == NULL || r.slots == NULL || rl_key_table_init(&r.keys) != 0) {
        free(r.slots);
        free(pl);
        return -1;
    }
    pl->reader.s = s;
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->changed, NULL);
    pthread_t reader;
    int rc;
    if (pthread_create(&reader, NULL, read_batches, pl) != 0) {
        rc = 1; /* no thread: the whole-history check, which needs none */
    } else {
        rc = replay_all(pl, &r, &out->ops);
        pthread_join(reader, NULL);
        if (rc == 0)
            rc = pl->reader_rc;
    }
    out->keys = r.keys.count;
    for (size_t t = 0; t < MAX_THREADS; t++)
        out->threads += pl->reader.seen[t];
    for (size_t i = 0; i < (size_t)1 << r.bits; i++)
        if (r.slots[i].state)
            model->destroy(model->ctx, r.slots[i].state);
    for (size_t i = 0; i < r.long_cap; i++)
        if (r.long_keys[i].state)
            model->destroy(model->ctx, r.long_keys[i].state);
    free(r.slots);
    free(r.long_keys);
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
