/* suite_nodes.h — `bench --suite nodes`: the coordination strategies'
 * trade-off in simulation (docs/nodes.md, Experiments): overshoot and store
 * calls per decision against the sync interval T, the node count N and the
 * demand's skew; a demand step to 10× L; DRL's two limiters at demand 7:3;
 * a node that dies mid-run; and the simulator's speed, 1000 nodes × 10^7
 * decisions. */
#ifndef RL_SUITE_NODES_H
#define RL_SUITE_NODES_H

#include "harness/run/nodes_sim.h"
#include "workloads/generators.h"

#include <stddef.h>

struct rl_nodes_item {
    const char *experiment; /* "grid", "step", "drl73", "death" or "speed" */
    const char *coord;      /* the strategy as --coord would name it ("lease:k=250") */
    struct rl_nodes_config run;
    struct rl_workload_params workload;
};

/* Every run of the suite, in order, into items (cap entries); returns how
 * many there are (more than cap: only cap written). */
size_t rl_nodes_suite_plan(struct rl_nodes_item *items, size_t cap);

/* Generates the item's workload and runs it. -1 with one line in err. */
int rl_nodes_suite_run(struct rl_nodes_item *item, struct rl_nodes_outcome *out, char *err,
                       size_t err_len);

#endif
