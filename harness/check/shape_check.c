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

/* The rate in force from start_ns on, as allowance per ns scaled by the
 * judge's D (shape_check.h, rate changes): L·D/I. */
struct piece {
    uint64_t start_ns;
    u128 rate;
};

/* Everything one key's pass needs. */
struct judge {
    const struct rl_shape_params *p;
    uint64_t per_ns, per_token; /* ticks: one ns is per_ns, T = I/L is per_token */
    struct rl_shape_result *out;
    uint64_t *late; /* release − ideal per admit, for the percentiles */
    size_t late_len;
    struct ordered *by_release; /* scratch: one key's admits by release */
    /* The allowance R(t) = ∫ rate, in units of 1/D of a cost: one piece
     * (L·t, D = I) without rate changes; with them, per_token is D and
     * ticks of time are R(t) (piecewise). */
    struct piece pieces[RL_MAX_RATE_CHANGES + 1];
    size_t piece_count;
    bool piecewise;
    uint64_t d;   /* D */
    bool *broken; /* curve_pass: which release (by release order) broke the curve */
};

/* R(t): the allowance from 0 to t ns, ×D. */
static u128 allowance(const struct judge *j, u128 t)
{
    u128 sum = 0;
    for (size_t k = 0; k < j->piece_count && j->pieces[k].start_ns < t; k++) {
        u128 end =
            k + 1 < j->piece_count && j->pieces[k + 1].start_ns < t ? j->pieces[k + 1].start_ns : t;
        sum += j->pieces[k].rate * (end - j->pieces[k].start_ns);
    }
    return sum;
}

/* The first whole ns t with R(t) ≥ v: R's inverse, rounded up. */
static u128 allowance_time(const struct judge *j, u128 v)
{
    size_t k = j->piece_count - 1;
    u128 base = allowance(j, j->pieces[k].start_ns);
    while (k > 0 && base > v)
        base = allowance(j, j->pieces[--k].start_ns);
    u128 over = v - base, rate = j->pieces[k].rate;
    return j->pieces[k].start_ns + over / rate + (over % rate != 0);
}

/* A time in ticks: ns·L' without rate changes, R(t) with them. */
static u128 ticks_at(const struct judge *j, uint64_t t_ns)
{
    return j->piecewise ? allowance(j, t_ns) : (u128)t_ns * j->per_ns;
}

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
        u128 now = ticks_at(j, e->t_ns);
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
        u128 now = ticks_at(j, e->t_ns);
        u128 cost = (u128)e->n * j->per_token;
        bool fits = e->n <= p->burst;
        u128 lacking = tat > now ? tat - now : 0;
        u128 may_lack = fits ? capacity - cost : 0;
        u128 wait_ticks = lacking > may_lack ? lacking - may_lack : 0;
        u128 wait_ns = !j->piecewise
                           ? wait_ticks / j->per_ns + (wait_ticks % j->per_ns != 0)
                           : allowance_time(j, now + wait_ticks) - e->t_ns; /* the rate then */
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

/* The curve over one key's admits in release order (shape_check.h), the
 * releases sorted into j->by_release (m of them): with prefix costs P and
 * the allowance R, a release r_j breaks it when for some r_i ≤ r_j
 * P_j·D − P_{i−1}·D > B·D + R(r_j + 1) − R(r_i) (the ns of rounding
 * allowed at the rate then); without rate changes R(t) = L·t, D = I.
 * Marks j->broken[k]; counts into out when count is set. */
static void curve_pass(struct judge *j, const struct rl_shaped_event *ev, size_t m, bool count)
{
    const i128 unit = (i128)j->d, bound = (i128)j->p->burst * unit;
    i128 prefix = 0, lowest = 0;
    for (size_t k = 0; k < m; k++) {
        const struct rl_shaped_event *e = &ev[j->by_release[k].index];
        i128 here = (i128)allowance(j, e->release_ns);
        i128 start = prefix * unit - here;
        lowest = k == 0 || start < lowest ? start : lowest;
        prefix += e->n;
        i128 rounding = (i128)allowance(j, (u128)e->release_ns + 1) - here;
        i128 span = prefix * unit - here - lowest; /* cost beyond R over the span, ×D */
        j->broken[k] = span >= bound + rounding;
        if (j->broken[k] && count) {
            j->out->curve_violations++;
            double excess = (double)(span - bound) / (double)unit;
            if (excess > j->out->worst_excess)
                j->out->worst_excess = excess;
        }
    }
}

/* The pieces for params' rates, leaving out change `skip` (SIZE_MAX: none),
 * with D the lcm of every interval: piece k's rate is L_k·D/I_k. */
static void set_pieces(struct judge *j, uint64_t d, size_t skip)
{
    const struct rl_shape_params *p = j->p;
    j->pieces[0] = (struct piece){0, (u128)p->limit * (d / p->interval_ns)};
    j->piece_count = 1;
    for (size_t k = 0; k < p->rate_count; k++)
        if (k != skip)
            j->pieces[j->piece_count++] = (struct piece){
                p->rates[k].at_ns, (u128)p->rates[k].limit * (d / p->rates[k].interval_ns)};
}

/* The releases after each change that broke the curve and would not have
 * without that change (its old rate kept): the promise kept at the old
 * rate, pending reservations released at it. The pieces are restored. */
static void old_rate_pass(struct judge *j, const struct rl_shaped_event *ev, size_t m, uint64_t d,
                          bool *full)
{
    memcpy(full, j->broken, m * sizeof *full);
    for (size_t c = 0; c < j->p->rate_count; c++) {
        uint64_t from = j->p->rates[c].at_ns;
        uint64_t to = c + 1 < j->p->rate_count ? j->p->rates[c + 1].at_ns : UINT64_MAX;
        set_pieces(j, d, c);
        curve_pass(j, ev, m, false);
        for (size_t k = 0; k < m; k++) {
            uint64_t r = ev[j->by_release[k].index].release_ns;
            j->out->old_rate_releases += full[k] && !j->broken[k] && r >= from && r < to;
        }
    }
    set_pieces(j, d, SIZE_MAX);
}

/* The releases of one key in release order (into j->by_release); how many. */
static size_t by_release(struct judge *j, const struct rl_shaped_event *ev, size_t len)
{
    size_t m = 0;
    for (size_t i = 0; i < len; i++)
        if (ev[i].admitted && !cancelled(&ev[i]))
            j->by_release[m++] = (struct ordered){ev[i].release_ns, 0, i};
    qsort(j->by_release, m, sizeof *j->by_release, by_key_then_time);
    return m;
}

/* The rate changes are well formed and fit the exact arithmetic: each L
 * in 1..2^40, I ≥ 1, times increasing, D (lcm of every I) and each L·D/I at
 * most 2^62; the log cancels nothing (a reservation made at one rate and
 * given up at another is not modelled). *d gets D. */
static int check_rates(const struct rl_shaped_log *log, const struct rl_shape_params *p,
                       uint64_t *d, char *err, size_t err_len)
{
    if (p->rate_count > RL_MAX_RATE_CHANGES) {
        rl_set_err(err, err_len, "shape check: at most %d rate changes", RL_MAX_RATE_CHANGES);
        return -1;
    }
    const uint64_t cap = (uint64_t)1 << 62;
    for (size_t k = 0; k < p->rate_count; k++) {
        const struct rl_rate_change *c = &p->rates[k];
        if (c->limit == 0 || c->limit > ((uint64_t)1 << 40) || c->interval_ns == 0 ||
            (k > 0 && c->at_ns <= p->rates[k - 1].at_ns)) {
            rl_set_err(err, err_len,
                       "shape check: a rate change needs L in 1..2^40, I of at least 1ns and a "
                       "time after the one before");
            return -1;
        }
        uint64_t step = c->interval_ns / gcd_u64(*d, c->interval_ns);
        if (*d > cap / step) {
            rl_set_err(err, err_len,
                       "shape check: the intervals' least common multiple passes 2^62 ns");
            return -1;
        }
        *d *= step;
    }
    for (size_t k = 0; k <= p->rate_count && p->rate_count; k++) {
        uint64_t l = k ? p->rates[k - 1].limit : p->limit;
        uint64_t i = k ? p->rates[k - 1].interval_ns : p->interval_ns;
        if ((u128)l * (*d / i) > cap) {
            rl_set_err(err, err_len, "shape check: L·lcm(I)/I passes 2^62 for a rate change");
            return -1;
        }
    }
    for (size_t i = 0; p->rate_count && i < log->len; i++)
        if (log->events[i].cancelled) {
            rl_set_err(err, err_len,
                       "shape check: a log that cancels reservations is not judged across rate "
                       "changes");
            return -1;
        }
    return 0;
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
    uint64_t d = params->interval_ns; /* D: the lcm of every interval */
    if (check_rates(log, params, &d, err, err_len) != 0)
        return -1;
    size_t len = log->len;
    struct ordered *order = malloc((len ? len : 1) * sizeof *order);
    struct rl_shaped_event *sorted = malloc((len ? len : 1) * sizeof *sorted);
    struct judge j = {.p = params, .out = out, .piecewise = params->rate_count > 0};
    j.late = malloc((len ? len : 1) * sizeof *j.late);
    j.by_release = malloc((len ? len : 1) * sizeof *j.by_release);
    j.broken = malloc((len ? len : 1) * sizeof *j.broken);
    bool *full = malloc((len ? len : 1) * sizeof *full);
    if (order == NULL || sorted == NULL || j.late == NULL || j.by_release == NULL ||
        j.broken == NULL || full == NULL) {
        free(order);
        free(sorted);
        free(j.late);
        free(j.by_release);
        free(j.broken);
        free(full);
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
    j.per_token = j.piecewise ? d : params->interval_ns / g;
    j.d = d;
    set_pieces(&j, d, SIZE_MAX);
    for (size_t start = 0; start < len;) {
        size_t end = start;
        while (end < len && log->events[end].key == log->events[start].key)
            end++;
        arrival_pass(&j, log->events + start, end - start);
        size_t m = by_release(&j, log->events + start, end - start);
        curve_pass(&j, log->events + start, m, true);
        if (j.piecewise)
            old_rate_pass(&j, log->events + start, m, d, full);
        start = end;
    }
    free(j.broken);
    free(full);
    qsort(j.late, j.late_len, sizeof *j.late, by_u64);
    out->late_p50_ns = rank(j.late, j.late_len, 50);
    out->late_p99_ns = rank(j.late, j.late_len, 99);
    out->late_max_ns = j.late_len ? j.late[j.late_len - 1] : 0;
    free(j.late);
    free(j.by_release);
    return 0;
}
