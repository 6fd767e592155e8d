/* redis_gcra.c — GCRA on one Redis key per limiter holding the theoretical
 * arrival time: lua/gcra.lua.
 *
 * Promise: bucket.
 *
 * State, on the server: per key, the TAT in gcra_cas.c's exact ticks, a
 * packed double: a refusal is TIME and one GET, an admit one SET with PX
 * more.
 *
 * Decision: gcra_cas's. Emission interval T = I/L, tolerance τ = (B − 1)·T
 * (docs/design.md, The contract), in exact ticks, so the script decides as
 * gcra_cas does (and so as tb_mutex): tested on seeded traces in sim. n > B
 * never conforms and is refused without a call.
 *
 * Time is the server's (TIME, µs × 1000 for ns, relative to TIME read at
 * create): one clock for all clients, so client skew cannot move it.
 * Under virtual time (sim) the script takes the client's virtual time
 * instead, the server's clock having nothing to do with the trace's.
 *
 * Bound: as redis_token_bucket, t·L' + B·T ≤ 2^53 − 1 (Lua doubles): a
 * configuration whose horizon is under a day is refused, a time past it is
 * RL_ERROR (client time: here; server time: an error reply from the
 * script).
 *
 * Memory orders: redis: each script runs atomically on the server; the
 * client shares nothing between threads (redis_common.h).
 *
 * Races accepted: none on the server. RL_ERROR when it cannot be asked.
 *
 * Sources: ITU-T I.371 / ATM Forum TM 4.0, as gcra_cas.c.
 */
#include "redis_common.h"
#include "algorithms/buckets/tb_ticks.h"

#include <inttypes.h>
#include <stdio.h>

extern const char rl_lua_gcra[];

struct redis_gcra_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    bool server_time;
    uint64_t burst;
    uint64_t epoch_ns;
    uint64_t horizon_ns;
    uint64_t server_epoch_us;
    char ttl_ms[24]; /* PX, in decimal once for all calls */
    size_t ttl_len;
    struct tb_ticks ticks;
};

/* NULL with one line in err: no server, no PING, zero L or I, the 2^53
 * bound (see above), or the server's TIME unreadable. */
static void *redis_gcra_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "redis_gcra: limit and interval must be at least 1");
        return NULL;
    }
    struct tb_ticks ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    uint64_t horizon;
    if (!rl_redis_tick_horizon("redis_gcra", ticks.per_ns, ticks.per_token, rl_config_burst(cfg),
                               &horizon, err, err_len))
        return NULL;
    const struct rl_redis_script scripts[] = {{"gcra", rl_lua_gcra}};
    struct redis_gcra_state *s =
        rl_redis_create(cfg, "redis_gcra", sizeof *s, scripts, 1, err, err_len);
    if (s == NULL)
        return NULL;
    s->ticks = ticks;
    s->burst = rl_config_burst(cfg);
    s->epoch_ns = cfg->epoch_ns;
    s->horizon_ns = horizon;
    s->server_time = !cfg->virtual_time;
    if (s->server_time && rl_redis_time_us(s->redis, &s->server_epoch_us) != 0) {
        snprintf(err, err_len, "%s", rl_redis_last_error());
        rl_redis_destroy(s);
        return NULL;
    }
    /* the TAT is at most B·T ticks ahead: after that long a missing key
     * (TAT 0) means the same */
    uint64_t ahead_ns = s->burst * ticks.per_token / ticks.per_ns;
    uint64_t ttl_ms =
        rl_redis_ttl_ms(s->redis, ahead_ns + (cfg->interval_ns < RL_LUA_INT_MAX ? cfg->interval_ns
                                                                                : RL_LUA_INT_MAX));
    s->ttl_len = (size_t)snprintf(s->ttl_ms, sizeof s->ttl_ms, "%" PRIu64, ttl_ms);
    return s;
}

/* Admits n cells at once when the last conforms. RL_ERROR: the server
 * cannot be asked, or the time is past the horizon. Server time: no clock
 * read; virtual: one (none for n > B). Two arguments: the numbers packed
 * (gcra.lua), and the expiry. */
static enum rl_decision redis_gcra_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    struct redis_gcra_state *s = state;
    if (n > s->burst)
        return RL_REJECT;
    int64_t numbers[7];
    if (!rl_redis_script_time(s->server_time, clock, s->epoch_ns, s->horizon_ns, &numbers[0]))
        return RL_ERROR;
    /* each ≤ 2^53 − 1: rl_redis_tick_horizon checked B·T, TIME's µs are ~1.8e15 */
    uint64_t T = s->ticks.per_token;
    numbers[1] = (int64_t)n;
    numbers[2] = (int64_t)s->ticks.per_ns;
    numbers[3] = (int64_t)T;
    numbers[4] = (int64_t)((s->burst - 1) * T); /* τ */
    numbers[5] = (int64_t)s->server_epoch_us;
    numbers[6] = (int64_t)s->horizon_ns;
    return rl_redis_decide_packed(s->redis, key, numbers, s->ttl_ms, s->ttl_len);
}

const struct rl_algo rl_redis_gcra_algo = {
    .name = "redis_gcra",
    .family = "gcra",
    .summary =
        "GCRA in Lua: one TAT key, exact ticks as gcra_cas, the server's TIME (virtual in sim)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_gcra_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_gcra_acquire,
};
