/* check_file.h — the checker on a decision-log file, streamed: one thread
 * parses blocks of lines while the other puts them in time order (a
 * bounded reorder buffer, event_reorder.h) and feeds the streaming core
 * (checker.h). Memory is bounded by the keys, what their windows hold and
 * the buffers, not by the length of the file, and the numbers are those
 * rl_check gives for the same file read whole, sorted and checked.
 *
 * A file more out of time order than the reorder buffer allows is read
 * again and checked in memory (rl_event_log_read_csv, rl_check): the same
 * numbers, memory growing with the log; `in_memory` says so, and why. A
 * pipe cannot be read again: that is bad input, with a line saying so. */
#ifndef RL_CHECK_FILE_H
#define RL_CHECK_FILE_H

#include "checker.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_CHECK_FILE_REORDER 65536 /* the default depth: lines held to undo disorder */

struct rl_checked_file {
    struct rl_check_result result; /* empty when no params were given */
    char **key_names;              /* key_count names, by id */
    uint32_t key_count;
    uint64_t events;
    bool in_memory;    /* too disordered for the buffer: read whole and checked in memory */
    char why[256];     /* then: which line, for a note */
    size_t peak_bytes; /* the streaming checker's largest state (0 in memory) */
};

enum rl_check_file_status {
    RL_CHECK_FILE_OK = 0,
    RL_CHECK_FILE_BAD_INPUT = -1, /* the file cannot be read or holds a bad line */
    RL_CHECK_FILE_FAILED = -2,    /* out of memory, or a thread could not start */
};

/* Checks the log at path against params with a reorder buffer of `reorder`
 * lines; complete: the log holds the rejects too. With params NULL the
 * file is only read through and every line validated (nothing measured).
 * Returns a status; err holds one line unless it is OK. Free out with
 * rl_checked_file_free whatever it returned. */
enum rl_check_file_status rl_check_file(const char *path, const struct rl_check_params *params,
                                        bool complete, size_t reorder, struct rl_checked_file *out,
                                        char *err, size_t err_len);

void rl_checked_file_free(struct rl_checked_file *f);

#endif
