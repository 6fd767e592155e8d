/* redis_cluster.h — a private Redis Cluster for one run (N primaries with R
 * replicas each, Debian's redis-server on free loopback ports, persistence
 * off), or an existing cluster joined by address; and the faults a run may
 * inject into a private one (kill a primary, manual failover, reshard, stall
 * a replica).
 *
 * Every node is our child, told to die with us (PR_SET_PDEATHSIG), in a
 * process group of its own (a terminal's Ctrl-C reaches ratelab, not the
 * nodes); an atexit handler stops every cluster still running, and so do
 * SIGINT and SIGTERM handlers where the program has none of its own. All nodes live in one
 * run folder ($TMPDIR/ratelab-cluster-XXXXXX, a folder per node with its
 * nodes.conf and redis.log) that names its owner (owner.pid); the next start
 * kills the nodes of a run that died without cleaning up (SIGKILL) and
 * removes its folder. The cluster is built over hiredis (CLUSTER ADDSLOTSRANGE,
 * MEET, REPLICATE), so redis-cli is not needed and one or two primaries work.
 */
#ifndef RL_REDIS_CLUSTER_H
#define RL_REDIS_CLUSTER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The private cluster's --cluster-node-timeout: how long a node may not
 * answer before the others mark it failed. Short, so that a killed primary
 * is replaced within about two seconds; long enough that a loaded 2-core
 * machine does not fail over by itself. */
#define RL_REDIS_CLUSTER_NODE_TIMEOUT_MS 1500

#define RL_REDIS_CLUSTER_MAX_NODES 64

struct rl_redis_cluster_node {
    pid_t pid; /* 0: not running (killed) or not ours (joined) */
    unsigned port;
    bool primary;
    int primary_of; /* a replica's primary (node index), -1 for a primary */
    bool stopped;   /* SIGSTOPped (stall_replica) */
    char id[48];    /* the 40-hex node id */
    char host[64];  /* "" for 127.0.0.1 (private); a joined node's address */
    char dir[PATH_MAX];
};

struct rl_redis_cluster {
    unsigned primaries, replicas; /* replicas per primary */
    size_t node_count;
    struct rl_redis_cluster_node nodes[RL_REDIS_CLUSTER_MAX_NODES];
    char dir[PATH_MAX]; /* the run folder: node folders, logs */
    char address[4096]; /* "cluster:127.0.0.1:P1,...", for rl_config.remote */
    bool joined;        /* an existing cluster: never stopped or faulted by us */
};

/* True when a redis-server binary can be found (PATH, then /usr/bin). */
bool rl_redis_cluster_available(void);

/* "NxR" (N 1-64 primaries, R replicas each, N·(R+1) at most 64) into
 * primaries and replicas, seeds ""; "HOST:PORT[,HOST:PORT...]" (loopback
 * literals as rl_redis_address_check takes them) into seeds as
 * "cluster:H:P,...", primaries 0. -1 with one line in err. */
int rl_redis_cluster_parse(const char *spec, unsigned *primaries, unsigned *replicas, char *seeds,
                           size_t seeds_len, char *err, size_t err_len);

/* Call from a thread that lives as long as the cluster (the main thread):
 * the kernel's parent-death signal follows the thread that forked a node.
 * Starts primaries·(replicas+1) nodes, assigns the 16384 slots evenly to
 * the primaries, attaches the replicas, and waits (up to 30 s) until every
 * node says cluster_state:ok and every replica's link is up. -1 with one
 * line in err quoting the failing node's log (its path and last line);
 * everything is stopped and removed then, the log included. */
int rl_redis_cluster_start(struct rl_redis_cluster *c, unsigned primaries, unsigned replicas,
                           char *err, size_t err_len);

/* For tests: the next ports the private cluster's nodes take, before any
 * probe (client port, then bus port, node by node; at most 16): a test
 * names a taken port to see start move on to fresh ones. */
void rl_redis_cluster_force_ports(const unsigned *ports, size_t count);

/* Joins an existing cluster at seeds ("HOST:PORT,..." or the "cluster:..."
 * form parse gives): every seed must answer PING and be in cluster mode,
 * and the cluster must say ok (within 5 s); the nodes are read from
 * CLUSTER NODES. 0; -2 with one line in err when the user's address is at
 * fault (malformed, no answer, not in cluster mode); -1 when the cluster
 * does not serve. */
int rl_redis_cluster_join(struct rl_redis_cluster *c, const char *seeds, char *err, size_t err_len);

/* SIGTERM to every node (SIGKILL after 2 s), then removes the run folder.
 * Safe to call twice; a joined cluster is only forgotten. */
void rl_redis_cluster_stop(struct rl_redis_cluster *c);

/* Kills the nodes of runs whose owner is gone and removes their folders
 * (this user's $TMPDIR/ratelab-cluster-*). Called by start. */
void rl_redis_cluster_sweep(void);

/* Waits until every slot is served again: every live node (running, not
 * stalled) says cluster_state:ok with all slots assigned, and (private
 * cluster) every slot's primary is a live node. took_ns (unless NULL) gets
 * the time it took. Refreshes the roles in c. -1 with one line in err on
 * timeout. */
int rl_redis_cluster_wait_ok(struct rl_redis_cluster *c, uint64_t timeout_ns, uint64_t *took_ns,
                             char *err, size_t err_len);

/* Re-reads every live node's role, id and primary from CLUSTER NODES. */
int rl_redis_cluster_refresh(struct rl_redis_cluster *c, char *err, size_t err_len);

/* The index of the primary serving slot (from a live node's CLUSTER
 * SLOTS), or -1. */
int rl_redis_cluster_slot_owner(struct rl_redis_cluster *c, unsigned slot);

/* ---- faults (private clusters only; -1 in err for a joined one) --------
 * node -1 means the primary serving slot 0 (kill, reshard's source) or a
 * replica of it (failover, stall). Each returns the node it acted on, or -1
 * with one line in err. */

/* SIGKILL to a primary: its replica takes over after the node timeout. */
int rl_redis_cluster_kill_primary(struct rl_redis_cluster *c, int node, char *err, size_t err_len);

/* CLUSTER FAILOVER on a replica (its primary agrees: nothing is lost);
 * returns once the replica says it is a primary (up to 10 s). */
int rl_redis_cluster_failover(struct rl_redis_cluster *c, int node, char *err, size_t err_len);

/* Moves share (0 < share <= 1) of primary from's slots, the highest ones,
 * to primary to (-1: the next primary after from), keys included
 * (SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE), while clients may
 * run. Returns the number of slots moved. */
int rl_redis_cluster_reshard(struct rl_redis_cluster *c, int from, int to, double share, char *err,
                             size_t err_len);

/* SIGSTOP to a replica: it stops replicating (and answering). */
int rl_redis_cluster_stall_replica(struct rl_redis_cluster *c, int node, char *err, size_t err_len);

/* SIGCONT to a stalled replica (node -1: every stalled one). */
int rl_redis_cluster_resume_replica(struct rl_redis_cluster *c, int node, char *err,
                                    size_t err_len);

#endif
