/* redis_sliding_log.c — the .NET article's sorted set per key, with its old
 * members trimmed inside the admit script: lua/sliding_log.lua.
 *
 * Promise: strong.
 *
 * State, on the server: per key, a sorted set with one member per unit of
 * admitted cost, scored by its time. A refusal only counts the window
 * (ZCOUNT); an admit trims what is older, then adds.
 *
 * Decision: an attempt (t, n) is admitted when the cost admitted in
 * (t − I, t] plus n is at most L: sliding_log.c's rule, so on a sorted
 * trace in sim both decide identically (a test). A cost n is n members
 * (ZCARD counts cost), all scored t; n > L is refused here without a call.
 * Time is the client's (virtual in sim), ns since the epoch, read before
 * the round trip. Scores must stay below 2^53 ns since the epoch (104
 * days); a later time is RL_ERROR, never a rounded score.
 *
 * Memory orders: redis: each script runs atomically on the server; the
 * client shares nothing between threads (redis_common.h).
 *
 * Races accepted: the server decides in arrival order, which across
 * clients is not time order: a client whose time is behind (slow, or
 * skewed) counts from an earlier score, so members a refusal left
 * untrimmed may count for it (stricter), and it scores its admit earlier,
 * so the admit leaves the log before the window the recorder sees it in
 * has passed.
 * sliding_log.c clamps stale times to the newest seen; this script does
 * not, because the article does not: what that costs under skew is what
 * `--client-skew` measures.
 *
 * Sources: the .NET article, "How does .Net simulate session-level
 * semaphores, limit the http interface call frequency",
 * http://www.cnblogs.com/1996V/p/8127576.html, its "Distributed Redis"
 * version.
 */
#include "redis_common.h"

#include <stdio.h>

extern const char rl_lua_sliding_log[];

struct redis_log_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
    uint64_t ttl_ms;
};

/* NULL with one line in err: no server, no PING, zero L or I, I ≥ 2^53. */
static void *redis_log_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > RL_LUA_INT_MAX) {
        snprintf(err, err_len, "redis_sliding_log: I must be below 2^53 ns (104 days)");
        return NULL;
    }
    const struct rl_redis_script scripts[] = {{"sliding_log", rl_lua_sliding_log}};
    struct redis_log_state *s =
        rl_redis_create(cfg, "redis_sliding_log", sizeof *s, scripts, 1, err, err_len);
    if (s == NULL)
        return NULL;
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    s->ttl_ms = rl_redis_ttl_ms(s->redis, cfg->interval_ns);
    return s;
}

/* One clock read (none for n > L), one EVALSHA. */
static enum rl_decision redis_log_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                          uint64_t n)
{
    struct redis_log_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
    if (since > RL_LUA_INT_MAX)
        return RL_ERROR;
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_u64(&args, s->limit - n);
    rl_redis_arg_u64(&args, n);
    rl_redis_arg_u64(&args, since);
    /* the window's oldest score: (since − I, since] holds whole ns from
     * since − I + 1; before I has passed every score (≥ 0) is in it */
    rl_redis_arg_u64(&args, since >= s->interval_ns ? since - s->interval_ns + 1 : 0);
    rl_redis_arg_u64(&args, rl_redis_unique());
    rl_redis_arg_u64(&args, s->ttl_ms);
    return rl_redis_decide(s->redis, 0, key, &args);
}

const struct rl_algo rl_redis_sliding_log_algo = {
    .name = "redis_sliding_log",
    .family = "sliding_log",
    .summary = ".NET article: sorted set per key, ZCOUNT to refuse, trim + ZADD to admit",
    .promise = RL_PROMISE_STRONG,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_log_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_log_acquire,
};
