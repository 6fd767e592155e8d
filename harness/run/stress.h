/* stress.h — the closed-loop mode: T threads call acquire as fast as they
 * can on one shared limiter for a fixed time (docs/design.md, Modes). */
#ifndef RL_STRESS_H
#define RL_STRESS_H

#include "harness/keyed/keyed.h"
#include "algorithms/rl.h"
#include "harness/check/event_log.h"
#include "history_recorder.h"
#include "harness/report/histogram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_STRESS_MAX_LOOKAHEAD 64u

struct rl_stress_params {
    const struct rl_algo *algo;
    struct rl_config cfg; /* epoch_ns is set by the run */
    unsigned threads;
    uint64_t duration_ns;
    const char *clock;           /* a name from rl_clock_names, not "virtual" */
    bool record;                 /* stamp and keep every admit for the checker */
    bool pin;                    /* thread i on CPU i mod cores */
    size_t record_capacity;      /* admits kept per thread; 0 = sized from L, I and duration */
    uint64_t hold_ns;            /* limiters that need release: how long each permit is held */
    uint32_t keys;               /* > 1: each attempt draws a key, through the keyed container */
    double zipf_s;               /* > 0: keys Zipf(s) over K, else uniform */
    enum rl_keyed_expiry expiry; /* for keys > 1; the sweeper is a real thread here */
    /* keys > 1, an unrecorded run of a limiter that needs no release and
     * does not shape: each thread draws its keys this many attempts ahead
     * (the same keys in the same order), prefetches each as it is drawn
     * (rl_keyed_prefetch) and decides them this many at a time
     * (rl_keyed_acquire_batch). 0: one key drawn and decided at a time.
     * At most RL_STRESS_MAX_LOOKAHEAD. */
    unsigned lookahead;
    bool error_admits;       /* on RL_ERROR the caller admits (fail-open) or rejects */
    uint64_t client_skew_ns; /* thread i's clock is off by a share of ±skew (see stress.c) */
    /* Already started, when a plan started it once for all its runs (the
     * run copies the handle); NULL: the run starts `clock` itself. */
    const struct rl_clock *started_clock;
    /* A shaper (algo->shape set) is driven through shape: each thread
     * sleeps until its release on the run's clock (clock_sleep.h) before
     * its next attempt, and a recorded run logs every attempt with its
     * promised release and the stamp when the sleep ended (woke_ns).
     * max_wait_ns is each call's max wait (UINT64_MAX: as long as it
     * takes). Other algorithms ignore it. No client skew with a shaper. */
    uint64_t max_wait_ns;
    /* A shaper's decision alone: shape called as acquire is in an
     * unrecorded run, without the sleep (the perf suite's cost of the
     * decision part); the releases are not waited for. */
    bool shape_without_sleep;
    /* --history: every operation with call, return and witness
     * (history_recorder.h), at most history_capacity a thread a window
     * (then the window ends at a quiescent cut). Not with record, a shaper, a limiter
     * that needs release, or client skew. history_windows (0 or 1: one)
     * windows spread over the run, each later one starting from the
     * limiter's state (one key, an algorithm rl_hist_can_snapshot). */
    bool history;
    size_t history_capacity;
    unsigned history_windows;
    /* A shaper with cancel: each thread gives up this share (0..1) of its
     * reservations that would wait, drawn from its own stream, halfway
     * through the wait (x/time/rate's CancelAt from a caller that stops
     * waiting); the log records the cancellation (cancel_ns) and no
     * wake-up. 0: none. */
    double cancel_share;
};

struct rl_stress_outcome {
    uint64_t attempts, admits, rejects; /* admits and rejects after the error policy */
    uint64_t errors;                    /* RL_ERROR answers, whatever was done with them */
    uint64_t clock_reads;               /* by the algorithm, all threads */
    uint64_t wall_ns;                   /* first thread's start to last thread's stop */
    double ns_per_op;            /* per thread: its busy time ÷ its calls, averaged over calls */
    double mops;                 /* attempts ÷ wall time */
    bool interrupted;            /* SIGINT/SIGTERM cut the run short */
    uint64_t max_in_flight;      /* limiters that need release: most permits seen held at once */
    struct rl_keyed_stats keyed; /* keys > 1: created, expired, live at the end */
    double bytes_per_key;        /* keys > 1: resident-set growth over the run ÷ live keys */
    struct rl_event_log log;     /* admits only (complete = false), when record; a
                                    shaper's: every attempt, with release_ns and woke_ns */
    /* A shaper's run: woke − release of every admit, ns, all threads: the
     * harness's timer overshoot (clock_sleep.h), never the limiter's. */
    bool shaped;
    struct rl_histogram overshoot;
    struct rl_hist_log history; /* every operation, when history */
    uint64_t cancels;           /* reservations given up (cancel_share) */
};

/* Runs one measurement; free out->log and out->overshoot after (rl_stress_outcome_free). -1
 * with one line in err when the clock, the algorithm's create, thread
 * creation or memory fails. */
int rl_stress_run(const struct rl_stress_params *params, struct rl_stress_outcome *out, char *err,
                  size_t err_len);

/* Frees the log and the overshoot histogram; safe on a zeroed outcome. */
void rl_stress_outcome_free(struct rl_stress_outcome *out);

#endif
