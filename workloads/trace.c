/* trace.c — the trace array, its key names, and writing its CSV form (the
 * reader is trace_read.c). */
#include "trace.h"

#include "harness/io/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the array and its names -------------------------------------------- */

int rl_trace_reserve(struct rl_trace *trace, size_t cap)
{
    if (cap <= trace->cap)
        return 0;
    if (cap > SIZE_MAX / sizeof(struct rl_attempt))
        return -1;
    struct rl_attempt *grown = realloc(trace->attempts, cap * sizeof(struct rl_attempt));
    if (grown == NULL)
        return -1;
    trace->attempts = grown;
    trace->cap = cap;
    return 0;
}

int rl_trace_push(struct rl_trace *trace, uint64_t t_ns, uint32_t key, uint32_t n)
{
    if (trace->len == trace->cap) {
        size_t cap = trace->cap ? trace->cap * 2 : 1024;
        if (cap < trace->cap || rl_trace_reserve(trace, cap) != 0)
            return -1;
    }
    trace->attempts[trace->len++] = (struct rl_attempt){.t_ns = t_ns, .key = key, .n = n};
    return 0;
}

static void free_names(char **names, uint32_t count)
{
    if (names == NULL)
        return;
    for (uint32_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

int rl_trace_name_keys(struct rl_trace *trace, uint32_t count)
{
    char **names = calloc(count ? count : 1, sizeof(char *));
    if (names == NULL)
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        char buf[16]; /* "k" and at most 10 digits */
        int len = snprintf(buf, sizeof buf, "k%u", i);
        names[i] = malloc((size_t)len + 1);
        if (names[i] == NULL) {
            free_names(names, i);
            return -1;
        }
        memcpy(names[i], buf, (size_t)len + 1);
    }
    free_names(trace->key_names, trace->key_count);
    trace->key_names = names;
    trace->key_count = count;
    return 0;
}

void rl_trace_free(struct rl_trace *trace)
{
    free(trace->attempts);
    free_names(trace->key_names, trace->key_count);
    memset(trace, 0, sizeof *trace);
}

/* ---- writing -------------------------------------------------------------- */

/* Checks what the reader would refuse, so a written trace always reads back. */
static int check_writable(const struct rl_trace *trace, const char *path, char *err, size_t err_len)
{
    if (trace->key_count > 0 && trace->key_names == NULL) {
        rl_set_err(err, err_len, "%s: not written: the trace has %u keys but no key names", path,
                   trace->key_count);
        return -1;
    }
    for (uint32_t k = 0; k < trace->key_count; k++) {
        const char *name = trace->key_names[k];
        char q[48];
        if (name == NULL || name[0] == '\0') {
            rl_set_err(err, err_len, "%s: not written: key %u has %s; a key name is non-empty text",
                       path, k, name == NULL ? "no name" : "an empty name");
            return -1;
        }
        if (strpbrk(name, ",\r\n") != NULL) {
            rl_set_err(err, err_len,
                       "%s: not written: key %u '%s' holds a comma or a line break, which CSV keys "
                       "cannot",
                       path, k, rl_quote_field(q, sizeof q, name, strlen(name)));
            return -1;
        }
    }
    for (size_t i = 0; i < trace->len; i++) {
        const struct rl_attempt *a = &trace->attempts[i];
        if (a->key >= trace->key_count) {
            rl_set_err(err, err_len,
                       "%s: not written: attempt %zu has key %u but the trace names only %u keys",
                       path, i, a->key, trace->key_count);
            return -1;
        }
        if (a->n == 0) {
            rl_set_err(err, err_len,
                       "%s: not written: attempt %zu has cost 0; costs must be positive", path, i);
            return -1;
        }
        if (i > 0 && a->t_ns < a[-1].t_ns) {
            rl_set_err(err, err_len,
                       "%s: not written: attempt %zu at %llu ns is earlier than the one before "
                       "(%llu ns); traces must be sorted by t_ns",
                       path, i, (unsigned long long)a->t_ns, (unsigned long long)a[-1].t_ns);
            return -1;
        }
    }
    return 0;
}

struct out_buf {
    int fd;
    int error; /* errno of the first failed write, 0 while all is well */
    size_t len;
    char data[1 << 20];
};

static void out_flush(struct out_buf *b)
{
    const char *p = b->data;
    while (b->len > 0 && b->error == 0) {
        ssize_t put = write(b->fd, p, b->len);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            b->error = put < 0 ? errno : EIO;
            break;
        }
        p += put;
        b->len -= (size_t)put;
    }
    b->len = 0;
}

static void out_bytes(struct out_buf *b, const char *s, size_t len)
{
    while (len > 0) {
        if (b->len == sizeof b->data)
            out_flush(b);
        size_t room = sizeof b->data - b->len;
        size_t n = len < room ? len : room;
        memcpy(b->data + b->len, s, n);
        b->len += n;
        s += n;
        len -= n;
    }
}

static void out_u64(struct out_buf *b, uint64_t v)
{
    char digits[20];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    out_bytes(b, digits + i, sizeof digits - i);
}

int rl_trace_write_csv(const struct rl_trace *trace, const char *path, char *err, size_t err_len)
{
    if (check_writable(trace, path, err, err_len) != 0)
        return -1;
    size_t tmp_len = strlen(path) + 32;
    char *tmp = malloc(tmp_len);
    struct out_buf *b = malloc(sizeof *b);
    if (tmp == NULL || b == NULL) {
        rl_set_err(err, err_len, "%s: cannot write: %s", path, strerror(ENOMEM));
        free(tmp);
        free(b);
        return -1;
    }
    snprintf(tmp, tmp_len, "%s.tmp.%ld", path, (long)getpid());
    b->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (b->fd < 0) {
        rl_set_err(err, err_len, "%s: cannot create %s: %s", path, tmp, strerror(errno));
        free(tmp);
        free(b);
        return -1;
    }
    b->error = 0;
    b->len = 0;
    out_bytes(b, RL_TRACE_CSV_HEADER "\n", sizeof(RL_TRACE_CSV_HEADER));
    size_t *name_lens = malloc((trace->key_count ? trace->key_count : 1) * sizeof(size_t));
    if (name_lens == NULL)
        b->error = ENOMEM;
    for (uint32_t k = 0; name_lens && k < trace->key_count; k++)
        name_lens[k] = strlen(trace->key_names[k]);
    for (size_t i = 0; i < trace->len && b->error == 0; i++) {
        const struct rl_attempt *a = &trace->attempts[i];
        out_u64(b, a->t_ns);
        out_bytes(b, ",", 1);
        out_bytes(b, trace->key_names[a->key], name_lens[a->key]);
        out_bytes(b, ",", 1);
        out_u64(b, a->n);
        out_bytes(b, "\n", 1);
    }
    free(name_lens);
    out_flush(b);
    /* fsync before rename: otherwise a crash can leave the new name pointing
     * at data that never reached the disk. */
    if (b->error == 0 && fsync(b->fd) != 0)
        b->error = errno;
    if (close(b->fd) != 0 && b->error == 0)
        b->error = errno;
    int rc = 0;
    if (b->error != 0) {
        rl_set_err(err, err_len, "%s: cannot write %s: %s", path, tmp, strerror(b->error));
        rc = -1;
    } else if (rename(tmp, path) != 0) {
        rl_set_err(err, err_len, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    free(b);
    return rc;
}
