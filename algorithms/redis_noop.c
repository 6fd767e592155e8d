/* redis_noop.c — the Redis baseline: EVALSHA of lua/noop.lua, which only
 * returns 1, with one key and no time, on the same per-thread connection
 * as every Redis limiter. Its cost is what the server and the round trip
 * cost at all, so each Redis figure reads as a ratio to it, measured in
 * the same run. Always admits (unless the server cannot be asked: error).
 */
#include "redis_common.h"

extern const char rl_lua_noop[];

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
    .create = redis_noop_create,
    .destroy = redis_noop_destroy,
    .acquire = redis_noop_acquire,
};
