/* spawn.h — running another program and keeping what it prints: the
 * child's standard output is captured into a buffer, its standard error
 * discarded, and it is stopped (SIGKILL) if it outlives a time limit.
 * For the runs that call a peer's driver (harness/experiments/claims). */
#ifndef RL_SYS_SPAWN_H
#define RL_SYS_SPAWN_H

#include <stddef.h>

/* Runs argv (argv[0] a path, not searched in PATH) with its standard output
 * into out (len >= 1 bytes, always NUL-terminated; what does not fit is read and
 * dropped) and waits for it at most timeout_ms (0: no limit). Returns 0
 * when it ran and exited 0; -1 with the reason in err when it could not be
 * started (a missing program exits 127), timed out, was killed by a
 * signal or exited non-zero. *status, when not NULL, is its exit status,
 * or -1 when it did not exit by itself. */
int rl_spawn_capture(char *const argv[], unsigned timeout_ms, char *out, size_t len, int *status,
                     char *err, size_t err_len);

#endif
