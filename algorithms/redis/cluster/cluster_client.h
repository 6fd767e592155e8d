/* cluster_client.h — a Redis Cluster client for ratelab's Redis limiters,
 * on hiredis's blocking API (hiredis 0.14 knows nothing of clusters).
 *
 * - The slot map (slot → the primary serving it) comes from CLUSTER SHARDS,
 *   or CLUSTER SLOTS where the server lacks it (before 7.0), asked of the
 *   seeds, then of any node known. It is shared by every thread: a table
 *   of atomic node numbers read without a lock, written under one.
 * - Each thread owns its connections (a context is not thread-safe): one
 *   per node it has talked to, opened lazily, in a struct
 *   rl_cluster_conns the caller keeps per thread (redis_common.c keeps it
 *   beside its single-server connection).
 * - Replies steer the retry (Redis Cluster specification, "Redirection and
 *   resharding"): MOVED updates the slot's owner and retries there; ASK
 *   sends ASKING then the command to the named node, the map untouched;
 *   TRYAGAIN and CLUSTERDOWN wait (1 ms, doubling, at most 100 ms) and
 *   retry; NOSCRIPT runs the caller's prepare hook (SCRIPT LOAD) on that
 *   node and retries (a promoted replica may lack the scripts); a lost
 *   connection drops it, reloads the map and retries. At most
 *   RL_CLUSTER_MAX_TRIES sends per command, and none begun after
 *   RL_CLUSTER_TIMEOUT_MS, then a failure naming the last reason. MOVED
 *   and ASK are counted (rl_cluster_redirects): in the steady state the
 *   count must stop growing.
 */
#ifndef RL_REDIS_CLUSTER_CLIENT_H
#define RL_REDIS_CLUSTER_CLIENT_H

#include "key_slot.h"

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_CLUSTER_MAX_NODES 128 /* addresses ever seen by one client */
#define RL_CLUSTER_MAX_TRIES 16  /* sends of one command: redirects, waits, reconnects */
#define RL_CLUSTER_TIMEOUT_MS 5000 /* one reply's wait; no new try after this long */

struct rl_cluster;       /* one per limiter instance, shared by its threads */
struct rl_cluster_conns; /* one thread's connections to the nodes */

/* Runs on every new connection before its first command, and again on
 * NOSCRIPT: 0, or -1 with one line in err. */
typedef int (*rl_cluster_prepare_fn)(void *arg, redisContext *ctx, char *err, size_t err_len);

/* seeds: "HOST:PORT[,HOST:PORT...]" (the part after "cluster:"). Loads the
 * slot map; NULL with one line in err when no seed answers with one (not
 * in cluster mode, refused, unknown), every slot is not covered, or ENOMEM. */
struct rl_cluster *rl_cluster_open(const char *seeds, rl_cluster_prepare_fn prepare, void *arg,
                                   char *err, size_t err_len);

/* Frees the map. Every thread's conns must be freed first or after; they
 * do not point into it. NULL is ignored. */
void rl_cluster_close(struct rl_cluster *cl);

/* A thread's connections: calloc'd, freed (connections closed) by
 * rl_cluster_conns_free. NULL on ENOMEM. */
struct rl_cluster_conns *rl_cluster_conns_new(void);
void rl_cluster_conns_free(struct rl_cluster_conns *cc);

/* Sends argv to the primary serving slot (-1: any primary), following the
 * replies above. The reply (the caller frees it; it may be an error reply
 * other than the ones followed), or NULL with one line in err. */
redisReply *rl_cluster_command(struct rl_cluster *cl, struct rl_cluster_conns *cc, int slot,
                               int argc, const char **argv, const size_t *lens, char *err,
                               size_t err_len);

/* The primaries serving at least one slot, as of the map now: their node
 * numbers into nodes (at most max); how many. */
unsigned rl_cluster_primaries(struct rl_cluster *cl, unsigned *nodes, unsigned max);

/* A slot served by node (for rl_cluster_command), or -1 when it serves
 * none now. */
int rl_cluster_slot_of_node(struct rl_cluster *cl, unsigned node);

/* Reloads the slot map from any node that answers. 0, or -1 with err. */
int rl_cluster_refresh(struct rl_cluster *cl, char *err, size_t err_len);

/* "HOST:PORT" of node number `node`. */
const char *rl_cluster_node_address(const struct rl_cluster *cl, unsigned node);

/* The node serving slot in the map now, -1 if none. */
int rl_cluster_slot_owner(const struct rl_cluster *cl, unsigned slot);

/* MOVED and ASK replies followed, prepare reruns after NOSCRIPT, and
 * TRYAGAIN/CLUSTERDOWN waits, since open (statistics, relaxed). */
uint64_t rl_cluster_redirects(const struct rl_cluster *cl);
uint64_t rl_cluster_reloads(const struct rl_cluster *cl);

/* MOVED and ASK followed by every client of the process since it started:
 * what the harness reads around a measurement (a limiter's state is opaque
 * to it). */
uint64_t rl_cluster_redirects_total(void);
uint64_t rl_cluster_waits(const struct rl_cluster *cl);

#endif
