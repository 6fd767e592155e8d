/* trace.c — the trace array, its key names, and writing its CSV form (the
 * reader is trace_read.c). */
#include "trace.h"

#include "harness/io/errmsg.h"
#include "harness/io/key_table.h"
#include "harness/io/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    free(trace->max_wait_ns);
    free(trace->cancel_ns);
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
        const char *problem = name ? rl_key_problem(name, strlen(name)) : "has no name";
        if (problem != NULL) {
            char q[RL_QUOTE_LEN];
            rl_set_err(err, err_len,
                       "%s: not written: key %u '%s' %s (a key is non-empty text without commas "
                       "or control bytes)",
                       path, k, name ? rl_quote_field(q, sizeof q, name, strlen(name)) : "",
                       problem);
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

int rl_trace_write_csv(const struct rl_trace *trace, const char *path, char *err, size_t err_len)
{
    if (check_writable(trace, path, err, err_len) != 0)
        return -1;
    size_t *name_lens = malloc((trace->key_count ? trace->key_count : 1) * sizeof(size_t));
    if (name_lens == NULL) {
        rl_set_err(err, err_len, "%s: cannot write: %s", path, strerror(ENOMEM));
        return -1;
    }
    for (uint32_t k = 0; k < trace->key_count; k++)
        name_lens[k] = strlen(trace->key_names[k]);
    struct rl_outfile out;
    if (rl_outfile_open(&out, path, err, err_len) != 0) {
        free(name_lens);
        return -1;
    }
    rl_outfile_bytes(&out, RL_TRACE_CSV_HEADER "\n", sizeof(RL_TRACE_CSV_HEADER));
    for (size_t i = 0; i < trace->len; i++) {
        const struct rl_attempt *a = &trace->attempts[i];
        rl_outfile_u64(&out, a->t_ns);
        rl_outfile_bytes(&out, ",", 1);
        rl_outfile_bytes(&out, trace->key_names[a->key], name_lens[a->key]);
        rl_outfile_bytes(&out, ",", 1);
        rl_outfile_u64(&out, a->n);
        rl_outfile_bytes(&out, "\n", 1);
    }
    free(name_lens);
    return rl_outfile_commit(&out, err, err_len);
}
