/* check_before.c — the checker as it was before it streamed (commit
 * dd8d6ee, harness/check/checker.c, kept word for word but for its name):
 * sort, group by key, one pass per key. The streaming suites assert that
 * the new core gives exactly its numbers, field by field, on every log
 * they make; it is the reference, not a second implementation to keep. */
#include "check_before.h"
#include "harness/io/errmsg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* One attempt of one key, copied out of the log so that each key's pass
 * reads a dense array. */
struct key_event {
    uint64_t t_ns;
    uint32_t n;
    uint32_t gap_ns; /* the decision lies in [t − gap, t] */
    uint8_t admitted;
    uint8_t oracle_admitted; /* the strong oracle's decision, for its own window */
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* A min-heap of admits by earliest decision time, for certain_max_sliding. */
struct early_admit {
    uint64_t earliest_ns;
    uint64_t n;
};

static void heap_push(struct early_admit *heap, size_t *len, struct early_admit item)
{
    size_t i = (*len)++;
    for (; i > 0 && heap[(i - 1) / 2].earliest_ns > item.earliest_ns; i = (i - 1) / 2)
        heap[i] = heap[(i - 1) / 2];
    heap[i] = item;
}

static void heap_pop(struct early_admit *heap, size_t *len)
{
    struct early_admit last = heap[--*len];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= *len)
            break;
        if (child + 1 < *len && heap[child + 1].earliest_ns < heap[child].earliest_ns)
            child++;
        if (heap[child].earliest_ns >= last.earliest_ns)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = last;
}

/* The most admitted cost whose decisions certainly lie in one window
 * (t_j − I, t_j]: admits i up to j with t_i − gap_i > t_j − I. Thresholds
 * only grow with j, so an admit that falls out never comes back: a heap on
 * the earliest decision time, popped from the bottom, gives O(n log n).
 * heap has room for the key's admits. */
static uint64_t certain_sliding(const struct key_event *ev, size_t len, uint64_t interval_ns,
                                struct early_admit *heap)
{
    size_t heap_len = 0;
    uint64_t sum = 0, most = 0;
    for (size_t j = 0; j < len; j++) {
        if (!ev[j].admitted)
            continue;
        uint64_t t = ev[j].t_ns;
        uint64_t earliest = t > ev[j].gap_ns ? t - ev[j].gap_ns : 0;
        heap_push(heap, &heap_len, (struct early_admit){earliest, ev[j].n});
        sum += ev[j].n;
        while (heap_len && t >= interval_ns && heap[0].earliest_ns <= t - interval_ns) {
            sum -= heap[0].n;
            heap_pop(heap, &heap_len);
        }
        most = max_u64(most, sum);
    }
    return most;
}

/* Large scratch arrays ask for transparent huge pages: at 10^7 events,
 * faulting in 4 KiB pages costs about as much as the grouping itself. */
static void *alloc_big(size_t bytes)
{
    void *p = malloc(bytes);
    if (p != NULL && bytes >= ((size_t)32 << 20)) {
        uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
        madvise((void *)start, end - start, MADV_HUGEPAGE); /* a hint: failure is harmless */
    }
    return p;
}

/* The aligned grid [epoch + k·I, epoch + (k+1)·I) is the grid anchored at
 * r = epoch mod I; every t < r falls in the one window [r − I, r). So a
 * window is named by (t − r) / I, or by UINT64_MAX for that window before r:
 * no signed arithmetic, nothing to overflow for t far before the epoch, and
 * UINT64_MAX cannot clash (r > 0 implies I ≥ 2, so (t − r) / I < 2^63). */
struct aligned_cursor {
    uint64_t interval_ns, offset_ns; /* I and r */
    uint64_t window;                 /* name of the current window */
    uint64_t end_ns;                 /* first time past it; saturates at UINT64_MAX */
    bool started;
};

static uint64_t aligned_window(const struct aligned_cursor *c, uint64_t t_ns)
{
    return t_ns < c->offset_ns ? UINT64_MAX : (t_ns - c->offset_ns) / c->interval_ns;
}

/* Moves the cursor to t_ns (non-decreasing); true when t_ns opened a new
 * window. Divides only at window changes, not once per event. */
static bool aligned_advance(struct aligned_cursor *c, uint64_t t_ns)
{
    if (c->started && t_ns < c->end_ns)
        return false;
    uint64_t w = aligned_window(c, t_ns);
    bool changed = !c->started || w != c->window;
    c->started = true;
    c->window = w;
    if (w == UINT64_MAX) {
        c->end_ns = c->offset_ns;
    } else {
        uint64_t start = c->offset_ns + w * c->interval_ns;
        c->end_ns = start > UINT64_MAX - c->interval_ns ? UINT64_MAX : start + c->interval_ns;
    }
    return changed;
}

/* All metrics of one key from its attempts in time order, in one pass:
 * four running sums move together — the log's and the strong oracle's cost
 * in (t − I, t], each with its own left pointer, and the log's and the weak
 * oracle's cost in t's aligned window. Every pointer only moves forward. */
static void measure_key(struct key_event *ev, size_t len, const struct rl_check_params *params,
                        bool complete, struct rl_key_metrics *m, struct early_admit *heap)
{
    uint64_t certain_aligned = 0; /* cost certainly decided in t's aligned window */
    bool any_gap = false;
    const uint64_t limit = params->limit, interval_ns = params->interval_ns;
    struct aligned_cursor cursor = {.interval_ns = interval_ns,
                                    .offset_ns = params->epoch_ns % interval_ns};
    size_t left = 0, oracle_left = 0;
    uint64_t sliding = 0, oracle_sliding = 0; /* cost in (t − I, t] */
    uint64_t aligned = 0, weak_used = 0;      /* cost in t's aligned window */

    for (size_t j = 0; j < len; j++) {
        const uint64_t t = ev[j].t_ns, n = ev[j].n;
        m->attempts++;
        m->attempted_cost += n;
        if (aligned_advance(&cursor, t))
            aligned = weak_used = certain_aligned = 0;

        if (complete) {
            /* Oracle sums never exceed the limit, so limit − sum cannot wrap. */
            while (t - ev[oracle_left].t_ns >= interval_ns) {
                if (ev[oracle_left].oracle_admitted)
                    oracle_sliding -= ev[oracle_left].n;
                oracle_left++;
            }
            bool strong_admits = n <= limit - oracle_sliding;
            bool weak_admits = n <= limit - weak_used;
            ev[j].oracle_admitted = strong_admits;
            if (strong_admits) {
                oracle_sliding += n;
                m->oracle_admitted_cost += n;
            }
            if (weak_admits)
                weak_used += n;
            if (ev[j].admitted) {
                m->false_admits += !strong_admits;
                m->weak_false_admits += !weak_admits;
            } else {
                m->false_rejects += strong_admits;
                m->weak_false_rejects += weak_admits;
            }
        }

        if (!ev[j].admitted) {
            m->rejects++;
            continue;
        }
        m->admits++;
        m->admitted_cost += n;
        uint64_t windows = (t > params->epoch_ns ? t - params->epoch_ns : 0) / interval_ns + 1;
        uint64_t allowed = windows > UINT64_MAX / limit ? UINT64_MAX : windows * limit;
        if (m->admitted_cost > allowed)
            m->window_excess = max_u64(m->window_excess, m->admitted_cost - allowed);
        while (t - ev[left].t_ns >= interval_ns) {
            if (ev[left].admitted)
                sliding -= ev[left].n;
            left++;
        }
        /* sliding holds the admits i ≤ j in (t − I, t]: the window a
         * violation is charged to. At the last of equal timestamps it holds
         * all of them, so its maximum is the max over every [t, t + I). */
        sliding += n;
        m->max_sliding = max_u64(m->max_sliding, sliding);
        m->strong_violations += sliding > limit;
        aligned += n;
        m->max_aligned = max_u64(m->max_aligned, aligned);
        /* The window's start: the cursor's end less I, or (for the window
         * before the grid's first start) anything at all. */
        uint64_t start = cursor.window == UINT64_MAX || cursor.end_ns < interval_ns
                             ? 0
                             : cursor.end_ns - interval_ns;
        any_gap |= ev[j].gap_ns != 0;
        if (t - start >= ev[j].gap_ns) {
            certain_aligned += n;
            m->certain_max_aligned = max_u64(m->certain_max_aligned, certain_aligned);
        }
    }
    m->certain_max_sliding = any_gap ? certain_sliding(ev, len, interval_ns, heap) : m->max_sliding;
    m->strong_excess = m->max_sliding > limit ? m->max_sliding - limit : 0;
    m->weak_excess = m->max_aligned > limit ? m->max_aligned - limit : 0;
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
    total->false_admits += m->false_admits;
    total->false_rejects += m->false_rejects;
    total->weak_false_admits += m->weak_false_admits;
    total->weak_false_rejects += m->weak_false_rejects;
    total->oracle_admitted_cost += m->oracle_admitted_cost;
}

/* Copies the events into per-key runs, keeping time order inside each run
 * (a stable counting sort by key). On return key k's run is
 * [k ? ends[k − 1] : 0, ends[k]). NULL on ENOMEM. */
static struct key_event *group_by_key(const struct rl_event_log *log, uint32_t key_count,
                                      size_t *ends)
{
    struct key_event *grouped = alloc_big((log->len ? log->len : 1) * sizeof *grouped);
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
        const struct rl_event *e = &log->events[i];
        grouped[ends[e->key]++] = (struct key_event){.t_ns = e->t_ns,
                                                     .n = e->n,
                                                     .gap_ns = e->gap_ns,
                                                     .admitted = e->admitted != 0,
                                                     .oracle_admitted = 0};
    }
    return grouped;
}

int rl_check_before(struct rl_event_log *log, const struct rl_check_params *params,
                    struct rl_check_result *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (params->limit == 0) {
        rl_set_err(err, err_len, "check: limit must be at least 1, not 0");
        return -1;
    }
    if (params->interval_ns == 0) {
        rl_set_err(err, err_len, "check: interval_ns must be at least 1, not 0");
        return -1;
    }
    uint64_t key_count = log->key_count;
    for (size_t i = 0; i < log->len; i++)
        key_count = max_u64(key_count, (uint64_t)log->events[i].key + 1);
    if (key_count > UINT32_MAX) {
        rl_set_err(err, err_len, "check: key id %u is out of range (at most %u)", UINT32_MAX,
                   UINT32_MAX - 1);
        return -1;
    }
    rl_event_log_sort(log);

    struct rl_key_metrics *per_key = calloc(key_count ? key_count : 1, sizeof *per_key);
    size_t *ends = calloc(key_count ? key_count : 1, sizeof *ends);
    struct key_event *grouped =
        per_key && ends ? group_by_key(log, (uint32_t)key_count, ends) : NULL;
    if (grouped == NULL) {
        rl_set_err(err, err_len, "check: cannot check %zu events over %llu keys: %s", log->len,
                   (unsigned long long)key_count, strerror(ENOMEM));
        free(per_key);
        free(ends);
        return -1;
    }
    size_t longest = 1; /* the heap needs room for one key's admits */
    for (uint32_t k = 0; k < key_count; k++)
        longest = max_u64(longest, ends[k] - (k ? ends[k - 1] : 0));
    struct early_admit *heap = alloc_big(longest * sizeof *heap);
    if (heap == NULL) {
        rl_set_err(err, err_len, "check: cannot check %zu events: %s", log->len, strerror(ENOMEM));
        free(grouped);
        free(per_key);
        free(ends);
        return -1;
    }
    out->complete = log->complete;
    out->per_key = per_key;
    out->key_count = (uint32_t)key_count;
    for (uint32_t k = 0; k < key_count; k++) {
        size_t start = k ? ends[k - 1] : 0;
        measure_key(grouped + start, ends[k] - start, params, log->complete, &per_key[k], heap);
        add_to_total(&out->total, &per_key[k]);
        if (per_key[k].max_sliding > per_key[out->worst_key].max_sliding)
            out->worst_key = k;
    }
    free(heap);
    free(grouped);
    free(ends);
    return 0;
}
