/* event_reorder.c — the bounded reorder buffer (event_reorder.h): a ring
 * for the events that arrive in order, a binary heap on (time, arrival)
 * for the rest, and the earliest of the two heads given out when the
 * buffer is over its depth. */
#include "event_reorder.h"

#include <stdlib.h>
#include <string.h>

int rl_reorder_init(struct rl_reorder *r, size_t depth)
{
    memset(r, 0, sizeof *r);
    r->depth = depth;
    size_t ring = 2; /* depth + 1 events at most, before one is given out */
    while (ring < depth + 1)
        ring *= 2;
    r->ring_mask = ring - 1;
    r->ring = malloc(ring * sizeof *r->ring);
    r->heap = malloc((depth + 1) * sizeof *r->heap);
    if (r->ring == NULL || r->heap == NULL) {
        rl_reorder_free(r);
        return -1;
    }
    return 0;
}

void rl_reorder_free(struct rl_reorder *r)
{
    free(r->ring);
    free(r->heap);
    memset(r, 0, sizeof *r);
}

static inline bool before(const struct rl_reorder_item *a, const struct rl_reorder_item *b)
{
    return a->ev.t_ns < b->ev.t_ns || (a->ev.t_ns == b->ev.t_ns && a->seq < b->seq);
}

static void heap_push(struct rl_reorder *r, struct rl_reorder_item item)
{
    size_t i = r->heap_len++;
    for (; i > 0 && before(&item, &r->heap[(i - 1) / 2]); i = (i - 1) / 2)
        r->heap[i] = r->heap[(i - 1) / 2];
    r->heap[i] = item;
}

static void heap_pop(struct rl_reorder *r)
{
    struct rl_reorder_item last = r->heap[--r->heap_len];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= r->heap_len)
            break;
        if (child + 1 < r->heap_len && before(&r->heap[child + 1], &r->heap[child]))
            child++;
        if (!before(&r->heap[child], &last))
            break;
        r->heap[i] = r->heap[child];
        i = child;
    }
    r->heap[i] = last;
}

int rl_reorder_pop(struct rl_reorder *r, struct rl_event *out)
{
    const struct rl_reorder_item *ring_head = r->ring_len ? &r->ring[r->ring_head] : NULL;
    if (r->heap_len && (ring_head == NULL || before(&r->heap[0], ring_head))) {
        *out = r->heap[0].ev;
        heap_pop(r);
    } else if (ring_head != NULL) {
        *out = ring_head->ev;
        r->ring_head = (r->ring_head + 1) & r->ring_mask;
        r->ring_len--;
    } else {
        return 0;
    }
    r->last_out_ns = out->t_ns;
    r->any_out = true;
    return 1;
}

int rl_reorder_push(struct rl_reorder *r, const struct rl_event *e, struct rl_event *out)
{
    if (r->any_out && e->t_ns < r->last_out_ns)
        return -1;
    struct rl_reorder_item item = {*e, r->seq++};
    if (r->ring_len == 0 ||
        e->t_ns >= r->ring[(r->ring_head + r->ring_len - 1) & r->ring_mask].ev.t_ns)
        r->ring[(r->ring_head + r->ring_len++) & r->ring_mask] = item;
    else
        heap_push(r, item);
    if (r->ring_len + r->heap_len <= r->depth)
        return 0;
    return rl_reorder_pop(r, out);
}

void rl_reorder_passed(struct rl_reorder *r, uint64_t count, uint64_t last_ns)
{
    r->seq += count;
    if (count != 0) {
        r->last_out_ns = last_ns;
        r->any_out = true;
    }
}
