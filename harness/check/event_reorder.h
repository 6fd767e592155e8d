/* event_reorder.h — a bounded buffer that puts a nearly sorted stream of
 * events back in time order, stably (equal times keep their order of
 * arrival), as rl_event_log_sort would have, without holding the stream.
 *
 * It holds at most `depth` events and gives out the earliest when it holds
 * more. That gives the sorted order exactly when every event has at most
 * `depth` events before it (in arrival order) with a later time; an event
 * further out of place than that is refused (rl_reorder_push returns -1),
 * never given out in the wrong order. Events that arrive in order pass
 * through a ring (O(1)); the others wait in a heap (O(log depth)). */
#ifndef RL_EVENT_REORDER_H
#define RL_EVENT_REORDER_H

#include "event_log.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_reorder_item {
    struct rl_event ev;
    uint64_t seq; /* arrival number: the tie-break that keeps the order stable */
};

struct rl_reorder {
    size_t depth;
    struct rl_reorder_item *ring; /* arrived in order: sorted, oldest at ring_head */
    size_t ring_head, ring_len, ring_mask;
    struct rl_reorder_item *heap; /* arrived earlier than the ring's newest */
    size_t heap_len;
    uint64_t seq;
    uint64_t last_out_ns; /* the time of the last event given out */
    bool any_out;
};

/* 0, or -1 on ENOMEM. depth 0: the input must already be sorted. */
int rl_reorder_init(struct rl_reorder *r, size_t depth);

/* Takes e; gives out at most one event, into *out, returning 1 when it
 * did, 0 when not. -1 when e is earlier than an event already given out:
 * more out of place than depth allows (nothing is changed then). */
int rl_reorder_push(struct rl_reorder *r, const struct rl_event *e, struct rl_event *out);

/* Gives out the earliest event held, at the end of the stream: 1, or 0
 * when empty. */
int rl_reorder_pop(struct rl_reorder *r, struct rl_event *out);

/* Counts `count` events that went by in order without the buffer (the
 * caller held them as long as the buffer would have, and gave them out
 * itself), the last at last_ns: later events are numbered and judged as
 * if they had come through. */
void rl_reorder_passed(struct rl_reorder *r, uint64_t count, uint64_t last_ns);

void rl_reorder_free(struct rl_reorder *r);

#endif
