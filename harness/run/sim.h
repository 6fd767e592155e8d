/* sim.h — the deterministic mode: a trace replayed on one thread in virtual
 * time, every decision logged for the checker. */
#ifndef RL_SIM_H
#define RL_SIM_H

#include "harness/keyed/keyed.h"
#include "algorithms/rl.h"
#include "harness/check/checker.h"
#include "harness/check/event_log.h"
#include "harness/check/shape_check.h"
#include "workloads/generators.h"
#include "workloads/trace.h"

#include <stddef.h>
#include <stdint.h>

/* What sim counts as it decides. Its attempts, admits and rejects are the
 * source of the result row's (measure.c); the checker counts the same
 * complete log again only as its own per-key metrics, which `check` reads. */
struct rl_sim_outcome {
    uint64_t attempts, admits, rejects; /* admits and rejects after the error policy */
    uint64_t errors;                    /* RL_ERROR answers, whatever was done with them */
    uint64_t clock_reads;               /* how often the algorithm looked at the time */
    struct rl_keyed_stats keyed;        /* keys created, expired, live at the end */
};

/* What sim does with an RL_ERROR answer, and how keys expire. */
struct rl_sim_options {
    enum rl_keyed_expiry expiry;
    bool error_admits; /* what the caller does on RL_ERROR: admit (fail-open) or reject */
    /* --max-wait: how long a caller accepts to wait for its release (a
     * shaper rejects what would come later; an RL_BLOCKING one ignores it).
     * Unset: a shaper waits as long as it takes, the others decide now. */
    bool max_wait_set;
    uint64_t max_wait_ns;
    /* --set-rate: rate changes at trace times, in time order, applied to
     * every key's state (rl_keyed_set_rate) before the attempts at or after
     * each; rate_count 0: none. */
    const struct rl_rate_change *rates;
    size_t rate_count;
};

/* Whether a sim run of algo with options shapes: its log then carries
 * release times (rl_event_log.release_ns). A shaper always does; any
 * algorithm does under a max wait (its admits released at once), and so
 * does a run of a trace with a max_wait_ns column (trace.h), whose
 * attempts' own waits replace --max-wait where they are given. */
static inline bool rl_sim_shapes(const struct rl_algo *algo, const struct rl_sim_options *options)
{
    return algo->shape != NULL || options->max_wait_set;
}

/* The keyed container's configuration for a sim run of algo with cfg: cfg
 * as given, in virtual time (cfg.virtual_time) with its epoch at
 * RL_VIRTUAL_ORIGIN_NS, keys expiring as options->expiry says. The one place
 * sim's time is set: the run and rl_sim_check_config both take it from here. */
struct rl_keyed_config rl_sim_keyed_config(const struct rl_algo *algo, const struct rl_config *cfg,
                                           const struct rl_sim_options *options);

/* 0 when algo accepts cfg as a sim run gives it (rl_sim_keyed_config), so a
 * subcommand can refuse a bad configuration before any run; else -1 with the
 * algorithm's complaint in err. */
int rl_sim_check_config(const struct rl_algo *algo, const struct rl_config *cfg, char *err,
                        size_t err_len);

/* Runs every attempt of trace through algo in virtual time (a shaper
 * through rl_algo.shape, with options' max wait: rl_sim_shapes)
 * at RL_VIRTUAL_ORIGIN_NS + t (the epoch at RL_VIRTUAL_ORIGIN_NS), through the
 * keyed container (keyed.h): one limiter per key, created on the key's first
 * attempt, expired as options->expiry says (the sweeper follows its
 * schedule in virtual time). An RL_ERROR is counted in out->errors and then
 * treated as options->error_admits says, in the log too. A trace's
 * cancellations (trace.h, cancel_ns) are made at their times through the
 * shaper's cancel, and logged (rl_event_log.cancel_ns). Fills log
 * (complete: rejects too) and out. -1 with one line in err if the algorithm cannot be
 * created with cfg or memory runs out; -2 (bad input) when the trace
 * cancels and the algorithm cannot, or cancels the reservation of a reject
 * or one already released, or for options' rate changes: an algorithm
 * without set_rate, a change after the trace's last attempt, or a trace
 * that also cancels (a reservation made at one rate, cancelled at another,
 * is not modelled); log is then freed. -1 when a key's state cannot take
 * a new rate. */
int rl_sim_run_keyed(const struct rl_algo *algo, const struct rl_config *cfg,
                     const struct rl_sim_options *options, const struct rl_trace *trace,
                     struct rl_event_log *log, struct rl_sim_outcome *out, char *err,
                     size_t err_len);

/* rl_sim_run_keyed with keys that never expire: independent limiters. */
int rl_sim_run(const struct rl_algo *algo, const struct rl_config *cfg,
               const struct rl_trace *trace, struct rl_event_log *log, struct rl_sim_outcome *out,
               char *err, size_t err_len);

/* ---- streaming -------------------------------------------------------------
 * generator → limiter → checker, nothing held: each batch of attempts
 * (RL_STREAM_BATCH) is decided and its decisions go into the streaming
 * checker (checker.h) at once, so memory is the keyed container, the
 * checker's per-key windows and one batch, whatever the number of
 * attempts. The decisions are those of rl_sim_run_keyed, made by the same
 * calls in the same order, and the checker's result equals rl_check's on
 * the held log. */

/* Whether a run of algo with options can stream: it does not shape and
 * changes no rate (rl_sim_run_keyed refuses or applies the changes). A
 * shaped run is checked on release times, which a shaper may put any
 * number of attempts out of order (without --max-wait, without bound), so
 * it keeps the held log (rl_sim_run_keyed), as does a run whose decisions
 * are written, a trace with max_wait_ns or cancel_ns columns (the caller
 * checks trace.h's columns) and an --unsorted trace. */
bool rl_sim_can_stream(const struct rl_algo *algo, const struct rl_sim_options *options);

/* What a streamed run leaves: sim's counts, the checker's result (free it
 * with rl_check_result_free) and the latest attempt time. */
struct rl_sim_streamed {
    struct rl_sim_outcome sim;
    struct rl_check_result check;
    uint64_t last_t_ns;
};

/* Streams the attempts of workload (when trace is NULL) or of trace (time
 * sorted, without wait or cancel columns) through algo (rl_sim_can_stream
 * must hold) and the checker, against check's (L, I), for key_count keys;
 * check NULL: no checker (out->check zeroed: the perf suite's limiter floor).
 * -1 with one line in err for bad workload parameters, an algorithm that
 * cannot be created, or ENOMEM. */
int rl_sim_stream(const struct rl_algo *algo, const struct rl_config *cfg,
                  const struct rl_sim_options *options, const struct rl_workload_params *workload,
                  const struct rl_trace *trace, const struct rl_check_params *check,
                  struct rl_sim_streamed *out, char *err, size_t err_len);

#endif
