/* perf_sharded.c — the sharded goal of the perf suite (docs/performance.md):
 * tb_sharded against tb_cas on the admit path at 2 threads, and how close a
 * recorded run of tb_sharded comes to its stated bound.
 *
 * Throughput: both on one shared limiter at a limit no run reaches (as the
 * threads suite's admit path: L = 4e9 per 10 s), so every call admits and
 * tb_cas's one word is written by every call. The runs alternate A B A B
 * (tb_cas, tb_sharded), 200 ms each; each pair gives tb_sharded's Mops/s ÷
 * tb_cas's, and the ratio is the median of the pairs.
 *
 * Accuracy: tb_sharded recorded under overload at the CLI's default limit
 * (L = 1000 per 100 ms, B = L, default k), 2 threads; certain_max_sliding
 * (what promise_held is judged on) ÷ its promised bound B + L + (k − 1)·2
 * (rl_result_promised_bound), the worst of the runs: a bound must hold in
 * every one. */
#include "harness/report/stats.h"
#include "harness/run/measure.h"
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define THREADS     2
#define DURATION_NS 200000000u
#define MAX_REPS    64

static int admit_path_ratio(const struct rl_perf_options *opts, struct rl_perf_row *row, char *err,
                            size_t err_len)
{
    const struct rl_algo *a = rl_registry_find("tb_cas"), *b = rl_registry_find("tb_sharded");
    struct rl_stress_params params = {.cfg = {.limit = 4000000000u, .interval_ns = 10000000000u},
                                      .threads = THREADS,
                                      .duration_ns = DURATION_NS,
                                      .clock = "monotonic"};
    unsigned reps = opts->reps < MAX_REPS ? opts->reps : MAX_REPS;
    double ratio[MAX_REPS], mops_a[MAX_REPS], mops_b[MAX_REPS];
    for (unsigned i = 0; i < reps; i++) {
        struct rl_stress_outcome out;
        params.algo = a;
        if (rl_stress_run(&params, &out, err, err_len) != 0)
            return -1;
        mops_a[i] = out.mops;
        params.algo = b;
        if (rl_stress_run(&params, &out, err, err_len) != 0)
            return -1;
        mops_b[i] = out.mops;
        ratio[i] = mops_b[i] / mops_a[i];
    }
    snprintf(row->goal, sizeof row->goal, "sharded tb_sharded / tb_cas 2 threads admit");
    snprintf(row->measured, sizeof row->measured,
             "tb_sharded Mops/s / tb_cas Mops/s, admit path (L = 4e9 per 10 s), 2 threads, "
             "default k, runs alternated A B A B");
    snprintf(row->floor, sizeof row->floor,
             "tb_cas: the one-word bucket every call writes, in the same run");
    row->ratio = rl_median(ratio, reps);
    row->at_most = false;
    row->target = 1.5;
    snprintf(row->detail, sizeof row->detail, "%.1f Mops/s vs %.1f Mops/s (medians of %u)",
             rl_median(mops_b, reps), rl_median(mops_a, reps), reps);
    snprintf(row->command, sizeof row->command,
             "build/ratelab stress --algo tb_cas,tb_sharded --threads 2 --limit 4000000000 "
             "--interval 10s --duration 200ms --reps %u",
             reps);
    return 0;
}

static int bound_ratio(const struct rl_perf_options *opts, struct rl_perf_row *row, char *err,
                       size_t err_len)
{
    struct rl_stress_params params = {.algo = rl_registry_find("tb_sharded"),
                                      .threads = THREADS,
                                      .duration_ns = DURATION_NS,
                                      .clock = "monotonic",
                                      .record = true};
    params.cfg = (struct rl_config){.limit = 1000, .interval_ns = 100000000u}; /* the CLI's */
    double worst = 0;
    uint64_t worst_sliding = 0, worst_plain = 0, bound = 0;
    for (unsigned i = 0; i < opts->reps; i++) {
        struct rl_result r;
        if (rl_measure_stress(&params, i + 1, &r, NULL, err, err_len) != 0)
            return -1;
        bound = rl_result_promised_bound(&r);
        double ratio = (double)r.m.certain_max_sliding / (double)bound;
        if (ratio >= worst) {
            worst = ratio;
            worst_sliding = r.m.certain_max_sliding;
            worst_plain = r.m.max_sliding;
        }
    }
    snprintf(row->goal, sizeof row->goal, "sharded tb_sharded bound 2 threads recorded");
    snprintf(row->measured, sizeof row->measured,
             "certain_max_sliding / (B + L + (k - 1) * threads), tb_sharded recorded under "
             "overload, 2 threads, the worst of the runs");
    snprintf(row->floor, sizeof row->floor,
             "the stated bound (tb_sharded.c), within the goal's B + L + k * threads");
    row->ratio = worst;
    row->at_most = true;
    row->target = 1.0;
    snprintf(row->detail, sizeof row->detail,
             "%llu admitted in a window (max_sliding from stamps %llu) vs bound %llu (L = %llu, "
             "B = L)",
             (unsigned long long)worst_sliding, (unsigned long long)worst_plain,
             (unsigned long long)bound, (unsigned long long)params.cfg.limit);
    snprintf(row->command, sizeof row->command,
             "build/ratelab stress --algo tb_sharded --threads 2 --record --duration 200ms "
             "--reps %u --format csv (certain_max_sliding)",
             opts->reps);
    return 0;
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < 2) {
        snprintf(err, err_len, "no room for its 2 rows");
        return -1;
    }
    if (admit_path_ratio(opts, &rows[0], err, err_len) != 0 ||
        bound_ratio(opts, &rows[1], err, err_len) != 0)
        return -1;
    return 2;
}

const struct rl_perf_goal rl_perf_sharded_goal = {
    "sharded",
    "tb_sharded / tb_cas Mops/s on the admit path at 2 threads (>= 1.5), and a recorded run's "
    "max_sliding / its bound (<= 1)",
    measure};
