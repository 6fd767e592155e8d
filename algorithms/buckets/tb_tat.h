/* tb_tat.h — the token bucket as one 64-bit word, shared by tb_cas,
 * tb_cas_relaxed and gcra_cas; its create() is in tb_tat.c.
 *
 * The word is the theoretical arrival time TAT: the time, in ticks since the
 * epoch (tb_ticks.h), at which the bucket will be full again. At time `now`
 * the bucket lacks max(0, TAT − now) ticks of tokens, so it holds
 * B·I' − max(0, TAT − now). An attempt of cost n (n·I' ticks) is admitted
 * when that is ≥ n·I', and then TAT becomes max(TAT, now) + n·I'. TAT = 0 is
 * a bucket full at the epoch. The same number read as GCRA's TAT with
 * emission interval T = I' and tolerance τ = (B − 1)·T is gcra_cas.
 *
 * Time that goes backwards: `now` enters only through max(TAT, now), and
 * TAT never decreases, so a stale read cannot move the state back or add a
 * token; it sees the bucket as it stood at its own time (fewer tokens).
 * Admits of total cost c whose reads lie in [x, y] need c ≤ B + (y − x)·L/I
 * whatever order they were decided in (the TAT after the first is ≥ x + its
 * cost, each admit adds its cost, and the TAT after the last is ≤ y + B·T),
 * which is why the bound holds for threads whose reads are out of order.
 *
 * The bound this supports: the whole state must fit one 64-bit word, so
 * now·L' + B·I' must stay below 2^64. That holds for
 *
 *   now − epoch ≤ horizon = (2^64 − 1 − B·I') / L'  nanoseconds,
 *
 * and create() refuses a configuration whose horizon is under one day (or
 * whose B·I' alone overflows). With L' = 1 (I a multiple of L) the horizon
 * is 584 years; with L' = 213 503 it is one day; L = 2^32 − 1 per second
 * (L' ≈ 8.6·10^8) gets 21 s and is refused: use tb_mutex, or an interval
 * that L divides. A read past the horizon is answered RL_ERROR, never a
 * wrapped decision.
 */
#ifndef RL_TB_TAT_H
#define RL_TB_TAT_H

#include "tb_ticks.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TB_TAT_MIN_HORIZON_NS (24ull * 3600 * 1000000000)

struct tb_tat_state {
    /* The whole bucket. Each file says which orders it uses and why. */
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t tat;
    uint64_t epoch_ns;
    uint64_t horizon_ns; /* last ns since the epoch whose ticks fit (see above) */
    uint64_t burst;      /* B */
    uint64_t capacity;   /* B·I' ticks = τ + T */
    struct tb_ticks ticks;
};

/* Creates a bucket full at the epoch (TAT = 0) (tb_tat.c). `name` is used
 * in the message. NULL with one line in err for a zero limit or interval, for B·I'
 * over 64 bits, for a horizon under TB_TAT_MIN_HORIZON_NS, or on ENOMEM. */
void *tb_tat_create(const struct rl_config *cfg, const char *name, char *err, size_t err_len);

/* Reads the clock once and turns it into ticks since the epoch; false when
 * the read lies past the horizon. */
static inline bool tb_tat_now(const struct tb_tat_state *s, struct rl_clock *clock,
                              uint64_t *now_ticks)
{
    uint64_t since = tb_since_epoch(rl_clock_now(clock), s->epoch_ns);
    if (since > s->horizon_ns)
        return false;
    *now_ticks = since * s->ticks.per_ns;
    return true;
}

/* The token-bucket view of the word, for tb_cas and tb_cas_relaxed, which
 * differ only in memory orders; always_inline keeps each order a
 * compile-time constant. Admits n when the bucket holds n tokens; a denied
 * attempt (n > B included) writes nothing. */
__attribute__((always_inline)) static inline enum rl_decision
tb_cas_acquire_ordered(struct tb_tat_state *s, struct rl_clock *clock, uint64_t n,
                       memory_order load_order, memory_order success_order,
                       memory_order failure_order)
{
    if (n > s->burst)
        return RL_REJECT;
    uint64_t now;
    if (!tb_tat_now(s, clock, &now))
        return RL_ERROR;
    uint64_t cost = n * s->ticks.per_token; /* ≤ capacity: n ≤ B */
    uint64_t may_lack = s->capacity - cost; /* the most the bucket may lack and still pay */
    uint64_t tat = atomic_load_explicit(&s->tat, load_order);
    for (;;) {
        uint64_t lacking = tat > now ? tat - now : 0;
        if (lacking > may_lack)
            return RL_REJECT;
        /* ≤ now + capacity, which fits below the horizon */
        uint64_t next = now + lacking + cost;
        /* weak: a spurious failure only reloads `tat` and decides again */
        if (atomic_compare_exchange_weak_explicit(&s->tat, &tat, next, success_order,
                                                  failure_order))
            return RL_ADMIT;
    }
}

#endif
