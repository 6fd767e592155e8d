/* checker.c — the metrics of docs/design.md, Definitions, over a decision
 * log: one pass over the events, each key's in time order, measures the
 * sliding and aligned windows and replays the same attempts through the
 * strong and weak oracles. A key's state holds only what its windows still
 * hold. A file streams through it in time order, every key at once
 * (check_file.c); a log in memory goes through it key by key (rl_check). */
#include "checker.h"
#include "harness/io/errmsg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* ---- a key's last interval: a ring of what the log or the oracle admitted -- */

struct cost_at {
    uint64_t t_ns; /* a stamp, or (in the certain heap) the earliest decision time */
    uint64_t n;
};

/* An event the log or the strong oracle admitted, with what it adds to
 * each one's sliding sum (n or 0). */
struct queued {
    uint64_t t_ns;
    uint32_t log_n, oracle_n;
};

/* One queue serves both sliding sums: the log's admits and the strong
 * oracle's leave (t − I, t] at the same moment, and most events are
 * admitted by both or neither. It has storage from the key's first event
 * (1 slot: a key seen once, common in logs of many keys, costs 32 bytes of
 * heap here rather than 80), so prefetching its ends needs no test. */
struct queue {
    struct queued *items;
    uint32_t head, len; /* capacity is the key's mask + 1, a power of two */
};

/* Doubles the ring (unwrapping it), or gives it its first slot. -1 on
 * ENOMEM, or past 2^31 events in one key's window. */
static int queue_grow(struct queue *q, uint32_t *mask)
{
    size_t cap = q->items ? ((size_t)*mask + 1) * 2 : 1;
    struct queued *items = cap <= ((size_t)1 << 31) ? calloc(cap, sizeof *items) : NULL;
    if (items == NULL)
        return -1;
    for (uint32_t i = 0; i < q->len; i++)
        items[i] = q->items[(q->head + i) & *mask];
    free(q->items);
    q->items = items;
    q->head = 0;
    *mask = (uint32_t)(cap - 1);
    return 0;
}

/* ---- certain_max_sliding: a min-heap of admits by earliest decision time ---- */

/* Admits whose decision certainly lies in (t − I, t]: t_i − gap_i > t − I.
 * Thresholds only grow, so an admit that falls out never comes back: a heap
 * on the earliest decision time, popped from the bottom. It holds only
 * admits inside the window, like the queues. */
struct certain_heap {
    struct cost_at *items;
    size_t len, cap;
    uint64_t sum, most;
};

static int heap_push(struct certain_heap *h, struct cost_at item)
{
    if (h->len == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 16;
        struct cost_at *items = realloc(h->items, cap * sizeof *items);
        if (items == NULL)
            return -1;
        h->items = items;
        h->cap = cap;
    }
    size_t i = h->len++;
    for (; i > 0 && h->items[(i - 1) / 2].t_ns > item.t_ns; i = (i - 1) / 2)
        h->items[i] = h->items[(i - 1) / 2];
    h->items[i] = item;
    return 0;
}

static void heap_pop(struct certain_heap *h)
{
    struct cost_at last = h->items[--h->len];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->len)
            break;
        if (child + 1 < h->len && h->items[child + 1].t_ns < h->items[child].t_ns)
            child++;
        if (h->items[child].t_ns >= last.t_ns)
            break;
        h->items[i] = h->items[child];
        i = child;
    }
    h->items[i] = last;
}

/* ---- the aligned grid, shared by every key ---------------------------------- */

/* The aligned grid [epoch + k·I, epoch + (k+1)·I) is the grid anchored at
 * r = epoch mod I; every t < r falls in the one window [r − I, r). So a
 * window is named by (t − r) / I, or by UINT64_MAX for that window before r:
 * no signed arithmetic, nothing to overflow for t far before the epoch, and
 * UINT64_MAX cannot clash (r > 0 implies I ≥ 2, so (t − r) / I < 2^63).
 * One cursor serves every key: it moves only when an event falls outside
 * its window (rarely, whether the events come in time order for all keys
 * at once or key by key), and a key notices a new window by the name it
 * last saw. */
struct aligned_cursor {
    uint64_t interval_ns, offset_ns; /* I and r */
    uint64_t window;                 /* name of the current window */
    uint64_t begin_ns;               /* its first time (0 for the window before r) */
    uint64_t end_ns;                 /* first time past it; saturates at UINT64_MAX */
    uint64_t start_ns;               /* its start, for the certain sums (0 before r) */
    uint64_t allowed; /* L·(windows begun since the epoch): the same all through a window */
    bool started;
};

/* Moves the cursor to t_ns, which is outside its window (or the first
 * event): divides only at window changes, not once per event. */
static void aligned_move(struct aligned_cursor *c, const struct rl_check_params *params,
                         uint64_t t_ns)
{
    uint64_t w = t_ns < c->offset_ns ? UINT64_MAX : (t_ns - c->offset_ns) / c->interval_ns;
    c->started = true;
    c->window = w;
    if (w == UINT64_MAX) {
        c->begin_ns = 0;
        c->end_ns = c->offset_ns;
    } else {
        c->begin_ns = c->offset_ns + w * c->interval_ns;
        c->end_ns =
            c->begin_ns > UINT64_MAX - c->interval_ns ? UINT64_MAX : c->begin_ns + c->interval_ns;
    }
    c->start_ns =
        c->window == UINT64_MAX || c->end_ns < c->interval_ns ? 0 : c->end_ns - c->interval_ns;
    /* epoch + k·I are grid points (epoch ≡ r mod I), so the number of
     * intervals begun since the epoch is the same for every t of a window */
    uint64_t windows =
        (t_ns > params->epoch_ns ? t_ns - params->epoch_ns : 0) / params->interval_ns + 1;
    c->allowed = windows > UINT64_MAX / params->limit ? UINT64_MAX : windows * params->limit;
}

/* ---- one key ------------------------------------------------------------- */

/* 256 bytes, aligned: the first line holds what every event reads first
 * (whether the oldest queued event has left the window is known without
 * touching the queue), and the state of the next events' keys is
 * prefetched whole. */
struct key_state {
    uint64_t window;                  /* the aligned window the sums of it below are in */
    uint64_t aligned, weak_used;      /* the log's and the weak oracle's cost in it */
    uint64_t oldest_ns;               /* the time of the queue's oldest event, when it has one */
    uint64_t sliding, oracle_sliding; /* the log's and the strong oracle's cost in (t − I, t] */
    struct queue queue;               /* the events behind those two sums */
    uint32_t mask;                    /* the queue's capacity − 1 */
    uint64_t last_ns;                 /* the time of the key's last event */
    uint64_t certain_aligned;         /* cost certainly decided in the aligned window */
    struct certain_heap *certain;     /* from the key's first admit with a gap; NULL before */
    struct rl_key_metrics m;
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct key_state) == 256, "a key's state is four cache lines");

struct rl_checker {
    struct rl_check_params params;
    bool complete;
    struct aligned_cursor cursor;
    struct key_state *keys;
    size_t key_len, key_cap; /* ids 0 .. key_len − 1 seen */
    size_t queued_bytes;     /* the queues' and heaps' capacity, for rl_checker_bytes */
};

struct rl_checker *rl_checker_new(const struct rl_check_params *params, bool complete, char *err,
                                  size_t err_len)
{
    if (params->limit == 0) {
        rl_set_err(err, err_len, "check: limit must be at least 1, not 0");
        return NULL;
    }
    if (params->interval_ns == 0) {
        rl_set_err(err, err_len, "check: interval_ns must be at least 1, not 0");
        return NULL;
    }
    struct rl_checker *c = calloc(1, sizeof *c);
    if (c == NULL) {
        rl_set_err(err, err_len, "check: %s", strerror(ENOMEM));
        return NULL;
    }
    c->params = *params;
    c->complete = complete;
    c->cursor.interval_ns = params->interval_ns;
    c->cursor.offset_ns = params->epoch_ns % params->interval_ns;
    return c;
}

/* Room for key ids up to id: the array doubles, new keys start at zero
 * with an empty queue of 1 slot. */
static int reserve_key(struct rl_checker *c, uint32_t id)
{
    if (id >= c->key_cap) {
        size_t cap = c->key_cap ? c->key_cap : 64;
        while (cap <= id)
            cap *= 2;
        struct key_state *keys = cap <= SIZE_MAX / sizeof *keys
                                     ? aligned_alloc(_Alignof(struct key_state), cap * sizeof *keys)
                                     : NULL;
        if (keys == NULL)
            return -1;
        if (c->key_len)
            memcpy(keys, c->keys, c->key_len * sizeof *keys);
        free(c->keys);
        c->keys = keys;
        c->key_cap = cap;
    }
    for (; c->key_len <= id; c->key_len++) {
        struct key_state *k = &c->keys[c->key_len];
        memset(k, 0, sizeof *k);
        if (queue_grow(&k->queue, &k->mask) != 0)
            return -1;
        c->queued_bytes += ((size_t)k->mask + 1) * sizeof *k->queue.items;
    }
    return 0;
}

/* The key's first admit with a gap: until now every admit was certainly
 * where its stamp says, so the certain sum was the sliding one, and the
 * admits it counts are the log's in the queue. */
static int start_certain(struct rl_checker *c, struct key_state *k)
{
    struct certain_heap *h = calloc(1, sizeof *h);
    if (h == NULL)
        return -1;
    k->certain = h;
    for (uint32_t i = 0; i < k->queue.len; i++) {
        const struct queued *e = &k->queue.items[(k->queue.head + i) & k->mask];
        if (e->log_n != 0 && heap_push(h, (struct cost_at){e->t_ns, e->log_n}) != 0)
            return -1;
    }
    h->sum = k->sliding;
    h->most = k->m.max_sliding;
    c->queued_bytes += h->cap * sizeof *h->items;
    return 0;
}

/* One event: every running sum of its key moves to t, then takes the event
 * in. -1 on ENOMEM, -2 when it is earlier than the key's last event.
 * Long on purpose: the checker's hot path, inlined and run once per event;
 * its steps all move the same key's sums, which one body keeps in registers. */
static inline int add_event(struct rl_checker *c, const struct rl_event *e)
{
    const uint64_t t = e->t_ns, n = e->n;
    const uint64_t limit = c->params.limit, interval_ns = c->params.interval_ns;
    struct aligned_cursor *cursor = &c->cursor;
    if (!cursor->started || t >= cursor->end_ns || t < cursor->begin_ns)
        aligned_move(cursor, &c->params, t);
    struct key_state *k = &c->keys[e->key];
    struct rl_key_metrics *m = &k->m;
    if (t < k->last_ns)
        return -2;
    k->last_ns = t;
    if (k->window != cursor->window) {
        k->window = cursor->window;
        k->aligned = k->weak_used = k->certain_aligned = 0;
    }
    /* what leaves (t − I, t] now, for both sliding sums */
    struct queue *q = &k->queue;
    while (q->len && t - k->oldest_ns >= interval_ns) {
        const struct queued *old = &q->items[q->head];
        k->sliding -= old->log_n;
        k->oracle_sliding -= old->oracle_n;
        q->head = (q->head + 1) & k->mask;
        q->len--;
        k->oldest_ns = q->items[q->head].t_ns;
    }
    m->attempts++;
    m->attempted_cost += n;

    uint64_t oracle_n = 0;
    if (c->complete) {
        /* Oracle sums never exceed the limit, so limit − sum cannot wrap. */
        bool strong = n <= limit - k->oracle_sliding;
        bool weak = n <= limit - k->weak_used;
        if (strong) {
            oracle_n = n;
            k->oracle_sliding += n;
            m->oracle_admitted_cost += n;
        }
        if (weak)
            k->weak_used += n;
        if (e->admitted) {
            m->false_admits += !strong;
            m->weak_false_admits += !weak;
        } else {
            m->false_rejects += strong;
            m->weak_false_rejects += weak;
        }
    }
    if (e->admitted && e->gap_ns != 0 && k->certain == NULL && start_certain(c, k) != 0)
        return -1;
    if (e->admitted || oracle_n) {
        if (q->len > k->mask) {
            size_t before = ((size_t)k->mask + 1) * sizeof *q->items;
            if (queue_grow(q, &k->mask) != 0)
                return -1;
            c->queued_bytes += ((size_t)k->mask + 1) * sizeof *q->items - before;
        }
        if (q->len == 0)
            k->oldest_ns = t;
        q->items[(q->head + q->len++) & k->mask] =
            (struct queued){t, e->admitted ? (uint32_t)n : 0, (uint32_t)oracle_n};
    }
    if (!e->admitted) {
        m->rejects++;
        return 0;
    }
    m->admits++;
    m->admitted_cost += n;
    if (m->admitted_cost > cursor->allowed && m->admitted_cost - cursor->allowed > m->window_excess)
        m->window_excess = m->admitted_cost - cursor->allowed;
    /* sliding holds the admits up to this one in (t − I, t]: the window a
     * violation is charged to. At the last of equal timestamps it holds
     * all of them, so its maximum is the max over every [t, t + I). */
    k->sliding += n;
    if (k->sliding > m->max_sliding)
        m->max_sliding = k->sliding;
    if (k->sliding > limit)
        m->strong_violations++;
    k->aligned += n;
    if (k->aligned > m->max_aligned)
        m->max_aligned = k->aligned;
    if (t - cursor->start_ns >= e->gap_ns) {
        k->certain_aligned += n;
        if (k->certain_aligned > m->certain_max_aligned)
            m->certain_max_aligned = k->certain_aligned;
    } else {
        m->uncertain_admits++;
    }
    struct certain_heap *h = k->certain;
    if (h != NULL) {
        size_t cap = h->cap;
        if (heap_push(h, (struct cost_at){t > e->gap_ns ? t - e->gap_ns : 0, n}) != 0)
            return -1;
        c->queued_bytes += (h->cap - cap) * sizeof *h->items;
        h->sum += n;
        while (h->len && t >= interval_ns && h->items[0].t_ns <= t - interval_ns) {
            h->sum -= h->items[0].n;
            heap_pop(h);
        }
        h->most = max_u64(h->most, h->sum);
    }
    return 0;
}

/* With many keys a key's state and its queue's ends are cache misses: the
 * state is fetched 4 events ahead, and 2 ahead (the state then at hand)
 * the queue's oldest entry and the slot the next push writes. Further
 * ahead, more lines are in flight than the core can track (at 10^6 keys,
 * 16 and 8 events ahead were 20% slower). */
static inline void prefetch_ahead(const struct rl_checker *c, const struct rl_event *events,
                                  size_t i, size_t len)
{
    if (i + 4 < len && events[i + 4].key < c->key_len) {
        const char *state = (const char *)&c->keys[events[i + 4].key];
        for (int line = 0; line < 4; line++)
            __builtin_prefetch(state + 64 * line);
    }
    if (i + 2 < len && events[i + 2].key < c->key_len) {
        const struct key_state *k = &c->keys[events[i + 2].key];
        __builtin_prefetch(&k->queue.items[k->queue.head]);
        __builtin_prefetch(&k->queue.items[(k->queue.head + k->queue.len) & k->mask], 1);
    }
}

int rl_checker_add(struct rl_checker *c, const struct rl_event *events, size_t len, char *err,
                   size_t err_len)
{
    for (size_t i = 0; i < len; i++) {
        const struct rl_event *e = &events[i];
        if (e->key >= c->key_len && reserve_key(c, e->key) != 0)
            goto nomem;
        prefetch_ahead(c, events, i, len);
        int rc = add_event(c, e);
        if (rc == -2) {
            rl_set_err(err, err_len,
                       "check: key %u: an event at %llu ns after one at %llu ns: each key's "
                       "events must come in time order",
                       (unsigned)e->key, (unsigned long long)e->t_ns,
                       (unsigned long long)c->keys[e->key].last_ns);
            return -1;
        }
        if (rc != 0)
            goto nomem;
    }
    return 0;
nomem:
    rl_set_err(err, err_len, "check: cannot hold the state of %zu keys: %s", c->key_len,
               strerror(ENOMEM));
    return -1;
}

size_t rl_checker_bytes(const struct rl_checker *c)
{
    return sizeof *c + c->key_cap * sizeof *c->keys + c->queued_bytes;
}

static void add_to_total(struct rl_key_metrics *total, const struct rl_key_metrics *m)
{
    total->attempts += m->attempts;
    total->admits += m->admits;
    total->rejects += m->rejects;
    total->attempted_cost += m->attempted_cost;
    total->admitted_cost += m->admitted_cost;
    total->max_sliding = max_u64(total->max_sliding, m->max_sliding);
    total->max_aligned = max_u64(total->max_aligned, m->max_aligned);
    total->strong_excess = max_u64(total->strong_excess, m->strong_excess);
    total->strong_violations += m->strong_violations;
    total->weak_excess = max_u64(total->weak_excess, m->weak_excess);
    total->window_excess = max_u64(total->window_excess, m->window_excess);
    total->certain_max_sliding = max_u64(total->certain_max_sliding, m->certain_max_sliding);
    total->certain_max_aligned = max_u64(total->certain_max_aligned, m->certain_max_aligned);
    total->uncertain_admits += m->uncertain_admits;
    total->false_admits += m->false_admits;
    total->false_rejects += m->false_rejects;
    total->weak_false_admits += m->weak_false_admits;
    total->weak_false_rejects += m->weak_false_rejects;
    total->oracle_admitted_cost += m->oracle_admitted_cost;
}

/* A key's metrics as reported: the ones only its end decides filled in. */
static void key_metrics(const struct rl_checker *c, const struct key_state *k,
                        struct rl_key_metrics *m)
{
    const uint64_t limit = c->params.limit;
    *m = k->m;
    m->certain_max_sliding = k->certain ? k->certain->most : m->max_sliding;
    m->strong_excess = m->max_sliding > limit ? m->max_sliding - limit : 0;
    m->weak_excess = m->max_aligned > limit ? m->max_aligned - limit : 0;
}

/* The result around per_key (key_count of them, taken over): totals and
 * the worst key. */
static void sum_up(struct rl_key_metrics *per_key, uint32_t key_count, bool complete,
                   struct rl_check_result *out)
{
    memset(out, 0, sizeof *out);
    out->complete = complete;
    out->per_key = per_key;
    out->key_count = key_count;
    for (uint32_t k = 0; k < key_count; k++) {
        add_to_total(&out->total, &per_key[k]);
        if (per_key[k].max_sliding > per_key[out->worst_key].max_sliding)
            out->worst_key = k;
    }
}

static int key_range_err(char *err, size_t err_len)
{
    rl_set_err(err, err_len, "check: key id %u is out of range (at most %u)", UINT32_MAX,
               UINT32_MAX - 1);
    return -1;
}

int rl_checker_finish(struct rl_checker *c, uint64_t key_count, struct rl_check_result *out,
                      char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    key_count = max_u64(key_count, c->key_len);
    if (key_count > UINT32_MAX)
        return key_range_err(err, err_len);
    /* The states become the report where they lie: a key's metrics are
     * smaller than its state, so key i's end before key i + 1's state
     * begins, every state is read before anything overwrites it, and a
     * second array as long as the keys is never held beside the states
     * (at 10^6 keys, 152 MB of peak memory). */
    _Static_assert(sizeof(struct rl_key_metrics) <= sizeof(struct key_state),
                   "a key's metrics fit where its state was");
    struct rl_key_metrics *per_key = (struct rl_key_metrics *)(void *)c->keys;
    for (size_t i = 0; i < c->key_len; i++) {
        struct key_state *k = &c->keys[i];
        struct rl_key_metrics m;
        key_metrics(c, k, &m);
        free(k->queue.items);
        if (k->certain)
            free(k->certain->items);
        free(k->certain);
        memcpy(&per_key[i], &m, sizeof m);
    }
    size_t kept = c->key_len;
    c->keys = NULL;
    c->key_len = c->key_cap = 0;
    size_t slots = key_count ? key_count : 1;
    struct rl_key_metrics *sized = realloc(per_key, slots * sizeof *sized);
    if (sized == NULL && (slots > kept || per_key == NULL)) {
        free(per_key);
        rl_set_err(err, err_len, "check: cannot report %llu keys: %s",
                   (unsigned long long)key_count, strerror(ENOMEM));
        return -1;
    }
    per_key = sized ? sized : per_key; /* a shrink that failed keeps the larger block */
    if (slots > kept)
        memset(per_key + kept, 0, (slots - kept) * sizeof *per_key);
    sum_up(per_key, (uint32_t)key_count, c->complete, out);
    return 0;
}

void rl_checker_take_key(struct rl_checker *c, uint32_t key, struct rl_key_metrics *out)
{
    memset(out, 0, sizeof *out);
    if (key >= c->key_len)
        return;
    struct key_state *k = &c->keys[key];
    key_metrics(c, k, out);
    /* afresh, keeping the queue's storage for the next key */
    struct queue queue = {k->queue.items, 0, 0};
    uint32_t mask = k->mask;
    if (k->certain) {
        c->queued_bytes -= k->certain->cap * sizeof *k->certain->items;
        free(k->certain->items);
        free(k->certain);
    }
    memset(k, 0, sizeof *k);
    k->queue = queue;
    k->mask = mask;
}

void rl_checker_free(struct rl_checker *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->key_len; i++) {
        free(c->keys[i].queue.items);
        if (c->keys[i].certain)
            free(c->keys[i].certain->items);
        free(c->keys[i].certain);
    }
    free(c->keys);
    free(c);
}

/* Copies the events into per-key runs, keeping time order inside each run
 * (a stable counting sort by key), every copy named key 0: the runs are
 * fed one at a time to the checker's key 0. On return key k's run is
 * [k ? ends[k − 1] : 0, ends[k]). NULL on ENOMEM. */
static struct rl_event *group_by_key(const struct rl_event_log *log, uint32_t key_count,
                                     size_t *ends)
{
    struct rl_event *grouped = rl_event_alloc_big((log->len ? log->len : 1) * sizeof *grouped);
    if (grouped == NULL)
        return NULL;
    for (size_t i = 0; i < log->len; i++)
        ends[log->events[i].key]++;
    size_t start = 0;
    for (uint32_t k = 0; k < key_count; k++) {
        size_t count = ends[k];
        ends[k] = start;
        start += count;
    }
    for (size_t i = 0; i < log->len; i++) {
        struct rl_event *e = &grouped[ends[log->events[i].key]++];
        *e = log->events[i];
        e->key = 0;
    }
    return grouped;
}

int rl_check(struct rl_event_log *log, const struct rl_check_params *params,
             struct rl_check_result *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct rl_checker *c = rl_checker_new(params, log->complete, err, err_len);
    if (c == NULL)
        return -1;
    uint64_t key_count = log->key_count;
    for (size_t i = 0; i < log->len; i++)
        key_count = max_u64(key_count, (uint64_t)log->events[i].key + 1);
    if (key_count > UINT32_MAX) {
        rl_checker_free(c);
        return key_range_err(err, err_len);
    }
    rl_event_log_sort(log);
    /* Key by key, so that one key's state is all the checker holds and it
     * stays in the cache: with 10^6 keys, interleaved keys would miss on
     * every event. */
    struct rl_key_metrics *per_key = calloc(key_count ? key_count : 1, sizeof *per_key);
    size_t *ends = calloc(key_count ? key_count : 1, sizeof *ends);
    struct rl_event *grouped =
        per_key && ends ? group_by_key(log, (uint32_t)key_count, ends) : NULL;
    int rc = 0;
    if (grouped == NULL) {
        rl_set_err(err, err_len, "check: cannot check %zu events over %llu keys: %s", log->len,
                   (unsigned long long)key_count, strerror(ENOMEM));
        rc = -1;
    }
    for (uint32_t k = 0; rc == 0 && k < key_count; k++) {
        size_t start = k ? ends[k - 1] : 0;
        rc = rl_checker_add(c, grouped + start, ends[k] - start, err, err_len);
        rl_checker_take_key(c, 0, &per_key[k]);
    }
    if (rc == 0)
        sum_up(per_key, (uint32_t)key_count, log->complete, out);
    else
        free(per_key);
    free(grouped);
    free(ends);
    rl_checker_free(c);
    return rc;
}

double rl_check_utilization(const struct rl_key_metrics *m, bool complete)
{
    if (!complete || m->oracle_admitted_cost == 0)
        return NAN;
    return (double)m->admitted_cost / (double)m->oracle_admitted_cost;
}

void rl_check_result_free(struct rl_check_result *result)
{
    free(result->per_key);
    memset(result, 0, sizeof *result);
}
