/* state_alloc.c — the one allocation every create() makes, from the heap
 * or from the arena the caller set for this thread. */
#include "rl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local struct rl_state_arena *arena;

void rl_state_arena_use(struct rl_state_arena *use)
{
    arena = use;
}

void *rl_state_alloc(size_t size, char *err, size_t err_len)
{
    size_t rounded = (size + RL_CACHE_LINE - 1) / RL_CACHE_LINE * RL_CACHE_LINE;
    void *state = arena ? arena->take(arena, rounded) : aligned_alloc(RL_CACHE_LINE, rounded);
    if (state == NULL) {
        snprintf(err, err_len, "out of memory allocating %zu bytes of limiter state", rounded);
        return NULL;
    }
    memset(state, 0, rounded);
    return state;
}
