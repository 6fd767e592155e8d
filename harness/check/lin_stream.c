/* lin_stream.c — witness mode streamed (lin_stream.h): a block reader, a
 * line parser that hands anything unusual to the full reader, and the
 * per-key replay. */
#include "lin_stream.h"

#include "harness/io/key_table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK       (1u << 20)
#define MAX_THREADS 4096u /* more thread ids than this: the full reader */

/* The next line (without its end) in *line, *len: 1, 0 at the end, -1 on a
 * read error or no memory. The buffer grows only for a line longer than it. */
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
            return 1;
        }
        if (s->eof)
            return 0;
        if (s->start > 0) {
            memmove(s->buf, s->buf + s->start, s->end - s->start);
            s->end -= s->start;
            s->start = 0;
        }
        if (s->end == s->cap) {
            char *grown = realloc(s->buf, 2 * s->cap);
            if (grown == NULL)
                return -1;
            s->buf = grown;
            s->cap *= 2;
        }
        ssize_t got = read(s->fd, s->buf + s->end, s->cap - s->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        s->end += (size_t)got;
        s->eof = got == 0;
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
    s->buf = malloc(s->cap);
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

/* A decimal u64 from *p up to the next comma (or end, for the last field),
 * *p moved past the comma; false when empty, not digits or over 19 digits
 * (19 never overflow; longer numbers go to the full reader). */
/* Eight ASCII digits at s as a number, when all eight are digits (SWAR:
 * the nanosecond times are most of a history's bytes). */
static inline bool eight_digits(const char *s, uint64_t *out)
{
    uint64_t x;
    memcpy(&x, s, sizeof x);
    /* every byte 0x30..0x39: high nibble 3, and adding 6 does not carry out */
    if ((x & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
        ((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
        return false;
    x -= 0x3030303030303030ull; /* bytes d0 (first, lowest) .. d7 */
    x = x * 10 + (x >> 8);      /* byte 2i: 10·d2i + d2i+1, pairs of digits */
    x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
        32;
    *out = x;
    return true;
}

__attribute__((always_inline)) static inline bool take_u64(const char **p, const char *end,
                                                           bool last, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0, eight;
    size_t n = 0;
    while (end - s >= 8 && n < 16 && eight_digits(s, &eight)) {
        v = v * 100000000u + eight;
        s += 8;
        n += 8;
    }
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

/* Each key's replay: its sequential limiter and the witness it reached. */
struct key_replay {
    void *state;
    uint64_t at_ns;
};

struct replay {
    struct rl_key_table keys;
    struct key_replay *per_key;
    size_t per_key_cap;
    uint64_t last_call[MAX_THREADS], last_return[MAX_THREADS];
    bool seen[MAX_THREADS];
    uint32_t threads;
    size_t checked_keys; /* ids below this passed rl_key_problem */
};

/* The replay state of key id (new keys get a fresh limiter). NULL on no
 * memory. */
static struct key_replay *key_state(struct replay *r, const struct rl_lin_model *m, int64_t id)
{
    if ((size_t)id >= r->per_key_cap) {
        size_t cap = r->per_key_cap ? 2 * r->per_key_cap : 1024;
        while (cap <= (size_t)id)
            cap *= 2;
        struct key_replay *grown = realloc(r->per_key, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        memset(grown + r->per_key_cap, 0, (cap - r->per_key_cap) * sizeof *grown);
        r->per_key = grown;
        r->per_key_cap = cap;
    }
    struct key_replay *k = &r->per_key[id];
    if (k->state == NULL && (k->state = m->create(m->ctx, 0)) == NULL)
        return NULL;
    return k;
}

/* One line: 0 replayed as recorded, 1 fall back, -1 no memory. */
static int replay_line(struct replay *r, const struct rl_lin_model *m, const char *line, size_t len)
{
    /* one pass over the line: the fields parsed as they are found */
    const char *p = line, *end = line + len;
    uint64_t thread, cost, call, ret, answer, witness;
    if (!take_u64(&p, end, false, &thread) || thread >= MAX_THREADS)
        return 1;
    const char *key = p, *comma = memchr(p, ',', (size_t)(end - p));
    if (comma == NULL)
        return 1;
    size_t key_len = (size_t)(comma - key);
    p = comma + 1;
    if (!take_u64(&p, end, false, &cost) || cost == 0 || !take_u64(&p, end, false, &call) ||
        !take_u64(&p, end, false, &ret) || !take_u64(&p, end, false, &answer) || answer > 1 ||
        !take_u64(&p, end, true, &witness) || ret < call || witness < call || witness > ret)
        return 1;
    /* each thread in call order, one call at a time */
    if (r->seen[thread] && (call < r->last_call[thread] || call < r->last_return[thread]))
        return 1;
    if (!r->seen[thread]) {
        r->seen[thread] = true;
        r->threads++;
    }
    r->last_call[thread] = call;
    r->last_return[thread] = ret;
    bool too_many = false;
    int64_t id = rl_key_table_intern(&r->keys, key, key_len, rl_key_hash(key, key_len), &too_many);
    if (id < 0)
        return too_many ? 1 : -1;
    /* a key seen before passed this when it was new */
    if ((uint32_t)id + 1 == r->keys.count && (size_t)id >= r->checked_keys) {
        if (rl_key_problem(key, key_len) != NULL)
            return 1;
        r->checked_keys = (size_t)id + 1;
    }
    struct key_replay *k = key_state(r, m, id);
    if (k == NULL)
        return -1;
    if (witness < k->at_ns)
        return 1;
    k->at_ns = witness;
    return m->step(m->ctx, k->state, witness, (uint32_t)id, cost) == (answer == 1) ? 0 : 1;
}

int rl_lin_stream_run(struct rl_lin_stream *s, const struct rl_lin_model *model,
                      struct rl_lin_stream_result *out)
{
    memset(out, 0, sizeof *out);
    struct replay *r = calloc(1, sizeof *r);
    if (r == NULL || rl_key_table_init(&r->keys) != 0) {
        free(r);
        return -1;
    }
    const char *line;
    size_t len;
    int got, rc = 0;
    while (rc == 0 && (got = next_line(s, &line, &len)) == 1) {
        if (len == 0)
            continue;
        rc = replay_line(r, model, line, len);
        out->ops++;
    }
    if (rc == 0 && got < 0)
        rc = -1;
    out->keys = (uint32_t)r->keys.count;
    out->threads = r->threads;
    for (size_t i = 0; i < r->per_key_cap; i++)
        if (r->per_key[i].state)
            model->destroy(model->ctx, r->per_key[i].state);
    free(r->per_key);
    rl_key_table_free(&r->keys);
    free(r);
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
