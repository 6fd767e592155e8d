/* faults.c — the fault thread of a run on a private Redis Cluster: it
 * sleeps until each fault's time, fires it with the sys primitives, and
 * measures the outage as the time until wait_ok says every slot is served
 * by a live primary again. */
#include "faults.h"

#include "algorithms/rl.h"

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_OK_NS 30000000000ull /* the cluster must serve again within this */

static const char *const kind_names[] = {
    [RL_FAULT_KILL_PRIMARY] = "kill-primary",
    [RL_FAULT_FAILOVER] = "failover",
    [RL_FAULT_RESHARD] = "reshard",
    [RL_FAULT_STALL_REPLICA] = "stall-replica",
};

const char *rl_fault_kind_name(enum rl_fault_kind kind)
{
    return kind_names[kind];
}

static int by_time(const void *a, const void *b)
{
    const struct rl_fault *x = a, *y = b;
    return (x->at_ns > y->at_ns) - (x->at_ns < y->at_ns);
}

/* A whole number with a unit (ns, us, ms, s): the parser when the caller
 * gives none (tests). */
static int plain_duration(const char *text, uint64_t *ns, char *err, size_t err_len)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    for (size_t i = 0; end != text && i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *ns = value * units[i].ns;
            return 0;
        }
    snprintf(err, err_len, "duration '%s' is not valid (e.g. 500ms)", text);
    return -1;
}

int rl_faults_parse(const char *spec, rl_duration_parser duration, struct rl_faults *f, char *err,
                    size_t err_len)
{
    if (duration == NULL)
        duration = plain_duration;
    memset(f, 0, sizeof *f);
    if (strlen(spec) >= sizeof f->spec) {
        snprintf(err, err_len, "--fault: '%.40s...' is too long", spec);
        return -1;
    }
    /* the rows name the faults joined by '+': a CSV field without a comma */
    snprintf(f->spec, sizeof f->spec, "%s", spec);
    for (char *c = f->spec; *c; c++)
        if (*c == ',')
            *c = '+';
    char copy[sizeof f->spec];
    snprintf(copy, sizeof copy, "%s", f->spec);
    char *save = NULL;
    for (char *item = strtok_r(copy, "+", &save); item; item = strtok_r(NULL, "+", &save)) {
        char *at = strchr(item, '@');
        if (at == NULL) {
            snprintf(err, err_len, "--fault: '%s' has no time (KIND@T, e.g. kill-primary@1s)",
                     item);
            return -1;
        }
        *at = '\0';
        size_t k = 0;
        while (k < sizeof kind_names / sizeof *kind_names && strcmp(kind_names[k], item) != 0)
            k++;
        if (k == sizeof kind_names / sizeof *kind_names) {
            snprintf(err, err_len,
                     "--fault: unknown fault '%s' (accepted: kill-primary, failover, reshard, "
                     "stall-replica)",
                     item);
            return -1;
        }
        if (f->count == RL_FAULTS_MAX) {
            snprintf(err, err_len, "--fault: at most %d faults", RL_FAULTS_MAX);
            return -1;
        }
        char why[256];
        if (duration(at + 1, &f->list[f->count].at_ns, why, sizeof why) != 0) {
            snprintf(err, err_len, "--fault: %s@%s: %s", item, at + 1, why);
            return -1;
        }
        f->list[f->count++].kind = (enum rl_fault_kind)k;
    }
    if (f->count == 0) {
        snprintf(err, err_len, "--fault: no fault named (KIND@T, e.g. kill-primary@1s)");
        return -1;
    }
    qsort(f->list, f->count, sizeof f->list[0], by_time);
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleeps until `until` in 10 ms steps; false when the run stopped first. */
static bool sleep_until(struct rl_fault_run *run, uint64_t until)
{
    for (;;) {
        if (__atomic_load_n(&run->stop, __ATOMIC_ACQUIRE))
            return false;
        uint64_t now = now_ns();
        if (now >= until)
            return true;
        uint64_t step = until - now < 10000000u ? until - now : 10000000u;
        struct timespec ts = {0, (long)step};
        nanosleep(&ts, NULL);
    }
}

/* The primary the faults aim at: the one serving the key the run named
 * last (a fault at 0 waits up to 1 s for the run's first call: the slot
 * named before it is another run's), else slot 0's. */
static int target_primary(struct rl_fault_run *run)
{
    struct rl_redis_cluster *c = run->cluster;
    for (int waited_ms = 0; rl_remote_last_slot() == run->slot_before && waited_ms < 1000;
         waited_ms++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    int slot = rl_remote_last_slot();
    int owner = rl_redis_cluster_slot_owner(c, slot >= 0 ? (unsigned)slot : 0);
    return owner >= 0 ? owner : -1;
}

/* A live replica of primary (-1: let the primitive pick slot 0's). */
static int replica_of(const struct rl_redis_cluster *c, int primary)
{
    for (size_t i = 0; primary >= 0 && i < c->node_count; i++)
        if (!c->nodes[i].primary && c->nodes[i].primary_of == primary && c->nodes[i].pid > 0)
            return (int)i;
    return -1;
}

/* CLIENT KILL TYPE replica on primary: its replicas' links drop, and a
 * stalled one cannot reconnect, so the writes from now on never reach it.
 * Without this, loopback's socket buffers keep megabytes of the
 * replication stream for the stopped replica, which reads them when it
 * wakes: SIGSTOP alone lost nothing in our runs (docs/cluster.md). The
 * replicas still running reconnect at once (partial resync). */
static int drop_replica_links(const struct rl_redis_cluster *c, int primary, char *err,
                              size_t err_len)
{
    const struct rl_redis_cluster_node *n = &c->nodes[primary];
    struct timeval timeout = {1, 0};
    redisContext *ctx = redisConnectWithTimeout("127.0.0.1", (int)n->port, timeout);
    redisReply *reply = NULL;
    if (ctx && !ctx->err && redisSetTimeout(ctx, timeout) == REDIS_OK)
        reply = redisCommand(ctx, "CLIENT KILL TYPE replica");
    bool ok = reply && reply->type == REDIS_REPLY_INTEGER;
    if (!ok)
        snprintf(err, err_len, "stall-replica: CLIENT KILL TYPE replica on port %u: %s", n->port,
                 reply && reply->type == REDIS_REPLY_ERROR ? reply->str
                 : ctx                                     ? ctx->errstr
                                                           : "out of memory");
    if (reply)
        freeReplyObject(reply);
    if (ctx)
        redisFree(ctx);
    return ok ? 0 : -1;
}

/* Fires one fault; -1 with run->err. */
static int fire(struct rl_fault_run *run, const struct rl_fault *f)
{
    struct rl_redis_cluster *c = run->cluster;
    char *err = run->err;
    size_t len = sizeof run->err;
    int primary = target_primary(run);
    switch (f->kind) {
    case RL_FAULT_KILL_PRIMARY: {
        int stalled = -1;
        for (size_t i = 0; i < c->node_count; i++)
            if (c->nodes[i].stopped && c->nodes[i].primary_of == primary)
                stalled = (int)i;
        if (rl_redis_cluster_kill_primary(c, primary, err, len) < 0)
            return -1;
        /* the stalled replica wakes with what it had when it stopped: it is
         * elected, and the writes since are gone */
        if (stalled >= 0 && rl_redis_cluster_resume_replica(c, stalled, err, len) < 0)
            return -1;
        return 0;
    }
    case RL_FAULT_FAILOVER:
        return rl_redis_cluster_failover(c, replica_of(c, primary), err, len) < 0 ? -1 : 0;
    case RL_FAULT_RESHARD:
        return rl_redis_cluster_reshard(c, primary, -1, 0.5, err, len) < 0 ? -1 : 0;
    case RL_FAULT_STALL_REPLICA: {
        int stalled = rl_redis_cluster_stall_replica(c, replica_of(c, primary), err, len);
        if (stalled < 0)
            return -1;
        return drop_replica_links(c, c->nodes[stalled].primary_of, err, len);
    }
    }
    return -1;
}

static void *fault_thread(void *arg)
{
    struct rl_fault_run *run = arg;
    uint64_t start = now_ns();
    for (size_t k = 0; k < run->faults->count; k++) {
        const struct rl_fault *f = &run->faults->list[k];
        if (!sleep_until(run, start + f->at_ns))
            break;
        uint64_t fired = now_ns();
        char why[400];
        if (fire(run, f) != 0) {
            snprintf(why, sizeof why, "%.399s", run->err);
            snprintf(run->err, sizeof run->err, "%s@: %s", rl_fault_kind_name(f->kind), why);
            run->failed = true;
            break;
        }
        if (rl_redis_cluster_wait_ok(run->cluster, WAIT_OK_NS, NULL, why, sizeof why) != 0) {
            snprintf(run->err, sizeof run->err, "after %s: %s", rl_fault_kind_name(f->kind), why);
            run->failed = true;
            break;
        }
        uint64_t took = now_ns() - fired;
        if (took > run->outage_ns)
            run->outage_ns = took;
    }
    return NULL;
}

int rl_faults_start(struct rl_fault_run *run, const struct rl_faults *faults,
                    struct rl_redis_cluster *cluster, char *err, size_t err_len)
{
    memset(run, 0, sizeof *run);
    run->slot_before = rl_remote_last_slot();
    run->faults = faults;
    run->cluster = cluster;
    if (pthread_create(&run->thread, NULL, fault_thread, run) != 0) {
        snprintf(err, err_len, "cannot start the fault thread");
        return -1;
    }
    run->started = true;
    return 0;
}

void rl_faults_join(struct rl_fault_run *run)
{
    if (!run->started)
        return;
    __atomic_store_n(&run->stop, true, __ATOMIC_RELEASE);
    pthread_join(run->thread, NULL);
    run->started = false;
    char ignored[256];
    (void)rl_redis_cluster_resume_replica(run->cluster, -1, ignored, sizeof ignored);
}

int rl_faults_fresh_cluster(struct rl_redis_cluster *cluster, char *err, size_t err_len)
{
    unsigned primaries = cluster->primaries, replicas = cluster->replicas;
    rl_redis_cluster_stop(cluster);
    /* start writes the new address into the same buffer cfg.remote names */
    return rl_redis_cluster_start(cluster, primaries, replicas, err, err_len);
}

int rl_faults_begin(struct rl_fault_run *run, const struct rl_faults *faults,
                    struct rl_redis_cluster *cluster, bool *used, char *err, size_t err_len)
{
    if (*used && rl_faults_fresh_cluster(cluster, err, err_len) != 0)
        return -1;
    *used = true;
    return rl_faults_start(run, faults, cluster, err, err_len);
}

int rl_faults_end(struct rl_fault_run *run, struct rl_result *row, char *err, size_t err_len)
{
    rl_faults_join(run);
    if (run->failed) {
        snprintf(err, err_len, "%s", run->err);
        return -1;
    }
    row->fault = run->faults->spec;
    row->outage_ms = (double)run->outage_ns / 1e6;
    struct rl_promised promised = rl_algo_promised(row->algo, &row->cfg, row->threads);
    row->lost_admits = row->checked ? rl_verdict_excess(&promised, &row->m) : 0;
    return 0;
}

void rl_faults_name_cluster(const struct rl_redis_cluster *cluster, struct rl_result *row)
{
    if (cluster == NULL || cluster->node_count == 0 || !(row->algo->flags & RL_REMOTE))
        return;
    if (cluster->joined)
        snprintf(row->cluster, sizeof row->cluster, "joined");
    else
        snprintf(row->cluster, sizeof row->cluster, "%ux%u", cluster->primaries, cluster->replicas);
}
