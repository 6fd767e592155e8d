/* commands.h — the subcommands of build/ratelab (commands.def lists them);
 * each parses its own options (argv[0] is the subcommand's name) and
 * returns the exit status. */
#ifndef RL_COMMANDS_H
#define RL_COMMANDS_H

#define RL_COMMAND(name, summary) int rl_cmd_##name(int argc, char **argv);
#include "commands.def"
#undef RL_COMMAND

#endif
