/* event_reader.c — the decision-log CSV parser (event_reader.h): large
 * reads into one buffer, a hand-written parser for the lines every writer
 * produces, and the strict field-by-field reading, which words every error,
 * for any line the fast one does not take. */
#include "event_reader.h"

#include "harness/io/errmsg.h"
#include "harness/io/file_bytes.h"
#include "swar_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The writer's header; the reader also takes it without ",thread" (logs
 * from elsewhere, such as tests/conformance's drivers: thread 0). */
#define HEADER          "t_ns,key,n,admitted,thread"
#define HEADER_LEN      (sizeof HEADER - 1)
#define HEADER_4_LEN    (sizeof "t_ns,key,n,admitted" - 1)
#define HEADER_EXPECTED "header must be '" HEADER "' (',thread' optional)"

/* 1 MiB reads: few system calls, and the block just read is still in the
 * cache when it is parsed. */
#define READ_BLOCK ((size_t)1 << 20)

/* Keys are found a batch of lines at a time: each key's slot is prefetched
 * when its line is parsed, so with many keys the cache misses of a batch
 * overlap instead of following one another. */
#define BATCH 16

/* Bytes kept readable after the buffer's end: a key's words are loaded 16
 * bytes at a time, and a last line without '\n' is given one. */
#define SLACK 64

/* ---- the strict reading of one line ---------------------------------------- */

/* Parses [s, e) as a decimal unsigned integer no larger than max: digits
 * only, no sign, no spaces. */
static bool parse_uint(const char *s, const char *e, uint64_t max, uint64_t *out)
{
    if (s == e)
        return false;
    uint64_t v = 0;
    for (; s < e; s++) {
        unsigned d = (unsigned)(unsigned char)*s - '0';
        if (d > 9 || v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* Error for a field: "PATH:LINE: what, not 'text'", the text cut short
 * (rl_quote_field) so a runaway line cannot flood the message. */
static void field_err(char *err, size_t err_len, const char *path, size_t line, const char *what,
                      const char *s, const char *e)
{
    char shown[RL_QUOTE_LEN];
    rl_set_err(err, err_len, "%s:%zu: %s, not '%s'", path, line, what,
               rl_quote_field(shown, sizeof shown, s, (size_t)(e - s)));
}

/* The line [p, le) (its line end and any '\r' before it excluded) read
 * field by field, every error worded; on success the event (key not yet
 * interned) and the key's bytes. */
static int parse_line_strict(const struct rl_event_reader *r, const char *p, const char *le,
                             struct rl_event *ev, const char **key, size_t *key_len, char *err,
                             size_t err_len)
{
    const char *names = r->fields == 5 ? HEADER : "t_ns,key,n,admitted";
    const char *path = r->path;
    size_t line = r->line;
    const char *start[5], *stop[5]; /* field k is [start[k], stop[k]) */
    int commas = 0;
    start[0] = p;
    for (const char *c = p; c < le; c++)
        if (*c == ',') {
            if (commas < 4) {
                stop[commas] = c;
                start[commas + 1] = c + 1;
            }
            commas++;
        }
    if (le == p) {
        rl_set_err(err, err_len, "%s:%zu: empty line (each line is %s)", path, line, names);
        return -1;
    }
    if (commas != r->fields - 1) {
        rl_set_err(err, err_len, "%s:%zu: expected %d fields %s, found %d", path, line, r->fields,
                   names, commas + 1);
        return -1;
    }
    stop[r->fields - 1] = le;
    uint64_t v;
    if (!parse_uint(start[0], stop[0], UINT64_MAX, &v)) {
        field_err(err, err_len, path, line, "t_ns must be an integer from 0 to 2^64-1", start[0],
                  stop[0]);
        return -1;
    }
    ev->t_ns = v;
    *key = start[1];
    *key_len = (size_t)(stop[1] - start[1]);
    const char *problem = rl_key_problem(*key, *key_len);
    if (problem != NULL) {
        rl_set_err(err, err_len,
                   "%s:%zu: key %s (a key is non-empty text without commas or control bytes)", path,
                   line, problem);
        return -1;
    }
    if (!parse_uint(start[2], stop[2], UINT32_MAX, &v) || v == 0) {
        field_err(err, err_len, path, line, "n must be an integer from 1 to 4294967295", start[2],
                  stop[2]);
        return -1;
    }
    ev->n = (uint32_t)v;
    if (stop[3] - start[3] != 1 || (start[3][0] != '0' && start[3][0] != '1')) {
        field_err(err, err_len, path, line, "admitted must be 0 or 1", start[3], stop[3]);
        return -1;
    }
    ev->admitted = (uint8_t)(start[3][0] - '0');
    v = 0; /* no thread column: thread 0 */
    if (r->fields == 5 && !parse_uint(start[4], stop[4], UINT16_MAX, &v)) {
        field_err(err, err_len, path, line, "thread must be an integer from 0 to 65535", start[4],
                  stop[4]);
        return -1;
    }
    ev->thread = (uint16_t)v;
    return 0;
}

/* ---- the fast reading ------------------------------------------------------ */

/* A line as every writer writes it: 1–19 digits, a key of up to 16 bytes
 * from 0x20 up (no comma, no 0x7F), 1–10 digits from 1 to 2^32 − 1, 0 or
 * 1, then (five fields) 1–5 digits up to 65535, and '\n' or "\r\n". The
 * buffer holds a '\n' at or after p and readable slack after its end, so
 * the eight-byte loads need no bounds. Returns the next line's start, with
 * the key's bytes and, zero-padded, its two words; or NULL for any other
 * line: the strict reading then decides (it accepts every line accepted
 * here, with the same values). */
static inline const char *parse_line_fast(const char *p, int fields, struct rl_event *ev,
                                          const char **key, size_t *key_len, uint64_t *w0,
                                          uint64_t *w1)
{
    const char *s = p;
    uint64_t t, n, thread = 0;
    if (!parse_digits(&s, &t) || *s != ',')
        return NULL;
    const char *k = ++s;
    uint64_t a, b;
    unsigned len = scan_short_key(k, &a, &b);
    if (len == 0)
        return NULL; /* empty, over 16 bytes, or a byte the strict reading judges */
    s = k + len + 1;
    const char *ns = s;
    if (!parse_small(&s, &n) || s - ns > 10 || n == 0 || n > UINT32_MAX || *s != ',')
        return NULL;
    unsigned admitted = (unsigned)(unsigned char)s[1] - '0';
    if (admitted > 1)
        return NULL;
    s += 2;
    if (fields == 5) {
        if (*s != ',')
            return NULL;
        const char *ts = ++s;
        if (!parse_small(&s, &thread) || s - ts > 5 || thread > UINT16_MAX)
            return NULL;
    }
    if (*s == '\r')
        s++;
    if (*s != '\n')
        return NULL;
    ev->t_ns = t;
    ev->n = (uint32_t)n;
    ev->admitted = (uint8_t)admitted;
    ev->thread = (uint16_t)thread;
    ev->gap_ns = 0;
    *key = k;
    *key_len = len;
    *w0 = a;
    *w1 = b;
    return s + 1;
}

/* ---- keys ------------------------------------------------------------------ */

/* Keys of up to 16 bytes (nearly every key) are found in the reader's own
 * table: the key as two zero-padded words, compared in two instructions,
 * and a multiplicative hash of them, with no byte loop and no call. The
 * key table (key_table.h) still hands out the ids and keeps the names; it
 * is asked only for a key seen the first time, and for longer keys. */
struct short_key {
    uint64_t w0, w1;
    uint32_t len; /* 0: empty */
    uint32_t id;
    uint64_t spare;
};

_Static_assert(sizeof(struct short_key) == 32, "two short keys a cache line");

#define SHORT_KEY_MAX 16

static int short_keys_init(struct rl_event_reader *r, unsigned bits)
{
    struct short_key *slots = calloc((size_t)1 << bits, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(r->short_keys);
    r->short_keys = slots;
    r->short_bits = bits;
    return 0;
}

/* Doubles the table when it is half full. -1 on ENOMEM. */
static int short_keys_grow(struct rl_event_reader *r)
{
    struct short_key *old = r->short_keys;
    size_t old_size = (size_t)1 << r->short_bits;
    r->short_keys = NULL;
    if (short_keys_init(r, r->short_bits + 1) != 0) {
        r->short_keys = old;
        return -1;
    }
    size_t mask = ((size_t)1 << r->short_bits) - 1;
    for (size_t i = 0; i < old_size; i++) {
        if (old[i].len == 0)
            continue;
        size_t j = short_key_hash(old[i].w0, old[i].w1, old[i].len) >> (64 - r->short_bits);
        while (r->short_keys[j].len != 0)
            j = (j + 1) & mask;
        r->short_keys[j] = old[i];
    }
    free(old);
    return 0;
}

/* ---- the buffer ------------------------------------------------------------ */

/* Reads more after buf[start, end), moving that to the front first and
 * growing the buffer when it is full (a line longer than it). 0, or -1 with
 * err. Sets eof at the end of the input. */
static int refill(struct rl_event_reader *r, char *err, size_t err_len)
{
    size_t kept = r->end - r->start;
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, kept);
        r->scanned -= r->scanned > r->start ? r->start : r->scanned;
        r->start = 0;
        r->end = kept;
    }
    if (r->cap - r->end < READ_BLOCK / 2) {
        size_t cap = r->cap * 2;
        char *grown = cap > r->cap ? realloc(r->buf, cap + SLACK) : NULL;
        if (grown == NULL) {
            rl_set_err(err, err_len, "%s:%zu: a line too long to hold: %s", r->path, r->line,
                       strerror(ENOMEM));
            return -1;
        }
        r->buf = grown;
        r->cap = cap;
    }
    for (;;) {
        ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rl_set_err(err, err_len, "%s: cannot read: %s", r->path, strerror(errno));
            return -1;
        }
        if (got == 0)
            r->eof = true;
        r->end += (size_t)got;
        return 0;
    }
}

/* The end of the last whole line in buf[start, end): past its '\n'. At
 * the end of the input a last line without one is given one (the buffer
 * has a byte to spare), so every line the parser sees ends in '\n'. start
 * when no line is whole yet. Only the bytes read since the last search are
 * searched: buf[start, scanned) is known to hold no '\n', so a line longer
 * than one read (a pipe hands over 64 KiB at a time) costs time linear in
 * its length, not in its length squared. */
static size_t whole_lines_end(struct rl_event_reader *r)
{
    if (r->eof && r->end > r->start && r->buf[r->end - 1] != '\n') {
        r->buf[r->end++] = '\n';
        r->added_newline = true;
    }
    size_t from = r->scanned > r->start ? r->scanned : r->start;
    const char *nl = memrchr(r->buf + from, '\n', r->end - from);
    r->searched += r->end - from;
    if (nl == NULL) {
        r->scanned = r->end;
        return r->start;
    }
    return (size_t)(nl - r->buf) + 1;
}

int rl_event_reader_open(struct rl_event_reader *r, const char *path, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->line = 1;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        rl_set_err(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(r->fd, &st) != 0) {
        rl_set_err(err, err_len, "%s: cannot stat: %s", path, strerror(errno));
        close(r->fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        rl_set_err(err, err_len, "%s: cannot read: %s", path, strerror(EISDIR));
        close(r->fd);
        return -1;
    }
    posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a hint: failure is harmless */
    r->cap = READ_BLOCK;
    r->buf = malloc(r->cap + SLACK);
    if (r->buf == NULL || rl_key_table_init(&r->keys) != 0 || short_keys_init(r, 12) != 0) {
        rl_set_err(err, err_len, "%s: %s", path, strerror(ENOMEM));
        free(r->buf);
        close(r->fd);
        return -1;
    }
    /* The header: the first line, or as much of it as the first block holds
     * (a longer one is wrong anyway, and its start says so). */
    while (!r->eof && r->end < READ_BLOCK && memchr(r->buf, '\n', r->end) == NULL)
        if (refill(r, err, err_len) != 0)
            goto fail;
    const char *p = rl_file_bytes_skip_bom(r->buf, r->end), *end = r->buf + r->end;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
    size_t header_len = (size_t)(le - p);
    if ((header_len != HEADER_LEN && header_len != HEADER_4_LEN) ||
        memcmp(p, HEADER, header_len) != 0) {
        if (p == end)
            rl_set_err(err, err_len, "%s:1: " HEADER_EXPECTED ", but the file is empty", path);
        else
            field_err(err, err_len, path, 1, HEADER_EXPECTED, p, le);
        goto fail;
    }
    r->fields = header_len == HEADER_LEN ? 5 : 4;
    r->start = (size_t)((nl ? nl + 1 : end) - r->buf);
    r->line = 2;
    return 0;
fail:
    rl_event_reader_close(r);
    return -1;
}

/* A parsed line whose key is not found yet. */
struct pending_key {
    const char *key;
    size_t len;
    uint64_t w0, w1, hash; /* a short key's words and hash */
};

/* The id of a key from the key table (which adds it if new). -1 with err. */
static int64_t intern_long(struct rl_event_reader *r, const char *key, size_t len, size_t line,
                           char *err, size_t err_len)
{
    bool too_many = false;
    int64_t id = rl_key_table_intern(&r->keys, key, len, rl_key_hash(key, len), &too_many);
    if (id < 0)
        rl_set_err(err, err_len, "%s:%zu: cannot intern key: %s", r->path, line,
                   too_many ? "more than 2^31 distinct keys, or a key over 4 GB"
                            : strerror(ENOMEM));
    return id;
}

/* Finds the batch's keys, interning the new ones, into events[0, count);
 * 0, or -1 with err. */
static int find_keys(struct rl_event_reader *r, struct rl_event *events,
                     const struct pending_key *batch, size_t count, size_t first_line, char *err,
                     size_t err_len)
{
    for (size_t j = 0; j < count; j++) {
        const struct pending_key *pk = &batch[j];
        if (pk->len > SHORT_KEY_MAX) {
            int64_t id = intern_long(r, pk->key, pk->len, first_line + j, err, err_len);
            if (id < 0)
                return -1;
            events[j].key = (uint32_t)id;
            continue;
        }
        size_t mask = ((size_t)1 << r->short_bits) - 1;
        size_t i = pk->hash >> (64 - r->short_bits);
        struct short_key *slot = &r->short_keys[i];
        while (slot->len != 0 &&
               (slot->len != pk->len || slot->w0 != pk->w0 || slot->w1 != pk->w1)) {
            i = (i + 1) & mask;
            slot = &r->short_keys[i];
        }
        if (slot->len == 0) {
            int64_t id = intern_long(r, pk->key, pk->len, first_line + j, err, err_len);
            if (id < 0)
                return -1;
            *slot = (struct short_key){pk->w0, pk->w1, (uint32_t)pk->len, (uint32_t)id, 0};
            events[j].key = (uint32_t)id;
            /* growing moves every slot: slot is not to be read after it */
            if (++r->short_count * 2 > mask + 1 && short_keys_grow(r) != 0) {
                rl_set_err(err, err_len, "%s:%zu: %s", r->path, first_line + j, strerror(ENOMEM));
                return -1;
            }
            continue;
        }
        events[j].key = slot->id;
    }
    return 0;
}

long rl_event_reader_next(struct rl_event_reader *r, struct rl_event *events, size_t cap, char *err,
                          size_t err_len)
{
    size_t got = 0;
    struct pending_key batch[BATCH];
    while (got < cap) {
        size_t limit = whole_lines_end(r);
        if (limit == r->start) {
            if (r->eof)
                break;
            if (refill(r, err, err_len) != 0)
                return -1;
            continue;
        }
        const char *p = r->buf + r->start, *stop = r->buf + limit;
        while (p < stop && got < cap) {
            size_t batched = 0, first_line = r->line;
            struct rl_event *first = events + got;
            for (; batched < BATCH && p < stop && got < cap; batched++, got++, r->line++) {
                struct pending_key *pk = &batch[batched];
                struct rl_event *ev = &events[got];
                const char *next =
                    parse_line_fast(p, r->fields, ev, &pk->key, &pk->len, &pk->w0, &pk->w1);
                if (next == NULL) {
                    const char *eol = memchr(p, '\n', (size_t)(stop - p));
                    const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
                    *ev = (struct rl_event){0};
                    if (parse_line_strict(r, p, le, ev, &pk->key, &pk->len, err, err_len) != 0) {
                        if (!(r->drop_truncated_last && r->added_newline &&
                              eol == r->buf + r->end - 1))
                            return -1;
                        /* the unterminated last line: dropped, and the file ends here */
                        r->dropped_line = r->line;
                        rl_set_err(r->dropped_why, sizeof r->dropped_why, "%s", err);
                        p = stop;
                        break;
                    }
                    if (pk->len <= SHORT_KEY_MAX)
                        key_words(pk->key, pk->len, &pk->w0, &pk->w1);
                    next = eol + 1;
                }
                if (pk->len <= SHORT_KEY_MAX) {
                    pk->hash = short_key_hash(pk->w0, pk->w1, pk->len);
                    __builtin_prefetch(&r->short_keys[pk->hash >> (64 - r->short_bits)]);
                }
                p = next;
            }
            if (find_keys(r, first, batch, batched, first_line, err, err_len) != 0)
                return -1;
        }
        r->start = (size_t)(p - r->buf);
    }
    r->events += got;
    return (long)got;
}

bool rl_event_reader_rereadable(const struct rl_event_reader *r)
{
    struct stat st;
    return fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode);
}

char **rl_event_reader_take_names(struct rl_event_reader *r, uint32_t *count)
{
    return rl_key_table_take_names(&r->keys, count);
}

void rl_event_reader_close(struct rl_event_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
    free(r->short_keys);
    rl_key_table_free(&r->keys);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}
