/* perf_redis.c — the redis goal of the perf suite (docs/performance.md): what
 * each script costs the server, and what the client sees.
 *
 * Server cost (the goal): the server's own accounting of each script's
 * calls, µs per EVALSHA from `INFO commandstats` (statistics reset with
 * `CONFIG RESETSTAT` before each run, read after it), ÷ redis_noop's (an
 * EVALSHA that only returns) in the runs just before and after: ≤ 1.5 for
 * the bucket, GCRA, fixed-window and sliding-counter scripts, ≤ 2.5 for the
 * sliding log (its sorted set is O(log n)). That is what an operator pays
 * per decision, and it does not depend on how the client threads share the
 * CPUs. Measured on the private server only: a server given by --redis is
 * not sent CONFIG RESETSTAT.
 *
 * Client side (reported, not a goal on a machine this small): decisions a
 * second ÷ redis_noop's at 10 and 100 client threads. On 2 CPUs the client
 * threads and the server share the cores, so the ratio moves with the
 * scheduler (0.63 to 1.19 between repetitions, issue 27); its spread and the
 * CPU count are in each row.
 *
 * Every run is a closed-loop stress run of RUN_NS at the stress default
 * (L = 1000 per 100 ms, one key) on one server: opts->redis, or a private
 * redis-server on a Unix socket (harness/sys/redis_server.h). For each
 * thread count and repetition the runs alternate noop, script, noop,
 * script, ..., noop (the scripts' order rotating with the repetition), and
 * each script is divided by the mean of the two noop runs around it, so a
 * drift of the shared machine between runs cancels to first order. A row's
 * ratio is the median over the repetitions.
 *
 * Against its floor (the goal a script's own Lua can meet): one GET in a
 * script already costs this server ~1.9 × redis_noop (the "redis floor"
 * rows), so no script that reads its key can reach 1.5 × noop. Each script
 * is also timed on its refusal path (the stress runs' common one) beside a
 * script of only that path's redis.call lines, with the same arguments on
 * the same key, interleaved on one connection: script ÷ floor ≤ 1.5 is the
 * Lua work it adds beyond the commands it must issue. The ÷ noop rows keep
 * their goal and say the floor measured in the same run. A script whose
 * refusal path issues other commands than its floor stops the goal with an
 * error (in_step), so floors[] cannot drift from algorithms/redis/lua/.
 *
 * The cluster: the same server-cost rows per script on a private 3-primary
 * cluster with one replica each (the tests' fixture, harness/sys/
 * redis_cluster.h), at 10 threads on one key as above: every primary's
 * statistics reset before a run, and its EVALSHA calls and µs summed over
 * the primaries after it (a replica runs no script: it gets the effects);
 * and each script ÷ its floor on the primary holding the floor keys (one
 * hash slot). The cluster is stopped and its folder removed however the goal ends
 * (redis_cluster.c's exit and signal handlers cover an interrupted run). */
#include "harness/report/stats.h"
#include "harness/sys/cpus.h"
#include "perf.h"
#include "harness/run/stress.h"
#include "harness/sys/redis_cluster.h"
#include "harness/sys/redis_server.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char rl_lua_noop[];
extern const char rl_lua_gcra[];
extern const char rl_lua_token_bucket[];
extern const char rl_lua_fixed_window[];
extern const char rl_lua_sliding_counter[];
extern const char rl_lua_sliding_log[];

#define RUN_NS             600000000ull /* per run: 2 × reps × 11 runs ≈ 40 s at reps = 3 */
#define SCRIPTS            5
#define THREAD_SIZES       2
#define MAX_REPS           101
#define SERVER_ROWS        SCRIPTS
#define CLIENT_ROWS        (THREAD_SIZES * SCRIPTS)
#define FLOOR_ROWS         (SCRIPTS + 1) /* on the private server only; + gcra.lua, client time */
#define OVER_FLOOR_ROWS    SCRIPTS       /* each script ÷ its floor, same private server */
#define FLOOR_CALLS        20000u        /* EVALSHAs per floor run */
#define FLOOR_REPS_PER_REP 3u            /* floor repetitions per --reps */
#define CLUSTER_ROWS       (2 * SCRIPTS) /* the server rows and ÷ floor rows, on a private cluster */
#define CLUSTER_PRIMARIES  3
#define CLUSTER_REPLICAS   1

static const char *const script_names[SCRIPTS] = {"redis_gcra", "redis_token_bucket",
                                                  "redis_fixed_window", "redis_sliding_counter",
                                                  "redis_sliding_log"};
/* µs per call ÷ redis_noop's: O(1) scripts, and the sorted set's O(log n) */
static const double server_target[SCRIPTS] = {1.5, 1.5, 1.5, 1.5, 2.5};
static const unsigned thread_sizes[THREAD_SIZES] = {10, 100};

/* One stress run's decisions a second; -1 with err (a run that saw an
 * error reply counts as failed: its rate would not be the script's). */
static int rate_of(const struct rl_algo *algo, const char *address, unsigned threads, double *per_s,
                   char *err, size_t err_len)
{
    struct rl_stress_params p = {
        .algo = algo,
        .cfg = {.limit = 1000, .interval_ns = 100000000, .remote = address},
        .threads = threads,
        .duration_ns = RUN_NS,
        .clock = "monotonic"};
    struct rl_stress_outcome out;
    char why[256];
    if (rl_stress_run(&p, &out, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s at %u threads: %s", algo->name, threads, why);
        return -1;
    }
    if (out.errors > 0 || out.interrupted || out.wall_ns == 0) {
        snprintf(err, err_len, "%s at %u threads: %s", algo->name, threads,
                 out.interrupted ? "interrupted" : "error replies from the server");
        return -1;
    }
    *per_s = (double)out.attempts * 1e9 / (double)out.wall_ns;
    return 0;
}

/* Whether INFO commandstats' command name is one a client sends itself
 * (the calls, the statistics, the connection), not one a script issues. */
static bool sent_by_client(const char *name)
{
    static const char *const client_sent[] = {"evalsha", "eval",    "script",  "config",
                                              "info",    "ping",    "hello",   "client",
                                              "select",  "command", "cluster", "readonly"};
    bool by_client = strncmp(name, "config|", 7) == 0 || strncmp(name, "script|", 7) == 0 ||
                     strncmp(name, "client|", 7) == 0 || strncmp(name, "cluster|", 8) == 0;
    for (size_t i = 0; i < sizeof client_sent / sizeof *client_sent; i++)
        by_client |= strcmp(name, client_sent[i]) == 0;
    return by_client;
}

/* One server's EVALSHA calls and µs since its statistics were last reset,
 * from INFO commandstats (usec, finer than its rounded usec_per_call), and
 * the µs the scripts' own commands took (every other command's usec but
 * those a client itself sends): added to *calls, *usec and *inner. */
static int add_server_stats(const char *address, unsigned long long *calls,
                            unsigned long long *usec, unsigned long long *inner, char *err,
                            size_t err_len)
{
    static char info[65536];
    const char *argv[] = {"INFO", "commandstats"};
    if (rl_redis_command(address, 2, argv, info, sizeof info, err, err_len) != 0)
        return -1;
    for (const char *line = strstr(info, "cmdstat_"); line; line = strstr(line + 1, "\ncmdstat_")) {
        if (*line == '\n')
            line++;
        char name[64];
        unsigned long long count, total;
        if (sscanf(line, "cmdstat_%63[^:]:calls=%llu,usec=%llu", name, &count, &total) != 3)
            continue;
        if (strcmp(name, "evalsha") == 0)
            *calls += count, *usec += total;
        else if (!sent_by_client(name))
            *inner += total;
    }
    return 0;
}

/* µs per EVALSHA and, of that, the script's own commands' µs, from the
 * sums add_server_stats made; -1 when no EVALSHA was counted. */
static int per_call(unsigned long long calls, unsigned long long usec, unsigned long long inner,
                    double *usec_per_call, double *inner_per_call, char *err, size_t err_len)
{
    if (calls == 0) {
        snprintf(err, err_len, "INFO commandstats counted no EVALSHA calls");
        return -1;
    }
    *usec_per_call = (double)usec / (double)calls;
    *inner_per_call = (double)inner / (double)calls;
    return 0;
}

/* The server's µs per EVALSHA since its statistics were last reset, and of
 * that the µs the script's own commands took: the rest is the call and the
 * Lua around them. */
static int server_usec_per_call(const char *address, double *usec, double *inner, char *err,
                                size_t err_len)
{
    unsigned long long calls = 0, total = 0, commands = 0;
    if (add_server_stats(address, &calls, &total, &commands, err, err_len) != 0)
        return -1;
    return per_call(calls, total, commands, usec, inner, err, err_len);
}

/* One run: its decisions a second, and, when server_cost, the server's µs
 * per call over it (statistics reset just before). */
static int run_of(const struct rl_algo *algo, const char *address, unsigned threads,
                  bool server_cost, double *per_s, double *usec, double *inner, char *err,
                  size_t err_len)
{
    const char *reset[] = {"CONFIG", "RESETSTAT"};
    char ok[64];
    *usec = *inner = NAN;
    if (server_cost && rl_redis_command(address, 2, reset, ok, sizeof ok, err, err_len) != 0)
        return -1;
    if (rate_of(algo, address, threads, per_s, err, err_len) != 0)
        return -1;
    return server_cost ? server_usec_per_call(address, usec, inner, err, err_len) : 0;
}

/* ---- what stops the server-cost goal: each script's commands alone ---- */

/* Each script on its refusal path (the common one: the stress runs ask one
 * key far above L) against its floor: a script of only that path's
 * redis.call lines and nothing else (no unpacking, no arithmetic), both
 * called with the same arguments as the C caller sends (the stress
 * config, L = 1000 per 100 ms) on the same key holding state of the real
 * shape. The floor ÷ redis_noop is the least any Lua body issuing those
 * commands can reach; the script ÷ its floor is the Lua work it adds.
 * Keep in step with algorithms/redis/lua/ and the C callers. */
struct script_floor {
    const char *body;     /* the refusal path's redis.call lines alone */
    const char *commands; /* those lines, in words, for the rows */
    const char *plant;    /* a Lua body that leaves the key's state */
};

static const struct script_floor floors[FLOOR_ROWS] = {
    {"redis.call('TIME') redis.call('GET', KEYS[1]) return 0", "TIME+GET",
     /* a TAT 10^15 ticks (ns) after the epoch: far ahead of any now */
     "redis.call('SET', KEYS[1], struct.pack('<d', 1e15)) return 'ok'"},
    {"redis.call('GET', KEYS[1]) return 0", "GET",
     /* no tokens, last = the call's now: nothing refilled */
     "redis.call('SET', KEYS[1], struct.pack('<dd', 0, 1e12)) return 'ok'"},
    {"redis.call('GET', KEYS[1]) return 0", "GET",
     "redis.call('SET', KEYS[1], '1000') return 'ok'"},
    {"redis.call('GET', KEYS[1]) return 0", "GET",
     /* window 5 full (curr = L), the call's own window: no rotation */
     "redis.call('SET', KEYS[1], struct.pack('<ddd', 5, 1000, 0)) return 'ok'"},
    {"redis.call('ZCOUNT', KEYS[1], ARGV[4], '+inf') return 0", "ZCOUNT",
     "for i = 1, 1000 do redis.call('ZADD', KEYS[1], 950000000 + i, i) end return 'ok'"},
    /* not a floor: gcra.lua itself on its refusal path with a client time
     * (the zeros read as now 0, n 0: no TIME, and a TAT above 0 refuses),
     * what redis_gcra would cost without its server clock */
    {rl_lua_gcra, "gcra.lua", "redis.call('SET', KEYS[1], struct.pack('<d', 1e12)) return 'ok'"},
};
#define GCRA_CLIENT_TIME SCRIPTS /* floors[]' last entry */

/* The scripts themselves, in script_names' order. */
static const char *const script_bodies[SCRIPTS] = {rl_lua_gcra, rl_lua_token_bucket,
                                                   rl_lua_fixed_window, rl_lua_sliding_counter,
                                                   rl_lua_sliding_log};
static const char *const script_files[SCRIPTS] = {"gcra", "token_bucket", "fixed_window",
                                                  "sliding_counter", "sliding_log"};

/* values as little-endian doubles, as the C callers pack them for the
 * scripts' struct.unpack('<d...') (algorithms/redis/ is not visible from
 * here); each exact, below 2^53. */
static void pack_doubles(unsigned char *out, const int64_t *values, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double d = (double)values[i];
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        for (int b = 0; b < 8; b++)
            out[8 * i + (size_t)b] = (unsigned char)(bits >> (8 * b));
    }
}

/* One EVALSHA's arguments after the key. */
struct call_args {
    int argc;
    const char *argv[6];
    size_t lens[6];
    unsigned char packed[7 * sizeof(double)];
};

/* The arguments the C caller of floors[s] sends on the stress config (L =
 * 1000 per 100 ms, B = L, n = 1: ticks L' = 1, I' = T = 10^5), with times
 * that keep the planted state refusing: the script's own numbers, so that
 * the script runs its real refusal path. server_epoch_us: the server's TIME
 * (µs) at setup, as redis_gcra's create reads it. */
static void refusal_args(int s, uint64_t server_epoch_us, struct call_args *a)
{
    const int64_t horizon = (int64_t)((1ull << 53) - 1 - 1000ull * 100000ull); /* (2^53-1-B·T)/L' */
    memset(a, 0, sizeof *a);
    switch (s) {
    case 0: { /* redis_gcra: now -1 (the server's TIME), n, L', T, τ, epoch µs, horizon */
        const int64_t n[7] = {-1, 1, 1, 100000, 999 * 100000, (int64_t)server_epoch_us, horizon};
        pack_doubles(a->packed, n, 7);
        break;
    }
    case 1: { /* redis_token_bucket: client now, n, L', I', B, epoch µs, horizon */
        const int64_t n[7] = {1000000000000, 1, 1, 100000, 1000, 0, horizon};
        pack_doubles(a->packed, n, 7);
        break;
    }
    case 3: { /* redis_sliding_counter: k, elapsed ns, n, L, I ns */
        const int64_t n[5] = {5, 1000, 1, 1000, 100000000};
        pack_doubles(a->packed, n, 5);
        a->argv[0] = (const char *)a->packed, a->lens[0] = 5 * sizeof(double);
        a->argv[1] = "200", a->argc = 2;
        break;
    }
    case 2: /* redis_fixed_window: L − n, n, PX */
        a->argv[0] = "999", a->argv[1] = "1", a->argv[2] = "100", a->argc = 3;
        break;
    case 4: /* redis_sliding_log: L − n, n, now, the window's oldest score, member, PX */
        a->argv[0] = "999", a->argv[1] = "1", a->argv[2] = "1000000000";
        a->argv[3] = "900000001", a->argv[4] = "1", a->argv[5] = "200", a->argc = 6;
        break;
    default: /* GCRA_CLIENT_TIME: seven zero doubles and gcra's PX */
        break;
    }
    if (s == 0 || s == 1 || s == GCRA_CLIENT_TIME) {
        a->argv[0] = (const char *)a->packed, a->lens[0] = 7 * sizeof(double);
        a->argv[1] = "60000", a->argc = 2;
    }
    for (int i = 0; i < a->argc; i++)
        if (a->lens[i] == 0)
            a->lens[i] = strlen(a->argv[i]);
}

static int load_script(const char *address, const char *body, char *sha, size_t sha_len, char *err,
                       size_t err_len)
{
    const char *argv[] = {"SCRIPT", "LOAD", body};
    return rl_redis_command(address, 3, argv, sha, sha_len, err, err_len);
}

/* The server's TIME in µs, as one decimal string from a script. */
static int server_time_us(const char *address, uint64_t *us, char *err, size_t err_len)
{
    const char *argv[] = {"EVAL",
                          "local t = redis.call('TIME') "
                          "return t[1] .. string.format('%06d', tonumber(t[2]))",
                          "0"};
    char text[64];
    if (rl_redis_command(address, 3, argv, text, sizeof text, err, err_len) != 0)
        return -1;
    *us = strtoull(text, NULL, 10);
    return 0;
}

/* µs per EVALSHA of sha over FLOOR_CALLS calls on key with args a (none
 * when NULL). */
static int floor_usec(const char *address, const char *sha, const char *key,
                      const struct call_args *a, double *usec, char *err, size_t err_len)
{
    const char *argv[10] = {"EVALSHA", sha, "1", key};
    size_t lens[10] = {7, strlen(sha), 1, strlen(key)};
    int argc = a ? a->argc : 0;
    for (int i = 0; i < argc; i++) {
        argv[4 + i] = a->argv[i];
        lens[4 + i] = a->lens[i];
    }
    const char *reset[] = {"CONFIG", "RESETSTAT"};
    char ok[64];
    double inner;
    if (rl_redis_command(address, 2, reset, ok, sizeof ok, err, err_len) != 0 ||
        rl_redis_repeat(address, 4 + argc, argv, lens, FLOOR_CALLS, err, err_len) != 0)
        return -1;
    return server_usec_per_call(address, usec, &inner, err, err_len);
}

/* The commands one EVALSHA of sha issues (args a on key), from INFO
 * commandstats: "get 1, time 1", by name. */
static int commands_of(const char *address, const char *sha, const char *key,
                       const struct call_args *a, char *out, size_t out_len, char *err,
                       size_t err_len)
{
    const char *argv[10] = {"EVALSHA", sha, "1", key};
    size_t lens[10] = {7, strlen(sha), 1, strlen(key)};
    for (int i = 0; i < a->argc; i++) {
        argv[4 + i] = a->argv[i];
        lens[4 + i] = a->lens[i];
    }
    const char *reset[] = {"CONFIG", "RESETSTAT"}, *info[] = {"INFO", "commandstats"};
    static char stats[65536];
    if (rl_redis_command(address, 2, reset, stats, sizeof stats, err, err_len) != 0 ||
        rl_redis_repeat(address, 4 + a->argc, argv, lens, 1, err, err_len) != 0 ||
        rl_redis_command(address, 2, info, stats, sizeof stats, err, err_len) != 0)
        return -1;
    char names[16][64] = {{0}}, line[128];
    unsigned long long counts[16];
    size_t found = 0;
    for (const char *at = strstr(stats, "cmdstat_"); at && found < 16;
         at = strstr(at + 1, "\ncmdstat_")) {
        if (*at == '\n')
            at++;
        if (sscanf(at, "cmdstat_%63[^:]:calls=%llu", names[found], &counts[found]) == 2 &&
            !sent_by_client(names[found]))
            found++;
    }
    out[0] = '\0';
    for (size_t i = 0; i < found; i++) { /* by name: INFO's order is its table's */
        size_t least = i;
        for (size_t j = i + 1; j < found; j++)
            if (strcmp(names[j], names[least]) < 0)
                least = j;
        char name[64];
        unsigned long long count = counts[least];
        memcpy(name, names[least], sizeof name);
        memcpy(names[least], names[i], sizeof name);
        counts[least] = counts[i];
        snprintf(line, sizeof line, "%s%s %llu", i ? ", " : "", name, count);
        strncat(out, line, out_len - strlen(out) - 1);
    }
    return 0;
}

/* Checks that the script, on these arguments and this state, issues
 * exactly its floor's commands: that what is timed is its refusal path
 * (every script writes on an admit, sliding_counter.lua on a rotation too)
 * and that floors[] is in step with algorithms/redis/lua/. */
static int in_step(const char *address, int s, const char *script_sha, const char *floor_sha,
                   const char *key, const struct call_args *a, char *err, size_t err_len)
{
    char script[256], floor[256];
    if (commands_of(address, script_sha, key, a, script, sizeof script, err, err_len) != 0 ||
        commands_of(address, floor_sha, key, a, floor, sizeof floor, err, err_len) != 0)
        return -1;
    if (strcmp(script, floor) != 0) {
        snprintf(err, err_len,
                 "%s.lua on its refusal path issued [%s], its floor [%s]: floors[] in "
                 "perf_redis.c is out of step with algorithms/redis/lua/",
                 script_files[s], script, floor);
        return -1;
    }
    return 0;
}

/* Every floor key in one hash slot, so that on a cluster one primary
 * holds them all. */
#define FLOOR_NOOP_KEY "{rl:perf-floor}:noop"

/* Rows per script: its floor ÷ redis_noop (reported: what bounds the
 * server-cost goal), and the script ÷ its floor (the goal that is left to
 * a script: the Lua it adds). Alternating noop, floor, script, noop (floor
 * and script swapping places each repetition), all on one connection with
 * the same arguments. floor_x_noop[s] gets the floor ÷ noop medians. On a
 * cluster (address: the primary holding FLOOR_NOOP_KEY's slot) only the
 * script ÷ floor rows are written, named "redis cluster ...". */
static int floor_rows(const char *address, bool cluster, unsigned goal_reps,
                      struct rl_perf_row *rows, double floor_x_noop[SCRIPTS], char *err,
                      size_t err_len)
{
    /* a floor run is 20 000 calls, a fraction of a second: three times the
     * goal's repetitions, so that one disturbed run moves the median less */
    unsigned reps =
        FLOOR_REPS_PER_REP * goal_reps > MAX_REPS ? MAX_REPS : FLOOR_REPS_PER_REP * goal_reps;
    char noop_sha[64], sha[FLOOR_ROWS][64], script_sha[SCRIPTS][64];
    uint64_t epoch_us;
    if (load_script(address, rl_lua_noop, noop_sha, sizeof noop_sha, err, err_len) != 0 ||
        server_time_us(address, &epoch_us, err, err_len) != 0)
        return -1;
    static struct call_args args[FLOOR_ROWS];
    for (int s = 0; s < FLOOR_ROWS; s++) {
        char key[64], planted[64];
        snprintf(key, sizeof key, "{rl:perf-floor}:%d", s);
        refusal_args(s, epoch_us, &args[s]);
        const char *plant[] = {"EVAL", floors[s].plant, "1", key};
        if (load_script(address, floors[s].body, sha[s], sizeof sha[s], err, err_len) != 0 ||
            rl_redis_command(address, 4, plant, planted, sizeof planted, err, err_len) != 0)
            return -1;
        if (s < SCRIPTS &&
            (load_script(address, script_bodies[s], script_sha[s], sizeof script_sha[s], err,
                         err_len) != 0 ||
             in_step(address, s, script_sha[s], sha[s], key, &args[s], err, err_len) != 0))
            return -1;
    }
    static double ratio[FLOOR_ROWS][MAX_REPS], skeleton[FLOOR_ROWS][MAX_REPS],
        noop[FLOOR_ROWS][MAX_REPS], script[SCRIPTS][MAX_REPS], over_floor[SCRIPTS][MAX_REPS];
    for (unsigned rep = 0; rep < reps; rep++) {
        double before, after;
        if (floor_usec(address, noop_sha, FLOOR_NOOP_KEY, NULL, &before, err, err_len) != 0)
            return -1;
        for (int s = 0; s < FLOOR_ROWS; s++) {
            char key[64];
            snprintf(key, sizeof key, "{rl:perf-floor}:%d", s);
            bool script_first = s < SCRIPTS && rep % 2 == 1;
            if ((script_first && floor_usec(address, script_sha[s], key, &args[s], &script[s][rep],
                                            err, err_len) != 0) ||
                floor_usec(address, sha[s], key, &args[s], &skeleton[s][rep], err, err_len) != 0 ||
                (s < SCRIPTS && !script_first &&
                 floor_usec(address, script_sha[s], key, &args[s], &script[s][rep], err, err_len) !=
                     0) ||
                floor_usec(address, noop_sha, FLOOR_NOOP_KEY, NULL, &after, err, err_len) != 0)
                return -1;
            noop[s][rep] = (before + after) / 2;
            ratio[s][rep] = skeleton[s][rep] / noop[s][rep];
            if (s < SCRIPTS)
                over_floor[s][rep] = script[s][rep] / skeleton[s][rep];
            before = after;
        }
    }
    for (int s = 0; s < SCRIPTS; s++)
        floor_x_noop[s] = rl_median(ratio[s], reps);
    for (int s = 0; s < FLOOR_ROWS && !cluster; s++) {
        struct rl_perf_row *r = &rows[s];
        memset(r, 0, sizeof *r);
        bool gcra_client = s == GCRA_CLIENT_TIME;
        if (gcra_client) {
            snprintf(r->goal, sizeof r->goal, "redis refusal redis_gcra client time");
            snprintf(r->measured, sizeof r->measured,
                     "the server's us per EVALSHA of gcra.lua itself on a refusal, the client's "
                     "time passed in (no TIME), on a key holding a TAT");
        } else {
            snprintf(r->goal, sizeof r->goal, "redis floor %s", script_names[s]);
            snprintf(r->measured, sizeof r->measured,
                     "the server's us per EVALSHA of a script of only %s's redis.call lines on a "
                     "refusal (%s), with its arguments, on a key holding its state",
                     script_names[s], floors[s].commands);
        }
        snprintf(r->floor, sizeof r->floor,
                 "redis_noop's us per EVALSHA (1 key, no arguments), the runs just before and "
                 "after: reported; %s",
                 gcra_client ? "what redis_gcra would cost on a refusal without its server clock"
                             : "above the target, no Lua body making these calls meets it");
        r->ratio = rl_median(ratio[s], reps);
        r->at_most = true;
        r->target = server_target[gcra_client ? 0 : s];
        r->reported = true;
        snprintf(r->detail, sizeof r->detail,
                 "%.2f vs redis_noop %.2f us a call (medians of %u runs of %u calls)",
                 rl_median(skeleton[s], reps), rl_median(noop[s], reps), reps, FLOOR_CALLS);
        snprintf(r->command, sizeof r->command,
                 "bench --suite perf --goal redis; by hand: EVALSHA of %s",
                 gcra_client ? "algorithms/redis/lua/gcra.lua, now >= 0" : floors[s].body);
    }
    for (int s = 0; s < SCRIPTS; s++) {
        struct rl_perf_row *r = &rows[(cluster ? 0 : FLOOR_ROWS) + s];
        memset(r, 0, sizeof *r);
        snprintf(r->goal, sizeof r->goal, "redis %s %s / its floor", cluster ? "cluster" : "server",
                 script_names[s]);
        snprintf(r->measured, sizeof r->measured,
                 "the server's us per EVALSHA of %s.lua on its refusal path, the C caller's "
                 "arguments, on a key holding its state%s",
                 script_files[s], cluster ? "; on the cluster's primary holding the key" : "");
        snprintf(r->floor, sizeof r->floor,
                 "a script of only that path's redis.call lines (%s), same key and arguments, "
                 "interleaved: the Lua work the script adds beyond the commands it must issue",
                 floors[s].commands);
        r->at_most = true;
        r->target = 1.5;
        r->ratio = rl_median(over_floor[s], reps); /* sorts: first and last are the range */
        snprintf(r->detail, sizeof r->detail,
                 "%.2f vs its floor %.2f us a call (medians of %u runs of %u calls); runs "
                 "%.2f-%.2f; floor %.2f x redis_noop",
                 rl_median(script[s], reps), rl_median(skeleton[s], reps), reps, FLOOR_CALLS,
                 over_floor[s][0], over_floor[s][reps - 1], floor_x_noop[s]);
        snprintf(r->command, sizeof r->command,
                 "build/ratelab bench --suite perf --goal redis (EVALSHA of "
                 "algorithms/redis/lua/%s.lua and of %s alone, alternating)",
                 script_files[s], floors[s].commands);
    }
    return cluster ? OVER_FLOOR_ROWS : FLOOR_ROWS + OVER_FLOOR_ROWS;
}

/* The server rows (÷ redis_noop) say what no script can go below: its
 * floor ÷ redis_noop, measured on the same server in the same run. */
static void say_floors(struct rl_perf_row *server_rows, const double floor_x_noop[SCRIPTS])
{
    for (int s = 0; s < SCRIPTS; s++) {
        char *detail = server_rows[s].detail;
        size_t used = strlen(detail);
        snprintf(detail + used, sizeof server_rows[s].detail - used,
                 "; its floor (%s alone) %.2f x noop, same run", floors[s].commands,
                 floor_x_noop[s]);
    }
}

/* ---- the server rows again, on a private cluster ---- */

static void node_address(const struct rl_redis_cluster_node *n, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%u", n->host[0] ? n->host : "127.0.0.1", n->port);
}

/* One stress run of algo on the cluster (10 threads, one key, as the
 * server rows): every primary's statistics reset before it, their EVALSHA
 * µs per call (and their scripts' commands') summed over the primaries
 * after it. */
static int cluster_run(const struct rl_algo *algo, const struct rl_redis_cluster *c, double *usec,
                       double *inner, char *err, size_t err_len)
{
    const char *reset[] = {"CONFIG", "RESETSTAT"};
    char ok[64], address[96];
    for (size_t i = 0; i < c->node_count; i++) {
        node_address(&c->nodes[i], address, sizeof address);
        if (c->nodes[i].primary &&
            rl_redis_command(address, 2, reset, ok, sizeof ok, err, err_len) != 0)
            return -1;
    }
    double per_s;
    if (rate_of(algo, c->address, thread_sizes[0], &per_s, err, err_len) != 0)
        return -1;
    unsigned long long calls = 0, total = 0, commands = 0;
    for (size_t i = 0; i < c->node_count; i++) {
        node_address(&c->nodes[i], address, sizeof address);
        if (c->nodes[i].primary &&
            add_server_stats(address, &calls, &total, &commands, err, err_len) != 0)
            return -1;
    }
    return per_call(calls, total, commands, usec, inner, err, err_len);
}

/* Rows that say why the server's cost was not measured, where: "server"
 * (one redis-server) or "cluster". */
static void cost_not_measured(struct rl_perf_row *rows, const char *where, const char *why)
{
    for (int s = 0; s < SCRIPTS; s++) {
        struct rl_perf_row *r = &rows[s];
        memset(r, 0, sizeof *r);
        snprintf(r->goal, sizeof r->goal, "redis %s %s", where, script_names[s]);
        r->ratio = NAN;
        r->at_most = true;
        r->target = server_target[s];
        snprintf(r->detail, sizeof r->detail, "not measured: %s", why);
    }
}

/* The cluster's rows, each saying why it was not measured. */
static void cluster_not_measured(struct rl_perf_row *rows, const char *why)
{
    cost_not_measured(rows, "cluster", why);
    for (int s = 0; s < SCRIPTS; s++) {
        struct rl_perf_row *r = &rows[SCRIPTS + s];
        memset(r, 0, sizeof *r);
        snprintf(r->goal, sizeof r->goal, "redis cluster %s / its floor", script_names[s]);
        r->ratio = NAN;
        r->at_most = true;
        r->target = 1.5;
        snprintf(r->detail, sizeof r->detail, "not measured: %s", why);
    }
}

/* The primary that holds the floor keys' slot: the one that runs a script
 * on FLOOR_NOOP_KEY (the others answer MOVED). */
static int floor_primary(const struct rl_redis_cluster *c, char *address, size_t len, char *err,
                         size_t err_len)
{
    const char *argv[] = {"EVAL", "return 'ok'", "1", FLOOR_NOOP_KEY};
    char ok[64], why[256];
    for (size_t i = 0; i < c->node_count; i++) {
        node_address(&c->nodes[i], address, len);
        if (c->nodes[i].primary &&
            rl_redis_command(address, 4, argv, ok, sizeof ok, why, sizeof why) == 0)
            return 0;
    }
    snprintf(err, err_len, "no primary of the cluster holds %s", FLOOR_NOOP_KEY);
    return -1;
}

/* The server rows on a private 3x1 cluster: noop, script, noop, ... as
 * measure_on alternates them, each script ÷ the mean of the noop runs
 * around it; the cluster stopped and removed whatever happens. */
static int cluster_rows(unsigned reps, struct rl_perf_row *rows, char *err, size_t err_len)
{
    if (!rl_redis_cluster_available()) {
        cluster_not_measured(rows, "no redis-server (make deps installs it)");
        return CLUSTER_ROWS;
    }
    const struct rl_algo *noop = rl_registry_find("redis_noop");
    const struct rl_algo *algo[SCRIPTS];
    for (int s = 0; s < SCRIPTS; s++)
        algo[s] = rl_registry_find(script_names[s]); /* measure_on found them */
    static struct rl_redis_cluster cluster;
    char why[512];
    if (rl_redis_cluster_start(&cluster, CLUSTER_PRIMARIES, CLUSTER_REPLICAS, why, sizeof why) !=
        0) { /* the one-server rows stand; these say why they are missing */
        cluster_not_measured(rows, why);
        return CLUSTER_ROWS;
    }
    static double cost[SCRIPTS][MAX_REPS], noop_cost[SCRIPTS][MAX_REPS], ratio[SCRIPTS][MAX_REPS],
        inner[SCRIPTS][MAX_REPS];
    int failed = 0;
    for (unsigned rep = 0; rep < reps && !failed; rep++) {
        double before, after, unused;
        failed = cluster_run(noop, &cluster, &before, &unused, err, err_len);
        for (int k = 0; k < SCRIPTS && !failed; k++) {
            int s = (int)((rep + (unsigned)k) % SCRIPTS);
            failed = cluster_run(algo[s], &cluster, &cost[s][rep], &inner[s][rep], err, err_len) ||
                     cluster_run(noop, &cluster, &after, &unused, err, err_len);
            noop_cost[s][rep] = (before + after) / 2;
            ratio[s][rep] = cost[s][rep] / noop_cost[s][rep];
            before = after;
        }
    }
    /* each script ÷ its floor on the primary holding the floor keys */
    double floor_x_noop[SCRIPTS];
    char primary[96];
    if (!failed)
        failed = floor_primary(&cluster, primary, sizeof primary, err, err_len) != 0 ||
                 floor_rows(primary, true, reps, rows + SCRIPTS, floor_x_noop, err, err_len) < 0;
    rl_redis_cluster_stop(&cluster);
    if (failed)
        return -1;
    for (int s = 0; s < SCRIPTS; s++) {
        struct rl_perf_row *r = &rows[s];
        memset(r, 0, sizeof *r);
        snprintf(r->goal, sizeof r->goal, "redis cluster %s", script_names[s]);
        snprintf(r->measured, sizeof r->measured,
                 "the us per EVALSHA of %s summed over the %d primaries of a private %dx%d "
                 "cluster (INFO commandstats after CONFIG RESETSTAT on each; 10 threads, one key)",
                 script_names[s], CLUSTER_PRIMARIES, CLUSTER_PRIMARIES, CLUSTER_REPLICAS);
        snprintf(r->floor, sizeof r->floor,
                 "redis_noop's us per EVALSHA on the same cluster in the runs just before and "
                 "after");
        r->at_most = true;
        r->target = server_target[s];
        r->ratio = rl_median(ratio[s], reps); /* sorts: first and last are the range */
        snprintf(r->detail, sizeof r->detail,
                 "%.2f vs redis_noop %.2f us a call, its redis.call commands %.2f us (medians); "
                 "reps %.2f-%.2f",
                 rl_median(cost[s], reps), rl_median(noop_cost[s], reps), rl_median(inner[s], reps),
                 ratio[s][0], ratio[s][reps - 1]);
        snprintf(r->command, sizeof r->command,
                 "build/ratelab bench --suite perf --goal redis (by hand: stress --algo %s "
                 "--threads 10 --redis-cluster %dx%d, CONFIG RESETSTAT and INFO commandstats on "
                 "each primary)",
                 script_names[s], CLUSTER_PRIMARIES, CLUSTER_REPLICAS);
    }
    say_floors(rows, floor_x_noop);
    return CLUSTER_ROWS;
}

/* The measurement proper, on a server that answers at address. */
static int measure_on(const char *address, bool server_cost, unsigned reps,
                      struct rl_perf_row *rows, char *err, size_t err_len)
{
    const struct rl_algo *noop = rl_registry_find("redis_noop");
    const struct rl_algo *algo[SCRIPTS];
    for (int s = 0; s < SCRIPTS; s++)
        if ((algo[s] = rl_registry_find(script_names[s])) == NULL) {
            snprintf(err, err_len, "no algorithm %s", script_names[s]);
            return -1;
        }
    if (noop == NULL) {
        snprintf(err, err_len, "no algorithm redis_noop");
        return -1;
    }
    long cpus = rl_cpu_count();
    /* the server's cost, per thread size: [t][s][rep] */
    static double cost[THREAD_SIZES][SCRIPTS][MAX_REPS], noop_cost[THREAD_SIZES][SCRIPTS][MAX_REPS],
        cost_ratio[THREAD_SIZES][SCRIPTS][MAX_REPS], inner[THREAD_SIZES][SCRIPTS][MAX_REPS];
    for (int t = 0; t < THREAD_SIZES; t++) {
        double ratio[SCRIPTS][MAX_REPS], rate[SCRIPTS][MAX_REPS], noop_rate[SCRIPTS][MAX_REPS];
        for (unsigned rep = 0; rep < reps; rep++) {
            double before, before_usec, unused;
            if (run_of(noop, address, thread_sizes[t], server_cost, &before, &before_usec, &unused,
                       err, err_len) != 0)
                return -1;
            for (int k = 0; k < SCRIPTS; k++) {
                int s = (int)((rep + (unsigned)k) % SCRIPTS);
                double script, after, script_usec, after_usec;
                if (run_of(algo[s], address, thread_sizes[t], server_cost, &script, &script_usec,
                           &inner[t][s][rep], err, err_len) != 0 ||
                    run_of(noop, address, thread_sizes[t], server_cost, &after, &after_usec,
                           &unused, err, err_len) != 0)
                    return -1;
                noop_rate[s][rep] = (before + after) / 2;
                rate[s][rep] = script;
                ratio[s][rep] = script / noop_rate[s][rep];
                noop_cost[t][s][rep] = (before_usec + after_usec) / 2;
                cost[t][s][rep] = script_usec;
                cost_ratio[t][s][rep] = script_usec / noop_cost[t][s][rep];
                before = after;
                before_usec = after_usec;
            }
        }
        for (int s = 0; s < SCRIPTS; s++) {
            struct rl_perf_row *r = &rows[SERVER_ROWS + t * SCRIPTS + s];
            memset(r, 0, sizeof *r);
            snprintf(r->goal, sizeof r->goal, "redis client %s %u threads", script_names[s],
                     thread_sizes[t]);
            snprintf(r->measured, sizeof r->measured,
                     "%s decisions a second (closed loop, L = 1000 per 100 ms, one key)",
                     script_names[s]);
            snprintf(r->floor, sizeof r->floor,
                     "redis_noop's, the runs just before and after: reported, not a goal on %ld "
                     "cpus (client threads and server share them)",
                     cpus);
            r->target = 0.8;
            r->reported = true;
            double script_rate = rl_median(rate[s], reps);
            double floor_rate = rl_median(noop_rate[s], reps);
            r->ratio = rl_median(ratio[s], reps); /* sorts: first and last are the range */
            snprintf(r->detail, sizeof r->detail,
                     "%.0f/s vs redis_noop %.0f/s (medians); reps %.2f-%.2f; %ld cpus", script_rate,
                     floor_rate, ratio[s][0], ratio[s][reps - 1], cpus);
            snprintf(r->command, sizeof r->command,
                     "build/ratelab stress --algo redis_noop,%s --threads %u --duration 600ms: x "
                     "noop = 1/ratio",
                     script_names[s], thread_sizes[t]);
        }
    }
    if (!server_cost) {
        cost_not_measured(rows, "server",
                          "CONFIG RESETSTAT is sent only to the private server, not to "
                          "one given by --redis");
        return SERVER_ROWS + CLIENT_ROWS;
    }
    for (int s = 0; s < SCRIPTS; s++) {
        struct rl_perf_row *r = &rows[s];
        memset(r, 0, sizeof *r);
        snprintf(r->goal, sizeof r->goal, "redis server %s", script_names[s]);
        snprintf(r->measured, sizeof r->measured,
                 "the server's us per EVALSHA of %s (INFO commandstats over a run after CONFIG "
                 "RESETSTAT; the 10-thread runs)",
                 script_names[s]);
        snprintf(r->floor, sizeof r->floor,
                 "redis_noop's us per EVALSHA in the runs just before and after, same server: "
                 "what a call costs the server before the script does anything");
        r->at_most = true;
        r->target = server_target[s];
        r->ratio = rl_median(cost_ratio[0][s], reps); /* sorts: first and last are the range */
        snprintf(r->detail, sizeof r->detail,
                 "%.2f vs redis_noop %.2f us a call, its redis.call commands %.2f us (medians); "
                 "reps %.2f-%.2f; at 100 threads %.2f",
                 rl_median(cost[0][s], reps), rl_median(noop_cost[0][s], reps),
                 rl_median(inner[0][s], reps), cost_ratio[0][s][0], cost_ratio[0][s][reps - 1],
                 rl_median(cost_ratio[1][s], reps));
        snprintf(r->command, sizeof r->command,
                 "build/ratelab bench --suite perf --goal redis (by hand: CONFIG RESETSTAT, "
                 "stress --algo %s --threads 10, INFO commandstats)",
                 script_names[s]);
    }
    return SERVER_ROWS + CLIENT_ROWS;
}

/* Rows that say why nothing was measured: no server at all. */
static int not_measured(struct rl_perf_row *rows, const char *why)
{
    cost_not_measured(rows, "server", why);
    for (int t = 0; t < THREAD_SIZES; t++)
        for (int s = 0; s < SCRIPTS; s++) {
            struct rl_perf_row *r = &rows[SERVER_ROWS + t * SCRIPTS + s];
            memset(r, 0, sizeof *r);
            snprintf(r->goal, sizeof r->goal, "redis client %s %u threads", script_names[s],
                     thread_sizes[t]);
            r->ratio = NAN;
            r->target = 0.8;
            r->reported = true;
            snprintf(r->detail, sizeof r->detail, "not measured: %s", why);
        }
    return SERVER_ROWS + CLIENT_ROWS;
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < SERVER_ROWS + CLIENT_ROWS + FLOOR_ROWS + OVER_FLOOR_ROWS + CLUSTER_ROWS) {
        snprintf(err, err_len, "room for %zu rows, %d needed", cap,
                 SERVER_ROWS + CLIENT_ROWS + FLOOR_ROWS + OVER_FLOOR_ROWS + CLUSTER_ROWS);
        return -1;
    }
    unsigned reps = opts->reps < 1 ? 1 : opts->reps > MAX_REPS ? MAX_REPS : opts->reps;
    if (opts->redis) {
        char address[512];
        if (rl_redis_address_check(opts->redis, address, sizeof address, err, err_len) != 0 ||
            rl_redis_ping(address, err, err_len) != 0)
            return -1;
        int got = measure_on(address, false, reps, rows, err, err_len);
        if (got >= 0)
            cluster_not_measured(rows + got, "a server given by --redis: no private cluster");
        return got < 0 ? -1 : got + CLUSTER_ROWS;
    }
    if (!rl_redis_server_available()) {
        int got = not_measured(rows, "no redis-server (make deps installs it; or give --redis)");
        cluster_not_measured(rows + got, "no redis-server (make deps installs it)");
        return got + CLUSTER_ROWS;
    }
    struct rl_redis_server server;
    if (rl_redis_server_start(&server, err, err_len) != 0)
        return -1;
    int got = measure_on(server.address, true, reps, rows, err, err_len);
    if (got >= 0) {
        double floor_x_noop[SCRIPTS];
        int more = floor_rows(server.address, false, reps, rows + got, floor_x_noop, err, err_len);
        if (more >= 0)
            say_floors(rows, floor_x_noop);
        got = more < 0 ? -1 : got + more;
    }
    rl_redis_server_stop(&server);
    if (got >= 0) {
        int more = cluster_rows(reps, rows + got, err, err_len);
        got = more < 0 ? -1 : got + more;
    }
    return got;
}

const struct rl_perf_goal rl_perf_redis_goal = {
    "redis",
    "each script's server cost (us per EVALSHA, INFO commandstats) / redis_noop's and, on its "
    "refusal path, / its floor (that path's redis.call lines alone); the client-side "
    "throughput / redis_noop's, reported",
    measure};
