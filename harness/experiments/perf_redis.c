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
 * The cluster: the same server-cost rows per script on a private 3-primary
 * cluster with one replica each (the tests' fixture, harness/sys/
 * redis_cluster.h), at 10 threads on one key as above: every primary's
 * statistics reset before a run, and its EVALSHA calls and µs summed over
 * the primaries after it (a replica runs no script: it gets the effects).
 * The cluster is stopped and its folder removed however the goal ends
 * (redis_cluster.c's exit and signal handlers cover an interrupted run). */
#include "harness/report/stats.h"
#include "harness/sys/cpus.h"
#include "perf.h"
#include "harness/run/stress.h"
#include "harness/sys/redis_cluster.h"
#include "harness/sys/redis_server.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char rl_lua_noop[];
extern const char rl_lua_gcra[];

#define RUN_NS            600000000ull /* per run: 2 × reps × 11 runs ≈ 40 s at reps = 3 */
#define SCRIPTS           5
#define THREAD_SIZES      2
#define MAX_REPS          101
#define SERVER_ROWS       SCRIPTS
#define CLIENT_ROWS       (THREAD_SIZES * SCRIPTS)
#define FLOOR_ROWS        (SCRIPTS + 1) /* on the private server only; + gcra.lua, client time */
#define FLOOR_CALLS       20000u        /* EVALSHAs per floor run */
#define CLUSTER_ROWS      SCRIPTS       /* the server rows again, on a private cluster */
#define CLUSTER_PRIMARIES 3
#define CLUSTER_REPLICAS  1

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

/* One server's EVALSHA calls and µs since its statistics were last reset,
 * from INFO commandstats (usec, finer than its rounded usec_per_call), and
 * the µs the scripts' own commands took (every other command's usec but
 * those a client itself sends): added to *calls, *usec and *inner. */
static int add_server_stats(const char *address, unsigned long long *calls,
                            unsigned long long *usec, unsigned long long *inner, char *err,
                            size_t err_len)
{
    static const char *const client_sent[] = {"evalsha", "eval",    "script",  "config",
                                              "info",    "ping",    "hello",   "client",
                                              "select",  "command", "cluster", "readonly"};
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
        bool by_client = false;
        for (size_t i = 0; i < sizeof client_sent / sizeof *client_sent; i++)
            by_client |= strcmp(name, client_sent[i]) == 0 || strncmp(name, "config|", 7) == 0 ||
                         strncmp(name, "script|", 7) == 0 || strncmp(name, "client|", 7) == 0 ||
                         strncmp(name, "cluster|", 8) == 0;
        if (strcmp(name, "evalsha") == 0)
            *calls += count, *usec += total;
        else if (!by_client)
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

/* The script's redis.call lines on its refusal path (the common one: the
 * stress runs ask one key far above L), with the same number and size of
 * arguments as the real call, on a key that holds state of the real type,
 * and nothing else: no arithmetic, no unpacking. Its µs per EVALSHA ÷
 * redis_noop's is the least any Lua body issuing those commands can reach.
 * Keep in step with algorithms/redis/lua/ and the C callers. */
struct script_floor {
    const char *body;
    const char *plant; /* a Lua body that leaves the key's state */
    int argc;          /* ARGV count */
    size_t arg_len[6]; /* 0: the decimal text in arg_text */
    const char *arg_text[6];
};

static const struct script_floor floors[FLOOR_ROWS] = {
    {"redis.call('TIME') redis.call('GET', KEYS[1]) return 0",
     "redis.call('SET', KEYS[1], '01234567') return 'ok'",
     2,
     {56, 0},
     {NULL, "60000"}},
    {"redis.call('GET', KEYS[1]) return 0",
     "redis.call('SET', KEYS[1], '0123456789abcdef') return 'ok'",
     2,
     {56, 0},
     {NULL, "60000"}},
    {"redis.call('GET', KEYS[1]) return 0",
     "redis.call('SET', KEYS[1], '1000') return 'ok'",
     3,
     {0, 0, 0},
     {"999", "1", "100"}},
    {"redis.call('GET', KEYS[1]) return 0",
     "redis.call('SET', KEYS[1], '0123456789abcdef01234567') return 'ok'",
     2,
     {40, 0},
     {NULL, "200"}},
    {"redis.call('ZCOUNT', KEYS[1], ARGV[4], '+inf') return 0",
     "for i = 1, 1000 do redis.call('ZADD', KEYS[1], 950000000 + i, i) end return 'ok'",
     6,
     {0, 0, 0, 0, 0, 0},
     {"999", "1", "1000000000", "900000001", "1", "200"}},
    /* not a floor: gcra.lua itself on its refusal path with a client time
     * (the zeros read as now 0, n 0: no TIME, and a TAT above 0 refuses),
     * what redis_gcra would cost without its server clock */
    {rl_lua_gcra,
     "redis.call('SET', KEYS[1], struct.pack('<d', 1e12)) return 'ok'",
     2,
     {56, 0},
     {NULL, "60000"}},
};
#define GCRA_CLIENT_TIME SCRIPTS /* floors[]' last entry */

static int load_script(const char *address, const char *body, char *sha, size_t sha_len, char *err,
                       size_t err_len)
{
    const char *argv[] = {"SCRIPT", "LOAD", body};
    return rl_redis_command(address, 3, argv, sha, sha_len, err, err_len);
}

/* µs per EVALSHA of sha over FLOOR_CALLS calls on key with (argc) args. */
static int floor_usec(const char *address, const char *sha, const char *key, int argc,
                      const size_t *arg_len, const char *const *arg_text, double *usec, char *err,
                      size_t err_len)
{
    static const char binary[64] = {0}; /* packed doubles' stand-in: zeros */
    const char *argv[10] = {"EVALSHA", sha, "1", key};
    size_t lens[10] = {7, strlen(sha), 1, strlen(key)};
    for (int i = 0; i < argc; i++) {
        argv[4 + i] = arg_len[i] ? binary : arg_text[i];
        lens[4 + i] = arg_len[i] ? arg_len[i] : strlen(arg_text[i]);
    }
    const char *reset[] = {"CONFIG", "RESETSTAT"};
    char ok[64];
    double inner;
    if (rl_redis_command(address, 2, reset, ok, sizeof ok, err, err_len) != 0 ||
        rl_redis_repeat(address, 4 + argc, argv, lens, FLOOR_CALLS, err, err_len) != 0)
        return -1;
    return server_usec_per_call(address, usec, &inner, err, err_len);
}

/* One row per script: its commands alone ÷ redis_noop, alternating noop,
 * floor, noop as the goal's runs do; reported (what bounds the goal). */
static int floor_rows(const char *address, unsigned reps, struct rl_perf_row *rows, char *err,
                      size_t err_len)
{
    char noop_sha[64], sha[FLOOR_ROWS][64];
    if (load_script(address, rl_lua_noop, noop_sha, sizeof noop_sha, err, err_len) != 0)
        return -1;
    for (int s = 0; s < FLOOR_ROWS; s++) {
        char key[64], planted[64];
        snprintf(key, sizeof key, "rl:perf-floor:%d", s);
        const char *plant[] = {"EVAL", floors[s].plant, "1", key};
        if (load_script(address, floors[s].body, sha[s], sizeof sha[s], err, err_len) != 0 ||
            rl_redis_command(address, 4, plant, planted, sizeof planted, err, err_len) != 0)
            return -1;
    }
    static double ratio[FLOOR_ROWS][MAX_REPS], skeleton[FLOOR_ROWS][MAX_REPS],
        noop[FLOOR_ROWS][MAX_REPS];
    for (unsigned rep = 0; rep < reps; rep++) {
        double before, after;
        if (floor_usec(address, noop_sha, "rl:perf-floor:noop", 0, NULL, NULL, &before, err,
                       err_len) != 0)
            return -1;
        for (int s = 0; s < FLOOR_ROWS; s++) {
            char key[64];
            snprintf(key, sizeof key, "rl:perf-floor:%d", s);
            if (floor_usec(address, sha[s], key, floors[s].argc, floors[s].arg_len,
                           floors[s].arg_text, &skeleton[s][rep], err, err_len) != 0 ||
                floor_usec(address, noop_sha, "rl:perf-floor:noop", 0, NULL, NULL, &after, err,
                           err_len) != 0)
                return -1;
            noop[s][rep] = (before + after) / 2;
            ratio[s][rep] = skeleton[s][rep] / noop[s][rep];
            before = after;
        }
    }
    for (int s = 0; s < FLOOR_ROWS; s++) {
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
                     "refusal, with its arguments, on a key holding its state",
                     script_names[s]);
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
                 "%.2f vs redis_noop %.2f us a call (medians, %u calls a run)",
                 rl_median(skeleton[s], reps), rl_median(noop[s], reps), FLOOR_CALLS);
        snprintf(r->command, sizeof r->command,
                 "bench --suite perf --goal redis; by hand: EVALSHA of %s",
                 gcra_client ? "algorithms/redis/lua/gcra.lua, now >= 0" : floors[s].body);
    }
    return FLOOR_ROWS;
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

/* The server rows on a private 3x1 cluster: noop, script, noop, ... as
 * measure_on alternates them, each script ÷ the mean of the noop runs
 * around it; the cluster stopped and removed whatever happens. */
static int cluster_rows(unsigned reps, struct rl_perf_row *rows, char *err, size_t err_len)
{
    if (!rl_redis_cluster_available()) {
        cost_not_measured(rows, "cluster", "no redis-server (make deps installs it)");
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
        cost_not_measured(rows, "cluster", why);
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
    if (cap < SERVER_ROWS + CLIENT_ROWS + FLOOR_ROWS + CLUSTER_ROWS) {
        snprintf(err, err_len, "room for %zu rows, %d needed", cap,
                 SERVER_ROWS + CLIENT_ROWS + FLOOR_ROWS + CLUSTER_ROWS);
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
            cost_not_measured(rows + got, "cluster",
                              "a server given by --redis: no private cluster");
        return got < 0 ? -1 : got + CLUSTER_ROWS;
    }
    if (!rl_redis_server_available()) {
        int got = not_measured(rows, "no redis-server (make deps installs it; or give --redis)");
        cost_not_measured(rows + got, "cluster", "no redis-server (make deps installs it)");
        return got + CLUSTER_ROWS;
    }
    struct rl_redis_server server;
    if (rl_redis_server_start(&server, err, err_len) != 0)
        return -1;
    int got = measure_on(server.address, true, reps, rows, err, err_len);
    if (got >= 0) {
        int more = floor_rows(server.address, reps, rows + got, err, err_len);
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
    "each script's server cost (us per EVALSHA, INFO commandstats) / redis_noop's; the "
    "client-side throughput / redis_noop's, reported",
    measure};
