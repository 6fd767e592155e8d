/* suites.c — the suites `ratelab bench --suite NAME` knows (see suites.h).
 * A suite says what to measure; cmd_bench.c runs it, writes the CSV and
 * prints the tables. Durations are short and repetitions interleaved: the
 * machines this runs on are shared and noisy. */
#include "harness/sys/cpus.h"
#include "suites.h"

#include "workloads/generators.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_ALGOS 128

static const char *const every_workload[] = {"uniform",  "poisson", "onoff",
                                             "boundary", "flash",   NULL};

/* Algorithms of algos that pass keep(), faa first (every stress row gets its
 * floor from the same run), into out; returns how many. */
static size_t pick(const struct rl_algo **algos, size_t count, bool (*keep)(const struct rl_algo *),
                   const struct rl_algo **out)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (strcmp(algos[i]->name, "faa") == 0)
            out[n++] = algos[i];
    for (size_t i = 0; i < count && n < MAX_ALGOS; i++)
        if (strcmp(algos[i]->name, "faa") != 0 && keep(algos[i]))
            out[n++] = algos[i];
    return n;
}

static bool thread_safe(const struct rl_algo *a)
{
    return a->flags & RL_THREAD_SAFE;
}

static bool local_thread_safe(const struct rl_algo *a)
{
    return (a->flags & RL_THREAD_SAFE) && !(a->flags & RL_REMOTE);
}

static bool remote(const struct rl_algo *a)
{
    return a->flags & RL_REMOTE;
}

static bool named(const struct rl_algo *a, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(a->name, *names) == 0)
            return true;
    return false;
}

/* The memory-order family: the article's steps and the buckets at each order. */
static bool memory_order_family(const struct rl_algo *a)
{
    static const char *const names[] = {
        "clock_faa", "fw_atomic_naive", "fw_cas_nofirst", "fw_cas",         "fw_cas_acqrel",
        "fw_mutex",  "tb_mutex",        "tb_cas",         "tb_cas_relaxed", "gcra_cas",
        NULL};
    return named(a, names);
}

/* One of each design, for sweeps over a second variable (clock, keys). */
static bool representatives(const struct rl_algo *a)
{
    static const char *const names[] = {"clock_faa", "fw_cas",      "fw_aligned",
                                        "tb_cas",    "sliding_log", NULL};
    return named(a, names);
}

static struct rl_stress_plan base_plan(const struct rl_algo **algos, size_t count,
                                       const uint64_t *threads, size_t thread_count, unsigned reps,
                                       const struct rl_config *cfg)
{
    return (struct rl_stress_plan){
        .algos = algos,
        .algo_count = count,
        .threads = threads,
        .thread_count = thread_count,
        .reps = reps,
        .run = {.duration_ns = 200000000u, .clock = "monotonic", .cfg = *cfg}};
}

/* ---- the suites ------------------------------------------------------------ */

/* Recorded in quick: the algorithms whose admits something bounds, so that
 * the recorder's buffer can be sized up front and every verdict is judged
 * on every admit: a rate promise (at most 2L per I, B + L for a bucket,
 * about L for the approximations) or, for the Redis ones and their floor
 * redis_noop, the server's round trip. */
static bool quick_recorded(const struct rl_algo *a)
{
    return thread_safe(a) &&
           (remote(a) || (a->promise != RL_PROMISE_NONE && a->promise != RL_PROMISE_CONCURRENCY));
}

/* The rest run unrecorded: `null` admits every call and `concurrency`
 * every call a free permit allows, millions a second that no buffer sized
 * up front holds; neither verdict reads the log (nothing promised; the
 * harness's max_in_flight). */
static bool quick_unrecorded(const struct rl_algo *a)
{
    return thread_safe(a) && !quick_recorded(a);
}

/* Admits a recorded quick run keeps per thread: twice what a rate promise
 * allows over the run (as stress sizes it), and at least 2^20, more than
 * a Redis round trip of a microsecond allows in 200 ms (redis_noop admits
 * every call). Touched only as used. */
static size_t quick_capacity(const struct rl_config *cfg, uint64_t duration_ns)
{
    double windows = (double)duration_ns / (double)cfg->interval_ns + 2.0;
    double wanted = 2.0 * (double)cfg->limit * windows + 4096.0, least = (double)(1u << 20);
    return (size_t)(wanted > least ? wanted : least);
}

static void plan_quick(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                       unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *recorded[MAX_ALGOS], *unrecorded[MAX_ALGOS];
    static const uint64_t threads[] = {1, 2};
    run->sim_algos = algos;
    run->sim_count = count;
    run->sim_workloads = every_workload;
    run->sim_remote_workload = "boundary";
    size_t n = pick(algos, count, quick_recorded, recorded);
    run->plans[0] = base_plan(recorded, n, threads, 2, reps, cfg);
    run->plans[0].run.record = true;
    run->plans[0].run.record_capacity = quick_capacity(cfg, run->plans[0].run.duration_ns);
    run->plan_labels[0] = "closed loop, 200 ms a run, each paired with a recorded run";
    run->plan_count = 1;
    n = pick(algos, count, quick_unrecorded, unrecorded);
    if (n > 1) { /* more than faa, the floor every plan starts with */
        run->plans[1] = base_plan(unrecorded, n, threads, 2, reps, cfg);
        run->plan_labels[1] = "closed loop, 200 ms a run, not recorded: admits nothing bounds "
                              "(null, concurrency)";
        run->plan_count = 2;
    }
}

static void plan_threads(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                         unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *safe[MAX_ALGOS];
    static uint64_t threads[16];
    /* 1, 2, 4, 8, and on up to twice the cores */
    uint64_t most = 2 * (uint64_t)rl_cpu_count();
    size_t thread_count = 0;
    for (uint64_t t = 1; thread_count < 16 && (t <= 8 || t <= most); t *= 2)
        threads[thread_count++] = t;
    size_t n = pick(algos, count, local_thread_safe, safe);
    run->plans[0] = base_plan(safe, n, threads, thread_count, reps, cfg);
    run->plan_labels[0] = "overload (L = 1000 per 100 ms), 200 ms a run: mostly the reject path";
    /* A limit no run reaches: every call takes the admit path, and every
     * reject is a false one (fw_trylock's contended lock). */
    struct rl_config admit = *cfg;
    admit.limit = 4000000000u;
    admit.interval_ns = 10000000000u;
    run->plans[1] = base_plan(safe, n, threads, thread_count, reps, &admit);
    run->plan_labels[1] = "admit path (L = 4e9 per 10 s: never reached), 200 ms a run";
    run->plan_count = 2;
}

static void plan_memory_order(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                              unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *family[MAX_ALGOS];
    static const uint64_t threads[] = {1, 2, 4};
    size_t n = pick(algos, count, memory_order_family, family);
    run->plans[0] = base_plan(family, n, threads, 3, reps, cfg);
    run->plans[0].run.record = true;
    run->plan_labels[0] = "overload (L = 1000 per 100 ms): mostly the reject path";
    /* A limit no run reaches: every call takes the admit path. */
    struct rl_config admit = *cfg;
    admit.limit = 4000000000u;
    admit.interval_ns = 10000000000u;
    run->plans[1] = base_plan(family, n, threads, 3, reps, &admit);
    run->plan_labels[1] = "admit path (L = 4e9 per 10 s: never reached)";
    run->plan_count = 2;
}

static void plan_clocks(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                        unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *reps_algos[MAX_ALGOS];
    static const uint64_t threads[] = {1, 2};
    static const char *const clocks[] = {"monotonic", "coarse", "tsc", "cached"};
    static const char *const labels[] = {"monotonic", "coarse", "tsc",
                                         "cached (published every 100 us)"};
    size_t n = pick(algos, count, representatives, reps_algos);
    for (size_t c = 0; c < 4; c++) {
        run->plans[c] = base_plan(reps_algos, n, threads, 2, reps, cfg);
        run->plans[c].run.clock = clocks[c];
        run->plans[c].run.record = true;
        run->plan_labels[c] = labels[c];
    }
    run->plan_count = 4;
}

/* Limiters that promise a rate, so an accuracy can be read from them. */
static bool local_rate_limiter(const struct rl_algo *a)
{
    return local_thread_safe(a) && a->promise != RL_PROMISE_NONE &&
           a->promise != RL_PROMISE_CONCURRENCY;
}

/* Every in-process algorithm on every clock: the cost of a decision
 * (closed loop, 1 thread, overload: one clock read and the reject path,
 * no contention) and, on the boundary workload replayed by 2 threads on the
 * same clock, the accuracy and utilization it buys. Cost at 1 thread keeps
 * contention out of the price (the threads suite measures it); accuracy at
 * 2, so that races can show. */
static void plan_pareto(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                        unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *costed[MAX_ALGOS], *judged[MAX_ALGOS];
    static const uint64_t one_thread[] = {1};
    static const char *const boundary[] = {"boundary", NULL};
    static const char *const clocks[] = {"monotonic", "coarse", "tsc", "cached", NULL};
    size_t n = pick(algos, count, local_rate_limiter, judged);
    run->replay_algos = judged + 1; /* pick() puts faa first: it promises nothing */
    run->replay_count = n ? n - 1 : 0;
    run->replay_workloads = boundary;
    run->replay_threads = 2;
    run->replay_clocks = clocks;
    n = pick(algos, count, local_thread_safe, costed);
    for (size_t c = 0; c < 4; c++) {
        run->plans[c] = base_plan(costed, n, one_thread, 1, reps, cfg);
        run->plans[c].run.duration_ns = 100000000u;
        run->plans[c].run.clock = clocks[c];
        run->plan_labels[c] = clocks[c];
    }
    run->plan_count = 4;
}

static void plan_keys(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                      unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *reps_algos[MAX_ALGOS];
    static const uint64_t threads[] = {1, 2};
    static const uint32_t key_counts[] = {1000, 10000, 100000, 1000000};
    static const char *const labels[] = {"1000 keys", "10000 keys", "100000 keys", "1000000 keys"};
    size_t n = pick(algos, count, representatives, reps_algos);
    for (size_t k = 0; k < 4; k++) {
        run->plans[k] = base_plan(reps_algos, n, threads, 2, reps, cfg);
        run->plans[k].run.keys = key_counts[k];
        run->plan_labels[k] = labels[k];
    }
    run->plan_count = 4;
}

static void plan_redis(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                       unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *remote_algos[MAX_ALGOS];
    static const uint64_t threads[] = {1, 10, 100};
    size_t n = pick(algos, count, remote, remote_algos);
    run->sim_algos = remote_algos + 1; /* not faa */
    run->sim_count = n ? n - 1 : 0;
    run->sim_workloads = every_workload;
    run->sim_remote_workload = "boundary";
    run->plans[0] = base_plan(remote_algos, n, threads, 3, reps, cfg);
    run->plans[0].run.duration_ns = 500000000u;
    run->plans[0].run.record = true;
    run->plan_labels[0] = "closed loop, 500 ms a run, each paired with a recorded run";
    run->plan_count = n > 1 ? 1 : 0;
}

/* ---- the cluster suites: private clusters of their own ---------------- */

static struct rl_redis_cluster suite_cluster; /* stopped at exit (redis_cluster.c) */

static bool remote_limiter(const struct rl_algo *a)
{
    return (a->flags & RL_REMOTE) != 0;
}

/* Each Redis limiter and redis_noop at 10 client threads on 1, 3 and 6
 * primaries (one replica each), over 1000 keys and on one hot key; after
 * each shape, redis-benchmark --cluster's floor. Not recorded: speed. */
static void plan_cluster(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                         unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *remote_algos[MAX_ALGOS];
    static const uint64_t threads[] = {10};
    static const unsigned shapes[] = {1, 3, 6};
    static const char *const labels[] = {
        "1 primary x 1 replica, 1000 keys",   "1 primary x 1 replica, one hot key",
        "3 primaries x 1 replica, 1000 keys", "3 primaries x 1 replica, one hot key",
        "6 primaries x 1 replica, 1000 keys", "6 primaries x 1 replica, one hot key"};
    static char note[160];
    size_t n = pick(algos, count, remote_limiter, remote_algos);
    run->plan_count = 0;
    for (size_t s = 0; s < 3 && n > 0; s++)
        for (int hot = 0; hot <= 1; hot++) {
            size_t k = run->plan_count++;
            run->plans[k] = base_plan(remote_algos, n, threads, 1, reps, cfg);
            run->plans[k].run.duration_ns = 500000000u;
            run->plans[k].run.keys = hot ? 1 : 1000;
            run->plans[k].cluster = &suite_cluster;
            run->plans[k].cluster_primaries = shapes[s];
            run->plans[k].cluster_replicas = 1;
            run->plan_labels[k] = labels[k];
            run->plan_floor[k] = hot;
        }
    unsigned cpus = (unsigned)rl_cpu_count();
    if (cpus <= 2)
        snprintf(note, sizeof note,
                 "%u CPUs: every node, the clients and ratelab share them, so more primaries "
                 "cannot add throughput here (measured anyway)",
                 cpus);
    run->note = cpus <= 2 ? note : NULL;
}

/* Each fault for redis_fixed_window, redis_token_bucket and redis_gcra on
 * a fresh 3x1 cluster per run, 2 threads on one key, L = 2000 per 20 s
 * (longer than an outage, so a window or bucket a lost write set back is
 * still open when the cluster serves again), recorded. */
static void plan_cluster_faults(struct rl_suite_run *run, const struct rl_algo **algos,
                                size_t count, unsigned reps, const struct rl_config *cfg)
{
    static const char *const names[] = {"redis_fixed_window", "redis_token_bucket", "redis_gcra",
                                        NULL};
    static const struct {
        const char *spec, *label;
        uint64_t duration_ns;
    } kinds[] = {
        {"failover@300ms", "failover@300ms (manual CLUSTER FAILOVER), 2 s runs", 2000000000u},
        {"reshard@300ms", "reshard@300ms (half the key's primary's slots move), 2 s runs",
         2000000000u},
        {"kill-primary@300ms", "kill-primary@300ms, 5 s runs", 5000000000u},
        {"stall-replica@0ms,kill-primary@1s",
         "stall-replica@0ms,kill-primary@1s (the replica elected without the writes since its "
         "stall), 6 s runs",
         6000000000u},
    };
    static const struct rl_algo *chosen[MAX_ALGOS];
    static const uint64_t threads[] = {2};
    static struct rl_faults faults[4];
    struct rl_config fault_cfg = *cfg;
    fault_cfg.limit = 2000;
    fault_cfg.interval_ns = 20000000000ull;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (named(algos[i], names))
            chosen[n++] = algos[i];
    run->plan_count = 0;
    for (size_t k = 0; k < 4 && n > 0; k++) {
        char err[256];
        if (rl_faults_parse(kinds[k].spec, NULL, &faults[k], err, sizeof err) != 0)
            continue; /* the specs above are fixed: cannot happen */
        size_t p = run->plan_count++;
        run->plans[p] = base_plan(chosen, n, threads, 1, reps, &fault_cfg);
        run->plans[p].run.duration_ns = kinds[k].duration_ns;
        run->plans[p].run.record = true;
        run->plans[p].faults = &faults[k];
        run->plans[p].cluster = &suite_cluster;
        run->plans[p].cluster_primaries = 3;
        run->plans[p].cluster_replicas = 1;
        run->plan_labels[p] = kinds[k].label;
    }
}

static bool accuracy_representatives(const struct rl_algo *a)
{
    static const char *const names[] = {"fw_cas",      "fw_aligned",      "tb_cas", "gcra_cas",
                                        "sliding_log", "sliding_counter", "wheel",  NULL};
    return named(a, names);
}

static void plan_accuracy(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                          unsigned reps, const struct rl_config *cfg)
{
    (void)reps, (void)cfg;
    static const struct rl_algo *chosen[MAX_ALGOS];
    static const char *const bursts[] = {"onoff", "boundary", "flash", NULL};
    run->sim_algos = algos;
    run->sim_count = count;
    run->sim_workloads = every_workload;
    run->sim_remote_workload = "boundary";
    size_t n = pick(algos, count, accuracy_representatives, chosen);
    run->replay_algos = chosen + 1; /* pick() puts faa first: not needed here */
    run->replay_count = n ? n - 1 : 0;
    run->replay_workloads = bursts;
    run->replay_threads = 2;
}

static bool sharded_and_reference(const struct rl_algo *a)
{
    static const char *const names[] = {"tb_cas", "tb_sharded", NULL};
    return named(a, names);
}

/* tb_sharded's batch k (S) swept: for each k, the admit path (a limit never
 * reached: what a batch buys) and a recorded overload run at the suite's
 * limit (what it costs in accuracy), at 2 threads, tb_cas and faa beside it. */
static void plan_sharded(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                         unsigned reps, const struct rl_config *cfg)
{
    static const struct rl_algo *chosen[MAX_ALGOS];
    static const uint64_t threads[] = {2};
    static const uint32_t batches[] = {1, 2, 4, 8, 16, 32, 64, 128};
    static char labels[2 * 8][80];
    size_t n = pick(algos, count, sharded_and_reference, chosen);
    run->plan_count = 0;
    for (size_t b = 0; b < 8; b++) {
        struct rl_config admit = *cfg;
        admit.limit = 4000000000u;
        admit.interval_ns = 10000000000u;
        admit.slots = batches[b];
        struct rl_stress_plan *p = &run->plans[run->plan_count];
        *p = base_plan(chosen, n, threads, 1, reps, &admit);
        snprintf(labels[run->plan_count], sizeof labels[0],
                 "k = %u, admit path (L = 4e9 per 10 s: never reached)", batches[b]);
        run->plan_labels[run->plan_count] = labels[run->plan_count];
        run->plan_count++;
        struct rl_config overload = *cfg;
        overload.slots = batches[b];
        p = &run->plans[run->plan_count];
        *p = base_plan(chosen, n, threads, 1, reps, &overload);
        p->run.record = true;
        snprintf(labels[run->plan_count], sizeof labels[0],
                 "k = %u, overload at the suite's limit, recorded", batches[b]);
        run->plan_labels[run->plan_count] = labels[run->plan_count];
        run->plan_count++;
    }
}

static const struct rl_suite quick = {
    "quick",
    "every algorithm in sim on every workload (Redis: boundary), every thread-safe one in "
    "stress at 1 and 2 threads, recorded but for null and concurrency, whose admits nothing "
    "bounds (about 1.5 min)",
    plan_quick};
static const struct rl_suite threads = {
    "threads",
    "every thread-safe in-process algorithm at 1, 2, 4, 8 threads (up to 2x cores), on the "
    "reject path (overload) and the admit path (a limit never reached)",
    plan_threads};
static const struct rl_suite memory_order = {
    "memory-order",
    "the article's steps and the buckets at each memory order, on the reject and admit paths",
    plan_memory_order};
static const struct rl_suite clocks = {
    "clocks",
    "one algorithm of each design on the monotonic, coarse, tsc and cached clocks, recorded",
    plan_clocks};
static const struct rl_suite pareto = {
    "pareto",
    "every in-process algorithm on every real clock: ns per decision (1 thread, overload, "
    "100 ms runs) against max_sliding/L and utilization on the boundary workload replayed by "
    "2 threads on that clock (about 3 min)",
    plan_pareto};
static const struct rl_suite keys = {
    "keys", "one algorithm of each design through the keyed container at 10^3 to 10^6 keys",
    plan_keys};
static const struct rl_suite accuracy = {
    "accuracy",
    "every algorithm in sim on every workload (Redis: boundary), and one of each design "
    "replayed open loop on the burst workloads (onoff, boundary, flash) by 2 threads",
    plan_accuracy};
static const struct rl_suite redis = {
    "redis", "the Redis algorithms at 1, 10 and 100 client threads, with redis_noop, recorded",
    plan_redis};

static const struct rl_suite sharded = {
    "sharded",
    "tb_sharded's batch k swept from 1 to 128 at 2 threads, with tb_cas: throughput on the admit "
    "path and recorded accuracy under overload, for each k (about 1 min)",
    plan_sharded};

/* Plans nothing: `bench` hands the claims suite to `ratelab claims`, and
 * the perf suite to its goals. */
static void plan_claims(struct rl_suite_run *run, const struct rl_algo **algos, size_t count,
                        unsigned reps, const struct rl_config *cfg)
{
    (void)run, (void)algos, (void)count, (void)reps, (void)cfg;
}

static const struct rl_suite claims = {
    "claims",
    "every published claim of ratelab claims, measured: one row each with its source, figure, "
    "verdict and command (the claims' own columns; --reps does not apply; about 10 s)",
    plan_claims};

/* Plans nothing either: `bench` runs the performance goals (perf.h). */
static const struct rl_suite perf = {
    "perf",
    "the performance goals, each a ratio against its floor measured in the same run (recorder, "
    "keyed container against a bare fetch-add array, checker against md5sum, Redis scripts "
    "against redis_noop and against their own redis.call lines on one server and on a 3x1 "
    "cluster, clocks, tb_sharded against tb_cas, shapers, sim streaming, linearizability); its "
    "own columns; a few minutes",
    plan_claims};

static const struct rl_suite cluster = {
    "cluster",
    "the Redis algorithms and redis_noop at 10 client threads on private clusters of 1, 3 and 6 "
    "primaries (1 replica each), 1000 keys and one hot key, with redis-benchmark --cluster's "
    "EVALSHA floor beside them; about 2 min",
    plan_cluster};

static const struct rl_suite cluster_faults = {
    "cluster-faults",
    "each fault (failover, reshard, kill-primary, stall-replica then kill-primary) for "
    "redis_fixed_window, redis_token_bucket and redis_gcra on a fresh 3x1 cluster per run, "
    "recorded: outage_ms and lost_admits per run; about 1 min a repetition",
    plan_cluster_faults};

const struct rl_suite *const rl_suites[] = {&quick,   &threads, &memory_order,   &accuracy, &clocks,
                                            &pareto,  &keys,    &redis,          &claims,   &perf,
                                            &sharded, &cluster, &cluster_faults, NULL};

bool rl_suite_runs_claims(const struct rl_suite *suite)
{
    return suite == &claims;
}

bool rl_suite_runs_perf(const struct rl_suite *suite)
{
    return suite == &perf;
}

const struct rl_suite *rl_suite_find(const char *name)
{
    for (const struct rl_suite *const *s = rl_suites; *s; s++)
        if (strcmp((*s)->name, name) == 0)
            return *s;
    return NULL;
}
