/* history.h — a recorded concurrent history: every operation on a limiter
 * with the span of real time it was in flight, for the linearizability
 * checker (linearizable.h).
 *
 * The file (docs/design.md, Histories) is CSV, one line per operation:
 *
 *   # ratelab history algo=NAME epoch_ns=T    optional comment lines first
 *   thread,key,cost,call_ns,return_ns,answer,witness_ns
 *   0,user1,1,1000,1250,1,1100
 *
 * thread: the caller (a thread runs one operation at a time); key: text as
 * in traces (io/key_table.h); cost ≥ 1; call_ns ≤ return_ns on the run's
 * clock; answer 1 admit, 0 reject; witness_ns: the time the algorithm read
 * through its clock handle inside the call, empty when it read none (the
 * column may be left out altogether). Lines may come in any order.
 *
 * A history of several windows of one run (stress --history-windows) has
 * each window's operations after a line of its own:
 *
 *   # window W start_ns=T state=HEX ops_by_thread=a/b ended=full
 *
 * W counts from 0, the first such line comes before any operation; T: the
 * run's clock when the window opened (its operations are called at or
 * after it); state: the limiter's state then, as its snapshot (rl.h) or its
 * one word, in hex, required from window 1 on (window 0 starts at the
 * limiter's creation); other words are notes. Nothing in one window
 * overlaps another (a quiescent cut), so each is judged on its own from its
 * state. */
#ifndef RL_HISTORY_H
#define RL_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_hist_op {
    uint64_t call_ns, return_ns;
    uint64_t witness_ns; /* meaningful when has_witness */
    uint64_t cost;
    uint32_t thread, key; /* key: an id into rl_history.key_names */
    uint32_t line;        /* in the file, for messages; 0 when built in memory */
    bool has_witness;
    bool admitted;
};

/* Where one window's operations begin, and what they start from. */
struct rl_hist_window_head {
    size_t first_op; /* index into ops: its operations run to the next one's first_op */
    uint64_t start_ns;
    unsigned char *state; /* NULL for window 0 (from creation) */
    size_t state_len;
    uint32_t line;
};

struct rl_history {
    struct rl_hist_op *ops;
    size_t len, cap;
    char **key_names; /* by id; NULL when built in memory (keys shown as kN) */
    uint32_t key_count;
    char algo[64];     /* from "# … algo=NAME"; "" when the file names none */
    uint64_t epoch_ns; /* from "# … epoch_ns=T": the run's t = 0 on its clock */
    bool has_epoch;
    /* "# window" lines, in order; none: one window from the limiter's
     * creation (every history not written with --history-windows) */
    struct rl_hist_window_head *windows;
    uint32_t window_count;
};

/* Appends op (key < key_count is the caller's to keep). 0, or -1 on ENOMEM. */
int rl_history_push(struct rl_history *h, const struct rl_hist_op *op);

/* Reads and validates a history file (rl_history_validate). -1 with one line
 * naming the path and line in err, and nothing left in h. */
int rl_history_read(const char *path, struct rl_history *h, char *err, size_t err_len);

/* The same from text in memory (what the reader and the fuzz target use). */
int rl_history_parse(const char *text, size_t len, const char *name, struct rl_history *h,
                     char *err, size_t err_len);

/* What makes a history meaningless, each refused with one line: a return
 * before its call, a witness outside its call, a cost of 0, two operations of
 * one thread that overlap in time. 0 or -1. */
int rl_history_validate(const struct rl_history *h, const char *name, char *err, size_t err_len);

/* A comment line ("# … algo=NAME epoch_ns=T …", len bytes): what it says
 * of the run goes into h's algo and epoch (the streaming check reads the
 * header with it too). */
void rl_history_read_comment(const char *s, size_t len, struct rl_history *h);

/* Window w's operations as a history of their own (sharing h's key names:
 * free it with rl_history_free_window, never rl_history_free). 0, or -1 on
 * no memory. */
int rl_history_window(const struct rl_history *h, uint32_t w, struct rl_history *out);

void rl_history_free_window(struct rl_history *window);

void rl_history_free(struct rl_history *h);

#endif
