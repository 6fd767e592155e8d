/* cmd_stress_nodes.h — `ratelab stress --nodes N`: the real many-nodes run
 * (N node processes on a real store), reached from cmd_stress.c when
 * --nodes is among the options. */
#ifndef RL_CMD_STRESS_NODES_H
#define RL_CMD_STRESS_NODES_H

#include <stdbool.h>

/* True when argv asks for node processes (--nodes is given). */
bool rl_stress_wants_nodes(int argc, char **argv);

int rl_cmd_stress_nodes(int argc, char **argv);

#endif
