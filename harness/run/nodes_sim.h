/* nodes_sim.h — many nodes, one limit, in virtual time: a trace spread over
 * N nodes that coordinate by a strategy of algorithms/coord/, with the
 * messages between nodes and the shared store delayed, jittered and lost
 * as configured (docs/nodes.md). A discrete-event simulation on one
 * thread: the same configuration and seed give the same run. */
#ifndef RL_NODES_SIM_H
#define RL_NODES_SIM_H

#include "algorithms/coord/coord.h"
#include "harness/check/checker.h"
#include "harness/check/verdict.h"
#include "workloads/rng.h"
#include "workloads/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Which node an attempt arrives at. */
enum rl_spread_kind {
    RL_SPREAD_EVEN, /* each attempt at a node drawn uniformly */
    RL_SPREAD_SKEW, /* node i drawn with weight 1/(i+1)^skew */
    RL_SPREAD_HOT,  /* half the attempts at one hot node, moving to the next every move_ns;
                       the rest even */
};

struct rl_node_spread {
    enum rl_spread_kind kind;
    double skew;
    uint64_t move_ns;
};

/* Reads "even", "skew:S" (S > 0) or "hot:DURATION"; durations through
 * parse_ns (the command line's reader). -1 with one line in err. */
int rl_node_spread_parse(const char *text, struct rl_node_spread *out,
                         int (*parse_ns)(const char *, uint64_t *, char *, size_t), char *err,
                         size_t err_len);

/* "even", "skew:1.2", "hot:500ms"-like text for tables and rows. */
const char *rl_node_spread_text(const struct rl_node_spread *s, char *buf, size_t len);

/* A node that dies: from at_ns on it decides nothing and sends nothing,
 * and keeps whatever it holds; its traffic goes to the live nodes (the
 * spread rule draws again), as a load balancer would send it. */
struct rl_node_death {
    uint32_t node;
    uint64_t at_ns;
};

#define RL_NODES_MAX_DEATHS 64

/* Which node each attempt arrives at, drawn by the spread rule from the
 * seed's own stream: the simulator and a real run (nodes_real.h) draw the
 * same sequence, so the same seed sends the same attempts to the same nodes. */
struct rl_node_picker {
    struct rl_node_spread spread;
    uint32_t nodes;
    struct rl_rng rng;
    double *skew_cdf; /* skew: the nodes' cumulative weights */
};

/* -1 on ENOMEM. */
int rl_node_picker_init(struct rl_node_picker *pk, const struct rl_node_spread *spread,
                        uint32_t nodes, uint64_t seed);
/* The node of the next attempt, which arrives at t. */
uint32_t rl_node_picker_next(struct rl_node_picker *pk, uint64_t t_ns);
void rl_node_picker_free(struct rl_node_picker *pk);

struct rl_nodes_config {
    const struct rl_coord *coord;
    struct rl_coord_params p; /* limit, interval, nodes, sync and the strategy's own */
    uint64_t rtt_ns;          /* a round trip between a node and the store */
    uint64_t jitter_ns;       /* each message takes RTT/2 + uniform [0, jitter] */
    double loss;              /* each message is lost with this probability */
    struct rl_node_spread spread;
    uint64_t seed;    /* the spread's and the network's draws */
    uint64_t step_ns; /* where a demand step starts (flash's --at), 0 for none */
    struct rl_node_death deaths[RL_NODES_MAX_DEATHS]; /* in any order */
    size_t death_count;
    uint64_t watch_ns; /* no death: measure the two windows from here all the same
                          (the same run without the death, to compare); 0 for none */
};

/* Reads "NODE@DURATION" (durations through parse_ns) for n nodes; the
 * time's range is the caller's to check. -1 with one line in err. */
int rl_node_death_parse(const char *text, uint32_t nodes, struct rl_node_death *out,
                        int (*parse_ns)(const char *, uint64_t *, char *, size_t), char *err,
                        size_t err_len);

/* "3@5000000000ns+7@6000000000ns" (empty for none), for rows. */
const char *rl_node_deaths_text(const struct rl_nodes_config *cfg, char *buf, size_t len);

/* Fills the fields of cfg->p the network sets (delay_ns, lossy, keys). */
void rl_nodes_prepare(struct rl_nodes_config *cfg, uint32_t keys);

struct rl_nodes_outcome {
    uint64_t attempts, admits, rejects;
    uint64_t messages, lost;      /* every message sent, requests and replies; those lost */
    uint64_t store_calls;         /* messages the store served */
    uint64_t span_ns;             /* the trace's last time */
    struct rl_key_metrics global; /* the worst key, all nodes together */
    bool complete;
    uint64_t node_max_sliding;     /* the most any one node admitted for a key in a window */
    uint64_t node0_admits;         /* admits at node 0 (the most loaded under skew) */
    double window_max, window_p99; /* admitted/L over aligned windows of I, every key */
    double step_max;               /* window_max over the windows from the step on */
    uint64_t converge_ns; /* from the step (or 0) to the end of the last window above 1.05 L */
    uint64_t h;           /* the most cost one node was offered in a span of the coord's */
    /* Node deaths (none: all 0, but the windows from watch_ns): the first's time; tokens granted to
     * a dead node it never spent (held at death, or granted to it after: lease); from the first
     * death until the store's window holds none of them; admitted ÷ (L × keys) in [death, death +
     * I) and in the next I. */
    uint64_t death_ns, stranded, freed_ns;
    double death_window_ratio, next_window_ratio;
    struct rl_promised promised; /* the strategy's bound for this run */
    enum rl_held held;
};

/* Runs trace through cfg's nodes, streaming every decision into the
 * checker (nothing holds the decisions). -1 with one line in err on ENOMEM. */
int rl_nodes_sim_run(const struct rl_nodes_config *cfg, const struct rl_trace *trace,
                     struct rl_nodes_outcome *out, char *err, size_t err_len);

/* The aligned windows of I: window_max, window_p99, step_max and
 * converge_ns into out, from the admitted cost of each key's windows
 * (window_cost[key × windows + w]). -1 on ENOMEM. A real run
 * (nodes_real.h) shares it. */
int rl_nodes_summarize_windows(const struct rl_coord_params *p, uint64_t step_ns,
                               const uint64_t *window_cost, size_t windows,
                               struct rl_nodes_outcome *out);

#endif
