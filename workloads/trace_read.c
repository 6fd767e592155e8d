/* trace_read.c — reading a trace CSV (trace.h), fast and strict.
 *
 * The reader maps the file and walks it once with a hand-written parser,
 * because traces of 10^7 lines are normal and sscanf per field costs seconds
 * where this costs a fraction of one. Any unexpected byte sends the line to a
 * slow path that only exists to say precisely what is wrong. Keys are
 * interned into dense ids by the key table (harness/io/key_table.h), which
 * also holds the rule for what a key may contain.
 */
#include "trace.h"
#include "harness/io/file_bytes.h"
#include "harness/io/key_table.h"

#include "harness/io/errmsg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading -------------------------------------------------------------- */

enum num_status { NUM_OK, NUM_EMPTY, NUM_NOT_DIGITS, NUM_TOO_BIG };

/* Parses s[0..len) as decimal digits only, into a value at most max. */
static enum num_status parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0)
        return NUM_EMPTY;
    uint64_t v = 0;
    bool too_big = false;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9)
            return NUM_NOT_DIGITS;
        if (v > (max - d) / 10)
            too_big = true; /* keep going: a later letter is the better complaint */
        else
            v = v * 10 + d;
    }
    *out = v;
    return too_big ? NUM_TOO_BIG : NUM_OK;
}

/* Says precisely what is wrong with a line the fast path refused, or returns
 * false when it finds nothing (then only the order check is left). */
static bool diagnose_line(const char *path, size_t line_no, const char *s, size_t len, char *err,
                          size_t err_len)
{
    char q[RL_QUOTE_LEN];
    if (len == 0) {
        rl_set_err(err, err_len,
                   "%s:%zu: blank line (every line after the header is t_ns,key,n; blank lines are "
                   "not skipped)",
                   path, line_no);
        return true;
    }
    size_t fields = 1;
    const char *comma[2] = {NULL, NULL};
    for (size_t i = 0; i < len; i++)
        if (s[i] == ',') {
            if (fields <= 2)
                comma[fields - 1] = s + i;
            fields++;
        }
    if (fields != 3) {
        rl_set_err(err, err_len, "%s:%zu: %s fields: found %zu, expected 3 (t_ns,key,n%s)", path,
                   line_no, fields < 3 ? "too few" : "too many", fields,
                   fields > 3 ? "; keys cannot contain commas" : "");
        return true;
    }
    const char *t = s, *key = comma[0] + 1, *n = comma[1] + 1;
    size_t t_len = (size_t)(comma[0] - t), key_len = (size_t)(comma[1] - key);
    size_t n_len = (size_t)(s + len - n);
    uint64_t v;
    switch (parse_u64(t, t_len, UINT64_MAX, &v)) {
    case NUM_OK:
        break;
    case NUM_EMPTY:
        rl_set_err(err, err_len, "%s:%zu: time is empty (t_ns is an integer 0..%llu)", path,
                   line_no, (unsigned long long)UINT64_MAX);
        return true;
    case NUM_NOT_DIGITS:
        rl_set_err(err, err_len,
                   "%s:%zu: time '%s' is not an integer (t_ns is digits only, 0..%llu)", path,
                   line_no, rl_quote_field(q, sizeof q, t, t_len), (unsigned long long)UINT64_MAX);
        return true;
    case NUM_TOO_BIG:
        rl_set_err(err, err_len, "%s:%zu: time '%s' is too large (t_ns is 0..%llu)", path, line_no,
                   rl_quote_field(q, sizeof q, t, t_len), (unsigned long long)UINT64_MAX);
        return true;
    }
    const char *problem = rl_key_problem(key, key_len);
    if (problem != NULL) {
        rl_set_err(err, err_len,
                   "%s:%zu: key %s (a key is non-empty text without commas or control bytes)", path,
                   line_no, problem);
        return true;
    }
    switch (parse_u64(n, n_len, UINT32_MAX, &v)) {
    case NUM_OK:
        if (v == 0) {
            rl_set_err(err, err_len, "%s:%zu: cost '0' must be a positive integer (1..%u)", path,
                       line_no, UINT32_MAX);
            return true;
        }
        break;
    case NUM_EMPTY:
        rl_set_err(err, err_len, "%s:%zu: cost is empty (n is an integer 1..%u)", path, line_no,
                   UINT32_MAX);
        return true;
    case NUM_NOT_DIGITS:
        rl_set_err(err, err_len, "%s:%zu: cost '%s' is not an integer (n is digits only, 1..%u)",
                   path, line_no, rl_quote_field(q, sizeof q, n, n_len), UINT32_MAX);
        return true;
    case NUM_TOO_BIG:
        rl_set_err(err, err_len, "%s:%zu: cost '%s' is too large (n is 1..%u)", path, line_no,
                   rl_quote_field(q, sizeof q, n, n_len), UINT32_MAX);
        return true;
    }
    return false;
}

static size_t count_lines(const char *p, const char *end)
{
    size_t lines = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        lines++;
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return lines;
}

/* Lines are parsed a batch at a time and their keys interned after the
 * batch: each new key's slot is prefetched when its line is parsed, so by
 * the time it is looked up the cache miss has been paid in parallel. */
#define BATCH 16

struct pending_key {
    const char *key;
    size_t len;
    uint32_t hash;
    size_t line_no;
    bool repeat; /* the same key as the line before: no hash, no lookup */
};

/* Interns the batch's keys into the last `count` attempts; 0, or -1 with
 * err set. *prev_id carries the key of the line before the batch. */
static int intern_batch(struct rl_key_table *kt, struct rl_trace *trace,
                        const struct pending_key *batch, size_t count, uint32_t *prev_id,
                        const char *path, char *err, size_t err_len)
{
    if (count == 0)
        return 0; /* a header-only trace has no attempts array at all */
    struct rl_attempt *attempts = trace->attempts + trace->len - count;
    for (size_t j = 0; j < count; j++) {
        if (!batch[j].repeat) {
            bool too_many = false;
            int64_t id =
                rl_key_table_intern(kt, batch[j].key, batch[j].len, batch[j].hash, &too_many);
            if (id < 0) {
                if (too_many)
                    rl_set_err(err, err_len,
                               "%s:%zu: more than %u distinct keys, or a key over 4 GB", path,
                               batch[j].line_no, RL_KEY_TABLE_MAX);
                else
                    rl_set_err(err, err_len, "%s: out of memory", path);
                return -1;
            }
            *prev_id = (uint32_t)id;
        }
        attempts[j].key = *prev_id;
    }
    return 0;
}

/* Parses the attempts after the header; 0 or -1 with err set. */
static int parse_body(const char *path, const char *p, const char *end, bool unsorted,
                      struct rl_trace *out, char *err, size_t err_len)
{
    struct rl_key_table kt;
    if (rl_key_table_init(&kt) != 0 || rl_trace_reserve(out, count_lines(p, end)) != 0) {
        rl_key_table_free(&kt);
        rl_set_err(err, err_len, "%s: out of memory", path);
        return -1;
    }
    struct pending_key batch[BATCH];
    size_t batched = 0, line_no = 2;
    uint64_t prev_t = 0;
    const char *prev_key = NULL;
    size_t prev_key_len = 0;
    uint32_t prev_id = 0;
    int rc = 0;
    for (;; line_no++) {
        if (batched == BATCH || p == end) {
            rc = intern_batch(&kt, out, batch, batched, &prev_id, path, err, err_len);
            batched = 0;
            if (rc != 0 || p == end)
                break;
        }
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        const char *le = nl ? nl : end;
        if (le > p && le[-1] == '\r')
            le--;

        /* Fast path: digits ',' key ',' digits, nothing else. */
        const char *s = p;
        uint64_t t = 0;
        while (s < le && (unsigned)(*s - '0') <= 9) {
            unsigned d = (unsigned)(*s - '0');
            if (t > (UINT64_MAX - d) / 10)
                goto slow;
            t = t * 10 + d;
            s++;
        }
        if (s == p || s == le || *s != ',')
            goto slow;
        const char *key = ++s;
        /* a key byte is neither a comma nor a control byte (key_table.h) */
        while (s < le && *s != ',' && ((unsigned char)*s >= 0x20 || *s == '\t') && *s != 0x7F)
            s++;
        if (s == key || s == le || *s != ',')
            goto slow;
        size_t key_len = (size_t)(s - key);
        const char *n_start = ++s;
        uint64_t n = 0;
        while (s < le && (unsigned)(*s - '0') <= 9 && n <= UINT32_MAX) {
            n = n * 10 + (unsigned)(*s - '0');
            s++;
        }
        if (s != le || s == n_start || n == 0 || n > UINT32_MAX)
            goto slow;

        if (t < prev_t && !unsorted) {
            rl_set_err(err, err_len,
                       "%s:%zu: time %llu is earlier than the line before (%llu); traces must be "
                       "sorted by t_ns (sim --unsorted takes times that go back)",
                       path, line_no, (unsigned long long)t, (unsigned long long)prev_t);
            rc = -1;
            break;
        }
        prev_t = t;
        struct pending_key *pk = &batch[batched++];
        pk->key = key;
        pk->len = key_len;
        pk->line_no = line_no;
        /* Runs of one key (and one-key traces) skip the hash and the lookup. */
        pk->repeat =
            prev_key != NULL && key_len == prev_key_len && memcmp(key, prev_key, key_len) == 0;
        if (!pk->repeat) {
            pk->hash = rl_key_hash(key, key_len);
            rl_key_table_prefetch(&kt, pk->hash);
        }
        prev_key = key;
        prev_key_len = key_len;
        out->attempts[out->len++] = (struct rl_attempt){.t_ns = t, .key = 0, .n = (uint32_t)n};
        p = next;
        continue;
    slow:
        if (!diagnose_line(path, line_no, p, (size_t)(le - p), err, err_len))
            rl_set_err(err, err_len, "%s:%zu: malformed line (expected t_ns,key,n)", path, line_no);
        rc = -1;
        break;
    }
    if (rc == 0)
        out->key_names = rl_key_table_take_names(&kt, &out->key_count);
    rl_key_table_free(&kt);
    return rc;
}

/* Takes the last field off [p, *le): its text in [*field, *le) and *le
 * moved back to its comma. False when the line has no comma left. */
static bool take_last_field(const char *p, const char **le, const char **field)
{
    const char *comma = *le;
    while (comma > p && comma[-1] != ',')
        comma--;
    if (comma == p)
        return false;
    *field = comma;
    *le = comma - 1;
    return true;
}

/* A trace with max_wait_ns (and maybe cancel_ns): each line's last fields
 * are taken off into their arrays, and the three fields left go through
 * parse_body, line for line, so every other rule and message is the plain
 * reader's. A cancel time before its own attempt's is refused here. */
static int parse_body_wait(const char *path, const char *p, const char *end, bool unsorted,
                           bool with_cancel, struct rl_trace *out, char *err, size_t err_len)
{
    size_t lines = count_lines(p, end);
    char *stripped = malloc((size_t)(end - p) + 1);
    uint64_t *waits = malloc((lines ? lines : 1) * sizeof *waits);
    uint64_t *cancels = with_cancel ? malloc((lines ? lines : 1) * sizeof *cancels) : NULL;
    if (stripped == NULL || waits == NULL || (with_cancel && cancels == NULL)) {
        free(stripped);
        free(waits);
        free(cancels);
        rl_set_err(err, err_len, "%s: out of memory", path);
        return -1;
    }
    char *w = stripped;
    size_t line_no = 2, count = 0;
    int rc = 0;
    const char *expected =
        with_cancel ? "5 (t_ns,key,n,max_wait_ns,cancel_ns)" : "4 (t_ns,key,n,max_wait_ns)";
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        const char *le = nl ? nl : end;
        if (le > p && le[-1] == '\r')
            le--;
        uint64_t wait = RL_TRACE_WAIT_DEFAULT, cancel = RL_TRACE_NO_CANCEL;
        /* the fields as [wait_at, wait_end) and [cancel_at, le); what is
         * left, [p, field_end), goes to parse_body */
        const char *field_end = le, *wait_at = le, *wait_end = le, *cancel_at = le;
        char q[RL_QUOTE_LEN];
        if (le > p) { /* a blank line stays blank, for parse_body's message */
            bool enough = !with_cancel || take_last_field(p, &field_end, &cancel_at);
            wait_end = field_end;
            if (!enough || !take_last_field(p, &field_end, &wait_at)) {
                rl_set_err(err, err_len, "%s:%zu: too few fields: expected %s", path, line_no,
                           expected);
                rc = -1;
                break;
            }
        }
        if (le > p && wait_at < wait_end &&
            (parse_u64(wait_at, (size_t)(wait_end - wait_at), UINT64_MAX, &wait) != NUM_OK ||
             wait > RL_TRACE_MAX_WAIT_LIMIT_NS)) {
            rl_set_err(err, err_len,
                       "%s:%zu: max wait '%s' is not ns from 0 to a day (%llu), nor empty "
                       "(the run's --max-wait)",
                       path, line_no,
                       rl_quote_field(q, sizeof q, wait_at, (size_t)(wait_end - wait_at)),
                       (unsigned long long)RL_TRACE_MAX_WAIT_LIMIT_NS);
            rc = -1;
            break;
        }
        if (with_cancel && le > p && cancel_at < le &&
            parse_u64(cancel_at, (size_t)(le - cancel_at), UINT64_MAX - 1, &cancel) != NUM_OK) {
            rl_set_err(err, err_len,
                       "%s:%zu: cancel time '%s' is not ns on the trace's time base, nor empty "
                       "(not cancelled)",
                       path, line_no,
                       rl_quote_field(q, sizeof q, cancel_at, (size_t)(le - cancel_at)));
            rc = -1;
            break;
        }
        memcpy(w, p, (size_t)(field_end - p));
        w += field_end - p;
        *w++ = '\n';
        if (with_cancel)
            cancels[count] = cancel;
        waits[count++] = wait;
        line_no++;
        p = next;
    }
    if (rc == 0)
        rc = parse_body(path, stripped, w, unsorted, out, err, err_len);
    free(stripped);
    for (size_t i = 0; rc == 0 && with_cancel && i < out->len; i++)
        if (cancels[i] != RL_TRACE_NO_CANCEL && cancels[i] < out->attempts[i].t_ns) {
            rl_set_err(err, err_len,
                       "%s:%zu: cancel time %llu is before the attempt (%llu): a reservation "
                       "is cancelled after it is made",
                       path, i + 2, (unsigned long long)cancels[i],
                       (unsigned long long)out->attempts[i].t_ns);
            rc = -1;
        }
    if (rc == 0 && out->len == count) {
        out->max_wait_ns = waits;
        out->cancel_ns = cancels;
    } else {
        free(waits);
        free(cancels);
    }
    return rc;
}

int rl_trace_read_csv(const char *path, struct rl_trace *out, char *err, size_t err_len)
{
    return rl_trace_read_csv_order(path, false, out, err, err_len);
}

int rl_trace_read_csv_order(const char *path, bool unsorted, struct rl_trace *out, char *err,
                            size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_file_bytes fb;
    if (rl_file_bytes_load(path, &fb, err, err_len) != 0)
        return -1;
    const char *p = rl_file_bytes_skip_bom(fb.data, fb.len), *end = fb.data + fb.len;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    if (le > p && le[-1] == '\r')
        le--;
    const size_t header_len = sizeof(RL_TRACE_CSV_HEADER) - 1;
    const size_t wait_header_len = sizeof(RL_TRACE_CSV_HEADER_WAIT) - 1;
    const size_t cancel_header_len = sizeof(RL_TRACE_CSV_HEADER_CANCEL) - 1;
    int rc = 0;
    if ((size_t)(le - p) == wait_header_len &&
        memcmp(p, RL_TRACE_CSV_HEADER_WAIT, wait_header_len) == 0) {
        rc = parse_body_wait(path, nl ? nl + 1 : end, end, unsorted, false, out, err, err_len);
    } else if ((size_t)(le - p) == cancel_header_len &&
               memcmp(p, RL_TRACE_CSV_HEADER_CANCEL, cancel_header_len) == 0) {
        rc = parse_body_wait(path, nl ? nl + 1 : end, end, unsorted, true, out, err, err_len);
    } else if ((size_t)(le - p) != header_len || memcmp(p, RL_TRACE_CSV_HEADER, header_len) != 0) {
        char q[RL_QUOTE_LEN];
        if (fb.len == 0)
            rl_set_err(err, err_len,
                       "%s:1: header must be '" RL_TRACE_CSV_HEADER "' (the file is empty)", path);
        else
            rl_set_err(err, err_len, "%s:1: header must be '" RL_TRACE_CSV_HEADER "', found '%s'",
                       path, rl_quote_field(q, sizeof q, p, (size_t)(le - p)));
        rc = -1;
    } else {
        rc = parse_body(path, nl ? nl + 1 : end, end, unsorted, out, err, err_len);
    }
    rl_file_bytes_free(&fb);
    if (rc != 0)
        rl_trace_free(out);
    return rc;
}
