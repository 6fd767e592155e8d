/* event_log.c — decision logs in memory and as CSV: growth, a fast strict
 * reader that interns text keys, and a temp-and-rename writer. The sort by
 * time lives in event_log_sort.c. */
#include "event_log.h"

#include "harness/io/file_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(struct rl_event) == 24, "recorder buffers assume 24-byte events");

#define HEADER     "t_ns,key,n,admitted,thread"
#define HEADER_LEN (sizeof HEADER - 1)

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (err == NULL || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Appends one event, doubling the array when full. -1 with errno ENOMEM,
 * the log unchanged. */
int rl_event_log_push(struct rl_event_log *log, const struct rl_event *event)
{
    if (log->len == log->cap) {
        size_t cap = log->cap ? log->cap * 2 : 1024;
        if (cap < log->cap || cap > SIZE_MAX / sizeof *log->events) {
            errno = ENOMEM;
            return -1;
        }
        struct rl_event *events = realloc(log->events, cap * sizeof *events);
        if (events == NULL)
            return -1;
        log->events = events;
        log->cap = cap;
    }
    log->events[log->len++] = *event;
    return 0;
}

/* Frees the events and the key names; leaves an empty log. */
void rl_event_log_free(struct rl_event_log *log)
{
    if (log->key_names) {
        for (uint32_t i = 0; i < log->key_count; i++)
            free(log->key_names[i]);
        free(log->key_names);
    }
    free(log->events);
    memset(log, 0, sizeof *log);
}

/* ---- key interning -------------------------------------------------------
 * Open addressing with the key's hash kept beside its id, so a probe compares
 * full names only when the hashes already match. */

struct key_table {
    uint32_t *slots;  /* id + 1; 0 is empty */
    uint32_t *hashes; /* per slot */
    size_t mask;
    char **names; /* by id */
    uint32_t *name_lens;
    uint32_t count, names_cap;
};

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a: keys are short, so a simple hash wins */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    /* A final mix, because slots are picked by the low bits and FNV's low
     * bits vary little between names like "k17" and "k27". */
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

/* Doubles the slot array and re-inserts every id; -1 on ENOMEM, the table
 * unchanged. */
static int key_table_grow(struct key_table *kt)
{
    size_t cap = kt->mask ? (kt->mask + 1) * 2 : 1024;
    uint32_t *slots = calloc(cap, sizeof *slots);
    uint32_t *hashes = malloc(cap * sizeof *hashes);
    if (slots == NULL || hashes == NULL) {
        free(slots);
        free(hashes);
        return -1;
    }
    for (size_t i = 0; kt->mask && i <= kt->mask; i++) {
        if (kt->slots[i] == 0)
            continue;
        size_t j = kt->hashes[i] & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = kt->slots[i];
        hashes[j] = kt->hashes[i];
    }
    free(kt->slots);
    free(kt->hashes);
    kt->slots = slots;
    kt->hashes = hashes;
    kt->mask = cap - 1;
    return 0;
}

/* Returns the dense id of name, adding it when new; -1 on ENOMEM or when
 * the ids are exhausted. */
static int64_t key_table_intern(struct key_table *kt, const char *name, size_t len)
{
    /* Keep the load at or under one half so probes stay short. */
    if ((size_t)kt->count * 2 >= kt->mask && key_table_grow(kt) < 0)
        return -1;
    uint32_t h = hash_bytes(name, len);
    size_t j = h & kt->mask;
    for (; kt->slots[j]; j = (j + 1) & kt->mask) {
        uint32_t id = kt->slots[j] - 1;
        if (kt->hashes[j] == h && kt->name_lens[id] == len && memcmp(kt->names[id], name, len) == 0)
            return id;
    }
    if (kt->count == UINT32_MAX - 1 || len > UINT32_MAX)
        return -1;
    if (kt->count == kt->names_cap) {
        uint32_t cap = kt->names_cap ? kt->names_cap * 2 : 256;
        if (cap < kt->names_cap)
            cap = UINT32_MAX - 1;
        char **names = realloc(kt->names, (size_t)cap * sizeof *names);
        if (names == NULL)
            return -1;
        kt->names = names;
        uint32_t *lens = realloc(kt->name_lens, (size_t)cap * sizeof *lens);
        if (lens == NULL)
            return -1;
        kt->name_lens = lens;
        kt->names_cap = cap;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, name, len);
    copy[len] = '\0';
    uint32_t id = kt->count++;
    kt->names[id] = copy;
    kt->name_lens[id] = (uint32_t)len;
    kt->slots[j] = id + 1;
    kt->hashes[j] = h;
    return id;
}

/* Frees the table; the names too unless they were handed to a log. */
static void key_table_free(struct key_table *kt, bool free_names)
{
    if (free_names) {
        for (uint32_t i = 0; i < kt->count; i++)
            free(kt->names[i]);
        free(kt->names);
    }
    free(kt->name_lens);
    free(kt->slots);
    free(kt->hashes);
    memset(kt, 0, sizeof *kt);
}

/* ---- reading ------------------------------------------------------------- */

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
    set_err(err, err_len, "%s:%zu: %s, not '%.*s%s'", path, line, what, shown, s,
            e - s > 40 ? "..." : "");
}

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* Parses every line after the header into out; -1 with the message in err. */
static int parse_events(const char *path, const char *p, const char *end, struct rl_event_log *out,
                        struct key_table *kt, char *err, size_t err_len)
{
    for (size_t line = 2; p < end; line++) {
        const char *eol = line_end(p, end);
        const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
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
            set_err(err, err_len, "%s:%zu: empty line (each line is t_ns,key,n,admitted,thread)",
                    path, line);
            return -1;
        }
        if (commas != 4) {
            set_err(err, err_len, "%s:%zu: expected 5 fields t_ns,key,n,admitted,thread, found %d",
                    path, line, commas + 1);
            return -1;
        }
        stop[4] = le;
        struct rl_event ev;
        uint64_t v;
        if (!parse_uint(start[0], stop[0], UINT64_MAX, &v)) {
            field_err(err, err_len, path, line, "t_ns must be an integer from 0 to 2^64-1",
                      start[0], stop[0]);
            return -1;
        }
        ev.t_ns = v;
        const char *key = start[1];
        size_t key_len = (size_t)(stop[1] - key);
        if (key_len == 0) {
            set_err(err, err_len, "%s:%zu: key must not be empty (any text without commas)", path,
                    line);
            return -1;
        }
        if (memchr(key, '\0', key_len)) {
            set_err(err, err_len, "%s:%zu: key must not contain a NUL byte", path, line);
            return -1;
        }
        if (!parse_uint(start[2], stop[2], UINT32_MAX, &v) || v == 0) {
            field_err(err, err_len, path, line, "n must be an integer from 1 to 4294967295",
                      start[2], stop[2]);
            return -1;
        }
        ev.n = (uint32_t)v;
        if (stop[3] - start[3] != 1 || (start[3][0] != '0' && start[3][0] != '1')) {
            field_err(err, err_len, path, line, "admitted must be 0 or 1", start[3], stop[3]);
            return -1;
        }
        ev.admitted = (uint8_t)(start[3][0] - '0');
        if (!parse_uint(start[4], stop[4], UINT16_MAX, &v)) {
            field_err(err, err_len, path, line, "thread must be an integer from 0 to 65535",
                      start[4], stop[4]);
            return -1;
        }
        ev.thread = (uint16_t)v;
        int64_t id = key_table_intern(kt, key, key_len);
        if (id < 0) {
            set_err(err, err_len, "%s:%zu: cannot intern key: %s", path, line, strerror(ENOMEM));
            return -1;
        }
        ev.key = (uint32_t)id;
        out->events[out->len++] = ev;
        p = eol < end ? eol + 1 : end;
    }
    return 0;
}

int rl_event_log_read_csv(const char *path, struct rl_event_log *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_file_bytes ft;
    if (rl_file_bytes_load(path, &ft, err, err_len) < 0)
        return -1;
    const char *p = ft.data, *end = ft.data + ft.len;
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3; /* a byte-order mark, as spreadsheets write it */
    const char *eol = line_end(p, end);
    const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
    if ((size_t)(le - p) != HEADER_LEN || memcmp(p, HEADER, HEADER_LEN) != 0) {
        if (p == end)
            set_err(err, err_len, "%s:1: header must be '%s', but the file is empty", path, HEADER);
        else
            field_err(err, err_len, path, 1, "header must be '" HEADER "'", p, le);
        rl_file_bytes_free(&ft);
        return -1;
    }
    p = eol < end ? eol + 1 : end;

    /* Counting lines first (memchr is cheap) sizes the array exactly. */
    size_t lines = 0;
    for (const char *c = p; c < end; lines++) {
        const char *nl = memchr(c, '\n', (size_t)(end - c));
        c = nl ? nl + 1 : end;
    }
    int rc = 0;
    struct key_table kt = {0};
    if (lines > 0) {
        out->events = malloc(lines * sizeof *out->events);
        if (out->events == NULL) {
            set_err(err, err_len, "%s: cannot hold %zu events: %s", path, lines, strerror(ENOMEM));
            rc = -1;
        }
        out->cap = lines;
    }
    if (rc == 0)
        rc = parse_events(path, p, end, out, &kt, err, err_len);
    rl_file_bytes_free(&ft);
    if (rc < 0) {
        key_table_free(&kt, true);
        free(out->events);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->key_names = kt.names;
    out->key_count = kt.count;
    out->complete = true;
    key_table_free(&kt, false);
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

struct out_buf {
    int fd;
    char *buf;
    size_t len, cap;
    int error; /* first errno, 0 while all is well */
};

static void out_flush(struct out_buf *o)
{
    size_t done = 0;
    while (o->error == 0 && done < o->len) {
        ssize_t put = write(o->fd, o->buf + done, o->len - done);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            o->error = errno;
        else
            done += (size_t)put;
    }
    o->len = 0;
}

static void out_bytes(struct out_buf *o, const char *s, size_t len)
{
    if (o->cap - o->len < len)
        out_flush(o);
    if (len > o->cap) { /* too long to buffer: straight through */
        while (o->error == 0 && len > 0) {
            ssize_t put = write(o->fd, s, len);
            if (put < 0 && errno == EINTR)
                continue;
            if (put < 0)
                o->error = errno;
            else
                s += put, len -= (size_t)put;
        }
        return;
    }
    memcpy(o->buf + o->len, s, len);
    o->len += len;
}

/* Writes v in decimal at dst; returns the number of bytes (at most 20). */
static size_t format_u64(char *dst, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        dst[i] = tmp[n - 1 - i];
    return n;
}

/* Refuses what the reader would refuse, so every written log reads back. */
static int check_writable(const struct rl_event_log *log, const char *path, char *err,
                          size_t err_len)
{
    for (uint32_t k = 0; log->key_names && k < log->key_count; k++) {
        const char *name = log->key_names[k];
        if (name == NULL || name[0] == '\0' || strpbrk(name, ",\r\n")) {
            set_err(err, err_len,
                    "%s: key %u's name is empty or holds a comma or line break (keys are "
                    "text without commas)",
                    path, (unsigned)k);
            return -1;
        }
    }
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *ev = &log->events[i];
        if (ev->n == 0 || ev->admitted > 1 || (log->key_names && ev->key >= log->key_count)) {
            set_err(err, err_len,
                    "%s: event %zu cannot be written: n must be at least 1, admitted 0 or 1 and "
                    "the key named (n %u, admitted %u, key %u of %u names)",
                    path, i, (unsigned)ev->n, (unsigned)ev->admitted, (unsigned)ev->key,
                    (unsigned)log->key_count);
            return -1;
        }
    }
    return 0;
}

static void write_events(const struct rl_event_log *log, struct out_buf *o)
{
    out_bytes(o, HEADER "\n", HEADER_LEN + 1);
    char line[160];
    for (size_t i = 0; i < log->len && o->error == 0; i++) {
        const struct rl_event *ev = &log->events[i];
        size_t n = format_u64(line, ev->t_ns);
        line[n++] = ',';
        if (log->key_names) {
            out_bytes(o, line, n);
            const char *name = log->key_names[ev->key];
            out_bytes(o, name, strlen(name));
            n = 0;
        } else {
            line[n++] = 'k';
            n += format_u64(line + n, ev->key);
        }
        line[n++] = ',';
        n += format_u64(line + n, ev->n);
        line[n++] = ',';
        line[n++] = (char)('0' + ev->admitted);
        line[n++] = ',';
        n += format_u64(line + n, ev->thread);
        line[n++] = '\n';
        out_bytes(o, line, n);
    }
    out_flush(o);
}

int rl_event_log_write_csv(const struct rl_event_log *log, const char *path, char *err,
                           size_t err_len)
{
    if (check_writable(log, path, err, err_len) < 0)
        return -1;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        set_err(err, err_len, "%s: cannot write: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    struct out_buf o = {.cap = 1 << 20};
    o.buf = malloc(o.cap);
    if (o.buf == NULL) {
        set_err(err, err_len, "%s: cannot write: %s", path, strerror(ENOMEM));
        return -1;
    }
    o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (o.fd < 0) {
        set_err(err, err_len, "%s: cannot create %s: %s", path, tmp, strerror(errno));
        free(o.buf);
        return -1;
    }
    write_events(log, &o);
    free(o.buf);
    /* fsync before the rename: otherwise a crash can leave the new name
     * pointing at an empty file. */
    if (o.error == 0 && fsync(o.fd) < 0)
        o.error = errno;
    if (close(o.fd) < 0 && o.error == 0)
        o.error = errno;
    if (o.error != 0) {
        set_err(err, err_len, "%s: cannot write: %s", path, strerror(o.error));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) < 0) {
        set_err(err, err_len, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
