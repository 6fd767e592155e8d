/* measure.c — run, check, and fill a result row. */
#include "harness/sys/cpus.h"
#include "measure.h"

#include "sim.h"
#include "harness/check/checker.h"
#include "harness/sys/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void set_load(struct rl_result *r, bool has_load, const struct rl_load *load)
{
    r->has_load = has_load;
    r->load_1m = has_load ? load->avg_1m : NAN;
    r->runnable = has_load ? load->runnable : 0;
}

/* A shaper's real-clock run: its timer overshoot (NULL: none). */
static void set_overshoot(struct rl_result *r, const struct rl_histogram *overshoot)
{
    r->has_overshoot = overshoot != NULL;
    if (overshoot == NULL)
        return;
    r->overshoot_p50_ns = rl_histogram_percentile(overshoot, 50);
    r->overshoot_p99_ns = rl_histogram_percentile(overshoot, 99);
    r->overshoot_max_ns = overshoot->total ? overshoot->max : 0;
}

/* Checks log against cfg and copies the metrics and worst key into r. */
static int check_into(struct rl_event_log *log, const struct rl_config *cfg, struct rl_result *r,
                      char *err, size_t err_len)
{
    struct rl_check_params params = {.limit = cfg->limit, .interval_ns = cfg->interval_ns};
    struct rl_check_result check;
    if (rl_check(log, &params, &check, err, err_len) != 0)
        return -1;
    r->checked = true;
    r->complete = check.complete;
    r->m = check.total;
    char generated[16];
    snprintf(generated, sizeof generated, "k%u", check.worst_key);
    r->worst_key = rl_result_key(log->key_names && check.worst_key < log->key_count
                                     ? log->key_names[check.worst_key]
                                     : generated);
    r->uncertainty_ns = log->uncertainty_ns;
    r->dropped = log->dropped;
    rl_check_result_free(&check);
    return 0;
}

/* A shaped log as the checker judges it: each admit at its release (what
 * the limit applies to once the caller has waited), rejects at arrival,
 * a reservation cancelled before its release as a reject (nothing went);
 * the log itself keeps arrivals (rl_check sorts the copy). -1 on ENOMEM. */
static int released_copy(const struct rl_event_log *log, struct rl_event_log *out, char *err,
                         size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->events = malloc((log->len ? log->len : 1) * sizeof *out->events);
    if (out->events == NULL) {
        snprintf(err, err_len, "out of memory for %zu released events", log->len);
        return -1;
    }
    out->len = out->cap = log->len;
    out->key_count = log->key_count;
    out->complete = log->complete;
    for (size_t i = 0; i < log->len; i++) {
        out->events[i] = log->events[i];
        if (log->release_ns[i] != RL_NO_RELEASE)
            out->events[i].t_ns = log->release_ns[i];
        if (log->cancel_ns && log->cancel_ns[i] != RL_NO_RELEASE)
            out->events[i].admitted = 0;
    }
    return 0;
}

/* check_into on the log, or on its released copy when it shaped. */
static int check_shaped_or_not(struct rl_event_log *log, const struct rl_config *cfg,
                               struct rl_result *r, char *err, size_t err_len)
{
    if (log->release_ns == NULL)
        return check_into(log, cfg, r, err, err_len);
    struct rl_event_log released;
    int rc = released_copy(log, &released, err, err_len);
    if (rc == 0) {
        released.key_names = log->key_names; /* borrowed for the worst key's name */
        released.uncertainty_ns = log->uncertainty_ns;
        released.dropped = log->dropped;
        rc = check_into(&released, cfg, r, err, err_len);
        released.key_names = NULL;
        rl_event_log_free(&released);
    }
    return rc;
}

int rl_measure_sim(const struct rl_algo *algo, const struct rl_config *cfg,
                   const struct rl_sim_options *options, const struct rl_trace *trace,
                   const char *workload, uint64_t seed, struct rl_result *r,
                   struct rl_event_log *log_out, char *err, size_t err_len)
{
    struct rl_event_log log;
    struct rl_sim_outcome sim;
    int ran = rl_sim_run_keyed(algo, cfg, options, trace, &log, &sim, err, err_len);
    if (ran != 0)
        return ran;
    memset(r, 0, sizeof *r);
    r->algo = algo;
    r->mode = "sim";
    r->workload = workload;
    r->clock = "virtual";
    r->threads = 1;
    r->cpus = (unsigned)rl_cpu_count();
    r->rep = 1; /* one run: repetition 1, as in every mode (result.h) */
    r->cfg = *cfg;
    r->keys = trace->key_count;
    r->seed = seed;
    r->attempts = sim.attempts;
    r->admits = sim.admits;
    r->rejects = sim.rejects;
    r->errors = sim.errors;
    r->duration_ns = 0; /* the latest time: an --unsorted trace may end earlier */
    for (size_t i = 0; i < trace->len; i++)
        if (trace->attempts[i].t_ns > r->duration_ns)
            r->duration_ns = trace->attempts[i].t_ns;
    r->ns_per_op = r->mops = r->ratio_faa = r->ratio_noop = NAN; /* sim: accuracy, not speed */
    r->bytes_per_key = NAN;
    r->clock_reads_per_op = sim.attempts ? (double)sim.clock_reads / (double)sim.attempts : NAN;
    int rc = check_shaped_or_not(&log, cfg, r, err, err_len);
    if (log_out)
        *log_out = log;
    else
        rl_event_log_free(&log);
    return rc;
}

int rl_measure_stress(const struct rl_stress_params *p, unsigned rep, struct rl_result *r,
                      struct rl_event_log *log, char *err, size_t err_len)
{
    struct rl_stress_outcome run;
    struct rl_load load;
    bool has_load = rl_load_read(&load); /* at the run's start */
    if (rl_stress_run(p, &run, err, err_len) != 0)
        return -1;
    memset(r, 0, sizeof *r);
    set_load(r, has_load, &load);
    r->algo = p->algo;
    r->mode = "stress";
    r->workload = "closed_loop";
    r->clock = p->clock;
    r->threads = p->threads;
    r->cpus = (unsigned)rl_cpu_count();
    r->rep = rep;
    r->cfg = p->cfg;
    r->keys = p->keys > 1 ? p->keys : 1;
    r->attempts = run.attempts;
    r->admits = run.admits;
    r->rejects = run.rejects;
    r->errors = run.errors;
    r->duration_ns = run.wall_ns;
    r->ns_per_op = run.ns_per_op;
    r->mops = run.mops;
    r->ratio_faa = r->ratio_noop = NAN;
    r->clock_reads_per_op = run.attempts ? (double)run.clock_reads / (double)run.attempts : NAN;
    r->has_in_flight = p->algo->flags & RL_NEEDS_RELEASE;
    r->keys_live = run.keyed.live_keys;
    r->bytes_per_key = p->keys > 1 && run.bytes_per_key > 0 ? run.bytes_per_key : NAN;
    r->max_in_flight = run.max_in_flight;
    r->hold_ns = p->hold_ns;
    set_overshoot(r, run.shaped ? &run.overshoot : NULL);
    r->cancels = run.cancels;
    if (run.interrupted) {
        rl_stress_outcome_free(&run);
        snprintf(err, err_len, "interrupted");
        return -1;
    }
    int rc = 0;
    if (p->record) {
        rc = check_shaped_or_not(&run.log, &p->cfg, r, err, err_len);
        if (rc == 0 && log) { /* the caller frees it now */
            *log = run.log;
            memset(&run.log, 0, sizeof run.log);
        }
    }
    rl_stress_outcome_free(&run);
    return rc;
}

int rl_measure_replay(const struct rl_replay_params *p, const char *workload, uint64_t seed,
                      unsigned rep, struct rl_result *r, struct rl_latency_cdf *cdf,
                      struct rl_event_log *log, char *err, size_t err_len)
{
    struct rl_replay_outcome run;
    struct rl_load load;
    bool has_load = rl_load_read(&load); /* at the run's start */
    if (rl_replay_run(p, &run, err, err_len) != 0)
        return -1;
    memset(r, 0, sizeof *r);
    set_load(r, has_load, &load);
    r->algo = p->algo;
    r->mode = "replay";
    r->workload = workload;
    r->clock = p->clock;
    r->threads = p->threads;
    r->cpus = (unsigned)rl_cpu_count();
    r->rep = rep;
    r->cfg = p->cfg;
    r->keys = p->trace->key_count;
    r->seed = seed;
    r->attempts = run.attempts;
    r->admits = run.admits;
    r->rejects = run.rejects;
    r->errors = run.errors;
    r->duration_ns = run.wall_ns;
    /* open loop: the time for one call is the service time; mops is the
     * rate achieved, which is the trace's when the threads keep up */
    r->ns_per_op = run.attempts ? rl_histogram_mean(&run.service) : NAN;
    r->mops = run.wall_ns ? (double)run.attempts * 1e3 / (double)run.wall_ns : NAN;
    r->ratio_faa = r->ratio_noop = NAN;
    r->clock_reads_per_op = run.attempts ? (double)run.clock_reads / (double)run.attempts : NAN;
    r->has_latency = true;
    r->speed = p->speed == 0 ? 1.0 : p->speed;
    r->lat_p50_ns = rl_histogram_percentile(&run.latency, 50);
    r->lat_p90_ns = rl_histogram_percentile(&run.latency, 90);
    r->lat_p99_ns = rl_histogram_percentile(&run.latency, 99);
    r->lat_p999_ns = rl_histogram_percentile(&run.latency, 99.9);
    r->lat_max_ns = run.latency.max;
    r->late_p50_ns = rl_histogram_percentile(&run.lateness, 50);
    r->late_p99_ns = rl_histogram_percentile(&run.lateness, 99);
    r->late_max_ns = run.lateness.max;
    r->svc_p50_ns = rl_histogram_percentile(&run.service, 50);
    r->svc_p99_ns = rl_histogram_percentile(&run.service, 99);
    if (cdf)
        rl_latency_cdf_from(cdf, &run.latency);
    set_overshoot(r, run.shaped ? &run.overshoot : NULL);
    r->cancels_missed = run.cancels_missed;
    int rc = 0;
    if (run.interrupted) {
        snprintf(err, err_len, "interrupted");
        rc = -1;
    } else {
        rc = check_shaped_or_not(&run.log, &p->cfg, r, err, err_len);
    }
    if (rc == 0 && log) { /* the caller frees it now */
        *log = run.log;
        memset(&run.log, 0, sizeof run.log);
    }
    rl_replay_outcome_free(&run);
    return rc;
}

/* r's ns_per_op ÷ that of the `floor` row run alongside it; NAN if none. */
static double ratio_to(const struct rl_result *r, const struct rl_result *rows, size_t count,
                       const char *floor)
{
    for (size_t j = 0; j < count; j++) {
        const struct rl_result *f = &rows[j];
        if (strcmp(f->algo->name, floor) == 0 && strcmp(f->mode, "stress") == 0 &&
            f->threads == r->threads && f->rep == r->rep && strcmp(f->clock, r->clock) == 0 &&
            f->checked == r->checked && f->ns_per_op > 0)
            return r->ns_per_op / f->ns_per_op;
    }
    return NAN;
}

void rl_results_fill_ratio_faa(struct rl_result *rows, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        struct rl_result *r = &rows[i];
        if (strcmp(r->mode, "stress") != 0)
            continue;
        r->ratio_faa = ratio_to(r, rows, count, "faa");
        r->ratio_noop = r->algo->flags & RL_REMOTE ? ratio_to(r, rows, count, "redis_noop") : NAN;
    }
}
