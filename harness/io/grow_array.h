/* grow_array.h — room for one more item in a growable array, by doubling,
 * in one place for the appends that share it (the search's pending moves in
 * check/linearizable.c, the event heap in run/nodes_sim.c). */
#ifndef RL_GROW_ARRAY_H
#define RL_GROW_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/* items holds *cap items of size bytes, len of them used. When len < *cap,
 * items itself. Else the array reallocated to twice *cap (first when *cap
 * is 0), *cap updated, and the new pointer returned; NULL with items and
 * *cap unchanged when memory runs out or the size would overflow. Usage:
 *     T *grown = rl_grow_array(a->items, &a->cap, a->len, sizeof *grown, 64);
 *     if (grown == NULL) return -1;
 *     a->items = grown; a->items[a->len++] = x; */
static inline void *rl_grow_array(void *items, size_t *cap, size_t len, size_t size, size_t first)
{
    if (len < *cap)
        return items;
    size_t want = *cap ? 2 * *cap : first;
    if (want <= *cap || want > SIZE_MAX / size)
        return NULL;
    void *grown = realloc(items, want * size);
    if (grown != NULL)
        *cap = want;
    return grown;
}

#endif
