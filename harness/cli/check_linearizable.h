/* check_linearizable.h — `ratelab check --linearizable`: cmd_check.c hands
 * the command line here when it holds --linearizable. */
#ifndef RL_CHECK_LINEARIZABLE_H
#define RL_CHECK_LINEARIZABLE_H

int rl_cmd_check_linearizable(int argc, char **argv);

#endif
