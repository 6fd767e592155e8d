/* litmus.c — SB and MP on two pinned threads, the litmus7 "array" way:
 * trial i of a batch uses its own locations x[i], y[i], so nothing is reset
 * between trials, and the two threads meet before each trial at a barrier
 * of two counters (each thread stores its own, spins on the other's: one
 * plain store and a few loads, no fence, no read-modify-write), so that
 * they reach the test's accesses within a cache transfer of each other.
 * After a batch, thread 0 counts the outcomes and clears the arrays. */
#include "litmus.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH      4096
#define CACHE_LINE 64
#define SPINS      (1u << 14) /* spins before yielding: two threads on one CPU still finish */

struct counter {
    _Alignas(CACHE_LINE) _Atomic uint64_t value;
    char pad[CACHE_LINE - sizeof(uint64_t)];
};

struct shared {
    struct counter arrived[2]; /* the barrier: phases each thread has reached */
    _Atomic int *x, *y;        /* SB: x, y; MP: data, flag */
    int *r0, *r1;
    uint64_t trials;
    void (*batch[2])(struct shared *s, size_t n, uint64_t *phase);
    int cpu[2]; /* -1: not pinned */
    uint64_t outcome[2][2];
};

struct worker {
    struct shared *s;
    int self;
};

static inline void meet(struct shared *s, int self, uint64_t *phase)
{
    uint64_t p = ++*phase;
    atomic_store_explicit(&s->arrived[self].value, p, memory_order_release);
    unsigned spins = 0;
    while (atomic_load_explicit(&s->arrived[!self].value, memory_order_acquire) < p)
        if (++spins == SPINS) {
            sched_yield();
            spins = 0;
        }
}

/* One batch of one thread's side, with the orders as constants: a memory
 * order that is not a constant is compiled as seq_cst. */
#define SB_SIDES(name, store, load)                                                                \
    static void name##_0(struct shared *s, size_t n, uint64_t *phase)                              \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            meet(s, 0, phase);                                                                     \
            atomic_store_explicit(&s->x[i], 1, store);                                             \
            s->r0[i] = atomic_load_explicit(&s->y[i], load);                                       \
        }                                                                                          \
    }                                                                                              \
    static void name##_1(struct shared *s, size_t n, uint64_t *phase)                              \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            meet(s, 1, phase);                                                                     \
            atomic_store_explicit(&s->y[i], 1, store);                                             \
            s->r1[i] = atomic_load_explicit(&s->x[i], load);                                       \
        }                                                                                          \
    }

/* MP: x is data (relaxed), y is the flag (store, load). */
#define MP_SIDES(name, store, load)                                                                \
    static void name##_0(struct shared *s, size_t n, uint64_t *phase)                              \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            meet(s, 0, phase);                                                                     \
            atomic_store_explicit(&s->x[i], 1, memory_order_relaxed);                              \
            atomic_store_explicit(&s->y[i], 1, store);                                             \
        }                                                                                          \
    }                                                                                              \
    static void name##_1(struct shared *s, size_t n, uint64_t *phase)                              \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            meet(s, 1, phase);                                                                     \
            s->r0[i] = atomic_load_explicit(&s->y[i], load);                                       \
            s->r1[i] = atomic_load_explicit(&s->x[i], memory_order_relaxed);                       \
        }                                                                                          \
    }

SB_SIDES(sb_relaxed, memory_order_relaxed, memory_order_relaxed)
SB_SIDES(sb_acq_rel, memory_order_release, memory_order_acquire)
SB_SIDES(sb_seq_cst, memory_order_seq_cst, memory_order_seq_cst)
MP_SIDES(mp_relaxed, memory_order_relaxed, memory_order_relaxed)
MP_SIDES(mp_acq_rel, memory_order_release, memory_order_acquire)
MP_SIDES(mp_seq_cst, memory_order_seq_cst, memory_order_seq_cst)

static void (*const sides[RL_LITMUS_TESTS][RL_LITMUS_ORDERS][2])(struct shared *, size_t,
                                                                 uint64_t *) = {
    [RL_LITMUS_SB] = {{sb_relaxed_0, sb_relaxed_1},
                      {sb_acq_rel_0, sb_acq_rel_1},
                      {sb_seq_cst_0, sb_seq_cst_1}},
    [RL_LITMUS_MP] = {{mp_relaxed_0, mp_relaxed_1},
                      {mp_acq_rel_0, mp_acq_rel_1},
                      {mp_seq_cst_0, mp_seq_cst_1}},
};

static void *run_side(void *arg)
{
    struct worker *w = arg;
    struct shared *s = w->s;
    if (s->cpu[w->self] >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(s->cpu[w->self], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    uint64_t phase = 0;
    for (uint64_t done = 0; done < s->trials;) {
        size_t n = s->trials - done < BATCH ? (size_t)(s->trials - done) : BATCH;
        s->batch[w->self](s, n, &phase);
        meet(s, w->self, &phase); /* both sides of the batch are done */
        if (w->self == 0) {
            for (size_t i = 0; i < n; i++) {
                s->outcome[s->r0[i] != 0][s->r1[i] != 0]++;
                atomic_store_explicit(&s->x[i], 0, memory_order_relaxed);
                atomic_store_explicit(&s->y[i], 0, memory_order_relaxed);
            }
        }
        meet(s, w->self, &phase); /* the arrays are clear */
        done += n;
    }
    return NULL;
}

/* The first two CPUs this process may run on, or -1, -1. */
static void pick_cpus(int cpu[2])
{
    cpu[0] = cpu[1] = -1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    int found = 0, first = -1;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &set)) {
            if (found == 0)
                first = c;
            else {
                cpu[0] = first;
                cpu[1] = c;
            }
            found++;
        }
}

int rl_litmus_run(enum rl_litmus_test test, enum rl_litmus_order order, uint64_t trials,
                  struct rl_litmus_result *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->test = test;
    out->order = order;
    if ((unsigned)test >= RL_LITMUS_TESTS || (unsigned)order >= RL_LITMUS_ORDERS) {
        snprintf(err, err_len, "no such litmus test or order");
        return -1;
    }
    struct shared *s = aligned_alloc(CACHE_LINE, sizeof *s);
    if (!s) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    memset(s, 0, sizeof *s);
    s->x = aligned_alloc(CACHE_LINE, BATCH * sizeof *s->x);
    s->y = aligned_alloc(CACHE_LINE, BATCH * sizeof *s->y);
    s->r0 = calloc(BATCH, sizeof *s->r0);
    s->r1 = calloc(BATCH, sizeof *s->r1);
    int rc = -1;
    if (!s->x || !s->y || !s->r0 || !s->r1) {
        snprintf(err, err_len, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < BATCH; i++) {
        atomic_init(&s->x[i], 0);
        atomic_init(&s->y[i], 0);
    }
    atomic_init(&s->arrived[0].value, 0);
    atomic_init(&s->arrived[1].value, 0);
    s->trials = trials;
    s->batch[0] = sides[test][order][0];
    s->batch[1] = sides[test][order][1];
    pick_cpus(s->cpu);

    struct worker w[2] = {{s, 0}, {s, 1}};
    pthread_t t[2];
    int e = pthread_create(&t[0], NULL, run_side, &w[0]);
    if (e != 0) {
        snprintf(err, err_len, "cannot start a thread: %s", strerror(e));
        goto done;
    }
    e = pthread_create(&t[1], NULL, run_side, &w[1]);
    if (e != 0) {
        /* thread 0 waits at its first barrier: run its partner here */
        run_side(&w[1]);
        pthread_join(t[0], NULL);
        snprintf(err, err_len, "cannot start a thread: %s", strerror(e));
        goto done;
    }
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);

    out->trials = trials;
    memcpy(out->outcome, s->outcome, sizeof out->outcome);
    out->non_sc = test == RL_LITMUS_SB ? s->outcome[0][0] : s->outcome[1][0];
    out->pinned = s->cpu[0] >= 0;
    rc = 0;
done:
    free(s->x);
    free(s->y);
    free(s->r0);
    free(s->r1);
    free(s);
    return rc;
}

const char *rl_litmus_test_name(enum rl_litmus_test test)
{
    return test == RL_LITMUS_SB ? "sb" : test == RL_LITMUS_MP ? "mp" : "?";
}

const char *rl_litmus_order_name(enum rl_litmus_order order)
{
    static const char *const names[RL_LITMUS_ORDERS] = {"store relaxed / load relaxed",
                                                        "store release / load acquire",
                                                        "store seq_cst / load seq_cst"};
    return (unsigned)order < RL_LITMUS_ORDERS ? names[order] : "?";
}

const char *rl_litmus_non_sc_outcome(enum rl_litmus_test test)
{
    return test == RL_LITMUS_SB ? "r0=0, r1=0" : test == RL_LITMUS_MP ? "r0=1, r1=0" : "?";
}

bool rl_litmus_allowed_c11(enum rl_litmus_test test, enum rl_litmus_order order)
{
    /* SB: only seq_cst on all four accesses forbids it; MP: release/acquire
     * (or stronger) on the flag forbids it. */
    return test == RL_LITMUS_SB ? order != RL_LITMUS_SEQ_CST : order == RL_LITMUS_RELAXED;
}

bool rl_litmus_allowed_tso(enum rl_litmus_test test, enum rl_litmus_order order)
{
    /* x86-64 lets a load pass an earlier store (the store buffer) and
     * nothing else; a seq_cst store is xchg or mov+mfence, which drains it. */
    return test == RL_LITMUS_SB && order != RL_LITMUS_SEQ_CST;
}

const char *rl_litmus_note(const struct rl_litmus_result *r)
{
    bool c11 = rl_litmus_allowed_c11(r->test, r->order);
#if defined(__x86_64__)
    bool here = rl_litmus_allowed_tso(r->test, r->order);
#else
    bool here = c11; /* a weakly ordered CPU may show what C11 allows */
#endif
    if (r->non_sc > 0)
        return here ? "seen" : "seen, though forbidden here: a bug";
    if (here)
        return "not seen in this run (the threads may not have met): rerun";
    if (c11)
        return "x86-64 never shows it; Arm/POWER may: not observable here";
    return "forbidden at this order";
}
