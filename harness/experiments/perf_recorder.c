/* perf_recorder.c — the recorder goal of the perf suite (docs/performance.md): what
 * `stress --record` costs per call on the reject path, against the same
 * run unrecorded.
 *
 * One thread, L = 1000 per 100 ms: the closed loop calls tens of millions
 * of times a second, so all but about 0.03% of calls are rejects, the path
 * an overload run spends its time on. Runs alternate unrecorded, recorded
 * (A B A B), so a slow spell of the shared machine falls on both halves of
 * a pair; the ratio is the median of the pairs' ratios, as stress prints
 * its "recorder overhead". */
#include "harness/report/stats.h"
#include "perf.h"
#include "harness/run/stress.h"

#include <math.h>
#include <stdio.h>

#define RUN_NS   200000000u /* per run: 2 intervals, about 6·10^6 calls */
#define MAX_REPS 64

static const char *const algos[] = {"fw_cas", "tb_cas"};

/* One run's ns per call, and its share of rejects; -1 with err. */
static int one_run(const struct rl_algo *algo, bool record, double *ns_per_call,
                   double *reject_share, char *err, size_t err_len)
{
    struct rl_stress_params params = {
        .algo = algo,
        .cfg = {.limit = 1000, .interval_ns = 100000000u},
        .threads = 1,
        .duration_ns = RUN_NS,
        .clock = "monotonic",
        .record = record,
    };
    struct rl_stress_outcome out;
    if (rl_stress_run(&params, &out, err, err_len) != 0)
        return -1;
    *ns_per_call = out.ns_per_op;
    *reject_share = out.attempts ? (double)out.rejects / (double)out.attempts : 0;
    rl_event_log_free(&out.log);
    return 0;
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    size_t count = sizeof algos / sizeof *algos;
    if (cap < count) {
        snprintf(err, err_len, "room for %zu rows, %zu needed", cap, count);
        return -1;
    }
    unsigned reps = opts->reps < 1 ? 1 : opts->reps > MAX_REPS ? MAX_REPS : opts->reps;
    double plain[2][MAX_REPS], recorded[2][MAX_REPS], ratio[2][MAX_REPS];
    double least_rejects[2] = {1, 1}; /* the smallest share of rejects in any run */
    for (unsigned rep = 0; rep < reps; rep++)
        for (size_t a = 0; a < count; a++) {
            const struct rl_algo *algo = rl_registry_find(algos[a]);
            if (algo == NULL) {
                snprintf(err, err_len, "no algorithm %s", algos[a]);
                return -1;
            }
            double share_plain, share_recorded;
            if (one_run(algo, false, &plain[a][rep], &share_plain, err, err_len) != 0 ||
                one_run(algo, true, &recorded[a][rep], &share_recorded, err, err_len) != 0)
                return -1;
            ratio[a][rep] = plain[a][rep] > 0 ? recorded[a][rep] / plain[a][rep] : NAN;
            least_rejects[a] = fmin(least_rejects[a], fmin(share_plain, share_recorded));
        }
    for (size_t a = 0; a < count; a++) {
        struct rl_perf_row *r = &rows[a];
        *r = (struct rl_perf_row){
            .ratio = rl_median(ratio[a], reps), .at_most = true, .target = 1.25};
        snprintf(r->goal, sizeof r->goal, "recorder %s 1 thread reject", algos[a]);
        snprintf(r->measured, sizeof r->measured,
                 "stress --record ns per call, 1 thread, L=1000 per 100ms (reject path), "
                 "clock monotonic");
        snprintf(r->floor, sizeof r->floor,
                 "the same run unrecorded, alternated with it: the difference is the recorder");
        snprintf(r->detail, sizeof r->detail,
                 "recorded %.1f ns/call, unrecorded %.1f ns/call (medians of %u pairs; "
                 "rejects >= %.2f%%)",
                 rl_median(recorded[a], reps), rl_median(plain[a], reps), reps,
                 100 * least_rejects[a]);
        snprintf(r->command, sizeof r->command,
                 "ratelab stress --algo %s --threads 1 --record --duration 200ms --reps %u "
                 "(its 'recorder overhead' line)",
                 algos[a], reps);
    }
    return (int)count;
}

const struct rl_perf_goal rl_perf_recorder_goal = {
    "recorder", "stress --record ÷ unrecorded ns per call, fw_cas and tb_cas, reject path",
    measure};
