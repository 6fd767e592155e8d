/* history_recorder.h — `stress --history`: every operation of a closed-loop
 * run, rejects included, with its call and return stamps and its witness
 * (the last time the algorithm read through its clock handle inside the
 * call), for `check --linearizable` (harness/check/history.h).
 *
 * Memory is bounded: each thread keeps at most `cap` operations. When one
 * thread's buffer fills, the recorded window ends at a quiescent cut: every
 * thread finishes the operation it is in, waits until all have, and the run
 * goes on unrecorded. Every recorded operation then returned before any
 * unrecorded one was called, so the window is a complete history from the
 * limiter's creation: nothing outside it can be ordered before anything
 * in it. */
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

/* The window's end, shared by the threads of a run (C11 _Atomic, without
 * stdatomic.h: its names would leak into every includer of stress.h). */
struct rl_hist_cut {
    _Atomic bool cut;        /* a buffer filled: stop recording */
    _Atomic unsigned parked; /* threads out of the recorded window */
    unsigned threads;
    _Atomic uint64_t cut_ns; /* the stamp the filling thread read (0: no cut) */
};

/* One thread's buffer, on its own cache lines in the worker. */
struct rl_hist_thread {
    struct rl_hist_record *ops;
    size_t len, cap;
    uint16_t index;
};

/* What a run hands back: each thread's buffer (the outcome owns them). */
struct rl_hist_log {
    struct rl_hist_thread *threads;
    unsigned count;
    uint64_t epoch_ns; /* the limiter's t = 0 on the run's clock */
    uint64_t cut_ns;   /* when the window ended; 0: it held the whole run */
};

/* Makes clock's reads also kept, per calling thread, as the witness of the
 * operation in flight: the handle's reader is wrapped (the algorithm is not
 * changed and still counts its reads). Every copy of the handle, on any
 * thread, reads through the same wrapper. */
void rl_witness_clock_wrap(struct rl_clock *clock);

/* One attempt, made by the caller's loop (the stress worker). */
typedef enum rl_decision (*rl_hist_decide_fn)(void *arg, uint32_t *key);

/* The recorded loop: stamps call and return around each decide, keeps the
 * operation and its witness until the buffer fills or any thread's did,
 * parks at the cut, then decides unrecorded until *stop. */
void rl_hist_thread_run(struct rl_hist_thread *t, struct rl_hist_cut *cut, const _Atomic bool *stop,
                        struct rl_stamp_clock *stamp, rl_hist_decide_fn decide, void *arg);

/* Operations recorded, over all threads. */
size_t rl_hist_log_len(const struct rl_hist_log *log);

/* Writes the history file (harness/check/history.h: header with algo and
 * epoch, then one line per operation in the order of their witnesses, or
 * calls for those that read no clock, so that `check --linearizable` can
 * stream it). Keys are written as their numbers. -1 with one line in err;
 * nothing written then. */
int rl_hist_log_write(const struct rl_hist_log *log, const char *algo, const char *path, char *err,
                      size_t err_len);

/* The same history in memory for the checker (keys by number, key_names
 * NULL). 0, or -1 on no memory with nothing left in h. */
int rl_hist_log_to_history(const struct rl_hist_log *log, const char *algo, struct rl_history *h);

void rl_hist_log_free(struct rl_hist_log *log);

#endif
