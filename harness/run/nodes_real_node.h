/* nodes_real_node.h — one node process of a real many-nodes run
 * (nodes_real.h): what the parent and its node processes share in memory,
 * and the node process's body. */
#ifndef RL_NODES_REAL_NODE_H
#define RL_NODES_REAL_NODE_H

#include "nodes_real.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

/* One node's counters, in memory shared with the parent (MAP_SHARED), kept
 * as the node goes: the parent still reads them when the node dies. */
struct rl_node_board {
    _Atomic uint64_t attempts, admits, store_calls, store_errors;
    _Atomic uint64_t max_rtt_ns, max_late_ns, max_tick_gap_ns;
    _Atomic int ready; /* 1: connected to the store, waiting for the start */
};

struct rl_nodes_board {
    _Atomic uint64_t epoch_ns; /* the run's start (CLOCK_REALTIME), 0 until set */
    struct rl_node_board node[];
};

/* What a node process is given: the run, the trace and which node each
 * attempt goes to, its number and the board. */
struct rl_node_job {
    const struct rl_nodes_real_config *cfg;
    const struct rl_trace *trace;
    const uint32_t *node_of; /* trace->len entries */
    uint64_t end_ns;         /* the trace's last time: ticks stop after it */
    uint32_t index;
    struct rl_nodes_board *board;
    pid_t parent;
    const char *prefix; /* the run's keys on the store */
};

/* The node process: never returns (exit 0 when its log is complete). */
_Noreturn void rl_node_process(const struct rl_node_job *job);

/* CLOCK_REALTIME in ns: the time base the store's answers share. */
uint64_t rl_nodes_realtime_ns(void);

/* "DIR/node-<i>.csv" (or its temporary, with ".tmp") into buf. */
void rl_node_log_path(const char *dir, uint32_t index, bool tmp, char *buf, size_t len);

#endif
