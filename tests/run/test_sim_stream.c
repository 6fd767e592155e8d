/* test_sim_stream.c — `sim` streams (issue 27): a streamed run (generator →
 * limiter → checker, nothing held) gives the row the held run gives, on
 * every generator, several algorithms and key expiries, from a workload and
 * from a trace in memory; and its peak memory does not grow with the number
 * of attempts (peak RSS of forked children, not a timing). */
#include "harness/run/measure.h"
#include "tests/support/test_util.h"
#include "workloads/generators.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000ull

static struct rl_workload_params workload(const char *name, uint32_t keys, uint64_t seed)
{
    struct rl_workload_params w;
    rl_workload_defaults(&w, 20, 100 * MS);
    w.name = name;
    w.duration_ns = 1500 * MS;
    w.keys = keys;
    w.seed = seed;
    w.rate_per_s = 5000; /* onoff's 30%: still more than one batch */
    w.cost_max = 3;      /* costs drawn too: their stream must match */
    if (keys > 3)
        w.key_dist = RL_KEYS_ZIPF;
    if (strcmp(name, "idle_burst") == 0)
        w.burst_size = 3000; /* one burst 1 µs apart: more than one batch */
    return w;
}

/* Every field the row takes from the run and the check. */
static void expect_same_row(const struct rl_result *held, const struct rl_result *streamed,
                            const char *what)
{
    EXPECT(held->attempts == streamed->attempts && held->admits == streamed->admits &&
               held->rejects == streamed->rejects && held->errors == streamed->errors,
           "%s: counts differ (%llu/%llu admits of %llu/%llu)", what,
           (unsigned long long)held->admits, (unsigned long long)streamed->admits,
           (unsigned long long)held->attempts, (unsigned long long)streamed->attempts);
    EXPECT(memcmp(&held->m, &streamed->m, sizeof held->m) == 0, "%s: metrics differ", what);
    EXPECT(strcmp(held->worst_key, streamed->worst_key) == 0, "%s: worst key %s vs %s", what,
           held->worst_key, streamed->worst_key);
    EXPECT(held->duration_ns == streamed->duration_ns && held->keys == streamed->keys &&
               held->complete == streamed->complete && held->checked == streamed->checked &&
               held->clock_reads_per_op == streamed->clock_reads_per_op,
           "%s: row fields differ", what);
}

static void test_equals_held(void)
{
    const char *algos[] = {"tb_cas", "gcra_cas", "sliding_log", "fw_expiry", "concurrency"};
    const enum rl_keyed_expiry expiries[] = {RL_EXPIRE_NEVER, RL_EXPIRE_LAZY, RL_EXPIRE_SWEEPER};
    for (size_t g = 0; rl_workload_names[g]; g++)
        for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
            const struct rl_algo *algo = rl_registry_find(algos[a]);
            EXPECT_FATAL(algo != NULL, "%s is registered", algos[a]);
            struct rl_workload_params w = workload(rl_workload_names[g], 1 + (uint32_t)a * 3, g);
            struct rl_config cfg = {.limit = 20, .interval_ns = 100 * MS, .burst = 20};
            struct rl_sim_options opt = {.expiry = expiries[a % 3]};
            EXPECT_FATAL(rl_sim_can_stream(algo, &opt), "%s streams", algos[a]);
            char err[256], what[96];
            snprintf(what, sizeof what, "%s on %s", algos[a], w.name);
            struct rl_trace trace;
            EXPECT_FATAL(rl_workload_generate(&w, &trace, err, sizeof err) == 0, "%s", err);
            struct rl_result held, from_workload, from_trace;
            EXPECT_FATAL(rl_measure_sim(algo, &cfg, &opt, &trace, w.name, w.seed, &held, NULL, err,
                                        sizeof err) == 0,
                         "%s", err);
            EXPECT_FATAL(rl_measure_sim_stream(algo, &cfg, &opt, &w, NULL, w.name, w.seed,
                                               &from_workload, err, sizeof err) == 0,
                         "%s", err);
            EXPECT_FATAL(rl_measure_sim_stream(algo, &cfg, &opt, &w, &trace, w.name, w.seed,
                                               &from_trace, err, sizeof err) == 0,
                         "%s", err);
            EXPECT(held.attempts > RL_STREAM_BATCH || g == 3, "%s: %llu attempts span batches",
                   what, (unsigned long long)held.attempts);
            expect_same_row(&held, &from_workload, what);
            expect_same_row(&held, &from_trace, what);
            rl_trace_free(&trace);
        }
}

/* The peak RSS (KiB) of a child that streams rate × 1 s of poisson
 * attempts over 100 keys through tb_cas, as the command does. */
static long child_peak_kib(double rate)
{
    pid_t pid = fork();
    EXPECT_FATAL(pid >= 0, "fork");
    if (pid == 0) {
        struct rl_workload_params w = workload("poisson", 100, 1);
        w.duration_ns = 1000 * MS;
        w.rate_per_s = rate;
        struct rl_config cfg = {.limit = 50, .interval_ns = 100 * MS, .burst = 50};
        struct rl_sim_options opt = {.expiry = RL_EXPIRE_NEVER};
        struct rl_result r;
        char err[256];
        int rc = rl_measure_sim_stream(rl_registry_find("tb_cas"), &cfg, &opt, &w, NULL, "poisson",
                                       1, &r, err, sizeof err);
        _exit(rc == 0 && r.attempts > rate / 2 ? 0 : 1);
    }
    int status;
    struct rusage usage;
    EXPECT_FATAL(wait4(pid, &status, 0, &usage) == pid, "wait4");
    EXPECT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the streamed child ran");
    return usage.ru_maxrss;
}

/* 2·10^6 attempts against 2·10^5: a held run would need about 60 bytes an
 * attempt more (the trace, the log, the checker's copy: > 100 MB); a
 * streamed one holds one batch, so its peak stays within a few MiB. */
static void test_memory_flat(void)
{
    long small = child_peak_kib(2e5), large = child_peak_kib(2e6);
    EXPECT(large - small < 8 * 1024,
           "peak RSS grew by %ld KiB from 2e5 to 2e6 attempts (%ld -> %ld KiB)", large - small,
           small, large);
}

RL_TEST_SUITE("sim_stream", {"equals_held", test_equals_held}, {"memory_flat", test_memory_flat});
