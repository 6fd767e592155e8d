/* tb_tat.c — create() for the one-word token bucket of tb_tat.h, shared by
 * tb_cas, tb_cas_relaxed and gcra_cas. */
#include "tb_tat.h"

#include <stdio.h>

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
