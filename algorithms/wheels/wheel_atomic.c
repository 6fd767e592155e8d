/* wheel_atomic.c — the time wheel of wheel.c without the mutex: one atomic
 * word per slot and a sum on read.
 *
 * Promise: window, as wheel; on one thread it decides exactly as wheel does
 * (a property test checks it). Why each run W of S slots keeps ≤ L: take
 * the admit α into W with the largest target j, the last of those to CAS.
 * Its sum covered j − S + 1 … j ⊇ every slot of W it could miss. An admit
 * into slot j after α's CAS contradicts α's choice; one into a slot i < j
 * that α's read missed came after that read in S, hence after newest ≥ j
 * was in place, so its own re-read of newest saw j > i and it withdrew.
 * All that stays in W was in α's sum (or is a withdrawal still pending):
 * ≤ L − n_α before α.
 *
 * State:
 *   anchor   the first attempt's time + 1 (0 = not started): the slot grid
 *            starts there, as the article's wheel starts at its creation.
 *   newest   the largest slot index any acquire has targeted.
 *   slots[]  slot i lives at i mod S as (i mod 2^32) << 32 | admitted cost.
 *            The tag makes rotation lazy: a word whose tag is not one of the
 *            last S indices is an expired slot and reads as 0, and the next
 *            admit into that position replaces it. No thread ever clears
 *            the wheel and there is no running total to keep in step.
 *
 * Decision: target = max(own slot index, newest); sum the S slots
 * target − S + 1 … target; if sum + n ≤ L, CAS n into slot `target`. The
 * CAS re-validates the target slot, so admits into one slot are exact. The
 * other slots are read one by one, not as a snapshot; what that can miss:
 *   - a concurrent admit into an older slot by a thread that targeted it
 *     before newest moved on (it read its clock just before a boundary).
 *     Such a thread re-reads newest after its CAS and, if newest has moved
 *     past its target, takes its admit back and retries at the newer slot.
 *   - a withdrawal or an expiry between two reads: the sum is then too
 *     large, a reject that was not needed.
 * Cost: S loads per call, so large S is slower; wheel.c rotates and keeps a
 * total instead.
 *
 * Memory orders: seq_cst where it matters. An admitter's CAS and re-read of
 * newest, against a checker's newest update and slot reads, are the
 * store→load (Dekker) pattern, so those four accesses are seq_cst: in the
 * single order S either the checker's sum sees the admit or the admitter
 * sees the newer index and withdraws. The anchor (a number set once) and
 * withdrawals (lowering a count publishes nothing) are relaxed.
 *
 * Races accepted: false rejects (an admit counted by a checker and then
 * withdrawn; a stale thread refused against an older window), retries
 * when a boundary passes mid-call, and the 32-bit tag's wrap after 2^32
 * slots (a stale slot read as current only adds to the sum).
 *
 * Sources: the time-wheel article (wheel.c).
 */
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define RL_WHEEL_ATOMIC_MAX_SLOTS 65536u

struct wheel_atomic_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t anchor; /* first attempt + 1; 0 = none yet */
    _Atomic uint64_t newest;                         /* largest targeted slot index */
    uint32_t slot_count;
    uint64_t slot_ns;
    uint64_t limit;
    /* own cache lines: the hot slot's CAS traffic stays off anchor/newest */
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t slots[];
};

/* The two halves of a slot word: its slot index mod 2^32 and its cost. */
static inline uint32_t slot_tag(uint64_t word)
{
    return (uint32_t)(word >> 32);
}
static inline uint64_t slot_cost(uint64_t word)
{
    return (uint32_t)word;
}

/* S as wheel.c validates it (1..65536, ≤ I in ns), L in 32 bits. Every
 * slot starts as index 0, cost 0. NULL with a reason in err otherwise. */
static void *wheel_atomic_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    uint32_t slots = cfg->slots ? cfg->slots : RL_DEFAULT_SLOTS;
    if (slots > RL_WHEEL_ATOMIC_MAX_SLOTS || slots > cfg->interval_ns) {
        snprintf(err, err_len, "wheel_atomic: slots must be 1..%u and at most the interval in ns",
                 RL_WHEEL_ATOMIC_MAX_SLOTS);
        return NULL;
    }
    if (cfg->limit > UINT32_MAX) {
        snprintf(err, err_len, "wheel_atomic keeps a slot's cost in 32 bits: limit must be ≤ %u",
                 UINT32_MAX);
        return NULL;
    }
    struct wheel_atomic_state *s =
        rl_state_alloc(sizeof *s + slots * sizeof s->slots[0], err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->anchor, 0);
    atomic_init(&s->newest, 0);
    for (uint32_t i = 0; i < slots; i++)
        atomic_init(&s->slots[i], 0);
    s->slot_count = slots;
    s->slot_ns = (cfg->interval_ns + slots - 1) / slots;
    s->limit = cfg->limit;
    return s;
}

/* The slot index of now on the grid that starts at the first attempt. */
static uint64_t own_slot(struct wheel_atomic_state *s, uint64_t now)
{
    /* relaxed: the anchor is a plain number, set once; whichever first
     * attempt wins the CAS, every thread then uses its value. */
    uint64_t anchor = atomic_load_explicit(&s->anchor, memory_order_relaxed);
    if (anchor == 0 &&
        atomic_compare_exchange_strong_explicit(&s->anchor, &anchor, now + 1, memory_order_relaxed,
                                                memory_order_relaxed))
        anchor = now + 1; /* ours; on failure anchor holds the winner's */
    uint64_t start = anchor - 1;
    return now > start ? (now - start) / s->slot_ns : 0;
}

/* Takes back n from slot `target` unless the slot has been replaced (then
 * the cost left with it). */
static void withdraw(struct wheel_atomic_state *s, uint64_t target, uint64_t n)
{
    _Atomic uint64_t *slot = &s->slots[target % s->slot_count];
    /* relaxed: lowering a count publishes nothing; a reader that still sees
     * the higher value only rejects more. */
    uint64_t word = atomic_load_explicit(slot, memory_order_relaxed);
    while (slot_tag(word) == (uint32_t)target &&
           !atomic_compare_exchange_weak_explicit(slot, &word, word - n, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

/* Admits n when the last S slots up to the target hold at most L − n, by a
 * CAS on the target slot (see the file comment). n > L is rejected without
 * reading the clock. Never errs. */
static enum rl_decision wheel_atomic_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                             uint64_t n)
{
    (void)key;
    struct wheel_atomic_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t own = own_slot(s, rl_clock_now(clock));
    uint32_t count = s->slot_count;
    for (;;) {
        /* seq_cst (load and CAS): the checker's half of the Dekker pair —
         * our newest update must precede, in S, our slot reads below. */
        uint64_t target = atomic_load_explicit(&s->newest, memory_order_seq_cst);
        while (own > target &&
               !atomic_compare_exchange_weak_explicit(&s->newest, &target, own,
                                                      memory_order_seq_cst, memory_order_seq_cst)) {
        }
        if (own > target)
            target = own;

        uint64_t first = target >= count - 1 ? target - (count - 1) : 0;
        uint64_t sum = 0, current = 0;
        for (uint64_t i = first; i <= target; i++) {
            /* seq_cst: see the Dekker pair above. */
            uint64_t word = atomic_load_explicit(&s->slots[i % count], memory_order_seq_cst);
            if (slot_tag(word) == (uint32_t)i)
                sum += slot_cost(word);
            if (i == target)
                current = word;
        }
        if (sum + n > s->limit)
            return RL_REJECT;
        if ((int32_t)(slot_tag(current) - (uint32_t)target) > 0)
            continue; /* a thread S or more slots ahead replaced it: newest moved */
        uint64_t next = slot_tag(current) == (uint32_t)target
                            ? current + n
                            : (uint64_t)(uint32_t)target << 32 | n;
        /* seq_cst: the admitter's half of the Dekker pair, with the load
         * of newest after it. A failure means the slot changed: decide again. */
        if (!atomic_compare_exchange_strong_explicit(&s->slots[target % count], &current, next,
                                                     memory_order_seq_cst, memory_order_seq_cst))
            continue;
        if (atomic_load_explicit(&s->newest, memory_order_seq_cst) == target)
            return RL_ADMIT;
        /* newest moved past us mid-call: a checker there may have summed
         * without our cost. Withdraw and decide again at the newer slot. */
        withdraw(s, target, n);
    }
}

/* The checker's copy (rl_algo.snapshot): anchor, newest, every slot word. */
static size_t wheel_atomic_snapshot(const void *state, void *buf, size_t cap)
{
    const struct wheel_atomic_state *s = state;
    size_t len = (2 + (size_t)s->slot_count) * sizeof(uint64_t);
    if (cap < len)
        return len;
    uint64_t *out = buf; /* the scratch is malloc'd: aligned for words */
    out[0] = atomic_load(&s->anchor);
    out[1] = atomic_load(&s->newest);
    for (uint32_t i = 0; i < s->slot_count; i++)
        out[2 + i] = atomic_load(&s->slots[i]);
    return len;
}

static int wheel_atomic_restore(void *state, const void *buf, size_t len)
{
    struct wheel_atomic_state *s = state;
    if (len != (2 + (size_t)s->slot_count) * sizeof(uint64_t))
        return -1;
    const uint64_t *in = buf;
    atomic_store(&s->anchor, in[0]);
    atomic_store(&s->newest, in[1]);
    for (uint32_t i = 0; i < s->slot_count; i++)
        atomic_store(&s->slots[i], in[2 + i]);
    return 0;
}

const struct rl_algo rl_wheel_atomic_algo = {
    .name = "wheel_atomic",
    .family = "time_wheel",
    .summary = "time wheel with one tagged atomic word per slot, sum on read, lock-free",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "seq_cst+relaxed",
    .create = wheel_atomic_create,
    .destroy = free,
    .acquire = wheel_atomic_acquire,
    .snapshot = wheel_atomic_snapshot,
    .restore = wheel_atomic_restore,
};
