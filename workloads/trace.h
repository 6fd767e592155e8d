/* trace.h — a trace: a time-sorted array of attempts, and its CSV form.
 *
 * CSV header `t_ns,key,n`; key is any text without commas; keys are interned
 * into dense ids 0..key_count-1 in order of first appearance.
 *
 * The reader is strict, so a trace means one thing: every line after the
 * header is exactly three fields (four with RL_TRACE_CSV_HEADER_WAIT, five with
 * RL_TRACE_CSV_HEADER_CANCEL below). t_ns is decimal digits
 * only (0..2^64-1, no sign or spaces), n is decimal digits 1..2^32-1, and the key is taken verbatim
 * (spaces included) and must be non-empty. A line may end in \n or \r\n and the last one may lack
 * its newline. Blank lines are errors, not skipped: a blank line in the middle of a trace usually
 * means two files were glued together or one was cut short.
 */
#ifndef RL_TRACE_H
#define RL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_TRACE_CSV_HEADER "t_ns,key,n"
/* A trace for shapers may carry each attempt's maximum wait: header
 * `t_ns,key,n,max_wait_ns`, the fourth field empty (the run's --max-wait)
 * or decimal ns, at most RL_TRACE_MAX_WAIT_LIMIT_NS (a day). Read by the
 * same rules otherwise; sim and replay use the column (replay: a shaper's). */
#define RL_TRACE_CSV_HEADER_WAIT   "t_ns,key,n,max_wait_ns"
#define RL_TRACE_MAX_WAIT_LIMIT_NS (86400ull * 1000000000ull)
#define RL_TRACE_WAIT_DEFAULT      UINT64_MAX /* the line left max_wait_ns empty */
/* And each reservation's cancellation: header
 * `t_ns,key,n,max_wait_ns,cancel_ns`, the fifth field empty (not
 * cancelled) or the trace time, ns, at which the caller gives its
 * reservation up (x/time/rate's CancelAt), never before the attempt. A run
 * refuses the cancellation of a reject or of a reservation already
 * released by then (sim, exactly; replay counts what came too late). */
#define RL_TRACE_CSV_HEADER_CANCEL "t_ns,key,n,max_wait_ns,cancel_ns"
#define RL_TRACE_NO_CANCEL         UINT64_MAX /* the line left cancel_ns empty */

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
    /* NULL unless read from a trace with max_wait_ns: len entries, each the
     * attempt's max wait or RL_TRACE_WAIT_DEFAULT; owned. Beside the
     * attempts, so a plain trace's attempts stay 16 bytes. */
    uint64_t *max_wait_ns;
    /* NULL unless read with cancel_ns (then max_wait_ns is set too): len
     * entries, each the attempt's cancel time or RL_TRACE_NO_CANCEL; owned. */
    uint64_t *cancel_ns;
};

/* Makes room for at least cap attempts in total, so a caller that knows the
 * size avoids repeated growth; -1 on ENOMEM (the trace is unchanged). */
int rl_trace_reserve(struct rl_trace *trace, size_t cap);

/* Appends one attempt (growing the array); -1 on ENOMEM. */
int rl_trace_push(struct rl_trace *trace, uint64_t t_ns, uint32_t key, uint32_t n);

/* Gives the trace keys named "k0".."k<count-1>", replacing any names it had;
 * -1 on ENOMEM (the old names are kept). */
int rl_trace_name_keys(struct rl_trace *trace, uint32_t count);

/* Reads a trace CSV into *out, which is overwritten (not freed first: pass a
 * zeroed or freed trace). On failure returns -1, frees what it built and writes
 * one line into err: a missing file, a bad header, a malformed line (with
 * its line number: "trace.csv:17: ..."), a zero cost, or a time earlier
 * than the line before (unsorted). */
int rl_trace_read_csv(const char *path, struct rl_trace *out, char *err, size_t err_len);

/* The same, and with unsorted set a time earlier than the line before is
 * accepted: attempts are kept in file order (times going backwards, as when
 * several threads read the clock and then call the limiter). */
int rl_trace_read_csv_order(const char *path, bool unsorted, struct rl_trace *out, char *err,
                            size_t err_len);

/* Writes the trace to path through a temporary file and a rename, so a
 * killed writer leaves no half file. Refuses (-1, nothing written) a trace
 * the reader would reject: unsorted times, a zero cost, a key id without a
 * name, or a key name that is empty or holds a comma or a line break.
 * Two ids with the same name are written as is and read back as one key.
 * -1 with a reason in err. */
int rl_trace_write_csv(const struct rl_trace *trace, const char *path, char *err, size_t err_len);

/* Frees everything the trace owns and zeroes it; safe on a zeroed trace. */
void rl_trace_free(struct rl_trace *trace);

#endif
