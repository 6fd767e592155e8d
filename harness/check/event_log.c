/* event_log.c — decision logs in memory and as CSV: growth, a fast strict
 * reader that interns text keys, and a writer through the output layer. The sort by
 * time lives in event_log_sort.c. */
#include "event_log.h"

#include "harness/io/errmsg.h"
#include "harness/io/file_bytes.h"
#include "harness/io/key_table.h"
#include "harness/io/outfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct rl_event) == 24, "recorder buffers assume 24-byte events");

/* The writer's header; the reader also takes it without ",thread" (logs
 * from elsewhere, such as tests/conformance's drivers: thread 0). */
#define HEADER          "t_ns,key,n,admitted,thread"
#define HEADER_LEN      (sizeof HEADER - 1)
#define HEADER_4_LEN    (sizeof "t_ns,key,n,admitted" - 1)
#define HEADER_EXPECTED "header must be '" HEADER "' (',thread' optional)"

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
    rl_set_err(err, err_len, "%s:%zu: %s, not '%.*s%s'", path, line, what, shown, s,
               e - s > 40 ? "..." : "");
}

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* Parses every line after the header into out; fields is 5, or 4 when the
 * header has no thread column. -1 with the message in err. */
static int parse_events(const char *path, const char *p, const char *end, int fields,
                        struct rl_event_log *out, struct rl_key_table *kt, char *err,
                        size_t err_len)
{
    const char *names = fields == 5 ? HEADER : "t_ns,key,n,admitted";
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
            rl_set_err(err, err_len, "%s:%zu: empty line (each line is %s)", path, line, names);
            return -1;
        }
        if (commas != fields - 1) {
            rl_set_err(err, err_len, "%s:%zu: expected %d fields %s, found %d", path, line, fields,
                       names, commas + 1);
            return -1;
        }
        stop[fields - 1] = le;
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
        const char *problem = rl_key_problem(key, key_len);
        if (problem != NULL) {
            rl_set_err(err, err_len,
                       "%s:%zu: key %s (a key is non-empty text without commas or control bytes)",
                       path, line, problem);
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
        v = 0; /* no thread column: thread 0 */
        if (fields == 5 && !parse_uint(start[4], stop[4], UINT16_MAX, &v)) {
            field_err(err, err_len, path, line, "thread must be an integer from 0 to 65535",
                      start[4], stop[4]);
            return -1;
        }
        ev.thread = (uint16_t)v;
        bool too_many = false;
        int64_t id = rl_key_table_intern(kt, key, key_len, rl_key_hash(key, key_len), &too_many);
        if (id < 0) {
            rl_set_err(err, err_len, "%s:%zu: cannot intern key: %s", path, line,
                       too_many ? "more than 2^31 distinct keys, or a key over 4 GB"
                                : strerror(ENOMEM));
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
    const char *p = rl_file_bytes_skip_bom(ft.data, ft.len), *end = ft.data + ft.len;
    const char *eol = line_end(p, end);
    const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
    size_t header_len = (size_t)(le - p);
    if ((header_len != HEADER_LEN && header_len != HEADER_4_LEN) ||
        memcmp(p, HEADER, header_len) != 0) {
        if (p == end)
            rl_set_err(err, err_len, "%s:1: " HEADER_EXPECTED ", but the file is empty", path);
        else
            field_err(err, err_len, path, 1, HEADER_EXPECTED, p, le);
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
    struct rl_key_table kt;
    if (rl_key_table_init(&kt) != 0) {
        rl_set_err(err, err_len, "%s: %s", path, strerror(ENOMEM));
        rc = -1;
    } else if (lines > 0) {
        out->events = malloc(lines * sizeof *out->events);
        if (out->events == NULL) {
            rl_set_err(err, err_len, "%s: cannot hold %zu events: %s", path, lines,
                       strerror(ENOMEM));
            rc = -1;
        }
        out->cap = lines;
    }
    if (rc == 0)
        rc = parse_events(path, p, end, header_len == HEADER_LEN ? 5 : 4, out, &kt, err, err_len);
    rl_file_bytes_free(&ft);
    if (rc < 0) {
        rl_key_table_free(&kt);
        free(out->events);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->key_names = rl_key_table_take_names(&kt, &out->key_count);
    out->complete = true;
    rl_key_table_free(&kt);
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* Refuses what the reader would refuse, so every written log reads back. */
static int check_writable(const struct rl_event_log *log, const char *path, char *err,
                          size_t err_len)
{
    for (uint32_t k = 0; log->key_names && k < log->key_count; k++) {
        const char *name = log->key_names[k];
        const char *problem = name ? rl_key_problem(name, strlen(name)) : "has no name";
        if (problem != NULL) {
            rl_set_err(err, err_len,
                       "%s: key %u %s (a key is non-empty text without commas or control bytes)",
                       path, (unsigned)k, problem);
            return -1;
        }
    }
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *ev = &log->events[i];
        if (ev->n == 0 || ev->admitted > 1 || (log->key_names && ev->key >= log->key_count)) {
            rl_set_err(err, err_len,
                       "%s: event %zu cannot be written: n must be at least 1, admitted 0 or 1 and "
                       "the key named (n %u, admitted %u, key %u of %u names)",
                       path, i, (unsigned)ev->n, (unsigned)ev->admitted, (unsigned)ev->key,
                       (unsigned)log->key_count);
            return -1;
        }
    }
    return 0;
}

static void write_events(const struct rl_event_log *log, struct rl_outfile *out)
{
    rl_outfile_bytes(out, HEADER "\n", HEADER_LEN + 1);
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *ev = &log->events[i];
        rl_outfile_u64(out, ev->t_ns);
        rl_outfile_bytes(out, ",", 1);
        if (log->key_names) {
            const char *name = log->key_names[ev->key];
            rl_outfile_bytes(out, name, strlen(name));
        } else {
            rl_outfile_bytes(out, "k", 1);
            rl_outfile_u64(out, ev->key);
        }
        rl_outfile_bytes(out, ",", 1);
        rl_outfile_u64(out, ev->n);
        rl_outfile_bytes(out, ev->admitted ? ",1," : ",0,", 3);
        rl_outfile_u64(out, ev->thread);
        rl_outfile_bytes(out, "\n", 1);
    }
}

int rl_event_log_write_csv(const struct rl_event_log *log, const char *path, char *err,
                           size_t err_len)
{
    if (check_writable(log, path, err, err_len) < 0)
        return -1;
    struct rl_outfile out;
    if (rl_outfile_open(&out, path, err, err_len) != 0)
        return -1;
    write_events(log, &out);
    return rl_outfile_commit(&out, err, err_len);
}
