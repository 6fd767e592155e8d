/* event_reader.c — the decision-log CSV parser (event_reader.h): large
 * reads into one buffer, a hand-written parser for the lines every writer
 * produces, and the strict field-by-field reading, which words every error,
 * for any line the fast one does not take. */
#include "event_reader.h"

#include "harness/io/errmsg.h"
#include "harness/io/file_bytes.h"

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

/* Keys are interned a batch of lines at a time: each new key's table slot
 * is prefetched when its line is parsed, so with many keys the cache
 * misses of a batch overlap instead of following one another. */
#define BATCH 16

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

/* Error for a field: "PATH:LINE: what, not 'text'", the text cut short so
 * a runaway line cannot flood the message. */
static void field_err(char *err, size_t err_len, const char *path, size_t line, const char *what,
                      const char *s, const char *e)
{
    int shown = e - s > 40 ? 40 : (int)(e - s);
    rl_set_err(err, err_len, "%s:%zu: %s, not '%.*s%s'", path, line, what, shown, s,
               e - s > 40 ? "..." : "");
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

/* The FNV-1a state rl_key_hash starts from and the finalizer it ends with
 * (key_table.h), so the hash is taken while the key is scanned. */
#define FNV_START 0xCBF29CE484222325ull
#define FNV_PRIME 0x100000001B3ull

static inline uint32_t fnv_finish(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* A line as every writer writes it: 1–19 digits, a key of ordinary bytes,
 * 1–10 digits from 1 to 2^32 − 1, 0 or 1, then (five fields) 1–5 digits up
 * to 65535, and '\n' or "\r\n". The buffer holds a '\n' at or after p, so
 * no scan runs past it. Returns the next line's start, or NULL for any
 * other line: the strict reading then decides (it accepts every line
 * accepted here, with the same values). */
static inline const char *parse_line_fast(const char *p, int fields, struct rl_event *ev,
                                          const char **key, size_t *key_len, uint32_t *hash)
{
    const char *s = p;
    uint64_t t = 0;
    unsigned d;
    while ((d = (unsigned)(unsigned char)*s - '0') <= 9) {
        t = t * 10 + d;
        s++;
    }
    if (s == p || s - p > 19 || *s != ',')
        return NULL;
    const char *k = ++s;
    uint64_t h = FNV_START;
    for (;; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == ',')
            break;
        if ((c < 0x20 && c != '\t') || c == 0x7F) /* '\n', '\r' and NUL among them */
            return NULL;
        h = (h ^ c) * FNV_PRIME;
    }
    if (s == k)
        return NULL;
    *key = k;
    *key_len = (size_t)(s - k);
    *hash = fnv_finish(h);
    const char *ns = ++s;
    uint64_t n = 0;
    while ((d = (unsigned)(unsigned char)*s - '0') <= 9) {
        n = n * 10 + d;
        s++;
    }
    if (s == ns || s - ns > 10 || n == 0 || n > UINT32_MAX || *s != ',')
        return NULL;
    unsigned admitted = (unsigned)(unsigned char)s[1] - '0';
    if (admitted > 1)
        return NULL;
    s += 2;
    uint64_t thread = 0;
    if (fields == 5) {
        if (*s != ',')
            return NULL;
        const char *ts = ++s;
        while ((d = (unsigned)(unsigned char)*s - '0') <= 9) {
            thread = thread * 10 + d;
            s++;
        }
        if (s == ts || s - ts > 5 || thread > UINT16_MAX)
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
    return s + 1;
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
        r->start = 0;
        r->end = kept;
    }
    if (r->cap - r->end < READ_BLOCK / 2) {
        size_t cap = r->cap * 2;
        char *grown = cap > r->cap ? realloc(r->buf, cap + 1) : NULL; /* + 1: a final '\n' */
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
 * when no line is whole yet. */
static size_t whole_lines_end(struct rl_event_reader *r)
{
    if (r->eof && r->end > r->start && r->buf[r->end - 1] != '\n')
        r->buf[r->end++] = '\n';
    const char *nl = memrchr(r->buf + r->start, '\n', r->end - r->start);
    return nl ? (size_t)(nl - r->buf) + 1 : r->start;
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
    r->buf = malloc(r->cap + 1);
    if (r->buf == NULL || rl_key_table_init(&r->keys) != 0) {
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

/* A parsed line whose key is not interned yet. */
struct pending_key {
    const char *key;
    size_t len;
    uint32_t hash;
    bool repeat; /* the same key as the line before: no lookup */
};

/* Interns the batch's keys into events[0, count); 0, or -1 with err. */
static int intern_batch(struct rl_event_reader *r, struct rl_event *events,
                        const struct pending_key *batch, size_t count, size_t first_line,
                        uint32_t *prev_id, char *err, size_t err_len)
{
    for (size_t j = 0; j < count; j++) {
        if (!batch[j].repeat) {
            bool too_many = false;
            int64_t id =
                rl_key_table_intern(&r->keys, batch[j].key, batch[j].len, batch[j].hash, &too_many);
            if (id < 0) {
                rl_set_err(err, err_len, "%s:%zu: cannot intern key: %s", r->path, first_line + j,
                           too_many ? "more than 2^31 distinct keys, or a key over 4 GB"
                                    : strerror(ENOMEM));
                return -1;
            }
            *prev_id = (uint32_t)id;
        }
        events[j].key = *prev_id;
    }
    return 0;
}

long rl_event_reader_next(struct rl_event_reader *r, struct rl_event *events, size_t cap, char *err,
                          size_t err_len)
{
    size_t got = 0;
    struct pending_key batch[BATCH];
    uint32_t prev_id = 0;
    const char *prev_key = NULL;
    size_t prev_len = 0;
    while (got < cap) {
        size_t limit = whole_lines_end(r);
        if (limit == r->start) {
            if (r->eof)
                break;
            if (refill(r, err, err_len) != 0)
                return -1;
            prev_key = NULL; /* the buffer moved */
            continue;
        }
        const char *p = r->buf + r->start, *stop = r->buf + limit;
        while (p < stop && got < cap) {
            size_t batched = 0, first_line = r->line;
            struct rl_event *first = events + got;
            for (; batched < BATCH && p < stop && got < cap; batched++, got++, r->line++) {
                struct pending_key *pk = &batch[batched];
                struct rl_event *ev = &events[got];
                const char *next = parse_line_fast(p, r->fields, ev, &pk->key, &pk->len, &pk->hash);
                if (next == NULL) {
                    const char *eol = memchr(p, '\n', (size_t)(stop - p));
                    const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
                    *ev = (struct rl_event){0};
                    if (parse_line_strict(r, p, le, ev, &pk->key, &pk->len, err, err_len) != 0)
                        return -1;
                    pk->hash = rl_key_hash(pk->key, pk->len);
                    next = eol + 1;
                }
                pk->repeat =
                    prev_key && pk->len == prev_len && memcmp(pk->key, prev_key, pk->len) == 0;
                if (!pk->repeat)
                    rl_key_table_prefetch(&r->keys, pk->hash);
                prev_key = pk->key;
                prev_len = pk->len;
                p = next;
            }
            if (intern_batch(r, first, batch, batched, first_line, &prev_id, err, err_len) != 0)
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
    rl_key_table_free(&r->keys);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}
