/* cmd_sim_nodes.h — `ratelab sim --nodes N`: the many-nodes simulation,
 * reached from cmd_sim.c when --nodes is among the options. */
#ifndef RL_CMD_SIM_NODES_H
#define RL_CMD_SIM_NODES_H

#include <stdbool.h>

/* True when argv asks for the many-nodes simulation (--nodes is given). */
bool rl_sim_wants_nodes(int argc, char **argv);

int rl_cmd_sim_nodes(int argc, char **argv);

#endif
