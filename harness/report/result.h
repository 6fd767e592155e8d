/* result.h — one result row (docs/design.md, Outputs): one algorithm, workload, clock,
 * thread count and repetition, with its accuracy and speed. */
#ifndef RL_RESULT_H
#define RL_RESULT_H

#include "algorithms/rl.h"
#include "harness/check/checker.h"
#include "harness/check/verdict.h"
#include "harness/sys/build_info.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rl_result {
    const struct rl_algo *algo;
    const char *mode;     /* sim | stress | replay */
    const char *workload; /* generator name, trace file, or "closed_loop" */
    const char *clock;
    /* rep counts from 1 in every mode: the run's repetition (sim and a
     * suite's replays run once: 1); a recorded stress run shares its
     * unrecorded twin's number */
    unsigned threads, cpus, rep;
    struct rl_config cfg;
    uint64_t keys, seed;
    uint64_t attempts, admits, rejects, errors;
    uint64_t duration_ns; /* stress, replay: wall time measured; sim: the trace's span */
    double ns_per_op;     /* per thread: how long one call takes */
    double mops;          /* all threads: million attempts per second */
    double ratio_faa;     /* ns_per_op ÷ faa's at the same threads, NAN if none */
    double ratio_noop;    /* Redis algorithms: ÷ redis_noop's, the server's own floor */
    double clock_reads_per_op;
    bool checked; /* accuracy metrics below were computed */
    struct rl_key_metrics m;
    bool complete;           /* rejects were recorded too (oracle columns valid) */
    const char *worst_key;   /* the key with the largest max_sliding, whole (rl_result_key) */
    uint64_t uncertainty_ns; /* the largest certainty gap of one recorded call */
    uint64_t dropped;        /* events a full recorder buffer could not keep */
    bool has_in_flight;      /* stress of a limiter that needs release */
    uint64_t max_in_flight;  /* most permits the harness saw held at once */
    uint64_t hold_ns;        /* how long each permit was held */
    uint64_t keys_live;      /* keyed stress: keys held at the end of the run */
    double bytes_per_key;    /* keyed stress: resident-set growth ÷ keys_live, NAN otherwise */
    /* replay only (has_latency): ns, from the merged histograms (replay.h) */
    bool has_latency;
    double speed; /* the trace's times were divided by this */
    uint64_t lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, lat_max_ns; /* from the due time */
    uint64_t late_p50_ns, late_p99_ns, late_max_ns; /* actual send − due time */
    uint64_t svc_p50_ns, svc_p99_ns;                /* the call alone */
    /* stress and replay (has_load): how busy the machine was at the run's
     * start, from /proc/loadavg (sys/load.h) */
    bool has_load;
    double load_1m;    /* the 1-minute load average */
    uint32_t runnable; /* runnable threads, the run's own included */
    /* a run with --fault (NULL fault otherwise): the spec, the time from
     * each fault to the cluster serving every slot again (the longest), and
     * rl_verdict_excess of the checked run: admits beyond the promise */
    const char *fault;
    double outage_ms;
    uint64_t lost_admits;
    char cluster[16]; /* a Redis algorithm on a cluster: "NxR" (private) or "joined"; "" */
    /* a shaper in stress or replay (has_overshoot): woke − release over its
     * admits, ns: the harness's timer overshoot, never the limiter's */
    bool has_overshoot;
    uint64_t overshoot_p50_ns, overshoot_p99_ns, overshoot_max_ns;
    /* replay of a trace with cancel_ns: cancellations that found nothing to
     * cancel (a reject, or released before the cancel was due); not a column */
    uint64_t cancels_missed;
    uint64_t cancels; /* stress --cancel-share: reservations given up; not a column */
};

/* A promise of rl.h for cfg as the verdict sees it (harness/check/
 * verdict.h): the one place rl.h's promise kinds are mapped onto the
 * verdict's, with B's default applied. excess: what a bucket algorithm
 * states beyond B + L (rl_algo.bucket_excess), 0 for none. */
struct rl_promised rl_promised_of(enum rl_promise promise, const struct rl_config *cfg,
                                  uint64_t excess);

/* algo's promise for cfg and `threads` calling threads, with the excess
 * the algorithm states for them (rl_algo.bucket_excess). */
struct rl_promised rl_algo_promised(const struct rl_algo *algo, const struct rl_config *cfg,
                                    unsigned threads);

/* The row's verdict (rl_verdict): its algorithm's promise for its
 * configuration and threads, judged on its metrics, dropped events, errors
 * and max_in_flight. */
enum rl_held rl_result_held(const struct rl_result *r);

/* rl_result_held as the word every output prints: "yes", "no", "n/a" or
 * "uncertain". */
const char *rl_result_promise_held(const struct rl_result *r);

/* The row's rl_promised_bound: 0 when it promises nothing. */
uint64_t rl_result_promised_bound(const struct rl_result *r);

/* The row's rl_verdict_measure: the certain maximum its verdict reads. */
uint64_t rl_result_verdict_measure(const struct rl_result *r);

/* Writes one CSV field, quoted when it holds a comma, a quote or a newline. */
void rl_csv_field(FILE *out, const char *value);

/* value as a JSON string, quotes included (\", \\ and control bytes escaped). */
void rl_json_string(FILE *out, const char *value);

void rl_result_csv_header(FILE *out);
void rl_result_csv_row(FILE *out, const struct rl_result *r, const struct rl_context *ctx);

/* JSON: call begin, then row for each (it writes the separators), then end. */
void rl_result_json_begin(FILE *out);
void rl_result_json_row(FILE *out, const struct rl_result *r, const struct rl_context *ctx,
                        bool first);
void rl_result_json_end(FILE *out);

/* A key name kept for the rest of the process (freed at exit), so a result
 * row can name its worst key whole however long it is: rows are copied by
 * value and outlive the log the name came from. NULL when memory runs out. */
const char *rl_result_key(const char *name);

#endif
