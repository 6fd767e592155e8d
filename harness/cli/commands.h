/* commands.h — the subcommands of build/ratelab; each parses its own
 * options (argv[0] is the subcommand's name) and returns the exit status. */
#ifndef RL_COMMANDS_H
#define RL_COMMANDS_H

int rl_cmd_list(int argc, char **argv);
int rl_cmd_sim(int argc, char **argv);
int rl_cmd_stress(int argc, char **argv);
int rl_cmd_trace(int argc, char **argv);
int rl_cmd_check(int argc, char **argv);
int rl_cmd_clocks(int argc, char **argv);
int rl_cmd_bench(int argc, char **argv);
int rl_cmd_keys(int argc, char **argv);
int rl_cmd_replay(int argc, char **argv);
int rl_cmd_claims(int argc, char **argv);
int rl_cmd_litmus(int argc, char **argv);
int rl_cmd_teach(int argc, char **argv);

#endif
