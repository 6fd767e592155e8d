/* claims_cluster.c — the claims measured on a private Redis Cluster of
 * their own (docs/cluster.md): a limit read from a replica (GitHub's
 * sharded limiter, 2021), acknowledged writes lost in a failover counted as
 * admits, and the Redis article's QPS on a cluster. Each starts its cluster
 * and stops it before it returns; without redis-server they answer n/a
 * (needs_redis). */
#include "claims_kit.h"
#include "claims_runners.h"

#include "harness/sys/redis_cluster.h"

#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct rl_redis_cluster claim_cluster; /* one at a time; stopped by each runner */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static redisContext *connect_port(unsigned port)
{
    struct timeval timeout = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", (int)port, timeout);
    if (c && !c->err && redisSetTimeout(c, timeout) == REDIS_OK)
        return c;
    if (c)
        redisFree(c);
    return NULL;
}

/* An integer reply's value (a missing key's nil: 0); -1 on an error. */
static long long integer_of(redisReply *r)
{
    long long v = -1;
    if (r && r->type == REDIS_REPLY_INTEGER)
        v = r->integer;
    else if (r && r->type == REDIS_REPLY_NIL)
        v = 0;
    else if (r && r->type == REDIS_REPLY_STRING)
        v = strtoll(r->str, NULL, 10);
    if (r)
        freeReplyObject(r);
    return v;
}

/* What one fixed-window limiter that reads its count from `reader` and
 * counts on `primary` admitted: one client, windows of I, L each. */
struct window_run {
    uint64_t admits, reads, most_in_a_window, stale_reads;
};

/* One client for `duration`: GET the window's count from reader; below L,
 * INCR it on the primary (PEXPIRE 2I) and admit. One client, so nothing
 * races: every admit beyond L in a window is a read that was behind. A
 * stale read is one whose count was lower than the primary's INCR then
 * said it had been. -1 on an error reply. */
static int window_from(redisContext *reader, redisContext *primary, uint64_t limit,
                       uint64_t interval_ns, uint64_t duration_ns, const char *tag, bool blip,
                       struct window_run *out)
{
    memset(out, 0, sizeof *out);
    uint64_t start = now_ns(), window = UINT64_MAX, in_window = 0;
    while (now_ns() - start < duration_ns) {
        if (blip && now_ns() - start >= duration_ns / 4) {
            /* the replica's link to its primary drops once, as in a network
             * blip: it reconnects (partial resync) about a second later */
            redisReply *r = redisCommand(reader, "CLIENT KILL TYPE master");
            if (r)
                freeReplyObject(r);
            blip = false;
        }
        uint64_t w = (now_ns() - start) / interval_ns;
        if (w != window) {
            window = w;
            in_window = 0;
        }
        char key[64];
        snprintf(key, sizeof key, "{%s}:w:%" PRIu64, tag, w);
        long long seen = integer_of(redisCommand(reader, "GET %s", key));
        if (seen < 0)
            return -1;
        out->reads++;
        if ((uint64_t)seen >= limit)
            continue;
        long long after = integer_of(redisCommand(primary, "INCR %s", key));
        if (after < 0 || integer_of(redisCommand(primary, "PEXPIRE %s %llu", key,
                                                 (unsigned long long)(2 * interval_ns / MS))) < 0)
            return -1;
        out->stale_reads += after - 1 > seen;
        out->admits++;
        if (++in_window > out->most_in_a_window)
            out->most_in_a_window = in_window;
    }
    return 0;
}

/* ---- 17. GitHub: a replica read an expired window ------------------------------ */

void rl_claim_github_replica_read(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    char err[1024];
    if (rl_redis_cluster_start(&claim_cluster, 1, 1, err, sizeof err) != 0) {
        rl_claim_failed(o, "cannot start a 1x1 cluster: %s", err);
        return;
    }
    unsigned primary_port = 0, replica_port = 0;
    for (size_t i = 0; i < claim_cluster.node_count; i++)
        *(claim_cluster.nodes[i].primary ? &primary_port : &replica_port) =
            claim_cluster.nodes[i].port;
    redisContext *primary = connect_port(primary_port), *replica = connect_port(replica_port);
    const uint64_t limit = 20, interval = 50 * MS, duration = 2 * SEC;
    struct window_run from_replica, from_primary;
    redisReply *readonly = replica ? redisCommand(replica, "READONLY") : NULL;
    bool reading = readonly && readonly->type == REDIS_REPLY_STATUS;
    if (readonly)
        freeReplyObject(readonly);
    bool ok = primary && reading &&
              window_from(replica, primary, limit, interval, duration, "replica", true,
                          &from_replica) == 0 &&
              window_from(primary, primary, limit, interval, duration, "primary", false,
                          &from_primary) == 0;
    if (primary)
        redisFree(primary);
    if (replica)
        redisFree(replica);
    rl_redis_cluster_stop(&claim_cluster);
    if (!ok) {
        rl_claim_failed(o, "a command on the 1x1 cluster failed");
        return;
    }
    FIGURE(o,
           "one client, fixed windows of L=%llu per %llu ms for 2 s on a 1x1 cluster: count read "
           "from the replica (READONLY), INCR on the primary, the replica's link dropped once at "
           "0.5 s (a network blip): at most %llu admits in a window "
           "(%.2f L), %llu of %llu admits after a stale read; count read from the primary: at "
           "most %llu (%.2f L)",
           (unsigned long long)limit, (unsigned long long)(interval / MS),
           (unsigned long long)from_replica.most_in_a_window,
           rl_claim_per_limit(from_replica.most_in_a_window, limit),
           (unsigned long long)from_replica.stale_reads, (unsigned long long)from_replica.admits,
           (unsigned long long)from_primary.most_in_a_window,
           rl_claim_per_limit(from_primary.most_in_a_window, limit));
    rl_claim_verdict(
        o, from_replica.most_in_a_window > limit ? RL_CLAIM_HOLDS : RL_CLAIM_DEPENDS,
        "the class, a limit read on a replica behind its primary, %s here with one client (no "
        "race: a read that lags admits again; with the link up the replica kept up on loopback); "
        "the exact 2021 mechanism, an expired key still "
        "served by a replica, does not reproduce on Redis 7.0: a replica answers a key past its "
        "TTL as missing (since 3.2), so here an expired window reads as empty, as on the "
        "primary",
        from_replica.most_in_a_window > limit ? "over-admits" : "did not over-admit in this run");
}

/* ---- 18. a failover can lose acknowledged writes, as admits ------------------ */

void rl_claim_failover_lost_writes(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const char *const names[] = {"redis_fixed_window"};
    static const uint64_t two[] = {2};
    static struct rl_faults stall_kill, failover;
    char err[256];
    if (rl_faults_parse("stall-replica@0ms,kill-primary@1s", NULL, &stall_kill, err, sizeof err) !=
            0 ||
        rl_faults_parse("failover@300ms", NULL, &failover, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s", err);
        return;
    }
    struct rl_claim_stress plan = {.names = names,
                                   .count = 1,
                                   .threads = two,
                                   .thread_count = 1,
                                   .reps = 1,
                                   .duration_ns = 6 * SEC,
                                   .record = true,
                                   .cfg = {.limit = 2000, .interval_ns = 20 * SEC},
                                   .cluster = &claim_cluster,
                                   .cluster_primaries = 3,
                                   .cluster_replicas = 1,
                                   .faults = &stall_kill};
    struct rl_result *lost_rows, *kept_rows;
    size_t n = rl_claim_stress_plan(&plan, &lost_rows, o);
    if (n == 0) {
        rl_redis_cluster_stop(&claim_cluster);
        return;
    }
    plan.faults = &failover;
    plan.duration_ns = 2 * SEC;
    size_t m = rl_claim_stress_plan(&plan, &kept_rows, o);
    rl_redis_cluster_stop(&claim_cluster);
    if (m == 0) {
        free(lost_rows);
        return;
    }
    const struct rl_result *lost = &lost_rows[n - 1], *kept = &kept_rows[m - 1];
    FIGURE(o,
           "redis_fixed_window, 2 threads, L=2000 per 20 s, 3x1 cluster, recorded: its replica "
           "stalled (and its link dropped) at 0, its primary killed at 1 s: %llu admits beyond "
           "the promise (lost_admits), held %s, outage %.0f ms, %llu errors; a manual failover "
           "at 300 ms: %llu lost, held %s, outage %.0f ms",
           (unsigned long long)lost->lost_admits, rl_result_promise_held(lost), lost->outage_ms,
           (unsigned long long)lost->errors, (unsigned long long)kept->lost_admits,
           rl_result_promise_held(kept), kept->outage_ms);
    bool shown = lost->lost_admits > 0 && kept->lost_admits == 0;
    rl_claim_verdict(o, shown ? RL_CLAIM_HOLDS : RL_CLAIM_DEPENDS,
                     "%s: replication is asynchronous, so the replica elected after the kill "
                     "lacked the window's count and admitted it again; a manual failover waits "
                     "for the replica to catch up. SIGSTOP alone lost nothing: loopback's socket "
                     "buffers kept the stream for the stopped replica, so its link is dropped "
                     "too; --wait-replicas 1 turns such admits into errors",
                     shown ? "shown" : "not shown in this run");
    free(lost_rows);
    free(kept_rows);
}

/* ---- 19. the Redis article's QPS, on a cluster ------------------------------- */

void rl_claim_redis_qps_cluster(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const char *const names[] = {"redis_tb_article", "redis_noop"};
    static const uint64_t threads[] = {1, 10, 100};
    const struct rl_claim_stress plan = {.names = names,
                                         .count = RL_CLAIM_COUNT(names),
                                         .threads = threads,
                                         .thread_count = RL_CLAIM_COUNT(threads),
                                         .reps = 3,
                                         .duration_ns = 150 * MS,
                                         .cfg = {.limit = 1000, .interval_ns = 100 * MS},
                                         .cluster = &claim_cluster,
                                         .cluster_primaries = 3,
                                         .cluster_replicas = 1};
    struct rl_result *rows;
    size_t n = rl_claim_stress_plan(&plan, &rows, o);
    rl_redis_cluster_stop(&claim_cluster);
    if (n == 0)
        return;
    double rate[3], noop[3];
    for (int t = 0; t < 3; t++) {
        rate[t] = rl_claim_median(rows, n, "redis_tb_article", (unsigned)threads[t], false,
                                  rl_claim_decisions_per_s);
        noop[t] = rl_claim_median(rows, n, "redis_noop", (unsigned)threads[t], false,
                                  rl_claim_decisions_per_s);
    }
    free(rows);
    FIGURE(o,
           "redis_tb_article on a private 3x1 cluster over loopback TCP, median of 3 runs of 150 "
           "ms: %.0f / %.0f / %.0f decisions a second at 1 / 10 / 100 client threads (%.1f / "
           "%.1f / %.1f times the article's 250 / 2000 / 5000); redis_noop: %.0f / %.0f / %.0f",
           rate[0], rate[1], rate[2], rate[0] / 250, rate[1] / 2000, rate[2] / 5000, noop[0],
           noop[1], noop[2]);
    rl_claim_verdict(o, RL_CLAIM_DEPENDS,
                     "on the round trip and the machine, not the script: %u CPUs shared by six "
                     "redis-servers and the clients, one key (one primary serves it)",
                     rl_claim_cpus());
}
