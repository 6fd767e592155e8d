/* trace_read.c — reading a trace CSV (trace.h), fast and strict.
 *
 * The reader maps the file and walks it once with a hand-written parser,
 * because traces of 10^7 lines are normal and sscanf per field costs seconds
 * where this costs a fraction of one. Any unexpected byte sends the line to a
 * slow path that only exists to say precisely what is wrong. Keys are
 * interned into dense ids by an open-addressing table.
 */
#include "trace.h"
#include "harness/io/file_bytes.h"

#include "harness/io/errmsg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- key interning -------------------------------------------------------- */

/* Open addressing with linear probing, at most half full. With 10^6 keys the
 * table is far larger than the caches, so a slot carries what a lookup needs
 * (hash, length, the first 12 bytes of the key) and a short key is found
 * with one cache miss rather than three; the parser also prefetches each
 * slot a batch of lines before it is looked up (parse_body). */
#define PREFIX_LEN 12

struct slot {
    char prefix[PREFIX_LEN]; /* the key's first bytes, zero padded */
    uint32_t hash;           /* hash32(key): picks the slot, and settles most misses */
    uint32_t len;
    uint32_t id_plus1; /* 0: empty */
};

struct intern {
    struct slot *slots;
    size_t mask;
    size_t names_cap;
    struct rl_trace *trace;
};

/* 32 bits are enough: the table never has more than 2^32 slots, and storing
 * the hash whole in the slot lets the table grow without reading a name. */
static uint32_t hash32(const char *s, size_t len)
{
    uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a … */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001B3ull;
    /* … then a murmur3 finalizer: FNV's low bits are weak for keys that
     * differ only in their last digit ("k1", "k2"), and the low bits pick
     * the slot. */
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static int intern_init(struct intern *in, struct rl_trace *trace)
{
    memset(in, 0, sizeof *in);
    in->trace = trace;
    in->mask = 1023;
    in->slots = calloc(in->mask + 1, sizeof(struct slot));
    return in->slots ? 0 : -1;
}

static void intern_free(struct intern *in)
{
    free(in->slots);
}

static void intern_prefetch(const struct intern *in, uint32_t hash)
{
    __builtin_prefetch(&in->slots[hash & in->mask]);
}

static int intern_grow_table(struct intern *in)
{
    size_t size = (in->mask + 1) * 2;
    struct slot *slots = calloc(size, sizeof(struct slot));
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i <= in->mask; i++) {
        const struct slot *old = &in->slots[i];
        if (old->id_plus1 == 0)
            continue;
        size_t j = old->hash & (size - 1);
        while (slots[j].id_plus1 != 0)
            j = (j + 1) & (size - 1);
        slots[j] = *old;
    }
    free(in->slots);
    in->slots = slots;
    in->mask = size - 1;
    return 0;
}

/* Returns the id of the key s[0..len) whose hash32 is hash, adding it if
 * new; -1 on ENOMEM, or with *too_many set past 2^31 keys (the table would
 * outgrow 32-bit hashes) or for a key over 4 GB. */
static int64_t intern_key(struct intern *in, const char *s, size_t len, uint32_t hash,
                          bool *too_many)
{
    struct rl_trace *trace = in->trace;
    if (len > UINT32_MAX) {
        *too_many = true;
        return -1;
    }
    char prefix[PREFIX_LEN] = {0};
    memcpy(prefix, s, len < PREFIX_LEN ? len : PREFIX_LEN);
    size_t i = hash & in->mask;
    for (;; i = (i + 1) & in->mask) {
        const struct slot *slot = &in->slots[i];
        if (slot->id_plus1 == 0)
            break;
        if (slot->hash == hash && slot->len == len &&
            memcmp(slot->prefix, prefix, PREFIX_LEN) == 0 &&
            (len <= PREFIX_LEN || memcmp(trace->key_names[slot->id_plus1 - 1] + PREFIX_LEN,
                                         s + PREFIX_LEN, len - PREFIX_LEN) == 0))
            return slot->id_plus1 - 1;
    }
    if (trace->key_count == (1u << 31)) {
        *too_many = true;
        return -1;
    }
    if (trace->key_count == in->names_cap) {
        size_t cap = in->names_cap ? in->names_cap * 2 : 64;
        char **names = realloc(trace->key_names, cap * sizeof(char *));
        if (names == NULL)
            return -1;
        trace->key_names = names;
        in->names_cap = cap;
    }
    char *name = malloc(len + 1);
    if (name == NULL)
        return -1;
    memcpy(name, s, len);
    name[len] = '\0';
    uint32_t id = trace->key_count++;
    trace->key_names[id] = name;
    struct slot *slot = &in->slots[i];
    memcpy(slot->prefix, prefix, PREFIX_LEN);
    slot->hash = hash;
    slot->len = (uint32_t)len;
    slot->id_plus1 = id + 1;
    if ((size_t)trace->key_count * 2 > in->mask + 1 && intern_grow_table(in) != 0)
        return -1;
    return id;
}

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
    char q[48];
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
    if (key_len == 0) {
        rl_set_err(err, err_len,
                   "%s:%zu: key is empty (a key is any non-empty text without commas)", path,
                   line_no);
        return true;
    }
    if (memchr(key, '\0', key_len) != NULL) {
        rl_set_err(err, err_len,
                   "%s:%zu: key contains a NUL byte (a key is any non-empty text without commas)",
                   path, line_no);
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
static int intern_batch(struct intern *in, const struct pending_key *batch, size_t count,
                        uint32_t *prev_id, const char *path, char *err, size_t err_len)
{
    struct rl_attempt *attempts = in->trace->attempts + in->trace->len - count;
    for (size_t j = 0; j < count; j++) {
        if (!batch[j].repeat) {
            bool too_many = false;
            int64_t id = intern_key(in, batch[j].key, batch[j].len, batch[j].hash, &too_many);
            if (id < 0) {
                if (too_many)
                    rl_set_err(err, err_len,
                               "%s:%zu: more than %u distinct keys, or a key over 4 GB", path,
                               batch[j].line_no, 1u << 31);
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
static int parse_body(const char *path, const char *p, const char *end, struct rl_trace *out,
                      char *err, size_t err_len)
{
    struct intern in;
    if (intern_init(&in, out) != 0 || rl_trace_reserve(out, count_lines(p, end)) != 0) {
        intern_free(&in);
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
            rc = intern_batch(&in, batch, batched, &prev_id, path, err, err_len);
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
        while (s < le && *s != ',' && *s != '\0')
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

        if (t < prev_t) {
            rl_set_err(err, err_len,
                       "%s:%zu: time %llu is earlier than the line before (%llu); traces must be "
                       "sorted by t_ns",
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
            pk->hash = hash32(key, key_len);
            intern_prefetch(&in, pk->hash);
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
    intern_free(&in);
    return rc;
}

int rl_trace_read_csv(const char *path, struct rl_trace *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_file_bytes fb;
    if (rl_file_bytes_load(path, &fb, err, err_len) != 0)
        return -1;
    const char *p = fb.data, *end = fb.data + fb.len;
    const char *nl = memchr(p, '\n', fb.len);
    const char *le = nl ? nl : end;
    if (le > p && le[-1] == '\r')
        le--;
    const size_t header_len = sizeof(RL_TRACE_CSV_HEADER) - 1;
    int rc = 0;
    if ((size_t)(le - p) != header_len || memcmp(p, RL_TRACE_CSV_HEADER, header_len) != 0) {
        char q[48];
        if (fb.len == 0)
            rl_set_err(err, err_len,
                       "%s:1: header must be '" RL_TRACE_CSV_HEADER "' (the file is empty)", path);
        else
            rl_set_err(err, err_len, "%s:1: header must be '" RL_TRACE_CSV_HEADER "', found '%s'",
                       path, rl_quote_field(q, sizeof q, p, (size_t)(le - p)));
        rc = -1;
    } else {
        rc = parse_body(path, nl ? nl + 1 : end, end, out, err, err_len);
    }
    rl_file_bytes_free(&fb);
    if (rc != 0)
        rl_trace_free(out);
    return rc;
}
