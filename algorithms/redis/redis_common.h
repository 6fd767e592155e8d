/* redis_common.h — the client side shared by every Redis limiter: one job,
 * talking to Redis safely.
 *
 * - Each thread owns its connection (hiredis is not thread-safe): a small
 *   thread-local cache maps an instance to this thread's connection, which
 *   is opened lazily on the thread's first call. The instance keeps every
 *   connection on a mutex-protected list, so rl_redis_close frees them all.
 * - Scripts are loaded with SCRIPT LOAD on every (re)connection and called
 *   with EVALSHA; a NOSCRIPT reply (the server restarted, or SCRIPT FLUSH)
 *   loads them again and retries once.
 * - A lost connection, a timeout or any error reply is RL_ERROR, never a
 *   silent admit or reject. A thread whose connection is down tries to
 *   reconnect at most once per RL_REDIS_RETRY_NS; calls in between fail at
 *   once, so a dead server does not cost a connect() per call.
 * - Keys are "rl:<prefix>:<key id>[suffix]", the prefix unique per instance
 *   (pid, a process-wide counter, and the wall clock's ns), so runs that
 *   share a server never see each other's keys. Every script sets an
 *   expiry (PX or PEXPIRE) on what it writes (rl_redis_ttl_ms), so nothing
 *   lingers.
 *
 * Lua numbers are doubles: integers are exact only up to 2^53. Every
 * script's integers must stay at or below RL_LUA_INT_MAX; the algorithms
 * check what they send (client time since the epoch in ns is ~1e13 after
 * three hours, far below 9e15) and refuse configurations that could pass it.
 *
 * Semantics followed: Redis's EVALSHA / SCRIPT LOAD / NOSCRIPT behaviour
 * (redis.io/commands/evalsha, /script-load) and hiredis's blocking API
 * (README: a context is not thread-safe; after an I/O error it is dead).
 */
#ifndef RL_REDIS_COMMON_H
#define RL_REDIS_COMMON_H

#include "algorithms/rl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_LUA_INT_MAX          ((1ull << 53) - 1)
#define RL_REDIS_MAX_SCRIPTS    2
#define RL_REDIS_MAX_ARGS       10
#define RL_REDIS_MAX_KEYS       4
#define RL_REDIS_RETRY_NS       (50ull * 1000000) /* at most one reconnect per 50 ms per thread */
#define RL_REDIS_TIMEOUT_MS     5000              /* a command unanswered this long is an error */
#define RL_REDIS_VIRTUAL_TTL_MS (60ull * 1000)    /* see rl_redis_ttl_ms */
#define RL_REDIS_CLUSTER_PREFIX "cluster:"        /* remote = "cluster:HOST:PORT[,HOST:PORT...]" */
#define RL_REDIS_MIN_HORIZON_NS (24ull * 3600 * 1000000000) /* see rl_redis_tick_horizon */

struct rl_redis; /* one per limiter instance */

struct rl_redis_script {
    const char *name;   /* for messages */
    const char *source; /* rl_lua_<name>, compiled in by the Makefile */
};

/* A script call's ARGV: integers in decimal, or short strings. */
struct rl_redis_args {
    int count;
    const char *argv[RL_REDIS_MAX_ARGS];
    size_t len[RL_REDIS_MAX_ARGS];
    char text[RL_REDIS_MAX_ARGS][24];
};

static inline void rl_redis_args_init(struct rl_redis_args *a)
{
    a->count = 0;
}

/* Appends v in decimal. The caller keeps count ≤ RL_REDIS_MAX_ARGS. */
void rl_redis_arg_u64(struct rl_redis_args *a, uint64_t v);

/* Appends s itself, not a copy: it must outlive the call. */
void rl_redis_arg_str(struct rl_redis_args *a, const char *s);

/* Appends len bytes at p (binary-safe), not a copy: they must outlive the
 * call. */
void rl_redis_arg_bytes(struct rl_redis_args *a, const void *p, size_t len);

/* Writes count integers as Lua's struct.pack('<d…') does: little-endian
 * IEEE 754 doubles, 8 bytes each, into out (8·count bytes). Each must lie
 * within ±RL_LUA_INT_MAX, where a double is exact, so the script reads
 * back the very integer: one struct.unpack instead of a tonumber per
 * argument (and no decimal text either side). */
void rl_redis_pack_doubles(unsigned char *out, const int64_t *values, size_t count);

/* The bucket scripts' time (token_bucket.lua, gcra.lua) into *now: −1, for
 * the script to read the server's TIME, or else the client's ns since
 * epoch_ns from one clock read (a read before the epoch counts as it).
 * false when that client time is past horizon_ns: the caller answers
 * RL_ERROR. */
bool rl_redis_script_time(bool server_time, struct rl_clock *clock, uint64_t epoch_ns,
                          uint64_t horizon_ns, int64_t *now);

/* Connects to cfg->remote from the calling thread, checks PING, and loads
 * the scripts (a Lua syntax error shows up here). `algo` names the
 * algorithm in messages. NULL with one line in err: no cfg->remote ("needs
 * a Redis server: --redis ADDRESS, or let ratelab start one"), a zero limit
 * or interval, a server that does not answer, a script the server refuses,
 * or ENOMEM. */
struct rl_redis *rl_redis_open(const struct rl_config *cfg, const char *algo,
                               const struct rl_redis_script *scripts, size_t count, char *err,
                               size_t err_len);

/* The create every Redis limiter shares (but redis_noop, whose state is
 * the struct rl_redis itself): a zeroed state of state_size bytes whose
 * first member is its struct rl_redis *, connected by rl_redis_open (algo,
 * scripts and count as there). The caller checks its own bounds on cfg
 * before (what Lua's 2^53 allows), fills in the rest after, and frees the
 * state with rl_redis_destroy. NULL with one line in err: ENOMEM, or as
 * rl_redis_open. */
void *rl_redis_create(const struct rl_config *cfg, const char *algo, size_t state_size,
                      const struct rl_redis_script *scripts, size_t count, char *err,
                      size_t err_len);

/* Closes a state made by rl_redis_create (rl_redis_close) and frees it: a
 * Redis limiter's destroy, or the last step of its own. NULL is ignored. */
void rl_redis_destroy(void *state);

/* Frees every connection of every thread. No call may be in flight (the
 * harness destroys a limiter after joining its threads). Keys are left to
 * their PEXPIRE. NULL is ignored. */
void rl_redis_close(struct rl_redis *r);

/* Writes "rl:<prefix>:<key><suffix>" into buf (suffix may be NULL). On a
 * cluster, "{rl:<prefix>:<key>}<suffix>": the hash tag puts every key of
 * one limiter key in one slot, so one script call touches one node. */
void rl_redis_key(const struct rl_redis *r, uint64_t key, const char *suffix, char *buf,
                  size_t len);

/* The instance's prefix. */
const char *rl_redis_prefix(const struct rl_redis *r);

/* The KEYS pattern matching every key of the instance: "rl:<prefix>:*",
 * on a cluster "{rl:<prefix>:*" (as rl_redis_key names them there). */
void rl_redis_key_pattern(const struct rl_redis *r, char *buf, size_t len);

/* Whether cfg->remote named a cluster ("cluster:HOST:PORT[,...]"). */
bool rl_redis_on_cluster(const struct rl_redis *r);

/* MOVED and ASK replies the instance followed (0 on a single server): once
 * the map is warm, a run that moves no slot adds none. */
uint64_t rl_redis_redirects(const struct rl_redis *r);

/* Over every instance of the process: rl_remote_redirects (rl.h). */

/* EVALSHA of script `index` with nkeys (≤ RL_REDIS_MAX_KEYS) key names and
 * args (NULL: none), on this thread's connection. 0 with the script's
 * integer reply in *result; -1 for anything else (down and within the
 * backoff, I/O error or timeout, an error reply after one reload on
 * NOSCRIPT, a non-integer reply, too many keys), with a line in
 * rl_redis_last_error(). */
int rl_redis_eval(struct rl_redis *r, unsigned index, int nkeys, const char *const *keys,
                  const struct rl_redis_args *args, long long *result);

/* rl_redis_eval for a script that answers an array of exactly count (≥ 1)
 * integers, into out; nkeys ≥ 1 on a cluster. Any other reply is -1, as
 * there. */
int rl_redis_eval_ints(struct rl_redis *r, unsigned index, int nkeys, const char *const *keys,
                       const struct rl_redis_args *args, long long *out, size_t count);

/* One key "rl:<prefix>:<key>", reply 1 → RL_ADMIT, 0 → RL_REJECT, any other
 * reply or failure → RL_ERROR. */
enum rl_decision rl_redis_decide(struct rl_redis *r, unsigned index, uint64_t key,
                                 const struct rl_redis_args *args);

/* The bucket scripts' call (gcra.lua, token_bucket.lua): one key, its seven
 * numbers as one argument of packed doubles (rl_redis_pack_doubles), then
 * the expiry in ms as decimal text (ttl_len bytes at ttl_ms); decided as
 * rl_redis_decide. */
enum rl_decision rl_redis_decide_packed(struct rl_redis *r, uint64_t key, const int64_t numbers[7],
                                        const char *ttl_ms, size_t ttl_len);

/* The server's TIME in µs since the Unix epoch (~1.8e15 < 2^53). -1 on
 * failure, as rl_redis_eval. On a cluster, the TIME of the primary serving
 * slot 0, while each script reads its own node's clock: the servertime
 * bucket assumes the nodes' clocks agree (they share one on loopback). */
int rl_redis_time_us(struct rl_redis *r, uint64_t *us);

/* How long (ms, for PEXPIRE) a key must live so that its expiry changes no
 * decision: life_ns (what the algorithm says) rounded up to a ms, plus one
 * ms. Under virtual time the server's clock has nothing to do with the
 * trace's, which may cross an hour in a second or crawl, so keys then live
 * at least RL_REDIS_VIRTUAL_TTL_MS of real time: a test decides on one
 * instance for less than that. */
uint64_t rl_redis_ttl_ms(const struct rl_redis *r, uint64_t life_ns);

/* cfg->virtual_time, as given at open. */
bool rl_redis_virtual(const struct rl_redis *r);

/* A number unique within the process for each call: the calling thread's
 * own id in the high 24 bits, a thread-local count in the low 40. With the
 * instance prefix in the key, it makes sorted-set members unique. */
uint64_t rl_redis_unique(void);

/* The bucket family's bound (tb_ticks.h units: per_ns = L', per_token =
 * I'): the last ns since the epoch at which now·L' + B·I' ≤ RL_LUA_INT_MAX,
 * so every number a bucket or GCRA script computes is exact. false, with
 * one line in err naming algo, when B·I' alone passes 2^53 or the horizon
 * is under RL_REDIS_MIN_HORIZON_NS. */
bool rl_redis_tick_horizon(const char *algo, uint64_t per_ns, uint64_t per_token, uint64_t burst,
                           uint64_t *horizon_ns, char *err, size_t err_len);

/* How often this instance reloaded its scripts after NOSCRIPT. */
uint64_t rl_redis_reloads(const struct rl_redis *r);

/* The calling thread's last failure, one line ("" if none). */
const char *rl_redis_last_error(void);

#endif
