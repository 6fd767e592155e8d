/* redis_tb_article.c — the Redis article's lazy-refill token bucket as
 * written: lua/tb_article.lua, whose header gives the exact arithmetic
 * reproduced.
 *
 * Promise: bucket, as the article claims. What the article's arithmetic
 * does to that promise, both ways:
 * - It under-admits. Each refill of at least one token floors the owed
 *   tokens and moves last_mill_second to now, forgetting the fraction; a
 *   refill owed less than one token moves nothing. On a steady trace at
 *   80% of a rate that is not a whole number of tokens per ms, or on
 *   Poisson arrivals, the bucket leaks and refuses traffic tb_mutex admits
 *   (the bug class of a Varnish throttle module that denied about 10% at
 *   80% of its rate; measured in tests/algorithms/test_redis.c).
 * - It can over-admit a little: time is client ns floored to whole ms, so
 *   the time credited between two calls can exceed the real gap by up to
 *   1 ms (floor(b) − floor(a) < b − a + 1 ms). Over any window w, credited
 *   time telescopes to at most w + 1 ms: admitted ≤ B + L·(w + 1 ms)/I.
 *
 * State, on the server: per key, the article's hash of last_mill_second and
 * curr_permits (max_permits and rate come with each call).
 *
 * Decision: the article's script. Rate L/I, capacity B (default L), full
 * at the first call. Time: client ns since the epoch (virtual in sim),
 * floored to ms — the article passes the client's current milliseconds.
 * rate is passed as L·10^9/I permits per second, a double, as the
 * article's hash stores a rate per second. Every attempt goes to the
 * server, n > B included (the article's script answers it, and may still
 * move the refill time).
 *
 * Memory orders: redis: each script runs atomically on the server; the
 * client shares nothing between threads (redis_common.h).
 *
 * Races accepted: clients' clocks hand the bucket each other's times, as
 * in the article. RL_ERROR when the server cannot be asked.
 *
 * Sources: the Redis article, "Redis'e Dayalı Akım Sınırlama Sisteminin
 * Tasarımı" (Design of a Redis-based rate limiting system), §3.4.3, after
 * Guava's RateLimiter.
 */
#include "redis_common.h"

#include <stdio.h>

extern const char rl_lua_tb_article[];

struct redis_tb_article_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    uint64_t burst;
    uint64_t epoch_ns;
    uint64_t ttl_ms;
    char rate[32]; /* permits per second, "%.17g" */
};

/* NULL with one line in err: no server, no PING, zero L or I, B ≥ 2^53. */
static void *redis_tb_article_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (rl_config_burst(cfg) > RL_LUA_INT_MAX) {
        snprintf(err, err_len, "redis_tb_article: B must be below 2^53 (Lua numbers are doubles)");
        return NULL;
    }
    const struct rl_redis_script scripts[] = {{"tb_article", rl_lua_tb_article}};
    struct redis_tb_article_state *s =
        rl_redis_create(cfg, "redis_tb_article", sizeof *s, scripts, 1, err, err_len);
    if (s == NULL)
        return NULL;
    s->burst = rl_config_burst(cfg);
    s->epoch_ns = cfg->epoch_ns;
    snprintf(s->rate, sizeof s->rate, "%.17g", (double)cfg->limit * 1e9 / (double)cfg->interval_ns);
    /* the hash matters until the bucket would be full again: B·I/L, plus
     * one interval for the ms and floor losses */
    double refill_ns = (double)s->burst * (double)cfg->interval_ns / (double)cfg->limit;
    double life_ns = refill_ns + (double)cfg->interval_ns;
    s->ttl_ms = rl_redis_ttl_ms(s->redis, life_ns < 1.8e19 ? (uint64_t)life_ns : UINT64_MAX);
    return s;
}

/* One clock read, one EVALSHA. */
static enum rl_decision redis_tb_article_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                                 uint64_t n)
{
    struct redis_tb_article_state *s = state;
    uint64_t now = rl_clock_now(clock);
    uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_u64(&args, n);
    rl_redis_arg_u64(&args, since / 1000000); /* curr_mill_second, < 2^53 for any 64-bit ns */
    rl_redis_arg_u64(&args, s->burst);
    rl_redis_arg_str(&args, s->rate);
    rl_redis_arg_u64(&args, s->ttl_ms);
    return rl_redis_decide(s->redis, 0, key, &args);
}

const struct rl_algo rl_redis_tb_article_algo = {
    .name = "redis_tb_article",
    .family = "token_bucket",
    .summary = "Redis article's bucket as written: client ms, floored refill, fractions lost (Lua)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_tb_article_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_tb_article_acquire,
};
