/* keyed_grace.c — the registry of per-thread records and the grace-period
 * wait (keyed_grace.h). */
#include "keyed_grace.h"

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

_Thread_local struct rl_grace_thread *rl_grace_current;

/* Pushed under registry_lock, read without it: a record's `next` is set
 * before the record is published and never changes. */
static _Atomic(struct rl_grace_thread *) registry;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* At thread exit: the record is free for the next thread. The count is even
 * (a thread exits outside any operation) and keeps counting from there, so a
 * waiter that saw an older odd value still sees it move. */
static void give_back(void *record)
{
    struct rl_grace_thread *t = record;
    atomic_store_explicit(&t->taken, false, memory_order_release);
}

static void make_exit_key(void)
{
    if (pthread_key_create(&exit_key, give_back) != 0)
        abort(); /* only when the process is out of keys: nothing sensible to do */
}

struct rl_grace_thread *rl_grace_register(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    pthread_mutex_lock(&registry_lock);
    struct rl_grace_thread *t = atomic_load_explicit(&registry, memory_order_relaxed);
    /* acquire: the exiting thread's last operation happens before ours */
    while (t && atomic_load_explicit(&t->taken, memory_order_acquire))
        t = t->next;
    if (t == NULL) {
        t = aligned_alloc(RL_CACHE_LINE, sizeof *t);
        if (t == NULL) {
            pthread_mutex_unlock(&registry_lock);
            return NULL;
        }
        atomic_init(&t->seq, 0);
        t->next = atomic_load_explicit(&registry, memory_order_relaxed);
        atomic_init(&t->taken, true);
        /* release: a waiter that finds the record sees it initialised */
        atomic_store_explicit(&registry, t, memory_order_release);
    } else {
        atomic_store_explicit(&t->taken, true, memory_order_relaxed);
    }
    pthread_mutex_unlock(&registry_lock);
    pthread_setspecific(exit_key, t);
    rl_grace_current = t;
    return t;
}

void rl_grace_wait(void)
{
    assert(rl_grace_current == NULL || atomic_load(&rl_grace_current->seq) % 2 == 0);
    /* seq_cst: this load of the list and of each count follows the caller's
     * seq_cst change in S; a record pushed after it belongs to a thread whose
     * first operation sees the change. */
    for (struct rl_grace_thread *t = atomic_load_explicit(&registry, memory_order_seq_cst); t;
         t = t->next) {
        uint64_t seq = atomic_load_explicit(&t->seq, memory_order_seq_cst);
        if (seq % 2 == 0)
            continue;
        /* acquire: what that operation did happens before our return */
        for (unsigned spins = 0; atomic_load_explicit(&t->seq, memory_order_acquire) == seq;
             spins++) {
            if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            } else {
                sched_yield(); /* it may be preempted: let it run */
            }
        }
    }
}
