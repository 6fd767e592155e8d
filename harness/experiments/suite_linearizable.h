/* suite_linearizable.h — recorded 2-thread histories judged by the
 * linearizability checker, retried until a race shows: the rows of
 * `bench --suite linearizable` (docs/design.md, Histories and
 * linearizability) and the runs of `ratelab teach linearizable`.
 *
 * A race needs both threads on a core at one instant, so an algorithm is
 * recorded up to `tries` times: the kept run is the first concurrent
 * history that is not linearizable, else the last decided concurrent one.
 * Concurrent: every requested thread has operations in the history and at
 * least one operation was called while another thread's was in flight,
 * that thread's last call of the window left out (the recorder holds the
 * first finisher's last call open until the others have called theirs, so
 * calls inside it say nothing of a race).
 * A run that is not (one thread filled its window before the other got a
 * core, or they took turns) is no try: it is recorded again, up to
 * `solo_retries` times in all, and replaced by any concurrent run; a run
 * whose search ran out of budget is replaced by a later decided one. When
 * no run was concurrent the kept history says so (rl_lin_trial.concurrent
 * false): its verdict is not a 2-thread result. */
#ifndef RL_SUITE_LINEARIZABLE_H
#define RL_SUITE_LINEARIZABLE_H

#include "harness/check/history.h"
#include "harness/check/linearizable.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The suite's configuration: L = 2 per 20 µs (a window every few dozen
 * calls, so races on the reset are frequent), 30 ms runs, at most 5000
 * operations a thread, a budget of 10^7 search states, 12 tries. */
#define RL_LIN_SUITE_LIMIT    2u
#define RL_LIN_SUITE_INTERVAL 20000u
#define RL_LIN_SUITE_DURATION 30000000u
#define RL_LIN_SUITE_MAX_OPS  5000u
#define RL_LIN_SUITE_BUDGET   10000000u
#define RL_LIN_SUITE_TRIES    12u
/* Runs that are not concurrent, recorded again on top of the tries (each
 * about 35 ms): a loaded machine gives one in two, a quiet one may give
 * many in a row for the fastest limiters (docs/design.md). */
#define RL_LIN_SUITE_SOLO_RETRIES 36u
/* Threads whose operations a trial counts one by one (the suite asks 2). */
#define RL_LIN_TRIAL_MAX_THREADS 64u

struct rl_lin_trial_params {
    const char *algo;
    unsigned threads; /* 2, or 1 for a control run (one try) */
    uint64_t limit, interval_ns, duration_ns;
    size_t max_ops; /* a thread's --history-max */
    uint64_t budget;
    unsigned tries;
    unsigned solo_retries; /* runs that are not concurrent, recorded again */
    /* the teaching build: record with its widened race points muted (they
     * stretch every call of a broken step past the interval, and then any
     * order explains every answer); nothing in other builds */
    bool plain_races;
};

/* The kept run and what it took to get it. */
struct rl_lin_trial {
    size_t ops;
    unsigned threads; /* threads with operations in the history */
    /* the kept history's operations of thread i, for i below the threads
     * asked (and below RL_LIN_TRIAL_MAX_THREADS) */
    size_t thread_ops[RL_LIN_TRIAL_MAX_THREADS];
    /* operations called while another thread's was in flight, its last
     * call of the window (which may be held open) left out */
    size_t overlapping;
    /* every thread asked has operations and overlapping > 0 (always true of
     * a 1-thread control run): false, the verdict is not a concurrent one */
    bool concurrent;
    struct rl_lin_result result;
    double check_s;            /* rl_lin_check's wall time on the kept history */
    unsigned tries;            /* the run kept (1-based) */
    unsigned runs;             /* runs made */
    unsigned solo;             /* of those, runs that were not concurrent */
    unsigned unknown;          /* concurrent runs whose search ran out of budget */
    struct rl_history history; /* the kept history (keys by number) */
};

/* How concurrent a recorded history is. */
struct rl_lin_concurrency {
    unsigned threads;                            /* threads with operations */
    size_t thread_ops[RL_LIN_TRIAL_MAX_THREADS]; /* thread i's operations */
    /* operations called while another thread's was in flight, not counting
     * calls inside its last of the window (the held-open one) */
    size_t overlapping;
    /* each of the `asked` threads (below RL_LIN_TRIAL_MAX_THREADS) has
     * operations and overlapping > 0; always true when 1 was asked */
    bool concurrent;
};

/* Counts h's operations per thread and those called while another
 * thread's was in flight, each thread's last operation of a window (per
 * "# window", or of the whole history) left out of the spans others are
 * called in. -1 on no memory (c then says not concurrent). */
int rl_lin_concurrency_of(const struct rl_history *h, unsigned asked, struct rl_lin_concurrency *c);

/* The suite's parameters for algo. */
struct rl_lin_trial_params rl_lin_suite_params(const char *algo);

/* The algorithms the suite records: every thread-safe in-process limiter
 * that decides without release (not the baselines, shapers or
 * concurrency limiters), NULL-terminated. */
extern const char *const rl_lin_suite_algos[];

/* Records and judges as above. -1 with one line in err (unknown algorithm,
 * a run or the check failed); free with rl_lin_trial_free. */
int rl_lin_trial_run(const struct rl_lin_trial_params *p, struct rl_lin_trial *t, char *err,
                     size_t err_len);
void rl_lin_trial_free(struct rl_lin_trial *t);

/* The verdict a row shows: the checker's on a concurrent history, "no
 * concurrent history" on any other (judged one thread at a time, it says
 * nothing of a race: never a pass). */
const char *rl_lin_trial_verdict(const struct rl_lin_trial *t);

#endif
