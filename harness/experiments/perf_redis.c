/* perf_redis.c — the redis goal of the perf suite (docs/performance.md): the
 * throughput of redis_gcra, redis_token_bucket and redis_fixed_window as a
 * share of redis_noop's (an EVALSHA that only returns, through the same
 * client path), at 10 and 100 client threads; the goal is >= 0.8.
 *
 * Every run is a closed-loop stress run of RUN_NS at the stress default
 * (L = 1000 per 100 ms, one key) on one server: opts->redis, or a private
 * redis-server on a Unix socket (harness/sys/redis_server.h). For each
 * thread count and repetition the runs alternate noop, script, noop,
 * script, ..., noop (the scripts' order rotating with the repetition), and
 * each script is divided by the mean of the two noop runs around it, so a
 * drift of the shared machine between runs cancels to first order. A row's
 * ratio is the median over the repetitions. */
#include "harness/report/stats.h"
#include "perf.h"
#include "harness/run/stress.h"
#include "harness/sys/redis_server.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_NS       600000000ull /* per run: 2 × reps × 7 runs ≈ 25 s at reps = 3 */
#define SCRIPTS      3
#define THREAD_SIZES 2
#define MAX_REPS     101

static const char *const script_names[SCRIPTS] = {"redis_gcra", "redis_token_bucket",
                                                  "redis_fixed_window"};
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

/* The measurement proper, on a server that answers at address. */
static int measure_on(const char *address, unsigned reps, struct rl_perf_row *rows, char *err,
                      size_t err_len)
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
    for (int t = 0; t < THREAD_SIZES; t++) {
        double ratio[SCRIPTS][MAX_REPS], rate[SCRIPTS][MAX_REPS], noop_rate[SCRIPTS][MAX_REPS];
        for (unsigned rep = 0; rep < reps; rep++) {
            double before;
            if (rate_of(noop, address, thread_sizes[t], &before, err, err_len) != 0)
                return -1;
            for (int k = 0; k < SCRIPTS; k++) {
                int s = (int)((rep + (unsigned)k) % SCRIPTS);
                double script, after;
                if (rate_of(algo[s], address, thread_sizes[t], &script, err, err_len) != 0 ||
                    rate_of(noop, address, thread_sizes[t], &after, err, err_len) != 0)
                    return -1;
                noop_rate[s][rep] = (before + after) / 2;
                rate[s][rep] = script;
                ratio[s][rep] = script / noop_rate[s][rep];
                before = after;
            }
        }
        for (int s = 0; s < SCRIPTS; s++) {
            struct rl_perf_row *r = &rows[t * SCRIPTS + s];
            memset(r, 0, sizeof *r);
            snprintf(r->goal, sizeof r->goal, "redis %s %u threads", script_names[s],
                     thread_sizes[t]);
            snprintf(r->measured, sizeof r->measured,
                     "%s decisions a second (closed loop, L = 1000 per 100 ms, one key)",
                     script_names[s]);
            snprintf(r->floor, sizeof r->floor,
                     "redis_noop's, the runs just before and after on the same server and client "
                     "path (an EVALSHA that only returns)");
            r->target = 0.8;
            r->at_most = false;
            double script_rate = rl_median(rate[s], reps);
            double floor_rate = rl_median(noop_rate[s], reps);
            r->ratio = rl_median(ratio[s], reps); /* sorts: first and last are the range */
            snprintf(r->detail, sizeof r->detail,
                     "%.0f/s vs redis_noop %.0f/s (medians); reps %.2f-%.2f", script_rate,
                     floor_rate, ratio[s][0], ratio[s][reps - 1]);
            snprintf(r->command, sizeof r->command,
                     "build/ratelab bench --suite perf (or: build/ratelab stress --algo "
                     "redis_noop,%s --threads %u --duration 600ms: x noop = 1/ratio)",
                     script_names[s], thread_sizes[t]);
        }
    }
    return THREAD_SIZES * SCRIPTS;
}

/* Rows that say why nothing was measured: no server at all. */
static int not_measured(struct rl_perf_row *rows, const char *why)
{
    for (int t = 0; t < THREAD_SIZES; t++)
        for (int s = 0; s < SCRIPTS; s++) {
            struct rl_perf_row *r = &rows[t * SCRIPTS + s];
            memset(r, 0, sizeof *r);
            snprintf(r->goal, sizeof r->goal, "redis %s %u threads", script_names[s],
                     thread_sizes[t]);
            r->ratio = NAN;
            r->target = 0.8;
            snprintf(r->detail, sizeof r->detail, "not measured: %s", why);
        }
    return THREAD_SIZES * SCRIPTS;
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < THREAD_SIZES * SCRIPTS) {
        snprintf(err, err_len, "room for %zu rows, %d needed", cap, THREAD_SIZES * SCRIPTS);
        return -1;
    }
    unsigned reps = opts->reps < 1 ? 1 : opts->reps > MAX_REPS ? MAX_REPS : opts->reps;
    if (opts->redis) {
        char address[512];
        if (rl_redis_address_check(opts->redis, address, sizeof address, err, err_len) != 0 ||
            rl_redis_ping(address, err, err_len) != 0)
            return -1;
        return measure_on(address, reps, rows, err, err_len);
    }
    if (!rl_redis_server_available())
        return not_measured(rows, "no redis-server (make deps installs it; or give --redis)");
    struct rl_redis_server server;
    if (rl_redis_server_start(&server, err, err_len) != 0)
        return -1;
    int got = measure_on(server.address, reps, rows, err, err_len);
    rl_redis_server_stop(&server);
    return got;
}

const struct rl_perf_goal rl_perf_redis_goal = {
    "redis", "redis_gcra, redis_token_bucket, redis_fixed_window throughput / redis_noop's",
    measure};
