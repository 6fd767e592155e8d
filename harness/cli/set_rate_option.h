/* set_rate_option.h — `--set-rate AT:L[/I][,AT:L[/I]...]`, the rate changes
 * of a run, for sim (applied to every key's state) and check --promise
 * shape (each side judged at its own rate). One option with a comma list:
 * the project's getopt refuses an option given twice. */
#ifndef RL_SET_RATE_OPTION_H
#define RL_SET_RATE_OPTION_H

#include "harness/check/shape_check.h"

#include <stddef.h>
#include <stdint.h>

/* The option's text in --help. */
#define RL_SET_RATE_HELP                                                                           \
    "  --set-rate LIST   rate changes mid-run: AT:L or AT:L/I, comma-separated, AT in\n"           \
    "                    trace time with a unit (2s), L >= 1, I a duration (default:\n"            \
    "                    the run's interval), times strictly increasing, at most 16;\n"            \
    "                    the burst is kept\n"

/* Parses text into out (at most RL_MAX_RATE_CHANGES), an item without /I
 * taking interval_ns. 0, or -1 with one line in err: a malformed item, L
 * 0, I 0, times not increasing, too many. */
int rl_parse_set_rate(const char *text, uint64_t interval_ns, struct rl_rate_change *out,
                      size_t *count, char *err, size_t err_len);

#endif
