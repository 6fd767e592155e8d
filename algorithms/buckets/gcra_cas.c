/* gcra_cas.c — the Generic Cell Rate Algorithm, virtual-scheduling form, on
 * one atomic TAT word with a CAS loop.
 *
 * Promise: bucket.
 *
 * State: the theoretical arrival time TAT, one 64-bit word in exact ticks:
 * the same word, bound and horizon as tb_cas (tb_tat.h).
 *
 * Decision: GCRA(T, τ) keeps a theoretical arrival time TAT. A cell
 * arriving at t conforms when t ≥ TAT − τ; it then sets
 * TAT = max(TAT, t) + T. The mapping (docs/design.md, The contract):
 * emission interval T = I/L, tolerance τ = (B − 1)·T, so a fresh key passes
 * B cells at once (the B-th arrives at TAT − τ). An attempt of cost n is n
 * cells at once, admitted all or none: it conforms when its last cell does,
 * t ≥ TAT + (n − 1)·T − τ, and then TAT = max(TAT, t) + n·T. n > B can
 * never conform and changes nothing. RL_ERROR past the horizon.
 *
 * Exactness: T = I/L is a whole number of ticks (tb_ticks.h: T = I', one
 * ns = L' ticks), so TAT, T and τ are integers and GCRA is computed without
 * rounding. That is what makes gcra_cas and tb_mutex agree decision for
 * decision on every sequence (a property test): GCRA is the token bucket
 * with TAT = the time the bucket is full again and B·T = τ + T its capacity.
 * A rounded T would drift from the bucket by the rounding error once per
 * cell.
 *
 * Memory orders: acq_rel, as tb_cas and for the same reasons (tb_cas.c): an
 * acquire load, an acq_rel CAS on success and acquire on failure. The limit
 * itself would hold with relaxed (tb_cas_relaxed.c).
 *
 * Races accepted: tb_cas's: a stale clock read sees the bucket as of its
 * own time, with fewer cells conforming, never more (tb_tat.h).
 *
 * Sources: ITU-T Recommendation I.371 and the ATM Forum's Traffic
 * Management Specification 4.0 (GCRA, virtual scheduling).
 */
#include "tb_tat.h"

#include <stdlib.h>

static void *gcra_cas_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return tb_tat_create(cfg, "gcra_cas", err, err_len);
}

/* Admits n cells at once when the last of them conforms; RL_ERROR past the
 * horizon. One clock read, none for n > B. */
static enum rl_decision gcra_cas_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    (void)key;
    struct tb_tat_state *s = state;
    if (n > s->burst)
        return RL_REJECT;
    uint64_t t;
    if (!tb_tat_now(s, clock, &t))
        return RL_ERROR;
    uint64_t T = s->ticks.per_token;
    uint64_t tau = s->capacity - T; /* (B − 1)·T */
    /* The last cell conforms when TAT + (n−1)·T ≤ t + τ, i.e. when TAT is
     * at most τ − (n−1)·T ahead of t (subtracted this way round, nothing
     * overflows: (n−1)·T ≤ τ since n ≤ B). */
    uint64_t max_ahead = tau - (n - 1) * T;
    /* acquire: see the file comment */
    uint64_t tat = atomic_load_explicit(&s->tat, memory_order_acquire);
    for (;;) {
        uint64_t ahead = tat > t ? tat - t : 0;
        if (ahead > max_ahead)
            return RL_REJECT;
        uint64_t next = (tat > t ? tat : t) + n * T; /* ≤ t + τ + T: fits */
        /* acq_rel on success, acquire on failure: see the file comment */
        if (atomic_compare_exchange_weak_explicit(&s->tat, &tat, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return RL_ADMIT;
    }
}

const struct rl_algo rl_gcra_cas_algo = {
    .name = "gcra_cas",
    .family = "gcra",
    .summary = "GCRA, T = I/L and tau = (B-1)T in exact ticks, one TAT word, CAS loop",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "acq_rel",
    .create = gcra_cas_create,
    .destroy = free,
    .acquire = gcra_cas_acquire,
    .one_word_state = sizeof(struct tb_tat_state),
};
