/* cluster_floor.h — the engine's own floor on a Redis Cluster: Redis's
 * redis-benchmark --cluster sending EVALSHA of a script that only returns
 * (noop.lua's body), spread over every primary by its {tag} keys (one
 * primary: asked directly, redis-benchmark refuses a cluster of one). What
 * the cluster can do at all, without ratelab's client, for the cluster
 * suite. */
#ifndef RL_CLUSTER_FLOOR_H
#define RL_CLUSTER_FLOOR_H

#include "harness/sys/redis_cluster.h"

#include <stdbool.h>
#include <stddef.h>

struct rl_cluster_floor {
    unsigned primaries, replicas, clients;
    unsigned long requests;
    double rps; /* requests a second, as redis-benchmark reports them */
    char command[256];
};

/* True when redis-benchmark is installed (it is Debian's redis-tools). */
bool rl_cluster_floor_available(void);

/* Loads the no-op script on every primary of c, then runs redis-benchmark
 * --cluster with `clients` connections for `requests` requests. -1 with
 * one line in err (no redis-benchmark, it failed, or its output had no
 * rate). */
int rl_cluster_floor_measure(const struct rl_redis_cluster *c, unsigned clients,
                             unsigned long requests, struct rl_cluster_floor *out, char *err,
                             size_t err_len);

#endif
