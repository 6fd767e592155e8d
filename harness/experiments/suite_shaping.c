/* suite_shaping.c — the runs of `bench --suite shaping` (suite_shaping.h):
 * the distance rows in sim, the cost rows in stress without the sleep. */
#include "suite_shaping.h"

#include "harness/report/stats.h"
#include "harness/run/sim.h"
#include "harness/run/stress.h"
#include "workloads/generators.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COST_DURATION_NS 100000000u /* 100 ms a repetition */
#define MAX_REPS         64

static const char *const workloads[] = {"uniform",  "poisson", "onoff",
                                        "boundary", "flash",   "idle_burst"};

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put(struct rl_shaping_row *rows, size_t cap, size_t at, struct rl_shaping_row row)
{
    if (at < cap)
        rows[at] = row;
}

size_t rl_shaping_suite_plan(struct rl_shaping_row *rows, size_t cap)
{
    size_t n = 0;
    const struct rl_shaping_row base = {
        .limit = RL_SHAPING_LIMIT, .interval_ns = RL_SHAPING_INTERVAL, .burst = RL_SHAPING_LIMIT};
    for (const struct rl_algo *const *it = rl_registry; *it; it++) {
        const struct rl_algo *a = *it;
        if (a->shape == NULL)
            continue;
        for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
            struct rl_shaping_row r = base;
            r.experiment = "distance";
            r.algo = a->name;
            r.workload = workloads[w];
            put(rows, cap, n++, r);
        }
    }
    /* the cost floor: a bucket's admit path, then every shaper's */
    struct rl_shaping_row floor = base;
    floor.experiment = "cost";
    floor.algo = "tb_cas";
    floor.workload = "";
    put(rows, cap, n++, floor);
    for (const struct rl_algo *const *it = rl_registry; *it; it++) {
        if ((*it)->shape == NULL)
            continue;
        struct rl_shaping_row r = floor;
        r.algo = (*it)->name;
        put(rows, cap, n++, r);
    }
    return n;
}

int rl_shaping_judge_sim(const struct rl_algo *algo, const struct rl_config *cfg,
                         const struct rl_trace *trace, uint64_t judge_burst,
                         struct rl_shape_result *res, char *err, size_t err_len)
{
    return rl_shaping_judge_sim_rates(algo, cfg, trace, judge_burst, NULL, 0, res, err, err_len);
}

int rl_shaping_judge_sim_rates(const struct rl_algo *algo, const struct rl_config *cfg,
                               const struct rl_trace *trace, uint64_t judge_burst,
                               const struct rl_rate_change *rates, size_t rate_count,
                               struct rl_shape_result *res, char *err, size_t err_len)
{
    const struct rl_sim_options options = {
        .expiry = RL_EXPIRE_NEVER, .rates = rates, .rate_count = rate_count};
    struct rl_event_log log = {0};
    struct rl_sim_outcome out;
    if (rl_sim_run_keyed(algo, cfg, &options, trace, &log, &out, err, err_len) != 0)
        return -1;
    struct rl_shaped_log shaped = {.len = log.len, .key_count = log.key_count};
    shaped.events = calloc(log.len ? log.len : 1, sizeof *shaped.events);
    int rc = -1;
    if (shaped.events == NULL || log.release_ns == NULL) {
        snprintf(err, err_len, "%s: no shaped log (out of memory, or not a shaper)", algo->name);
    } else {
        for (size_t i = 0; i < log.len; i++) {
            bool cancelled = log.cancel_ns && log.cancel_ns[i] != RL_NO_RELEASE;
            shaped.events[i] =
                (struct rl_shaped_event){.t_ns = log.events[i].t_ns,
                                         .release_ns = log.release_ns[i],
                                         .cancel_ns = cancelled ? log.cancel_ns[i] : 0,
                                         .key = log.events[i].key,
                                         .n = log.events[i].n,
                                         .admitted = log.events[i].admitted,
                                         .cancelled = cancelled};
        }
        struct rl_shape_params p = {.limit = cfg->limit,
                                    .interval_ns = cfg->interval_ns,
                                    .burst = judge_burst,
                                    .rates = rates,
                                    .rate_count = rate_count};
        rc = rl_shape_check(&shaped, &p, res, err, err_len);
    }
    free(shaped.events);
    rl_event_log_free(&log);
    return rc;
}

static int distance(struct rl_shaping_row *row, char *err, size_t err_len)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, row->limit, row->interval_ns);
    p.name = row->workload;
    rl_workload_name_defaults(&p, row->limit, row->interval_ns);
    p.duration_ns = 10 * row->interval_ns;
    if (strcmp(row->workload, "idle_burst") != 0)
        p.rate_per_s = 2.0 * (double)row->limit * 1e9 / (double)row->interval_ns;
    if (strcmp(row->workload, "boundary") == 0)
        p.burst_size = row->limit;
    struct rl_trace trace;
    if (rl_workload_generate(&p, &trace, err, err_len) != 0)
        return -1;
    /* B = L for every shaper (pacer_uber: slack B − 1; guava_bursty keeps no other) */
    struct rl_config cfg = {.limit = row->limit,
                            .interval_ns = row->interval_ns,
                            .burst = row->burst,
                            .virtual_time = true};
    int rc = rl_shaping_judge_sim(rl_registry_find(row->algo), &cfg, &trace, row->burst,
                                  &row->shape, err, err_len);
    rl_trace_free(&trace);
    return rc;
}

static int cost(struct rl_shaping_row *row, unsigned reps, char *err, size_t err_len)
{
    /* as perf_shaping.c: a limit no run reaches, so every call admits at
     * once and the decision alone is timed */
    struct rl_stress_params params = {.algo = rl_registry_find(row->algo),
                                      .cfg = {.limit = 4000000000u, .interval_ns = 10000000000u},
                                      .threads = 1,
                                      .duration_ns = COST_DURATION_NS,
                                      .clock = "monotonic",
                                      .max_wait_ns = UINT64_MAX,
                                      .shape_without_sleep = true};
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    double ns[MAX_REPS];
    for (unsigned i = 0; i < reps; i++) {
        struct rl_stress_outcome out;
        if (rl_stress_run(&params, &out, err, err_len) != 0)
            return -1;
        ns[i] = out.ns_per_op;
        rl_stress_outcome_free(&out);
    }
    row->reps = reps;
    row->ns_per_decision = rl_median(ns, reps);
    row->ns_min = row->ns_max = ns[0];
    for (unsigned i = 1; i < reps; i++) {
        row->ns_min = ns[i] < row->ns_min ? ns[i] : row->ns_min;
        row->ns_max = ns[i] > row->ns_max ? ns[i] : row->ns_max;
    }
    return 0;
}

int rl_shaping_suite_run(struct rl_shaping_row *row, unsigned reps, char *err, size_t err_len)
{
    if (rl_registry_find(row->algo) == NULL) {
        snprintf(err, err_len, "no algorithm %s", row->algo);
        return -1;
    }
    double began = seconds_now();
    int rc = strcmp(row->experiment, "cost") == 0 ? cost(row, reps ? reps : 1, err, err_len)
                                                  : distance(row, err, err_len);
    row->wall_s = seconds_now() - began;
    return rc;
}
