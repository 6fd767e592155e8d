/* trace.h — a trace: a time-sorted array of attempts, and its CSV form.
 *
 * CSV header `t_ns,key,n`; key is any text without commas; keys are interned
 * into dense ids 0..key_count-1 in order of first appearance.
 */
#ifndef RL_TRACE_H
#define RL_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct rl_attempt {
    uint64_t t_ns; /* since the trace's t = 0 */
    uint32_t key;  /* index into key_names */
    uint32_t n;    /* cost, ≥ 1 */
};

struct rl_trace {
    struct rl_attempt *attempts;
    size_t len, cap;
    char **key_names; /* key_count names, owned */
    uint32_t key_count;
};

/* Appends one attempt (growing the array); -1 on ENOMEM. */
int rl_trace_push(struct rl_trace *trace, uint64_t t_ns, uint32_t key, uint32_t n);

/* Gives the trace keys named "k0".."k<count-1>"; -1 on ENOMEM. */
int rl_trace_name_keys(struct rl_trace *trace, uint32_t count);

/* Reads a trace CSV. On failure returns -1, frees what it built and writes
 * one line into err: a missing file, a bad header, a malformed line (with
 * its line number: "trace.csv:17: ..."), a zero cost, or a time earlier
 * than the line before (unsorted). */
int rl_trace_read_csv(const char *path, struct rl_trace *out, char *err, size_t err_len);

/* Writes the trace to path through a temporary file and a rename, so a
 * killed writer leaves no half file. -1 with a reason in err. */
int rl_trace_write_csv(const struct rl_trace *trace, const char *path, char *err, size_t err_len);

void rl_trace_free(struct rl_trace *trace);

#endif
