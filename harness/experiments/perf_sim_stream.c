/* perf_sim_stream.c — the sim_stream goal of the perf suite (issue 27,
 * docs/performance.md): `sim` streams generator → limiter → checker
 * without holding the attempts.
 *
 * Memory: the issue's command (tb_cas, Poisson at 10^7 attempts a second
 * over 1000 keys, L = 50 per 100 ms) run as a child for 1 s (10^7
 * attempts) and 10 s (10^8); peak RSS at 10^8 ÷ at 10^7, goal ≤ 1.25
 * (median over the repetitions). Then once 100 s (10^9 attempts): peak
 * RSS ÷ 1 GB, goal ≤ 1.
 *
 * Speed, in this process on one core (sim is one thread): the same
 * workload for 1 s (10^7 attempts) through the whole pipeline (every
 * metric, the oracles included), decisions a second ÷ 10^7, goal ≥ 1.
 * Beside it, reported, each stage's floor as the pipeline's rate ÷ the
 * rate without what follows it: the generator alone (a sink that only
 * counts), generator + limiter (no checker); the limiter's and the
 * checker's own cost are the differences, in the detail. Each run's rate
 * is the best of the repetitions (the least disturbed by other work). */
#include "harness/report/stats.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_REPS 64
#define RATE     1e7
#define SEC      1000000000ull

static int run_issue_command(const char *ratelab, const char *duration, uint64_t *rss,
                             double *wall_s, char *err, size_t err_len)
{
    char *argv[] = {(char *)ratelab, "sim", "--algo",     "tb_cas",         "--workload", "poisson",
                    "--rate",        "1e7", "--duration", (char *)duration, "--keys",     "1000",
                    "--limit",       "50",  "--interval", "100ms",          NULL};
    return rl_perf_run_child(argv, NULL, wall_s, rss, err, err_len);
}

static double mb(uint64_t bytes)
{
    return (double)bytes / 1e6;
}

static const char command[] =
    "build/ratelab sim --algo tb_cas --workload poisson --rate 1e7 --duration D --keys 1000 "
    "--limit 50 --interval 100ms";

static int memory_rows(const struct rl_perf_options *opts, unsigned reps, struct rl_perf_row *rows,
                       char *err, size_t err_len)
{
    double ratio[MAX_REPS], small_mb[MAX_REPS], large_mb[MAX_REPS];
    for (unsigned i = 0; i < reps; i++) {
        uint64_t small, large;
        double wall;
        if (run_issue_command(opts->ratelab, "1s", &small, &wall, err, err_len) != 0 ||
            run_issue_command(opts->ratelab, "10s", &large, &wall, err, err_len) != 0)
            return -1;
        ratio[i] = (double)large / (double)small;
        small_mb[i] = mb(small);
        large_mb[i] = mb(large);
    }
    struct rl_perf_row *r = &rows[0];
    snprintf(r->goal, sizeof r->goal, "sim_stream peak RSS 1e8 / 1e7 attempts");
    snprintf(r->measured, sizeof r->measured,
             "peak RSS of sim at 10^8 attempts / at 10^7 (--duration 10s / 1s)");
    snprintf(r->floor, sizeof r->floor,
             "the same run ten times shorter: memory flat in the attempts reads 1");
    r->ratio = rl_median(ratio, reps);
    r->at_most = true;
    r->target = 1.25;
    snprintf(r->detail, sizeof r->detail, "%.1f MB vs %.1f MB (medians of %u)",
             rl_median(large_mb, reps), rl_median(small_mb, reps), reps);
    snprintf(r->command, sizeof r->command, "%s (D = 10s, 1s)", command);

    uint64_t huge;
    double wall;
    if (run_issue_command(opts->ratelab, "100s", &huge, &wall, err, err_len) != 0)
        return -1;
    r = &rows[1];
    snprintf(r->goal, sizeof r->goal, "sim_stream peak RSS 1e9 attempts / 1 GB");
    snprintf(r->measured, sizeof r->measured, "peak RSS of sim at 10^9 attempts (--duration 100s)");
    snprintf(r->floor, sizeof r->floor, "1 GB, the issue's bound");
    r->ratio = (double)huge / 1e9;
    r->at_most = true;
    r->target = 1.0;
    snprintf(r->detail, sizeof r->detail, "%.1f MB in %.1f s (%.1f M decisions/s)", mb(huge), wall,
             1e9 / wall / 1e6);
    snprintf(r->command, sizeof r->command, "%s (D = 100s)", command);
    return 0;
}

/* The sink of the generator-alone floor: counts, and looks at every
 * attempt (a sum) so that none of the generator's work is left unused. */
struct counted {
    uint64_t count, sum;
};

static int count_sink(void *ctx, const struct rl_attempt *batch, size_t len)
{
    struct counted *c = ctx;
    for (size_t i = 0; i < len; i++)
        c->sum += batch[i].t_ns ^ batch[i].key ^ batch[i].n;
    c->count += len;
    return 0;
}

static volatile uint64_t kept_sum;

enum stage { GENERATOR, GENERATOR_LIMITER, PIPELINE };

/* Attempts a second through stage; *attempts the count. */
static int rate_of(enum stage stage, const struct rl_workload_params *w, double *per_s,
                   uint64_t *attempts, char *err, size_t err_len)
{
    const struct rl_algo *algo = rl_registry_find("tb_cas");
    struct rl_config cfg = {.limit = 50, .interval_ns = SEC / 10};
    struct rl_sim_options opt = {.expiry = RL_EXPIRE_NEVER};
    struct rl_check_params check = {.limit = cfg.limit, .interval_ns = cfg.interval_ns};
    uint64_t start = rl_monotonic_ns();
    int rc;
    if (stage == GENERATOR) {
        struct counted counted = {0, 0};
        struct rl_attempt_sink sink = {.take = count_sink, .ctx = &counted};
        rc = rl_workload_stream(w, &sink, err, err_len);
        *attempts = counted.count;
        kept_sum = counted.sum; /* so the compiler keeps the work */
    } else {
        struct rl_sim_streamed out;
        rc = rl_sim_stream(algo, &cfg, &opt, w, NULL, stage == PIPELINE ? &check : NULL, &out, err,
                           err_len);
        *attempts = out.sim.attempts;
        if (rc == 0 && stage == PIPELINE)
            rl_check_result_free(&out.check);
    }
    double s = (double)(rl_monotonic_ns() - start) / 1e9;
    *per_s = (double)*attempts / s;
    return rc;
}

static int speed_rows(unsigned reps, struct rl_perf_row *rows, char *err, size_t err_len)
{
    struct rl_workload_params w;
    rl_workload_defaults(&w, 50, SEC / 10);
    w.name = "poisson";
    w.rate_per_s = RATE;
    w.duration_ns = SEC;
    w.keys = 1000;
    double best[3] = {0, 0, 0};
    uint64_t attempts = 0;
    for (unsigned i = 0; i < reps; i++)
        for (int s = GENERATOR; s <= PIPELINE; s++) {
            double per_s;
            if (rate_of((enum stage)s, &w, &per_s, &attempts, err, err_len) != 0)
                return -1;
            best[s] = fmax(best[s], per_s);
        }
    double pipeline = best[PIPELINE];
    struct rl_perf_row *r = &rows[0];
    snprintf(r->goal, sizeof r->goal, "sim_stream decisions/s / 1e7, one core");
    snprintf(r->measured, sizeof r->measured,
             "decisions a second through generator -> tb_cas -> checker (every metric, the "
             "oracles included), %llu attempts, one thread",
             (unsigned long long)attempts);
    snprintf(r->floor, sizeof r->floor, "10^7 decisions a second, the issue's goal");
    r->ratio = pipeline / 1e7;
    r->target = 1.0;
    snprintf(r->detail, sizeof r->detail, "%.2f M decisions/s (best of %u)", pipeline / 1e6, reps);
    snprintf(r->command, sizeof r->command, "build/ratelab bench --suite perf --goal sim_stream");

    /* ns an attempt in each stage: the differences of the runs */
    double gen_ns = 1e9 / best[GENERATOR], lim_ns = 1e9 / best[GENERATOR_LIMITER] - gen_ns,
           chk_ns = 1e9 / pipeline - 1e9 / best[GENERATOR_LIMITER];
    static const char *const names[] = {"generator alone", "generator + limiter"};
    for (int s = GENERATOR; s <= GENERATOR_LIMITER; s++) {
        r = &rows[1 + s];
        snprintf(r->goal, sizeof r->goal, "sim_stream floor: pipeline / %s", names[s]);
        snprintf(r->measured, sizeof r->measured,
                 "the pipeline's decisions/s / the %s's attempts/s, the same workload", names[s]);
        snprintf(r->floor, sizeof r->floor,
                 s == GENERATOR ? "the Poisson generator with keys and costs, a sink that counts"
                                : "generator and keyed tb_cas, no checker");
        r->ratio = pipeline / best[s];
        r->target = 1.0;
        r->reported = true;
        snprintf(r->detail, sizeof r->detail,
                 "%.2f vs %.2f M/s; ns an attempt: generator %.1f, limiter %.1f, checker %.1f",
                 pipeline / 1e6, best[s] / 1e6, gen_ns, lim_ns, chk_ns);
        snprintf(r->command, sizeof r->command,
                 "build/ratelab bench --suite perf --goal sim_stream");
    }
    return 0;
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    if (cap < 5) {
        snprintf(err, err_len, "no room for its 5 rows");
        return -1;
    }
    unsigned reps = opts->reps < MAX_REPS ? opts->reps : MAX_REPS;
    if (reps == 0)
        reps = 1;
    if (speed_rows(reps, rows, err, err_len) != 0 ||
        memory_rows(opts, reps, rows + 3, err, err_len) != 0)
        return -1;
    return 5;
}

const struct rl_perf_goal rl_perf_sim_stream_goal = {
    "sim_stream",
    "sim streams: peak RSS at 1e8 / 1e7 attempts (<= 1.25), at 1e9 under 1 GB, decisions/s "
    "(>= 1e7 on one core) and the generator's and limiter's floors (reported)",
    measure};
