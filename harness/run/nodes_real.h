/* nodes_real.h — many nodes, one limit, for real: `ratelab stress --nodes
 * N`. N node processes (fork), each with its own worker threads, one tick
 * thread and its own node state (the strategy's node half), coordinating
 * only through a real store (algorithms/coord/coord_redis.h). The trace is
 * spread over the nodes by the same draws as the simulator's
 * (rl_node_picker), each attempt made at its time in real time; each node
 * writes its own decision log, and the parent merges the logs and judges
 * the global promise as `sim --nodes` does (docs/nodes.md, Real runs). */
#ifndef RL_NODES_REAL_H
#define RL_NODES_REAL_H

#include "nodes_sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rl_nodes_real_config {
    /* coord, p (limit, interval, nodes, sync and the strategy's own),
     * spread and seed as for the simulator; rtt, jitter and loss are the
     * real network's, so unused. */
    struct rl_nodes_config run;
    unsigned threads;   /* workers per node, K ≥ 1 */
    const char *remote; /* the store: "unix:PATH", "HOST:PORT" or "cluster:..." */
    const char *dir;    /* node-<i>.csv go here (an existing folder) */
};

/* One node process, as the parent saw it. */
struct rl_node_report {
    pid_t pid;
    bool died;          /* it did not exit 0 by itself (killed, or failed) */
    int signal;         /* the signal that ended it, else 0 */
    int exit_code;      /* its exit status when it exited */
    uint64_t died_ns;   /* when the parent saw it end, since the run's start */
    bool log_cut;       /* its log was left unfinished: kept up to its last whole line */
    uint64_t decisions; /* lines in its log */
    uint64_t attempts, admits, store_calls, store_errors;
    uint64_t max_sliding; /* its own log's, the most one node admitted in a window */
};

struct rl_nodes_real_outcome {
    /* As the simulator's: the merged logs through the checker, the
     * strategy's bound for this run (with the real delays measured below)
     * and its verdict; store_calls are messages the store served. */
    struct rl_nodes_outcome run;
    struct rl_node_report *nodes; /* run.p.nodes of them; rl_nodes_real_free */
    uint32_t died;                /* nodes that died */
    bool interrupted;             /* SIGINT or SIGTERM stopped the run */
    uint64_t store_errors;        /* store calls that failed (lost messages) */
    uint64_t max_rtt_ns;          /* the slowest store call, send to reply */
    uint64_t max_late_ns;         /* the latest an attempt was made after its trace time */
    uint64_t max_tick_gap_ns;     /* the longest between two ticks of one node */
};

/* The most node processes this machine runs at once with `threads` workers
 * each: 4 × CPUs, at most 64, and what RLIMIT_NPROC leaves for a node's
 * threads. why gets the reason in words ("4 x 2 CPUs"). */
uint32_t rl_nodes_real_max_nodes(unsigned threads, char *why, size_t why_len);

/* Runs the nodes over trace and judges the merged logs. -1 with one line
 * in err when the run could not start (a fork, the folder, memory) or a
 * node could not reach the store before the start; a node that dies during
 * the run is reported in out, not an error. On SIGINT or SIGTERM
 * (rl_interrupt_install) the nodes are killed and what they logged judged. */
int rl_nodes_real_run(const struct rl_nodes_real_config *cfg, const struct rl_trace *trace,
                      struct rl_nodes_real_outcome *out, char *err, size_t err_len);

void rl_nodes_real_free(struct rl_nodes_real_outcome *out);

#endif
