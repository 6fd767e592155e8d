/* tb_cas.c — the token bucket lock-free: the whole state is one 64-bit
 * theoretical arrival time, changed by a CAS loop (tb_tat.h). It decides
 * exactly as tb_mutex does, on every sequence of attempts.
 *
 * Memory orders. The bucket itself needs none: it is one word, every change
 * is a read-modify-write, and an RMW always reads the latest value in the
 * word's modification order, so the admits form one chain in which each
 * decision starts from the state the previous admit left (tb_cas_relaxed
 * says more). The orders here are the ones a caller of a mutex-based
 * limiter may silently rely on, so tb_cas can replace tb_mutex anywhere:
 *
 *   load    acquire  a decision (a reject included) happens after the admit
 *                    whose TAT it read;
 *   success acq_rel  release: what the caller did before an admitted acquire
 *                    is visible to every later decision that reads this TAT
 *                    or one after it; acquire: as for the load;
 *   failure acquire  the reloaded TAT is decided on, so as for the load.
 *
 * On x86-64 these compile to the same instructions as relaxed ones (a locked
 * cmpxchg and a plain load); on weakly ordered machines they cost barriers.
 */
#include "tb_tat.h"

#include <stdio.h>
#include <stdlib.h>

void *tb_tat_create(const struct rl_config *cfg, const char *name, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "%s: limit and interval must be at least 1", name);
        return NULL;
    }
    struct tb_ticks ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    uint64_t burst = rl_config_burst(cfg);
    if (burst > UINT64_MAX / ticks.per_token) {
        snprintf(err, err_len,
                 "%s keeps the bucket in one 64-bit word: capacity B·I/gcd(L,I) = %llu·%llu "
                 "overflows it; use tb_mutex",
                 name, (unsigned long long)burst, (unsigned long long)ticks.per_token);
        return NULL;
    }
    uint64_t capacity = burst * ticks.per_token;
    uint64_t horizon_ns = (UINT64_MAX - capacity) / ticks.per_ns;
    if (horizon_ns < TB_TAT_MIN_HORIZON_NS) {
        snprintf(err, err_len,
                 "%s keeps time in one 64-bit word of ns·L/gcd(L,I): L/gcd(L,I) = %llu would "
                 "overflow after %.0f s, and at least one day is required; choose an interval "
                 "that L divides, or use tb_mutex",
                 name, (unsigned long long)ticks.per_ns, (double)horizon_ns / 1e9);
        return NULL;
    }
    struct tb_tat_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->tat, 0); /* full at the epoch */
    s->epoch_ns = cfg->epoch_ns;
    s->horizon_ns = horizon_ns;
    s->burst = burst;
    s->capacity = capacity;
    s->ticks = ticks;
    return s;
}

static void *tb_cas_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return tb_tat_create(cfg, "tb_cas", err, err_len);
}

/* Admits n when the bucket holds n tokens; RL_ERROR past the horizon. */
static enum rl_decision tb_cas_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                       uint64_t n)
{
    (void)key;
    return tb_cas_acquire_ordered(state, clock, n, memory_order_acquire, memory_order_acq_rel,
                                  memory_order_acquire);
}

const struct rl_algo rl_tb_cas_algo = {
    .name = "tb_cas",
    .family = "token_bucket",
    .summary = "token bucket as one 64-bit TAT word, CAS loop (acquire/acq_rel), exact ticks",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .create = tb_cas_create,
    .destroy = free,
    .acquire = tb_cas_acquire,
};
