/* keyed_arena.h — the blocks the keyed container keeps per-key instances
 * in, for algorithms whose destroy is free: carved from 64 KiB chunks, so
 * an instance costs its own size (a multiple of RL_CACHE_LINE) with no
 * malloc header or alignment slack, and reused through a free list when a
 * key expires, so the resident set stays flat under churn. One arena per
 * shard, used under the shard's mutex only; chunks are freed with it.
 */
#ifndef RL_KEYED_ARENA_H
#define RL_KEYED_ARENA_H

#include "algorithms/rl.h"

#include <stddef.h>

struct rl_keyed_arena {
    struct rl_state_arena base; /* first: what rl_state_alloc is given */
    size_t block;               /* bytes per block, fixed by the first take */
    void *free_list;            /* given-back blocks, linked through their first word */
    unsigned char *next, *end;  /* what is left of the newest chunk */
    void *chunks;               /* every chunk, linked through its first word */
    void *last;                 /* the block the latest take handed out, or NULL */
};

void rl_keyed_arena_init(struct rl_keyed_arena *arena);

/* True when p is the block the latest take handed out: the instance a
 * create() just returned lives in the arena (a take of another size, or a
 * create that does not use rl_state_alloc, leaves it elsewhere). */
static inline int rl_keyed_arena_took(const struct rl_keyed_arena *arena, const void *p)
{
    return p != NULL && p == arena->last;
}

/* Takes back a block once nothing uses it. */
void rl_keyed_arena_give(struct rl_keyed_arena *arena, void *block);

/* Frees every chunk. */
void rl_keyed_arena_free(struct rl_keyed_arena *arena);

#endif
