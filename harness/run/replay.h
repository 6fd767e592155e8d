/* replay.h — the open-loop mode (docs/design.md, Modes): a trace's attempts are sent at
 * their trace times mapped onto the wall clock, by T threads, whatever the
 * limiter's speed; decision latency is counted from the intended send time.
 *
 * Timeline. All threads wait at a start line; then t0 = now + lead on
 * CLOCK_MONOTONIC, and attempt i is due at t0 + t_i / speed. The limiter's
 * epoch (where aligned windows start) is t0 on the run's clock, so trace
 * t = 0 and the limiter's t = 0 coincide; its interval I stays wall time
 * (at --speed 2 the same trace arrives twice as densely). On a clock that
 * lags CLOCK_MONOTONIC (coarse, cached) the decision log's times are offset
 * by a whole number of intervals (the smallest of at least 50 ms), so that
 * no read just after t0 falls before the epoch and is clamped to 0; aligned
 * windows stay where they were.
 *
 * Threads. Attempt i goes to thread i mod T. A key hash would keep each
 * key's attempts on one thread, in trace order, but the default workloads
 * have one key, and all of it would land on one thread; round robin
 * spreads every burst over all threads, so they contend on the same
 * limiter as real clients do. Two attempts of one key due closer together
 * than the threads' jitter may be decided in either order; the log records
 * the order that happened.
 *
 * Pacing (as wrk2 does it, to avoid coordinated omission). A thread sleeps
 * (timer slack 1 µs) until 200 µs before its next due time, then spins
 * (yields when threads outnumber CPUs). A thread that is behind sends at
 * once, and the attempt's latency still runs from its due time: a slow
 * limiter, a preempted thread or a backlog shows up in the percentiles
 * instead of silently thinning the arrivals. Three histograms per thread,
 * merged after the run:
 *   latency   decision known − due time (what a caller waited)
 *   lateness  actual send − due time (the harness's own delay)
 *   service   decision known − actual send (the call alone, what a
 *             closed-loop tool would report)
 *
 * Log. Every decision, admit and reject, is recorded (complete: the
 * checker's oracle columns are valid), stamped as stress does: on the
 * run's clock, after the call, with the gap from the read before it. The
 * accuracy metrics are computed on these stamps, i.e. on the times the
 * limiter actually decided, not on the trace's intended times.
 *
 * Shapers (algo->shape set). Each attempt goes through shape with its max
 * wait (the trace's max_wait_ns, else the run's), and the thread sleeps
 * until the release on the run's clock (clock_sleep.h) before its next
 * attempt, as a caller of a blocking Take does: more threads keep the
 * arrivals on time. The log's t_ns is then the stamp before the call (the
 * arrival: every read of the call is later), with the promised release_ns
 * and the stamp when the sleep ended, woke_ns; woke − release is the
 * timer's overshoot, the harness's (outcome.overshoot), never the
 * limiter's. A trace's cancellation (cancel_ns) ends the sleep at its due
 * time instead, if that comes before the release, and calls the shaper's
 * cancel (logged in cancel_ns); a cancellation of a reject, or one whose
 * release came first, cancels nothing and is counted (cancels_missed).
 */
#ifndef RL_REPLAY_H
#define RL_REPLAY_H

#include "harness/keyed/keyed.h"
#include "algorithms/rl.h"
#include "harness/check/event_log.h"
#include "harness/report/histogram.h"
#include "workloads/trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_REPLAY_LEAD_NS 5000000u /* from the start line to t0: room to create the limiter */

struct rl_replay_params {
    const struct rl_algo *algo;
    struct rl_config cfg;         /* epoch_ns is set by the run */
    const struct rl_trace *trace; /* time-sorted; its keys go through the keyed container */
    unsigned threads;             /* 1..1024 */
    double speed;                 /* > 0; due time = t0 + t / speed; 0 means 1 */
    const char *clock;            /* monotonic, coarse, tsc, cached: limiter's and stamps' */
    enum rl_keyed_expiry expiry;  /* for traces of more than one key */
    bool error_admits;            /* on RL_ERROR the caller admits (fail-open) or rejects */
    uint64_t client_skew_ns;      /* thread i's clock off by a share of ±skew, as in stress */
    /* Already started, when a plan started it once for all its runs (the
     * run copies the handle); NULL: the run starts `clock` itself. */
    const struct rl_clock *started_clock;
    uint64_t max_wait_ns; /* a shaper's max wait where the trace gives none; UINT64_MAX: any */
};

struct rl_replay_outcome {
    uint64_t attempts, admits, rejects; /* admits and rejects after the error policy */
    uint64_t errors;                    /* RL_ERROR answers, whatever was done with them */
    uint64_t clock_reads;               /* by the algorithm, all threads */
    uint64_t span_ns; /* the last attempt's due time − t0: the run's intended length */
    uint64_t wall_ns; /* the last decision − t0 */
    bool interrupted; /* SIGINT/SIGTERM (rl_interrupted): not every attempt was sent */
    struct rl_histogram latency, lateness, service; /* ns, all threads merged */
    struct rl_keyed_stats keyed;                    /* traces of more than one key */
    struct rl_event_log log;                        /* every decision (complete), sorted by stamp */
    bool shaped;                                    /* a shaper's run: overshoot below */
    struct rl_histogram overshoot;                  /* woke − release over admits, ns */
    uint64_t cancels_missed; /* the trace's cancellations of a reject or a released one */
};

/* Sends every attempt of params->trace through the algorithm (see above)
 * and fills out; free it with rl_replay_outcome_free. A trace of one key
 * goes to one shared limiter, a trace of several through the keyed
 * container (one limiter per key). Limiters that need release are released
 * right after each admit is stamped (served at once, as in sim). -1 with
 * one line in err, and out holding nothing, for a virtual or unknown clock,
 * a bad speed or thread count, an unsorted trace, an algorithm's create
 * failing, thread creation or memory. An interrupted run returns 0 with
 * `interrupted` set and the decisions made so far. */
int rl_replay_run(const struct rl_replay_params *params, struct rl_replay_outcome *out, char *err,
                  size_t err_len);

/* Whether the trace can be replayed at this speed (0 means 1): sorted by
 * time, and its last attempt due within 10^9 s. -1 with one line in err
 * otherwise: bad input, which the command refuses before any run (exit 2).
 * rl_replay_run checks the same. */
int rl_replay_check_trace(const struct rl_trace *trace, double speed, char *err, size_t err_len);

/* Frees the histograms and the log; safe on a zeroed outcome. */
void rl_replay_outcome_free(struct rl_replay_outcome *out);

#endif
