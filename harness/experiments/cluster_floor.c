/* cluster_floor.c — redis-benchmark --cluster running EVALSHA of a no-op
 * script on a private cluster: the floor the cluster suite's rows are read
 * against, beside redis_noop (the same script through ratelab's client). */
#include "cluster_floor.h"

#include "harness/sys/spawn.h"

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCHMARK   "/usr/bin/redis-benchmark"
#define NOOP_SCRIPT "return 1"

bool rl_cluster_floor_available(void)
{
    return access(BENCHMARK, X_OK) == 0;
}

/* SCRIPT LOAD on one node; its SHA into sha (41 bytes). */
static int load_noop(unsigned port, char *sha, char *err, size_t err_len)
{
    struct timeval timeout = {2, 0};
    redisContext *ctx = redisConnectWithTimeout("127.0.0.1", (int)port, timeout);
    redisReply *reply = NULL;
    if (ctx && !ctx->err && redisSetTimeout(ctx, timeout) == REDIS_OK)
        reply = redisCommand(ctx, "SCRIPT LOAD %s", NOOP_SCRIPT);
    bool ok = reply && reply->type == REDIS_REPLY_STRING && reply->len == 40;
    if (ok)
        memcpy(sha, reply->str, 41);
    else
        snprintf(err, err_len, "SCRIPT LOAD on port %u: %s", port,
                 ctx && ctx->err ? ctx->errstr : "no SHA in the answer");
    if (reply)
        freeReplyObject(reply);
    if (ctx)
        redisFree(ctx);
    return ok ? 0 : -1;
}

int rl_cluster_floor_measure(const struct rl_redis_cluster *c, unsigned clients,
                             unsigned long requests, struct rl_cluster_floor *out, char *err,
                             size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (!rl_cluster_floor_available()) {
        snprintf(err, err_len, "%s not found (Debian's redis-tools)", BENCHMARK);
        return -1;
    }
    char sha[41] = "";
    unsigned seed = 0;
    for (size_t i = 0; i < c->node_count; i++)
        if (c->nodes[i].primary && c->nodes[i].pid > 0) {
            if (load_noop(c->nodes[i].port, sha, err, err_len) != 0)
                return -1;
            if (seed == 0)
                seed = c->nodes[i].port;
        }
    if (seed == 0) {
        snprintf(err, err_len, "no live primary to benchmark");
        return -1;
    }
    char port[16], conns[16], count[24];
    snprintf(port, sizeof port, "%u", seed);
    snprintf(conns, sizeof conns, "%u", clients);
    snprintf(count, sizeof count, "%lu", requests);
    /* {tag}: redis-benchmark --cluster puts a tag of each node there, so
     * its clients spread over every primary. It refuses a cluster of one
     * primary ("Invalid cluster"): that one serves every slot, so it is
     * asked directly. */
    bool one = c->primaries == 1;
    char *const cluster_argv[] = {BENCHMARK, "--cluster", "-h",  "127.0.0.1", "-p",
                                  port,      "-c",        conns, "-n",        count,
                                  "--csv",   "EVALSHA",   sha,   "1",         "rl:floor:{tag}",
                                  NULL};
    char *const single_argv[] = {BENCHMARK, "-h",  "127.0.0.1", "-p",           port,
                                 "-c",      conns, "-n",        count,          "--csv",
                                 "EVALSHA", sha,   "1",         "rl:floor:{k}", NULL};
    static char output[65536];
    char why[256];
    if (rl_spawn_capture(one ? single_argv : cluster_argv, 120000, output, sizeof output, NULL, why,
                         sizeof why) != 0) {
        snprintf(err, err_len, "redis-benchmark%s: %s", one ? "" : " --cluster", why);
        return -1;
    }
    /* --csv: a header line, then "name","rps",...: the last line's rate */
    double rps = 0;
    for (char *line = strtok(output, "\n"); line; line = strtok(NULL, "\n")) {
        char *comma = strstr(line, "\",\"");
        if (comma && comma[3] >= '0' && comma[3] <= '9')
            rps = strtod(comma + 3, NULL);
    }
    if (!(rps > 0)) {
        snprintf(err, err_len, "redis-benchmark --cluster printed no rate");
        return -1;
    }
    out->primaries = c->primaries;
    out->replicas = c->replicas;
    out->clients = clients;
    out->requests = requests;
    out->rps = rps;
    snprintf(out->command, sizeof out->command,
             "redis-benchmark%s -c %u -n %lu EVALSHA <sha of '%s'> 1 %s", one ? "" : " --cluster",
             clients, requests, NOOP_SCRIPT, one ? "rl:floor:{k}" : "rl:floor:{tag}");
    return 0;
}
