/* stamp_ring.h — a growable ring of (time, cost) admit stamps, oldest first,
 * with their running cost sum: the storage behind sliding_log and
 * sliding_log_sweeper. Not thread-safe; its owner holds a lock.
 *
 * Stamps are kept in time order (the owner never pushes a time earlier than
 * the newest), so expiry only ever looks at the head. A push at the newest
 * stamp's time merges into it, so a burst at one instant costs one entry.
 * Each entry holds cost ≥ 1 and the sum never exceeds L, so the ring never
 * needs more than L entries; it starts small and doubles up to that, so an
 * idle key costs a few hundred bytes, not 16·L.
 */
#ifndef RL_STAMP_RING_H
#define RL_STAMP_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_stamp {
    uint64_t t_ns; /* admit time on the limiter's clock */
    uint64_t n;    /* admitted cost at that time */
};

struct rl_stamp_ring {
    struct rl_stamp *entries;
    size_t head, len, cap, max_cap;
    uint64_t sum; /* cost over all entries */
};

/* Sets up an empty ring that may grow to max_cap entries (≥ 1). -1 on ENOMEM. */
int rl_stamp_ring_init(struct rl_stamp_ring *ring, size_t max_cap);
void rl_stamp_ring_free(struct rl_stamp_ring *ring);

/* Appends (t_ns, n), merging with the newest entry when it has the same
 * time; t_ns must be ≥ the newest entry's. Grows the ring when full.
 * -1 when it would need more than max_cap entries or memory runs out; the
 * ring is then unchanged. */
int rl_stamp_ring_push(struct rl_stamp_ring *ring, uint64_t t_ns, uint64_t n);

/* Drops every entry stamped strictly before cutoff_ns. */
static inline void rl_stamp_ring_drop_before(struct rl_stamp_ring *ring, uint64_t cutoff_ns)
{
    while (ring->len > 0 && ring->entries[ring->head].t_ns < cutoff_ns) {
        ring->sum -= ring->entries[ring->head].n;
        ring->head = ring->head + 1 == ring->cap ? 0 : ring->head + 1;
        ring->len--;
    }
}

#endif
