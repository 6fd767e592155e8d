/* redis_sliding_counter.c — Cloudflare's sliding-window counter on Redis:
 * lua/sliding_counter.lua.
 *
 * Promise: approx, as sliding_counter.c.
 *
 * State, on the server: sliding_counter.c's, two window counts per key
 * (and the window they count), packed in one string; keys live 2I, after
 * which both counts are zero.
 *
 * Decision: the rule of sliding_counter.c (the previous count weighted by
 * its overlap with [t − I, t)), so both decide identically on a trace in
 * sim (a test). Time is the client's (virtual in sim). The window index and
 * the elapsed part are computed here in exact integers and passed in: a
 * Lua division of doubles could put a time on the wrong side of a window
 * edge. The script multiplies counts by I, so create refuses
 * 2·L·I > 2^53 − 1 (e.g. L = 10^6 per 5 s). n > L is refused without a call
 * or clock read, as sliding_counter.c does.
 *
 * Memory orders: redis: each script runs atomically on the server; the
 * client shares nothing between threads (redis_common.h).
 *
 * Races accepted: clients' clocks are not one: a client behind or ahead
 * decides at its own time. RL_ERROR when the server cannot be asked.
 *
 * Sources: Cloudflare, "How we built rate limiting capable of scaling to
 * millions of domains" (2017), as sliding_counter.c.
 */
#include "redis_common.h"

#include <stdio.h>

extern const char rl_lua_sliding_counter[];

struct redis_sc_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
    uint64_t ttl_ms;
};

/* NULL with one line in err: no server, no PING, zero L or I, 2·L·I over
 * 2^53 − 1. */
static void *redis_sc_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit != 0 && cfg->interval_ns > RL_LUA_INT_MAX / 2 / cfg->limit) {
        snprintf(err, err_len,
                 "redis_sliding_counter: 2·L·I must stay below 2^53 (Lua numbers are doubles); "
                 "use a lower limit or a shorter interval");
        return NULL;
    }
    const struct rl_redis_script scripts[] = {{"sliding_counter", rl_lua_sliding_counter}};
    struct redis_sc_state *s =
        rl_redis_create(cfg, "redis_sliding_counter", sizeof *s, scripts, 1, err, err_len);
    if (s == NULL)
        return NULL;
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    s->ttl_ms = rl_redis_ttl_ms(s->redis, 2 * cfg->interval_ns);
    return s;
}

/* One clock read (none for n > L), one EVALSHA. */
static enum rl_decision redis_sc_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    struct redis_sc_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
    if (since / s->interval_ns > RL_LUA_INT_MAX)
        return RL_ERROR; /* only for I < 2048 ns, after 2^64 ns */
    /* each ≤ 2^53 − 1: k checked above, elapsed < I, n ≤ L, 2·L·I checked
     * at create */
    const int64_t numbers[5] = {(int64_t)(since / s->interval_ns),
                                (int64_t)(since % s->interval_ns), (int64_t)n, (int64_t)s->limit,
                                (int64_t)s->interval_ns};
    unsigned char packed[sizeof numbers];
    rl_redis_pack_doubles(packed, numbers, 5);
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_bytes(&args, packed, sizeof packed);
    rl_redis_arg_u64(&args, s->ttl_ms);
    return rl_redis_decide(s->redis, 0, key, &args);
}

const struct rl_algo rl_redis_sliding_counter_algo = {
    .name = "redis_sliding_counter",
    .family = "sliding_counter",
    .summary = "Cloudflare's prev·(I−elapsed)/I + curr in Lua, epoch-aligned windows, client time",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_sc_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_sc_acquire,
};
