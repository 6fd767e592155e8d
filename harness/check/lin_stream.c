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

/* A decimal u64 field; false when empty, not digits or too long. */
static bool field_u64(const char *f, size_t len, uint64_t *out)
{
    if (len == 0 || len > 19) /* 19 digits never overflow */
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(f[i] - '0');
        if (d > 9)
            return false;
        v = v * 10 + d;
    }
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
    const char *f[7];
    size_t fl[7], n = 0, start = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || line[i] == ',') {
            if (n == 7)
                return 1;
            f[n] = line + start;
            fl[n++] = i - start;
            start = i + 1;
        }
    uint64_t thread, cost, call, ret, answer, witness;
    if (n != 7 || !field_u64(f[0], fl[0], &thread) || thread >= MAX_THREADS ||
        !field_u64(f[2], fl[2], &cost) || cost == 0 || !field_u64(f[3], fl[3], &call) ||
        !field_u64(f[4], fl[4], &ret) || !field_u64(f[5], fl[5], &answer) || answer > 1 ||
        !field_u64(f[6], fl[6], &witness) || ret < call || witness < call || witness > ret ||
        rl_key_problem(f[1], fl[1]) != NULL)
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
    int64_t id = rl_key_table_intern(&r->keys, f[1], fl[1], rl_key_hash(f[1], fl[1]), &too_many);
    if (id < 0)
        return too_many ? 1 : -1;
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
