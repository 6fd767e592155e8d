/* keyed_grace.h — when the keyed container may free or reuse what a
 * lock-free reader might still be looking at.
 *
 * Each thread owns a record with a count that is odd while the thread is
 * inside a container operation. A writer makes its change (a frozen table,
 * a new table, a key word turned into a tombstone) with a seq_cst store and
 * then waits for a grace period: every record found odd is waited on until
 * its count moves. After that, no operation that began before the change is
 * still running, and every operation that begins after it sees the change:
 * the reader's seq_cst store of its odd count and its later seq_cst loads,
 * against the writer's seq_cst store and its later seq_cst loads of the
 * counts, cannot both miss each other (the store-buffer pattern under one
 * total order S of seq_cst operations). So a writer that waited may free the
 * old table, destroy an expired state or reuse its slot.
 *
 * Readers never wait for anything while inside (no lock, no grace), so a
 * writer's wait ends once the operations in flight end. A writer must not be
 * inside itself (rl_grace_wait checks). Records are never freed: a thread
 * that exits gives its record back for the next new thread to take.
 */
#ifndef RL_KEYED_GRACE_H
#define RL_KEYED_GRACE_H

#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct rl_grace_thread {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t seq; /* odd: inside an operation */
    _Atomic bool taken;                           /* a live thread owns it */
    struct rl_grace_thread *next;                 /* the registry's list; set once */
};

/* This thread's record, NULL until rl_grace_self registers it. */
extern _Thread_local struct rl_grace_thread *rl_grace_current;

/* Registers this thread on first use; NULL on ENOMEM. */
struct rl_grace_thread *rl_grace_register(void);

static inline struct rl_grace_thread *rl_grace_self(void)
{
    struct rl_grace_thread *t = rl_grace_current;
    return t ? t : rl_grace_register();
}

/* seq_cst: the store must be ordered before the operation's loads of the
 * table and its key words (see above); a plain store could pass them. */
static inline void rl_grace_enter(struct rl_grace_thread *t)
{
    uint64_t seq = atomic_load_explicit(&t->seq, memory_order_relaxed); /* only we write it */
    atomic_store_explicit(&t->seq, seq + 1, memory_order_seq_cst);
}

/* release: everything the operation did happens before a waiter that sees
 * the count move. */
static inline void rl_grace_leave(struct rl_grace_thread *t)
{
    uint64_t seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
    atomic_store_explicit(&t->seq, seq + 1, memory_order_release);
}

/* Returns once every thread that was inside an operation when it was called
 * has left it. The caller's own change must already be stored (seq_cst). */
void rl_grace_wait(void);

#endif
