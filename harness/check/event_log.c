/* event_log.c — decision logs in memory and as CSV: growth, the whole-file
 * reader over the one parser (event_reader.c), and a writer
 * through the output layer. The sort by time lives in event_log_sort.c. */
#include "event_log.h"

#include "event_reader.h"
#include "harness/io/errmsg.h"
#include "harness/io/key_table.h"
#include "harness/io/outfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct rl_event) == 24, "recorder buffers assume 24-byte events");

/* The writer's header (event_reader.c reads it, with or without ",thread"). */
#define HEADER     "t_ns,key,n,admitted,thread"
#define HEADER_LEN (sizeof HEADER - 1)

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
    free(log->release_ns);
    free(log->woke_ns);
    free(log->cancel_ns);
    memset(log, 0, sizeof *log);
}

/* ---- reading ------------------------------------------------------------- */

/* The whole file through the one parser (event_reader.c), into an array
 * that doubles. */
int rl_event_log_read_csv(const char *path, struct rl_event_log *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_event_reader reader;
    if (rl_event_reader_open(&reader, path, err, err_len) != 0)
        return -1;
    long got;
    do {
        if (out->cap - out->len < 4096) {
            size_t cap = out->cap ? out->cap * 2 : 65536;
            struct rl_event *events = cap <= SIZE_MAX / sizeof *events
                                          ? realloc(out->events, cap * sizeof *events)
                                          : NULL;
            if (events == NULL) {
                rl_set_err(err, err_len, "%s: cannot hold %zu events: %s", path, cap,
                           strerror(ENOMEM));
                got = -1;
                break;
            }
            out->events = events;
            out->cap = cap;
        }
        got = rl_event_reader_next(&reader, out->events + out->len, out->cap - out->len, err,
                                   err_len);
        out->len += got > 0 ? (size_t)got : 0;
    } while (got > 0);
    if (got < 0) {
        rl_event_reader_close(&reader);
        free(out->events);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->key_names = rl_event_reader_take_names(&reader, &out->key_count);
    out->complete = true;
    rl_event_reader_close(&reader);
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
    rl_outfile_bytes(out, HEADER, HEADER_LEN);
    if (log->release_ns)
        rl_outfile_bytes(out, ",release_ns", 11);
    if (log->woke_ns)
        rl_outfile_bytes(out, ",woke_ns", 8);
    if (log->cancel_ns)
        rl_outfile_bytes(out, ",cancel_ns", 10);
    rl_outfile_bytes(out, "\n", 1);
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
        const uint64_t *columns[] = {log->release_ns, log->woke_ns, log->cancel_ns};
        for (size_t c = 0; c < sizeof columns / sizeof columns[0]; c++) {
            if (columns[c] == NULL)
                continue;
            rl_outfile_bytes(out, ",", 1);
            if (columns[c][i] != RL_NO_RELEASE)
                rl_outfile_u64(out, columns[c][i]);
        }
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

int rl_event_log_copy_key_names(struct rl_event_log *log, char *const *names, uint32_t count)
{
    if (names == NULL || count == 0)
        return 0;
    log->key_names = calloc(count, sizeof *log->key_names);
    if (log->key_names == NULL)
        return -1;
    for (uint32_t k = 0; k < count; k++)
        if ((log->key_names[k] = strdup(names[k])) == NULL)
            return -1;
    return 0;
}
