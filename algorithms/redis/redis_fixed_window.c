/* redis_fixed_window.c — the Redis article's INCRBY + EXPIRE window on a
 * real server, one call per admit: lua/fixed_window.lua.
 *
 * Promise: window. Windows are not aligned, so two of them can straddle one
 * interval (up to 2L).
 *
 * State, on the server: per key, the window's counter, which expires with
 * the window; under virtual time the counter and the window's end in trace
 * time, packed in the one key.
 *
 * Decision: fw_expiry's. A key's window opens at its first admit after the
 * previous window expired, and ends I later, when the server expires the
 * counter; within it, admitted cost is at most L. Read against the article:
 * - The article reads the counter with GET and checks `current + 1 > max`
 *   before an INCRBY of 1: check-then-add, safe only because the script is
 *   atomic on the server. A cost n is checked as current + n and added with
 *   INCRBY n.
 * - The article calls EXPIRE after every admit, which moves the window's
 *   end to I after the latest admit: a key whose traffic never pauses for I
 *   is never reset, so it admits L in all and then nothing until it rests
 *   for I. That is a different limiter (it holds the strong bound, and can
 *   starve a steady client); we set the expiry only when an admit opens the
 *   window: the window the article's prose describes ("the maximum number
 *   of requests in a time window").
 * - The article's INCRBY + EXPIRE on a window's first admit is here one
 *   SET n PX (the counter and its expiry in one call), and INCRBY, which
 *   keeps the expiry, within the window: one call per admit, one GET per
 *   refusal. The window ends at the same time either way.
 * - EXPIRE takes seconds; we use PX with I rounded up to whole ms (the
 *   server's expiry resolution), so a window lasts ⌈I⌉ms ≥ I: an I that is
 *   not a whole number of ms makes each window slightly longer, never
 *   shorter.
 * - n > L is refused here without a call; fw_expiry opens a window on such
 *   an attempt, the script opens none (only an admit does). That is the
 *   one way the two can decide differently on a trace.
 * Time: real runs never read the client clock: the server's expiry is the
 * clock. Under virtual time (sim) the window's end in trace time is stored
 * beside the count and checked by the script, so decisions follow the
 * trace and match fw_expiry (a test).
 *
 * Memory orders: redis: each script runs atomically on the server; the
 * client shares nothing between threads (redis_common.h).
 *
 * Races accepted: none on the server. RL_ERROR when it cannot be asked.
 *
 * Sources: the Redis article, "Redis'e Dayalı Akım Sınırlama Sisteminin
 * Tasarımı" (Design of a Redis-based rate limiting system), §2.2.
 */
#include "redis_common.h"

#include <inttypes.h>
#include <stdio.h>

extern const char rl_lua_fixed_window[];

struct redis_fw_state {
    struct rl_redis *redis; /* first: rl_redis_create sets it */
    uint64_t limit;
    uint64_t interval_ns;
    uint64_t epoch_ns;
    char expire_ms[24]; /* PX, in decimal once for all calls: real: ⌈I⌉ ms; virtual: the key's
                           real-time life */
    size_t expire_len;
};

/* NULL with one line in err: no server, a server that does not answer, a
 * zero limit or interval, an I past 2^53 ns, ENOMEM. */
static void *redis_fw_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > RL_LUA_INT_MAX) {
        snprintf(err, err_len, "redis_fixed_window: I must be below 2^53 ns (104 days)");
        return NULL;
    }
    const struct rl_redis_script scripts[] = {{"fixed_window", rl_lua_fixed_window}};
    struct redis_fw_state *s =
        rl_redis_create(cfg, "redis_fixed_window", sizeof *s, scripts, 1, err, err_len);
    if (s == NULL)
        return NULL;
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    s->epoch_ns = cfg->epoch_ns;
    uint64_t window_ms = cfg->interval_ns / 1000000 + (cfg->interval_ns % 1000000 != 0);
    uint64_t expire_ms =
        cfg->virtual_time ? rl_redis_ttl_ms(s->redis, cfg->interval_ns) : window_ms;
    s->expire_len = (size_t)snprintf(s->expire_ms, sizeof s->expire_ms, "%" PRIu64, expire_ms);
    return s;
}

/* Admits n if the key's current window has room for it; RL_ERROR when the
 * server cannot be asked. Virtual time: one clock read; real: none, and
 * three arguments (fixed_window.lua). */
static enum rl_decision redis_fw_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n)
{
    struct redis_fw_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_u64(&args, s->limit - n); /* the most the window may hold before n */
    rl_redis_arg_u64(&args, n);
    rl_redis_arg_bytes(&args, s->expire_ms, s->expire_len);
    if (rl_redis_virtual(s->redis)) {
        uint64_t now = rl_clock_now(clock);
        uint64_t since = now > s->epoch_ns ? now - s->epoch_ns : 0;
        if (since > RL_LUA_INT_MAX - s->interval_ns)
            return RL_ERROR; /* window's end past 2^53 ns: 104 days into a trace */
        rl_redis_arg_u64(&args, since);
        rl_redis_arg_u64(&args, s->interval_ns);
    }
    return rl_redis_decide(s->redis, 0, key, &args);
}

const struct rl_algo rl_redis_fixed_window_algo = {
    .name = "redis_fixed_window",
    .family = "fixed_window",
    .summary = "Redis article: GET, then SET n PX I to open the window or INCRBY n in it (Lua)",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE | RL_REMOTE,
    .orders = "redis",
    .create = redis_fw_create,
    .destroy = rl_redis_destroy,
    .acquire = redis_fw_acquire,
};
