/* lost_update.c — two threads increment one counter; the plain way is a
 * deliberate data race (the lesson is what it does), so this file is never
 * run by the ThreadSanitizer suites. */
#include "lost_update.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

struct shared {
    _Alignas(64) volatile uint64_t plain;
    _Atomic uint64_t atomic;
    _Atomic int ready; /* threads started; each spins until all are */
    unsigned threads;
    enum rl_lost_update_kind kind;
    uint64_t per_thread;
};

const char *rl_lost_update_name(enum rl_lost_update_kind kind)
{
    static const char *const names[] = {"plain", "load_store", "fetch_add"};
    return kind < RL_LOST_KINDS ? names[kind] : "?";
}

const char *rl_lost_update_code(enum rl_lost_update_kind kind)
{
    static const char *const code[] = {"count++ (plain, volatile)",
                                       "atomic_store(&c, atomic_load(&c) + 1)",
                                       "atomic_fetch_add(&c, 1)"};
    return kind < RL_LOST_KINDS ? code[kind] : "?";
}

static void *increment(void *arg)
{
    struct shared *s = arg;
    atomic_fetch_add(&s->ready, 1);
    while (atomic_load(&s->ready) < (int)s->threads)
        ;
    for (uint64_t i = 0; i < s->per_thread; i++)
        switch (s->kind) {
        case RL_LOST_PLAIN:
            s->plain++;
            break;
        case RL_LOST_LOAD_STORE:
            atomic_store(&s->atomic, atomic_load(&s->atomic) + 1);
            break;
        default:
            atomic_fetch_add(&s->atomic, 1);
            break;
        }
    return NULL;
}

int rl_lost_update_run(enum rl_lost_update_kind kind, unsigned threads, uint64_t per_thread,
                       struct rl_lost_update_result *out, char *err, size_t err_len)
{
    if (threads < 1 || threads > 2) {
        snprintf(err, err_len, "threads must be 1 or 2, not %u", threads);
        return -1;
    }
    static struct shared s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.per_thread = per_thread;
    s.threads = threads;
    pthread_t t[2];
    for (unsigned i = 0; i < threads; i++) {
        int e = pthread_create(&t[i], NULL, increment, &s);
        if (e != 0) {
            snprintf(err, err_len, "cannot start a thread: %s", strerror(e));
            if (i == 1) {
                atomic_fetch_add(&s.ready, 1);
                pthread_join(t[0], NULL);
            }
            return -1;
        }
    }
    for (unsigned i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    out->kind = kind;
    out->threads = threads;
    out->expected = threads * per_thread;
    out->final = kind == RL_LOST_PLAIN ? s.plain : atomic_load(&s.atomic);
    return 0;
}

const char *rl_lost_update_note(const struct rl_lost_update_result *r)
{
    if (r->kind == RL_LOST_FETCH_ADD || r->final < r->expected)
        return NULL;
    if (r->threads < 2)
        return "none lost: one thread, so no race can happen (the control run)";
    return "none lost: the race did not happen in this run (the threads never overlapped "
           "at the wrong instant); rerun the lesson";
}
