/* redis_noop.c — the Redis baseline: EVALSHA of lua/noop.lua, which only
 * returns 1, with one key and no time, on the same per-thread connection as
 * every Redis limiter.
 *
 * Promise: none.
 *
 * State: none on the server. The instance's state is its struct rl_redis
 * itself, so its reload count is visible to tests.
 *
 * Decision: admit, unless the server cannot be asked (RL_ERROR). Its cost
 * is what the server and the round trip cost at all, so each Redis figure
 * reads as a ratio to it, measured in the same run. No clock read.
 *
 * Memory orders: redis: the client shares nothing between threads
 * (redis_common.h).
 *
 * Races accepted: none.
 *
 * Sources: none.
 */
#include "redis_common.h"

extern const char rl_lua_noop[];

/* The state is the struct rl_redis itself, not a struct that holds it as
 * rl_redis_create makes: tests read its rl_redis_reloads. */
static void *redis_noop_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    const struct rl_redis_script scripts[] = {{"noop", rl_lua_noop}};
    return rl_redis_open(cfg, "redis_noop", scripts, 1, err, err_len);
}

static void redis_noop_destroy(void *state)
{
    rl_redis_close(state);
}

/* No clock read; one EVALSHA. */
static enum rl_decision redis_noop_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    (void)clock;
    (void)n;
    return rl_redis_decide(state, 0, key, NULL);
}

const struct rl_algo rl_redis_noop_algo = {
    .name = "redis_noop",
    .family = "baseline",
    .summary = "EVALSHA of a script that only returns: the server's floor (Redis baseline)",
    .promise = RL_PROMISE_NONE,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_noop_create,
    .destroy = redis_noop_destroy,
    .acquire = redis_noop_acquire,
};
