/* shape_check.c — the shaping checker: a log of (arrival, release) pairs
 * judged against the curve B + L·u/I and the ideal greedy schedule
 * (shape_check.h), and the reader of such logs. */
#include "shape_check.h"

#include "harness/io/csv_read.h"
#include "harness/io/errmsg.h"
#include "harness/io/file_bytes.h"
#include "harness/io/key_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* ---- reading ------------------------------------------------------------- */

#define SHAPED_MAX_FIELDS 16
#define SHAPED_RECORD     (64 * 1024)

/* Decimal digits only, into 64 bits. */
static bool parse_u64(const char *s, uint64_t *out)
{
    if (*s == '\0')
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

struct columns {
    int t, key, n, admitted, release, cancel; /* cancel: -1 when absent */
};

static int find_columns(char **fields, int count, const char *path, struct columns *c, char *err,
                        size_t err_len)
{
    c->t = rl_csv_column(fields, count, "t_ns");
    c->key = rl_csv_column(fields, count, "key");
    c->n = rl_csv_column(fields, count, "n");
    c->admitted = rl_csv_column(fields, count, "admitted");
    c->release = rl_csv_column(fields, count, "release_ns");
    c->cancel = rl_csv_column(fields, count, "cancel_ns");
    if (c->t < 0 || c->key < 0 || c->n < 0 || c->admitted < 0) {
        rl_set_err(err, err_len, "%s:1: the header must name t_ns, key, n, admitted and release_ns",
                   path);
        return -1;
    }
    if (c->release < 0) {
        rl_set_err(err, err_len,
                   "%s: no release_ns column: --promise shape judges a shaped log (sim with a "
                   "shaper or --max-wait writes one)",
                   path);
        return -1;
    }
    return 0;
}

/* One record into ev; -1 with the line's reason in err. */
static int parse_record(char **fields, int count, const struct columns *c, size_t line,
                        const char *path, struct rl_key_table *keys, struct rl_shaped_event *ev,
                        char *err, size_t err_len)
{
    int need = c->t;
    const int all[] = {c->key, c->n, c->admitted, c->release, c->cancel};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        need = all[i] > need ? all[i] : need;
    if (count <= need) {
        rl_set_err(err, err_len, "%s:%zu: %d fields, the header needs %d", path, line, count,
                   need + 1);
        return -1;
    }
    uint64_t n, admitted, release = 0;
    const char *release_text = fields[c->release];
    if (!parse_u64(fields[c->t], &ev->t_ns) || !parse_u64(fields[c->n], &n) || n == 0 ||
        n > UINT32_MAX || !parse_u64(fields[c->admitted], &admitted) || admitted > 1 ||
        (*release_text && !parse_u64(release_text, &release))) {
        rl_set_err(err, err_len,
                   "%s:%zu: t_ns and release_ns must be decimal ns, n 1..2^32-1 and admitted 0 "
                   "or 1",
                   path, line);
        return -1;
    }
    if ((admitted == 1) != (*release_text != '\0')) {
        rl_set_err(err, err_len, "%s:%zu: %s", path, line,
                   admitted ? "an admit without a release_ns"
                            : "a reject with a release_ns (a reject has none)");
        return -1;
    }
    ev->cancel_ns = 0;
    const char *cancel_text = c->cancel >= 0 ? fields[c->cancel] : "";
    ev->cancelled = *cancel_text != '\0';
    if (ev->cancelled) {
        if (!parse_u64(cancel_text, &ev->cancel_ns)) {
            rl_set_err(err, err_len, "%s:%zu: cancel_ns must be decimal ns or empty", path, line);
            return -1;
        }
        if (admitted != 1 || ev->cancel_ns >= release) {
            rl_set_err(err, err_len, "%s:%zu: %s", path, line,
                       admitted != 1 ? "cancels a reject, which holds no reservation"
                                     : "cancels a reservation at or after its release: nothing "
                                       "was left to cancel");
            return -1;
        }
    }
    const char *key = fields[c->key];
    size_t key_len = strlen(key);
    const char *problem = rl_key_problem(key, key_len);
    if (problem) {
        rl_set_err(err, err_len, "%s:%zu: key %s", path, line, problem);
        return -1;
    }
    bool too_many = false;
    int64_t id = rl_key_table_intern(keys, key, key_len, rl_key_hash(key, key_len), &too_many);
    if (id < 0) {
        rl_set_err(err, err_len, "%s:%zu: %s", path, line,
                   too_many ? "too many keys" : strerror(ENOMEM));
        return -1;
    }
    ev->key = (uint32_t)id;
    ev->n = (uint32_t)n;
    ev->admitted = admitted == 1;
    ev->release_ns = release;
    return 0;
}

static int read_records(const char *path, struct rl_csv_reader *r, struct rl_shaped_log *out,
                        struct rl_key_table *keys, char *store, char *err, size_t err_len)
{
    char *fields[SHAPED_MAX_FIELDS];
    int count = rl_csv_next(r, store, SHAPED_RECORD, fields, SHAPED_MAX_FIELDS, err, err_len);
    if (count <= 0) {
        if (count == 0)
            rl_set_err(err, err_len, "%s: empty file: no header", path);
        return -1;
    }
    struct columns c;
    if (find_columns(fields, count, path, &c, err, err_len) != 0)
        return -1;
    size_t cap = 0;
    for (;;) {
        size_t line = r->line;
        count = rl_csv_next(r, store, SHAPED_RECORD, fields, SHAPED_MAX_FIELDS, err, err_len);
        if (count == 0)
            return 0;
        if (count < 0)
            return -1;
        if (out->len == cap) {
            cap = cap ? 2 * cap : 1024;
            struct rl_shaped_event *grown = realloc(out->events, cap * sizeof *grown);
            if (grown == NULL) {
                rl_set_err(err, err_len, "%s: %s", path, strerror(ENOMEM));
                return -1;
            }
            out->events = grown;
        }
        if (parse_record(fields, count, &c, line, path, keys, &out->events[out->len], err,
                         err_len) != 0)
            return -1;
        out->len++;
    }
}

int rl_shaped_log_read_csv(const char *path, struct rl_shaped_log *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_file_bytes fb;
    if (rl_file_bytes_load(path, &fb, err, err_len) != 0)
        return -1;
    struct rl_key_table keys;
    char *store = malloc(SHAPED_RECORD);
    if (store == NULL || rl_key_table_init(&keys) != 0) {
        free(store);
        rl_file_bytes_free(&fb);
        rl_set_err(err, err_len, "%s: %s", path, strerror(ENOMEM));
        return -1;
    }
    struct rl_csv_reader r;
    rl_csv_reader_init(&r, fb.data, fb.len);
    int rc = read_records(path, &r, out, &keys, store, err, err_len);
    out->key_names = rl_key_table_take_names(&keys, &out->key_count);
    rl_key_table_free(&keys);
    free(store);
    rl_file_bytes_free(&fb);
    if (rc != 0)
        rl_shaped_log_free(out);
    return rc;
}

void rl_shaped_log_free(struct rl_shaped_log *log)
{
    for (uint32_t k = 0; log->key_names && k < log->key_count; k++)
        free(log->key_names[k]);
    free(log->key_names);
    free(log->events);
    memset(log, 0, sizeof *log);
}

/* ---- judging ------------------------------------------------------------- */

/* Sorting keeps file order among equals: the index breaks ties. */
struct ordered {
    uint64_t at;
    uint32_t key;
    size_t index;
};

static int by_key_then_time(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Everything one key's pass needs. */
struct judge {
    const struct rl_shape_params *p;
    uint64_t per_ns, per_token; /* ticks: one ns is per_ns, T = I/L is per_token */
    struct rl_shape_result *out;
    uint64_t *late; /* release − ideal per admit, for the percentiles */
    size_t late_len;
    struct ordered *by_release; /* scratch: one key's admits by release */
};

static bool cancelled(const struct rl_shaped_event *e)
{
    return e->cancelled;
}

/* The ideal TAT after ev[0, upto) without the reservations cancelled at
 * or before `at`: GCRA again from a full bucket (shape_check.h, cancel). */
static u128 recomputed_tat(const struct judge *j, const struct rl_shaped_event *ev, size_t upto,
                           uint64_t at)
{
    u128 tat = 0;
    for (size_t i = 0; i < upto; i++) {
        const struct rl_shaped_event *e = &ev[i];
        if (!e->admitted || (cancelled(e) && e->cancel_ns <= at))
            continue;
        u128 now = (u128)e->t_ns * j->per_ns;
        tat = (now > tat ? now : tat) + (u128)e->n * j->per_token;
    }
    return tat;
}

/* A key's cancellations by time, then position (as sim makes them). */ static int
by_cancel(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The arrival pass of one key (events in arrival order): causality, delay,
 * the ideal schedule and its distances, spurious rejects, FIFO, and the
 * schedule recomputed at each cancellation. */
static void arrival_pass(struct judge *j, const struct rl_shaped_event *ev, size_t len)
{
    const struct rl_shape_params *p = j->p;
    struct rl_shape_result *out = j->out;
    u128 tat = 0; /* the ideal bucket is full at t = 0 */
    u128 capacity = (u128)p->burst * j->per_token;
    uint64_t done_max = 0, group_max = 0, group_at = 0;
    bool group_any = false, done_any = false;
    size_t cancels = 0, next_cancel = 0;
    for (size_t i = 0; i < len; i++)
        if (cancelled(&ev[i]))
            j->by_release[cancels++] = (struct ordered){ev[i].cancel_ns, 0, i};
    qsort(j->by_release, cancels, sizeof *j->by_release, by_cancel);
    out->cancellations += cancels;
    bool after_cancel = false; /* the next arrival reports against a recomputed schedule */
    double last_late = 0;      /* release − ideal, ns, of the latest admit that went */
    for (size_t i = 0; i < len; i++) {
        const struct rl_shaped_event *e = &ev[i];
        /* cancellations before this arrival (or at its time, of an earlier
         * one) recompute the ideal as sim makes them */
        while (next_cancel < cancels && (j->by_release[next_cancel].at < e->t_ns ||
                                         (j->by_release[next_cancel].at == e->t_ns &&
                                          j->by_release[next_cancel].index < i))) {
            tat = recomputed_tat(j, ev, i, j->by_release[next_cancel].at);
            next_cancel++;
            after_cancel = true;
        }
        out->attempts++;
        u128 now = (u128)e->t_ns * j->per_ns;
        u128 cost = (u128)e->n * j->per_token;
        bool fits = e->n <= p->burst;
        u128 lacking = tat > now ? tat - now : 0;
        u128 may_lack = fits ? capacity - cost : 0;
        u128 wait_ticks = lacking > may_lack ? lacking - may_lack : 0;
        u128 wait_ns = wait_ticks / j->per_ns + (wait_ticks % j->per_ns != 0);
        bool in_time = !p->max_wait_set || wait_ns <= p->max_wait_ns;
        if (!e->admitted) {
            out->rejects++;
            out->spurious_rejects += fits && in_time;
            continue;
        }
        out->admits++;
        tat = (now > tat ? now : tat) + cost;
        u128 ideal = (u128)e->t_ns + wait_ns;
        double late = (double)(u128)e->release_ns - (double)ideal;
        if (after_cancel && fits) {
            /* what the cancellation changed: this release's distance from
             * the recomputed ideal beyond the distance the shaper already
             * kept before it (a lag of its own is not the cancellation's),
             * in tokens = ns · L / I */
            double tokens = (late - last_late) * (double)p->limit / (double)p->interval_ns;
            if (tokens < 0)
                out->cancel_tokens_gained -= tokens;
            else
                out->cancel_tokens_lost += tokens;
            after_cancel = false;
        }
        if (cancelled(e))
            continue; /* never went: no release to judge */
        if (fits)
            last_late = late;
        if (e->release_ns < e->t_ns)
            out->noncausal++;
        else {
            uint64_t delay = e->release_ns - e->t_ns;
            out->delay_max_ns = delay > out->delay_max_ns ? delay : out->delay_max_ns;
            out->over_wait += p->max_wait_set && delay > p->max_wait_ns;
        }
        if (fits) {
            if ((u128)e->release_ns < ideal)
                out->early++;
            else {
                u128 late = (u128)e->release_ns - ideal;
                j->late[j->late_len++] = late > UINT64_MAX ? UINT64_MAX : (uint64_t)late;
            }
        }
        /* FIFO: not before any release of an arrival strictly earlier */
        if (group_any && e->t_ns != group_at) {
            done_max = done_any && done_max > group_max ? done_max : group_max;
            done_any = true;
            group_any = false;
        }
        if (done_any && e->release_ns < done_max)
            out->fifo_inversions++;
        group_max = group_any && group_max > e->release_ns ? group_max : e->release_ns;
        group_at = e->t_ns;
        group_any = true;
    }
}

/* The curve over one key's admits in release order (shape_check.h). */
static void curve_pass(struct judge *j, const struct rl_shaped_event *ev, size_t len)
{
    size_t m = 0;
    for (size_t i = 0; i < len; i++)
        if (ev[i].admitted && !cancelled(&ev[i]))
            j->by_release[m++] = (struct ordered){ev[i].release_ns, 0, i};
    qsort(j->by_release, m, sizeof *j->by_release, by_key_then_time);
    const i128 interval = (i128)j->p->interval_ns, limit = (i128)j->p->limit;
    const i128 bound = (i128)j->p->burst * interval + limit;
    i128 prefix = 0, lowest = 0;
    for (size_t k = 0; k < m; k++) {
        const struct rl_shaped_event *e = &ev[j->by_release[k].index];
        i128 start = prefix * interval - limit * (i128)e->release_ns;
        lowest = k == 0 || start < lowest ? start : lowest;
        prefix += e->n;
        i128 span = prefix * interval - limit * (i128)e->release_ns - lowest;
        if (span >= bound) {
            j->out->curve_violations++;
            double excess = (double)(span - (bound - limit)) / (double)interval;
            if (excess > j->out->worst_excess)
                j->out->worst_excess = excess;
        }
    }
}

static uint64_t rank(const uint64_t *sorted, size_t len, unsigned percent)
{
    if (len == 0)
        return 0;
    size_t r = (len * percent + 99) / 100; /* nearest rank, from 1 */
    return sorted[r ? r - 1 : 0];
}

int rl_shape_check(struct rl_shaped_log *log, const struct rl_shape_params *params,
                   struct rl_shape_result *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (params->limit == 0 || params->interval_ns == 0 || params->burst == 0 ||
        params->limit > ((uint64_t)1 << 40) || params->burst > UINT32_MAX) {
        rl_set_err(err, err_len,
                   "shape check: L, I and B must be at least 1, L at most 2^40 and "
                   "B at most 2^32-1");
        return -1;
    }
    size_t len = log->len;
    struct ordered *order = malloc((len ? len : 1) * sizeof *order);
    struct rl_shaped_event *sorted = malloc((len ? len : 1) * sizeof *sorted);
    struct judge j = {.p = params, .out = out};
    j.late = malloc((len ? len : 1) * sizeof *j.late);
    j.by_release = malloc((len ? len : 1) * sizeof *j.by_release);
    if (order == NULL || sorted == NULL || j.late == NULL || j.by_release == NULL) {
        free(order);
        free(sorted);
        free(j.late);
        free(j.by_release);
        rl_set_err(err, err_len, "shape check: %zu events: %s", len, strerror(ENOMEM));
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        order[i] = (struct ordered){log->events[i].t_ns, log->events[i].key, i};
    qsort(order, len, sizeof *order, by_key_then_time);
    for (size_t i = 0; i < len; i++)
        sorted[i] = log->events[order[i].index];
    memcpy(log->events, sorted, len * sizeof *sorted);
    free(sorted);
    free(order);

    uint64_t g = gcd_u64(params->limit, params->interval_ns);
    j.per_ns = params->limit / g;
    j.per_token = params->interval_ns / g;
    for (size_t start = 0; start < len;) {
        size_t end = start;
        while (end < len && log->events[end].key == log->events[start].key)
            end++;
        arrival_pass(&j, log->events + start, end - start);
        curve_pass(&j, log->events + start, end - start);
        start = end;
    }
    qsort(j.late, j.late_len, sizeof *j.late, by_u64);
    out->late_p50_ns = rank(j.late, j.late_len, 50);
    out->late_p99_ns = rank(j.late, j.late_len, 99);
    out->late_max_ns = j.late_len ? j.late[j.late_len - 1] : 0;
    free(j.late);
    free(j.by_release);
    return 0;
}
