/* history_recorder.h — `stress --history`: every operation of a closed-loop
 * run, rejects included, with its call and return stamps and its witness
 * (the last time the algorithm read through its clock handle inside the
 * call), for `check --linearizable` (harness/check/history.h).
 *
 * Memory is bounded: the run is recorded in at most `windows` windows, and
 * in each a thread keeps at most `cap` operations. A window opens at a
 * quiescent cut: every thread finishes the operation it is in and waits
 * until all have; the last to arrive takes the limiter's state (its
 * snapshot, or its one word: rl_hist_state_snapshot) and the time, then
 * opens it. It ends when a thread's buffer fills or the next window is due
 * (window w is due w·duration/windows after window 0 opened), at another
 * quiescent cut; the run goes on unrecorded until the next is due. Every
 * recorded operation of a window then returned before any operation
 * outside it was called, so a window is a complete history from its start
 * state: window 0 from the limiter's creation, each later one from the
 * snapshot taken at its opening.
 *
 * The start gate: every thread takes its first recorded call only after
 * all have arrived at the opening cut, and a window ends by a full buffer
 * only when every thread has kept its cap: a thread that reaches its last
 * operation first holds it open (its return stamped only once every other
 * thread has called its own last one), so no thread fills a window before
 * another gets a core, each keeps as many, and every two threads' last
 * operations overlap in time, their recorded
 * spans with them (a window ended by time, or a run stopped, promises
 * less). */
#ifndef RL_HISTORY_RECORDER_H
#define RL_HISTORY_RECORDER_H

#include "algorithms/rl.h"
#include "harness/check/history.h"
#include "harness/sys/stamp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One operation as recorded (32 bytes): times on the run's clock. */
struct rl_hist_record {
    uint64_t call_ns, return_ns, witness_ns;
    uint32_t key;
    uint16_t thread;
    uint8_t admitted;
    uint8_t has_witness; /* the call read the clock */
};

/* The limiter's state as bytes, taken while every thread is parked: its
 * length (> cap: call again with more), 0 when it has none. */
typedef size_t (*rl_hist_snapshot_fn)(void *arg, void *buf, size_t cap);

/* How one window went. */
struct rl_hist_window {
    uint64_t start_ns; /* the stamp at its opening cut */
    uint64_t cut_ns;   /* the stamp of the thread that ended it; 0: the run's end did */
    unsigned char *state;
    size_t state_len; /* window > 0: the limiter's state at start_ns; window 0: none */
    bool opened;      /* every thread reached its opening cut before the run stopped */
    bool filled;      /* ended by a full buffer (else by the next window's time, or the run) */
};

/* One thread's buffers, on its own cache lines in the worker. */
struct rl_hist_thread {
    struct rl_hist_record *ops; /* windows × cap: window w's at ops + w·cap */
    size_t *lens;               /* operations kept in each window */
    size_t len, cap;            /* len: over every window */
    uint16_t index;
    /* Read by the others only at their last operation (C11 _Atomic,
     * without stdatomic.h: its names would leak into every includer of
     * stress.h) */
    _Atomic bool at_last; /* has called its last operation of the window */
    _Atomic bool done;    /* out of the window being recorded */
};

/* The windows, shared by the threads of a run. */
struct rl_hist_cut {
    _Atomic bool cut; /* end the window being recorded */
    _Atomic unsigned parked, generation;
    _Atomic uint64_t cut_ns; /* the stamp of the thread that ended it (0: none yet) */
    unsigned threads, windows, current;
    uint64_t spacing_ns; /* between the windows' due times */
    struct rl_hist_thread **members;
    struct rl_hist_window *window; /* windows entries */
    rl_hist_snapshot_fn snapshot;  /* NULL: windows must be 1 */
    void *snapshot_arg;
};

/* What a run hands back: each thread's buffers and the windows (the
 * outcome owns them). */
struct rl_hist_log {
    struct rl_hist_thread *threads;
    unsigned count;
    uint64_t epoch_ns; /* the limiter's t = 0 on the run's clock */
    uint64_t cut_ns;   /* when window 0 ended; 0: the run's end did */
    struct rl_hist_window *windows;
    unsigned window_count; /* opened windows, each with a start */
};

/* Makes clock's reads also kept, per calling thread, as the witness of the
 * operation in flight: the handle's reader is wrapped (the algorithm is not
 * changed and still counts its reads). Every copy of the handle, on any
 * thread, reads through the same wrapper. */
void rl_witness_clock_wrap(struct rl_clock *clock);

/* Whether a later window can start from algo's state: it has snapshot and
 * restore, or its state changes in one word (rl_algo.one_word_state), and
 * no thread of its own changes it (sliding_log_sweeper's sweeper). */
bool rl_hist_can_snapshot(const struct rl_algo *algo);

/* algo's state as bytes: its snapshot, or the state's first word for a one
 * word state (the rest is create's alone: rl.h). 0 when neither. */
size_t rl_hist_state_snapshot(const struct rl_algo *algo, const void *state, void *buf, size_t cap);

/* Sets up the windows for threads threads over a run of duration_ns:
 * windows ≥ 1, snapshot given when windows > 1. 0, or -1 on no memory. */
int rl_hist_cut_init(struct rl_hist_cut *cut, unsigned threads, unsigned windows,
                     uint64_t duration_ns, rl_hist_snapshot_fn snapshot, void *snapshot_arg);

/* Frees what init allocated, the windows' states unless handed back. */
void rl_hist_cut_free(struct rl_hist_cut *cut);

/* Thread index's buffers (touched now: a first touch in a recorded call
 * would cost it a page fault) and its place in cut. 0, or -1 on no memory. */
int rl_hist_thread_init(struct rl_hist_thread *t, struct rl_hist_cut *cut, uint16_t index,
                        size_t cap);

void rl_hist_thread_free(struct rl_hist_thread *t);

/* One attempt, made by the caller's loop (the stress worker). */
typedef enum rl_decision (*rl_hist_decide_fn)(void *arg, uint32_t *key);

/* The recorded loop: for each window, decides unrecorded until it is due,
 * parks at its opening cut, stamps call and return around each decide and
 * keeps the operation and its witness until the window ends, parks at its
 * closing cut; after the last, decides unrecorded until *stop. */
void rl_hist_thread_run(struct rl_hist_thread *t, struct rl_hist_cut *cut, const _Atomic bool *stop,
                        struct rl_stamp_clock *stamp, rl_hist_decide_fn decide, void *arg);

/* Operations recorded, over all threads and windows. */
size_t rl_hist_log_len(const struct rl_hist_log *log);

/* Operations thread i kept in window w. */
size_t rl_hist_log_window_len(const struct rl_hist_log *log, unsigned w, unsigned i);

/* Writes the history file (harness/check/history.h): a header with algo,
 * epoch and each thread's operations; then, one window, one line per
 * operation in the order of their witnesses (or calls, for those that read
 * no clock), so that `check --linearizable` can stream it; several windows,
 * each after its own line (# window W start_ns=T state=HEX …). Keys are
 * written as their numbers. -1 with one line in err; nothing written then. */
int rl_hist_log_write(const struct rl_hist_log *log, const char *algo, const char *path, char *err,
                      size_t err_len);

/* Window 0 of the history in memory for the checker (keys by number,
 * key_names NULL): the run's whole history when it had one window. 0, or
 * -1 on no memory with nothing left in h. */
int rl_hist_log_to_history(const struct rl_hist_log *log, const char *algo, struct rl_history *h);

/* Window w alone, the same way (its start state is log->windows[w].state). */
int rl_hist_log_window_to_history(const struct rl_hist_log *log, unsigned w, const char *algo,
                                  struct rl_history *h);

void rl_hist_log_free(struct rl_hist_log *log);

#endif
