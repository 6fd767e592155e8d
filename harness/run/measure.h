/* measure.h — one measurement, start to finish: run a mode, check what it
 * decided, fill a result row. Shared by `sim`, `stress` and `bench`. */
#ifndef RL_MEASURE_H
#define RL_MEASURE_H

#include "harness/keyed/keyed.h"
#include "replay.h"
#include "sim.h"
#include "stress.h"
#include "harness/report/latency_cdf.h"
#include "harness/report/result.h"
#include "workloads/trace.h"

#include <stddef.h>

/* sim on trace (keys and errors handled as options say), checked against params' (L, I) with the
 * epoch at trace t = 0; the row's rep is 1. The log is handed to the caller in *log when log is not
 * NULL (for
 * --decisions), else freed. -1 with one line in err; -2 for bad input the
 * run found (rl_sim_run_keyed: a cancellation with nothing to cancel). */
int rl_measure_sim(const struct rl_algo *algo, const struct rl_config *cfg,
                   const struct rl_sim_options *options, const struct rl_trace *trace,
                   const char *workload, uint64_t seed, struct rl_result *r,
                   struct rl_event_log *log, char *err, size_t err_len);

/* The same row from a streamed run (sim.h, rl_sim_stream; rl_sim_can_stream
 * must hold): the attempts of params (trace NULL) or of trace, never held,
 * nor their decisions. The row equals rl_measure_sim's. -1 with one line in
 * err. */
int rl_measure_sim_stream(const struct rl_algo *algo, const struct rl_config *cfg,
                          const struct rl_sim_options *options,
                          const struct rl_workload_params *params, const struct rl_trace *trace,
                          const char *workload, uint64_t seed, struct rl_result *r, char *err,
                          size_t err_len);

/* One stress run (checked when params->record). rep is the repetition's
 * number (from 1), for the row; the load at the run's start goes in it too
 * (sys/load.h). A recorded run's admits are handed to the caller in
 * *log unless log is NULL (for --decisions). -1 with one line in err. */
int rl_measure_stress(const struct rl_stress_params *params, unsigned rep, struct rl_result *r,
                      struct rl_event_log *log, char *err, size_t err_len);

/* One replay run of params->trace (named workload, generated with seed; 0
 * for a file), checked from its complete log; rep numbers the repetition (from
 * 1), and the load at the run's start is recorded as in stress.
 * The whole latency distribution goes into *cdf unless cdf is NULL, and the
 * log is handed to the caller in *log unless log is NULL (for --decisions).
 * -1 with one line in err, also when interrupted ("interrupted"). */
int rl_measure_replay(const struct rl_replay_params *params, const char *workload, uint64_t seed,
                      unsigned rep, struct rl_result *r, struct rl_latency_cdf *cdf,
                      struct rl_event_log *log, char *err, size_t err_len);

/* For each stress row, ns_per_op ÷ that of the faa row (and, for Redis
 * algorithms, of the redis_noop row) with the same threads, repetition,
 * clock and recording; NAN where there is none. */
void rl_results_fill_ratio_faa(struct rl_result *rows, size_t count);

#endif
