/* keyed_arena.c — per-shard blocks for per-key instances (keyed_arena.h). */
#include "keyed_arena.h"

#include <stdlib.h>

#define CHUNK_BYTES (64u * 1024)

/* A block of `size` bytes: the free list first, then the newest chunk, then
 * a new chunk. A size other than the arena's block (or too large for a
 * chunk) comes from aligned_alloc and is not the arena's (last = NULL). */
static void *take(struct rl_state_arena *self, size_t size)
{
    struct rl_keyed_arena *a = (struct rl_keyed_arena *)self;
    a->last = NULL;
    if (a->block == 0 && size <= CHUNK_BYTES - RL_CACHE_LINE)
        a->block = size;
    if (size != a->block)
        return aligned_alloc(RL_CACHE_LINE, size);
    void *block = a->free_list;
    if (block) {
        a->free_list = *(void **)block;
    } else {
        if ((size_t)(a->end - a->next) < size) {
            unsigned char *chunk = aligned_alloc(RL_CACHE_LINE, CHUNK_BYTES);
            if (chunk == NULL)
                return NULL;
            *(void **)chunk = a->chunks; /* the first line links the chunks */
            a->chunks = chunk;
            a->next = chunk + RL_CACHE_LINE;
            a->end = chunk + CHUNK_BYTES;
        }
        block = a->next;
        a->next += size;
    }
    a->last = block;
    return block;
}

void rl_keyed_arena_init(struct rl_keyed_arena *a)
{
    *a = (struct rl_keyed_arena){.base = {.take = take}};
}

void rl_keyed_arena_give(struct rl_keyed_arena *a, void *block)
{
    *(void **)block = a->free_list;
    a->free_list = block;
}

void rl_keyed_arena_free(struct rl_keyed_arena *a)
{
    while (a->chunks) {
        void *next = *(void **)a->chunks;
        free(a->chunks);
        a->chunks = next;
    }
    a->free_list = NULL;
}
