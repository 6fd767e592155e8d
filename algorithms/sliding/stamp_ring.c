/* stamp_ring.c — see stamp_ring.h. */
#include "stamp_ring.h"

#include <stdlib.h>
#include <string.h>

#define RL_STAMP_RING_FIRST_CAP 8

int rl_stamp_ring_init(struct rl_stamp_ring *ring, size_t max_cap)
{
    memset(ring, 0, sizeof *ring);
    ring->max_cap = max_cap ? max_cap : 1;
    ring->cap = ring->max_cap < RL_STAMP_RING_FIRST_CAP ? ring->max_cap : RL_STAMP_RING_FIRST_CAP;
    ring->entries = malloc(ring->cap * sizeof *ring->entries);
    return ring->entries ? 0 : -1;
}

void rl_stamp_ring_free(struct rl_stamp_ring *ring)
{
    free(ring->entries);
    ring->entries = NULL;
}

/* Doubles the capacity (at most max_cap), unrolling the ring so that the
 * head lands at index 0. */
static int grow(struct rl_stamp_ring *ring)
{
    if (ring->cap >= ring->max_cap)
        return -1;
    size_t cap = ring->cap > ring->max_cap / 2 ? ring->max_cap : ring->cap * 2;
    struct rl_stamp *entries = malloc(cap * sizeof *entries);
    if (entries == NULL)
        return -1;
    size_t first = ring->cap - ring->head < ring->len ? ring->cap - ring->head : ring->len;
    memcpy(entries, ring->entries + ring->head, first * sizeof *entries);
    memcpy(entries + first, ring->entries, (ring->len - first) * sizeof *entries);
    free(ring->entries);
    ring->entries = entries;
    ring->cap = cap;
    ring->head = 0;
    return 0;
}

int rl_stamp_ring_push(struct rl_stamp_ring *ring, uint64_t t_ns, uint64_t n)
{
    if (ring->len > 0) {
        size_t newest = (ring->head + ring->len - 1) % ring->cap;
        if (ring->entries[newest].t_ns == t_ns) {
            ring->entries[newest].n += n;
            ring->sum += n;
            return 0;
        }
    }
    if (ring->len == ring->cap && grow(ring) != 0)
        return -1;
    size_t tail = (ring->head + ring->len) % ring->cap;
    ring->entries[tail] = (struct rl_stamp){.t_ns = t_ns, .n = n};
    ring->len++;
    ring->sum += n;
    return 0;
}
