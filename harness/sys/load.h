/* load.h — how busy the machine was when a run started: the kernel's
 * 1-minute load average and its count of runnable threads, from
 * /proc/loadavg, recorded in every stress and replay row (load_1m,
 * runnable) so that a slow run can be told from a noisy machine. */
#ifndef RL_LOAD_H
#define RL_LOAD_H

#include <stdbool.h>
#include <stdint.h>

struct rl_load {
    double avg_1m;     /* field 1: runnable or waiting threads, averaged over a minute */
    uint32_t runnable; /* field 4, before the slash: runnable threads now, this one included */
};

/* Parses the text of /proc/loadavg ("0.52 0.58 0.59 2/345 12345"); false
 * when it is not in that form. */
bool rl_load_parse(const char *text, struct rl_load *out);

/* Reads /proc/loadavg (or the file named by RATELAB_LOADAVG, which the CLI
 * tests use to play a busy machine); false when it cannot be read. */
bool rl_load_read(struct rl_load *out);

#endif
