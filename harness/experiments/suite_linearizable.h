/* suite_linearizable.h — recorded 2-thread histories judged by the
 * linearizability checker, retried until a race shows: the rows of
 * `bench --suite linearizable` (docs/design.md, Histories and
 * linearizability) and the runs of `ratelab teach linearizable`.
 *
 * A race needs both threads on a core at one instant, so an algorithm is
 * recorded up to `tries` times: the kept run is the first history of all
 * the requested threads that is not linearizable, else the last decided
 * one of all of them (a run in which one thread filled its window before
 * the other got a core, or whose search ran out of budget, is replaced by
 * a later one). */
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

struct rl_lin_trial_params {
    const char *algo;
    unsigned threads; /* 2, or 1 for a control run (one try) */
    uint64_t limit, interval_ns, duration_ns;
    size_t max_ops; /* a thread's --history-max */
    uint64_t budget;
    unsigned tries;
    /* the teaching build: record with its widened race points muted (they
     * stretch every call of a broken step past the interval, and then any
     * order explains every answer); nothing in other builds */
    bool plain_races;
};

/* The kept run and what it took to get it. */
struct rl_lin_trial {
    size_t ops;
    unsigned threads;   /* threads with operations in the history */
    size_t overlapping; /* operations called while another thread's was in flight */
    struct rl_lin_result result;
    double check_s;            /* rl_lin_check's wall time on the kept history */
    unsigned tries;            /* the run kept (1-based) */
    unsigned runs;             /* runs made */
    unsigned unknown;          /* runs of all the threads whose search ran out of budget */
    struct rl_history history; /* the kept history (keys by number) */
};

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

#endif
