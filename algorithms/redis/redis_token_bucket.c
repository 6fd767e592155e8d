/* redis_token_bucket.c — the Redis article's bucket (tokens and the time
 * they were counted) with tb_mutex.c's exact integer arithmetic:
 * lua/token_bucket.lua. Two variants, one script.
 *
 * Promise: bucket (≤ B + L in any window of length I).
 *
 * State, on the server: per key, tokens in ticks of 1/I' token
 * (tb_ticks.h) and the time they were counted, packed as two doubles in one
 * string (the article keeps a hash): a refusal is one GET, an admit one
 * SET with PX more.
 *
 * Decision: tb_mutex's. Rate L/I, capacity B (default L), full at the
 * epoch. n > B is refused without a call or a clock read, as tb_mutex does.
 * - redis_token_bucket: time is the client's, ns since the epoch, passed
 *   in. On the same trace in sim it decides exactly as tb_mutex (a test
 *   over seeded traces: n > 1, n > B, several keys).
 * - redis_token_bucket_servertime: time is the server's TIME (µs, × 1000
 *   for ns), relative to TIME read once at create: one clock for every
 *   client, whatever their skew. Under virtual time (sim) it takes the
 *   client's (virtual) time instead, so it too is tested against tb_mutex.
 * Lua numbers are doubles, exact up to 2^53, so the script needs
 * B·I' ≤ 2^53 − 1 and now·L' ≤ 2^53 − 1 − B·I': create refuses a
 * configuration whose horizon (2^53 − 1 − B·I')/L' ns is under a day, and a
 * time past the horizon is RL_ERROR (checked here for client time, in the
 * script for server time). With I a multiple of L (L' = 1) the horizon is
 * ~104 days; L = 3 per second (L' = 3) gives 34 days; L = 10^6 per
 * 1 s + 1 ns (coprime) is refused.
 *
 * Memory orders: redis: each script runs atomically on the server; the
 * client shares nothing between threads (redis_common.h).
 *
 * Races accepted: with client time, clients whose clocks disagree hand the
 * bucket each other's times: a client ahead refills early (over-admits);
 * one behind sees a stale bucket (refused more). RL_ERROR when the server
 * cannot be asked.
 *
 * Sources: the Redis article, "Redis'e Dayalı Akım Sınırlama Sisteminin
 * Tasarımı" (Design of a Redis-based rate limiting system), §3.4.3.
 */
#include "redis_common.h"
#include "algorithms/buckets/tb_ticks.h"

#include <inttypes.h>
#include <stdio.h>

extern const char rl_lua_token_bucket[];

struct redis_tb_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    bool server_time;       /* send 'server': the script reads TIME */
    uint64_t burst;
    uint64_t epoch_ns;
    uint64_t horizon_ns; /* the last ns since the epoch the script can count */
    uint64_t server_epoch_us;
    char ttl_ms[24]; /* PX, in decimal once for all calls */
    size_t ttl_len;
    struct tb_ticks ticks;
};

static void *create_variant(const struct rl_config *cfg, const char *name, bool server_time,
                            char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "%s: limit and interval must be at least 1", name);
        return NULL;
    }
    struct tb_ticks ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    uint64_t horizon;
    if (!rl_redis_tick_horizon(name, ticks.per_ns, ticks.per_token, rl_config_burst(cfg), &horizon,
                               err, err_len))
        return NULL;
    const struct rl_redis_script scripts[] = {{"token_bucket", rl_lua_token_bucket}};
    struct redis_tb_state *s = rl_redis_create(cfg, name, sizeof *s, scripts, 1, err, err_len);
    if (s == NULL)
        return NULL;
    s->ticks = ticks;
    s->burst = rl_config_burst(cfg);
    s->epoch_ns = cfg->epoch_ns;
    s->horizon_ns = horizon;
    s->server_time = server_time && !cfg->virtual_time;
    if (s->server_time && rl_redis_time_us(s->redis, &s->server_epoch_us) != 0) {
        snprintf(err, err_len, "%s", rl_redis_last_error());
        rl_redis_destroy(s);
        return NULL;
    }
    /* the bucket matters until it is full again: B·I' ticks at L' ticks
     * per ns (≤ 2^53 ns), plus an interval */
    uint64_t refill_ns = s->burst * ticks.per_token / ticks.per_ns;
    uint64_t ttl_ms =
        rl_redis_ttl_ms(s->redis, refill_ns + (cfg->interval_ns < RL_LUA_INT_MAX ? cfg->interval_ns
                                                                                 : RL_LUA_INT_MAX));
    s->ttl_len = (size_t)snprintf(s->ttl_ms, sizeof s->ttl_ms, "%" PRIu64, ttl_ms);
    return s;
}

static void *redis_tb_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return create_variant(cfg, "redis_token_bucket", false, err, err_len);
}

static void *redis_tb_servertime_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    return create_variant(cfg, "redis_token_bucket_servertime", true, err, err_len);
}

/* Admits n if the bucket holds n tokens at the time read, and takes them.
 * RL_ERROR: the server cannot be asked, or the time is past the horizon.
 * Client time: one clock read (none for n > B); server time: none. Two
 * arguments: the numbers packed (token_bucket.lua), and the expiry. */
static enum rl_decision redis_tb_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    struct redis_tb_state *s = state;
    if (n > s->burst)
        return RL_REJECT;
    int64_t numbers[7];
    if (!rl_redis_script_time(s->server_time, clock, s->epoch_ns, s->horizon_ns, &numbers[0]))
        return RL_ERROR;
    /* each ≤ 2^53 − 1: rl_redis_tick_horizon checked B·I', TIME's µs are ~1.8e15 */
    numbers[1] = (int64_t)n;
    numbers[2] = (int64_t)s->ticks.per_ns;
    numbers[3] = (int64_t)s->ticks.per_token;
    numbers[4] = (int64_t)s->burst;
    numbers[5] = (int64_t)s->server_epoch_us;
    numbers[6] = (int64_t)s->horizon_ns;
    return rl_redis_decide_packed(s->redis, key, numbers, s->ttl_ms, s->ttl_len);
}

const struct rl_algo rl_redis_token_bucket_algo = {
    .name = "redis_token_bucket",
    .family = "token_bucket",
    .summary = "token bucket in Lua, exact ticks as tb_mutex, client time (one packed GET/SET PX)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_tb_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_tb_acquire,
};

const struct rl_algo rl_redis_token_bucket_servertime_algo = {
    .name = "redis_token_bucket_servertime",
    .family = "token_bucket",
    .summary = "token bucket in Lua, exact ticks as tb_mutex, the server's TIME (virtual in sim)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_tb_servertime_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_tb_acquire,
};
