/* claims.c — the published claims and the runs that measure them (see
 * claims.h). Each claim's run is a function below, in the registry's order;
 * the registry itself (sources, sentences, commands) is at the end.
 *
 * Figures name their units; a timing figure is one run's, and the claims
 * that rest on timing are marked not deterministic. Sources are cited, not
 * copied: each claim is a paraphrase. Where a source's title, author, year
 * or URL could not be found, the entry says so (docs/references.md). */
#include "claims.h"

#include "harness/run/measure.h"
#include "harness/run/stress_plan.h"
#include "algorithms/rl.h"
#include "harness/check/event_log.h"
#include "harness/io/file_bytes.h"
#include "harness/sys/interrupt.h"
#include "workloads/generators.h"
#include "workloads/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS  1000000ull
#define SEC 1000000000ull

/* A limit no run reaches: every call takes the admit path (as the threads
 * and memory-order suites do). */
#define NEVER_LIMIT    4000000000ull
#define NEVER_INTERVAL (10 * SEC)

const char *rl_claim_verdict_name(enum rl_claim_verdict verdict)
{
    switch (verdict) {
    case RL_CLAIM_HOLDS:
        return "holds";
    case RL_CLAIM_FAILS:
        return "fails";
    case RL_CLAIM_DEPENDS:
        return "depends";
    case RL_CLAIM_NA:
        return "n/a";
    }
    return "n/a";
}

/* ---- small helpers ---------------------------------------------------------- */

/* Appends formatted text to buf (len bytes), cutting it short if full. */
__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf + used, len - used, fmt, args);
    va_end(args);
}

#define FIGURE(o, ...)    add((o)->figure, sizeof(o)->figure, __VA_ARGS__)
#define CONDITION(o, ...) add((o)->condition, sizeof(o)->condition, __VA_ARGS__)

/* Marks the claim unmeasured: a run could not be made. */
__attribute__((format(printf, 2, 3))) static void failed(struct rl_claim_outcome *o,
                                                         const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(o->err, sizeof o->err, fmt, args);
    va_end(args);
    o->failed = true;
    o->verdict = RL_CLAIM_NA;
    snprintf(o->condition, sizeof o->condition, "not measured: %s", o->err);
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static const char *machine(void)
{
#if defined(__x86_64__)
    return "x86-64";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__i386__)
    return "x86";
#else
    return "this CPU";
#endif
}

static double per_limit(uint64_t value, uint64_t limit)
{
    return limit ? (double)value / (double)limit : NAN;
}

static const char *root_of(const struct rl_claim_env *env)
{
    return env && env->root ? env->root : ".";
}

/* ---- sim ------------------------------------------------------------------ */

/* A workload as the CLI's options give it: zero fields keep the defaults
 * that scale with L and I (generators.h). */
struct sim_spec {
    const char *workload;
    uint64_t limit, interval_ns, burst;
    uint32_t slots;
    uint64_t duration_ns;
    double rate;
    uint32_t keys;
    uint64_t size;            /* boundary */
    uint64_t on_ns, off_ns;   /* onoff */
    uint64_t at_ns, spike_ns; /* flash */
    double factor;            /* flash */
};

static struct rl_config spec_config(const struct sim_spec *s, const char *remote)
{
    return (struct rl_config){.limit = s->limit,
                              .interval_ns = s->interval_ns,
                              .burst = s->burst,
                              .slots = s->slots,
                              .remote = remote,
                              .virtual_time = true};
}

static int spec_trace(const struct sim_spec *s, struct rl_trace *trace, char *err, size_t len)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, s->limit, s->interval_ns);
    p.name = s->workload;
    if (s->duration_ns)
        p.duration_ns = s->duration_ns;
    if (s->rate > 0)
        p.rate_per_s = s->rate;
    if (s->keys)
        p.keys = s->keys;
    if (s->size)
        p.burst_size = s->size;
    if (s->on_ns)
        p.on_ns = s->on_ns;
    if (s->off_ns)
        p.off_ns = s->off_ns;
    if (s->at_ns)
        p.flash_at_ns = s->at_ns;
    if (s->spike_ns)
        p.flash_len_ns = s->spike_ns;
    if (s->factor > 0)
        p.flash_factor = s->factor;
    return rl_workload_generate(&p, trace, err, len);
}

/* Runs each of the count algorithms named in names on the spec's trace in
 * virtual time, one row each. -1 (the claim marked failed) on any error. */
static int sim_rows(const char *const *names, size_t count, const struct sim_spec *s,
                    const char *remote, struct rl_result *rows, struct rl_claim_outcome *o)
{
    char err[512];
    struct rl_trace trace = {0};
    if (spec_trace(s, &trace, err, sizeof err) != 0) {
        failed(o, "%s", err);
        return -1;
    }
    struct rl_config cfg = spec_config(s, remote);
    static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const struct rl_algo *a = rl_registry_find(names[i]);
        if (a == NULL) {
            failed(o, "no algorithm %s", names[i]);
            rc = -1;
        } else if (rl_measure_sim(a, &cfg, &independent, &trace, s->workload, 1, &rows[i], NULL,
                                  err, sizeof err) != 0) {
            failed(o, "sim %s on %s: %s", names[i], s->workload, err);
            rc = -1;
        }
    }
    rl_trace_free(&trace);
    return rc;
}

static int sim_row(const char *name, const struct sim_spec *s, const char *remote,
                   struct rl_result *row, struct rl_claim_outcome *o)
{
    return sim_rows(&name, 1, s, remote, row, o);
}

static uint64_t wrong(const struct rl_result *r)
{
    return r->m.false_admits + r->m.false_rejects;
}

/* ---- stress --------------------------------------------------------------- */

/* One stress run of the named algorithm, recorded or not. */
static int stress_row(const char *name, const struct rl_config *cfg, unsigned threads,
                      uint64_t duration_ns, bool record, struct rl_result *row,
                      struct rl_claim_outcome *o)
{
    char err[512];
    const struct rl_algo *a = rl_registry_find(name);
    if (a == NULL) {
        failed(o, "no algorithm %s", name);
        return -1;
    }
    struct rl_stress_params p = {.algo = a,
                                 .cfg = *cfg,
                                 .threads = threads,
                                 .duration_ns = duration_ns,
                                 .clock = "monotonic",
                                 .record = record};
    if (rl_measure_stress(&p, 1, row, NULL, err, sizeof err) != 0) {
        failed(o, "stress %s x%u: %s", name, threads, err);
        return -1;
    }
    return 0;
}

/* A plan of the named algorithms × threads × reps, repetitions
 * interleaved (stress_plan.h). Returns the rows filled (*rows, to free),
 * or 0 with the claim marked failed. */
static size_t stress_plan(const char *const *names, size_t count, const uint64_t *threads,
                          size_t thread_count, unsigned reps, uint64_t duration_ns, bool record,
                          const struct rl_config *cfg, struct rl_result **rows,
                          struct rl_claim_outcome *o)
{
    const struct rl_algo *algos[16];
    *rows = NULL;
    for (size_t i = 0; i < count && i < 16; i++)
        if ((algos[i] = rl_registry_find(names[i])) == NULL) {
            failed(o, "no algorithm %s", names[i]);
            return 0;
        }
    struct rl_stress_plan plan = {
        .algos = algos,
        .algo_count = count < 16 ? count : 16,
        .threads = threads,
        .thread_count = thread_count,
        .reps = reps,
        .run = {.duration_ns = duration_ns, .clock = "monotonic", .cfg = *cfg, .record = record}};
    size_t planned = rl_stress_plan_rows(&plan);
    *rows = calloc(planned ? planned : 1, sizeof **rows);
    if (*rows == NULL) {
        failed(o, "out of memory");
        return 0;
    }
    bool interrupted = false, run_failed = false;
    char err[512] = "";
    size_t done =
        rl_stress_plan_run(&plan, "claims", *rows, &interrupted, &run_failed, err, sizeof err);
    if (done < planned) {
        failed(o, "%s", interrupted ? "interrupted" : err);
        free(*rows);
        *rows = NULL;
        return 0;
    }
    return done;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of field() over the unrecorded (or, with recorded, the
 * recorded) rows of the named algorithm at threads; NAN if none. */
static double median_of(const struct rl_result *rows, size_t count, const char *name,
                        unsigned threads, bool recorded, double (*field)(const struct rl_result *r))
{
    double values[64];
    size_t n = 0;
    for (size_t i = 0; i < count && n < 64; i++)
        if (strcmp(rows[i].algo->name, name) == 0 && rows[i].threads == threads &&
            rows[i].checked == recorded)
            values[n++] = field(&rows[i]);
    if (n == 0)
        return NAN;
    qsort(values, n, sizeof values[0], compare_double);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static double ns_per_op(const struct rl_result *r)
{
    return r->ns_per_op;
}

static double decisions_per_s(const struct rl_result *r)
{
    return r->mops * 1e6;
}

static double ratio_to_noop(const struct rl_result *r)
{
    return r->ratio_noop;
}

static double reject_share(const struct rl_result *r)
{
    return r->attempts ? (double)r->rejects / (double)r->attempts : NAN;
}

static const struct rl_result *find_row(const struct rl_result *rows, size_t count,
                                        const char *name, unsigned threads, bool recorded)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(rows[i].algo->name, name) == 0 && rows[i].threads == threads &&
            rows[i].checked == recorded)
            return &rows[i];
    return NULL;
}

/* ---- the conformance results ------------------------------------------------ */

/* One row of results/conformance.csv (tests/conformance/README.md). */
struct conformance {
    uint64_t traces, skipped, attempts, identical, rounding, stale, semantic;
    long long stale_extra;
    char git_rev[48], date[40], path[512];
};

/* Field number `index` of the comma-separated line at p (up to the
 * newline) into buf. */
static void csv_field(const char *p, int index, char *buf, size_t len)
{
    for (int i = 0; i < index && p; i++) {
        p += strcspn(p, ",\n");
        p = *p == ',' ? p + 1 : NULL;
    }
    if (p == NULL) {
        buf[0] = '\0';
        return;
    }
    size_t n = strcspn(p, ",\r\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* The column's index in the header line h, or -1. */
static int csv_column(const char *h, const char *name)
{
    size_t want = strlen(name);
    for (int i = 0; *h && *h != '\n'; i++) {
        size_t n = strcspn(h, ",\r\n");
        if (n == want && strncmp(h, name, n) == 0)
            return i;
        h += n;
        if (*h == ',')
            h++;
        else
            break;
    }
    return -1;
}

/* The row of results/conformance.csv for peer and algo. -1 with the reason
 * in err when the file or the row is not there. */
static int conformance_row(const struct rl_claim_env *env, const char *peer, const char *algo,
                           struct conformance *c, char *err, size_t err_len)
{
    memset(c, 0, sizeof *c);
    if (strcmp(root_of(env), ".") == 0)
        snprintf(c->path, sizeof c->path, "results/conformance.csv");
    else
        snprintf(c->path, sizeof c->path, "%s/results/conformance.csv", root_of(env));
    struct rl_file_bytes fb;
    if (rl_file_bytes_load(c->path, &fb, err, err_len) != 0)
        return -1;
    /* a NUL-terminated copy, so the line helpers can scan it */
    char *text = malloc(fb.len + 1);
    if (text == NULL) {
        rl_file_bytes_free(&fb);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    memcpy(text, fb.data, fb.len);
    text[fb.len] = '\0';
    rl_file_bytes_free(&fb);
    const char *names[] = {
        "peer",      "algo",          "traces",          "skipped",  "attempts",
        "identical", "peer_rounding", "peer_stale_time", "semantic", "stale_extra_admits",
        "git_rev",   "date"};
    int col[12];
    for (int i = 0; i < 12; i++)
        if ((col[i] = csv_column(text, names[i])) < 0) {
            snprintf(err, err_len, "%.200s: no column %s", c->path, names[i]);
            free(text);
            return -1;
        }
    int rc = -1;
    for (const char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char f[64];
        csv_field(line + 1, col[0], f, sizeof f);
        if (strcmp(f, peer) != 0)
            continue;
        csv_field(line + 1, col[1], f, sizeof f);
        if (strcmp(f, algo) != 0)
            continue;
        uint64_t *numbers[] = {&c->traces,   &c->skipped, &c->attempts, &c->identical,
                               &c->rounding, &c->stale,   &c->semantic};
        for (int i = 0; i < 7; i++) {
            csv_field(line + 1, col[2 + i], f, sizeof f);
            *numbers[i] = strtoull(f, NULL, 10);
        }
        csv_field(line + 1, col[9], f, sizeof f);
        c->stale_extra = strtoll(f, NULL, 10);
        csv_field(line + 1, col[10], c->git_rev, sizeof c->git_rev);
        csv_field(line + 1, col[11], c->date, sizeof c->date);
        rc = 0;
        break;
    }
    if (rc != 0)
        snprintf(err, err_len, "%.200s: no row for %s and %s", c->path, peer, algo);
    free(text);
    return rc;
}

/* ---- 1. the C++ article, step 1: a load/store reset ------------------------------ */

static void run_cpp_naive(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    struct rl_config cfg = {.limit = 50, .interval_ns = 10 * MS};
    struct rl_result naive, cas;
    int round = 0;
    bool seen = false;
    while (!seen && round < 3) {
        round++;
        if (stress_row("fw_atomic_naive", &cfg, 2, 300 * MS, true, &naive, o) != 0)
            return;
        seen = strcmp(rl_result_promise_held(&naive), "no") == 0;
    }
    if (stress_row("fw_cas", &cfg, 2, 300 * MS, true, &cas, o) != 0)
        return;
    FIGURE(o,
           "fw_atomic_naive, 2 threads, 300 ms recorded (run %d of up to 3): held %s, most "
           "admitted in an aligned window %.2f L, window_excess %llu; fw_cas on the same "
           "threads: held %s, %.2f L",
           round, rl_result_promise_held(&naive), per_limit(naive.m.certain_max_aligned, cfg.limit),
           (unsigned long long)naive.m.window_excess, rl_result_promise_held(&cas),
           per_limit(cas.m.certain_max_aligned, cfg.limit));
    if (seen) {
        o->verdict = RL_CLAIM_HOLDS;
        CONDITION(o,
                  "shown on this machine (%u CPUs); a race, so not asserted: a run shows it only "
                  "when two threads find the window expired at once",
                  online_cpus());
    } else {
        o->verdict = RL_CLAIM_DEPENDS;
        CONDITION(o,
                  "on timing: two threads must find the window expired at the same moment; not "
                  "seen in 3 runs on %u CPUs; the teaching build widens the race (make teach; "
                  "build/ratelab-teach claims cpp_naive_double_admit)",
                  online_cpus());
    }
}

/* ---- 2. the C++ article: CAS and the first-window fix, the weak statement ------ */

static void run_cpp_cas_weak(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* 5/s, half of L, then ten times that for 1 s from 3.5 s: a window that
     * opened at 2 s is still filling when the spike comes, and the next
     * opens inside it, in the same aligned second [3 s, 4 s). */
    const struct sim_spec flash = {.workload = "flash",
                                   .limit = 10,
                                   .interval_ns = SEC,
                                   .rate = 5,
                                   .duration_ns = 6 * SEC,
                                   .at_ns = 3500 * MS,
                                   .spike_ns = SEC,
                                   .factor = 10};
    const struct sim_spec boundary = {.workload = "boundary", .limit = 10, .interval_ns = SEC};
    static const char *const names[] = {"fw_cas", "fw_aligned"};
    struct rl_result rows[2], edge;
    if (sim_rows(names, 2, &flash, NULL, rows, o) != 0 ||
        sim_row("fw_cas", &boundary, NULL, &edge, o) != 0)
        return;
    const struct rl_result *cas = &rows[0], *aligned = &rows[1];
    FIGURE(o,
           "flash (L = 10 per 1 s; 5/s, then 50/s for 1 s from 3.5 s): fw_cas admits %llu = %.1f "
           "L in one aligned second (the grid from its first window at t = 0) and %llu = %.1f L "
           "in a sliding one, its own promise held (%s: window_excess %llu, <= 2L sliding); "
           "fw_aligned, the weak statement kept: %llu aligned; on the boundary workload fw_cas's "
           "windows fall on the grid (%llu aligned)",
           (unsigned long long)cas->m.max_aligned, per_limit(cas->m.max_aligned, 10),
           (unsigned long long)cas->m.max_sliding, per_limit(cas->m.max_sliding, 10),
           rl_result_promise_held(cas), (unsigned long long)cas->m.window_excess,
           (unsigned long long)aligned->m.max_aligned, (unsigned long long)edge.m.max_aligned);
    o->verdict = cas->m.max_aligned > cas->cfg.limit ? RL_CLAIM_FAILS : RL_CLAIM_HOLDS;
    CONDITION(o, "as stated (<= L in each window of a contiguous grid of length I); what it keeps "
                 "is <= L in each of its own windows, which restart at the first over-limit "
                 "attempt at least I after the last start and so drift off any grid: at most 2L "
                 "in any sliding window");
}

/* ---- 3. the C++ article: acq_rel is faster than seq_cst ------------------------ */

static void run_cpp_acqrel(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const char *const names[] = {"faa", "fw_cas", "fw_cas_acqrel"};
    static const uint64_t threads[] = {1, 2};
    struct rl_config cfg = {.limit = NEVER_LIMIT, .interval_ns = NEVER_INTERVAL};
    struct rl_result *rows;
    size_t n = stress_plan(names, 3, threads, 2, 3, 100 * MS, false, &cfg, &rows, o);
    if (n == 0)
        return;
    double ratio[2];
    FIGURE(o, "admit path (L never reached), median of 3 interleaved 100 ms runs:");
    for (int t = 0; t < 2; t++) {
        unsigned th = (unsigned)threads[t];
        double seq = median_of(rows, n, "fw_cas", th, false, ns_per_op);
        double acq = median_of(rows, n, "fw_cas_acqrel", th, false, ns_per_op);
        double faa = median_of(rows, n, "faa", th, false, ns_per_op);
        ratio[t] = acq / seq;
        FIGURE(o,
               "%s %u thread%s: seq_cst %.1f ns, acq_rel %.1f ns (acq_rel / seq_cst %.2f), "
               "faa %.1f ns",
               t ? ";" : "", th, th == 1 ? "" : "s", seq, acq, ratio[t], faa);
    }
    free(rows);
    o->verdict = RL_CLAIM_DEPENDS;
#if defined(__x86_64__) || defined(__i386__)
    CONDITION(o,
              "on the CPU: on %s (this run) a fetch-add is one lock xadd at any order and only "
              "the window-reset store differs (xchg becomes mov), once per window, so the two "
              "cost the same within run-to-run noise (%.2f, %.2f here); on weakly ordered CPUs "
              "(Arm, POWER) seq_cst adds fences that acq_rel drops: not measured",
              machine(), ratio[0], ratio[1]);
#else
    CONDITION(o,
              "on the CPU: measured on %s (acq_rel / seq_cst %.2f and %.2f), where the orders "
              "compile to different instructions; on x86-64 they cost the same (one lock xadd "
              "at any order)",
              machine(), ratio[0], ratio[1]);
#endif
}

/* ---- 4. the .NET article: 14 in one second at a limit of 10 --------------------- */

static void run_dotnet_expiry(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    const struct sim_spec s = {.workload = "boundary", .limit = 10, .interval_ns = SEC, .size = 7};
    struct rl_result r;
    if (sim_row("fw_expiry", &s, NULL, &r, o) != 0)
        return;
    FIGURE(o,
           "fw_expiry (the cache counter, expiring 1 s after its first attempt), L = 10 per 1 s, "
           "7 attempts each side of the edge at 1 s: %llu = %.1f L admitted within one second, "
           "%llu in its own first window (held %s)",
           (unsigned long long)r.m.max_sliding, per_limit(r.m.max_sliding, 10),
           (unsigned long long)r.m.max_aligned, rl_result_promise_held(&r));
    o->verdict = r.m.max_sliding == 14 ? RL_CLAIM_HOLDS : RL_CLAIM_FAILS;
}

/* ---- 5. the .NET article: the sweeper's list limits to L per second ------------- */

static void run_dotnet_sweeper(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const double rates[] = {40000, 10000, 5000}; /* 4x, 1x and 1/2 of L per I */
    static const char *const labels[] = {"4x", "1x", "1/2x"};
    struct rl_result r[3];
    for (int i = 0; i < 3; i++) {
        const struct sim_spec s = {.workload = "poisson",
                                   .limit = 1000,
                                   .interval_ns = 100 * MS,
                                   .duration_ns = 20 * SEC,
                                   .rate = rates[i]};
        if (sim_row("sliding_log_sweeper", &s, NULL, &r[i], o) != 0)
            return;
    }
    FIGURE(o, "poisson, L = 1000 per 100 ms, 20 s, at");
    bool bound = true;
    for (int i = 0; i < 3; i++) {
        FIGURE(o, "%s %s the limit: max_sliding %.3f L, utilization %.3f of the exact sliding log",
               i ? ";" : "", labels[i], per_limit(r[i].m.max_sliding, 1000),
               rl_check_utilization(&r[i].m, r[i].complete));
        bound &= r[i].m.max_sliding <= 1000;
    }
    o->verdict = bound ? RL_CLAIM_DEPENDS : RL_CLAIM_FAILS;
    CONDITION(o, "as an upper bound (never more than L in any sliding window): holds; as the "
                 "rate it lets through: fails, since an entry leaves the list only when a sweep "
                 "(every I/10) finds it older than 3 I, so at and above the limit it admits about "
                 "L per 3 I");
}

/* ---- 6. the time-wheel article: accurate and cheap, as a function of S ----------- */

static void run_wheel(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const uint32_t slots[] = {2, 10, 100};
    double flash[3], poisson[3], cost[3], floor_ns[3];
    for (int i = 0; i < 3; i++) {
        struct sim_spec s = {
            .workload = "flash", .limit = 1000, .interval_ns = 100 * MS, .slots = slots[i]};
        struct rl_result r;
        if (sim_row("wheel", &s, NULL, &r, o) != 0)
            return;
        flash[i] = per_limit(r.m.max_sliding, 1000);
        s.workload = "poisson";
        if (sim_row("wheel", &s, NULL, &r, o) != 0)
            return;
        poisson[i] = per_limit(r.m.max_sliding, 1000);
    }
    for (int i = 0; i < 3; i++) {
        static const char *const names[] = {"clock_faa", "wheel"};
        static const uint64_t one[] = {1};
        struct rl_config cfg = {.limit = 1000, .interval_ns = 100 * MS, .slots = slots[i]};
        struct rl_result *rows;
        size_t n = stress_plan(names, 2, one, 1, 1, 100 * MS, false, &cfg, &rows, o);
        if (n == 0)
            return;
        cost[i] = median_of(rows, n, "wheel", 1, false, ns_per_op);
        floor_ns[i] = median_of(rows, n, "clock_faa", 1, false, ns_per_op);
        free(rows);
    }
    FIGURE(o,
           "L = 1000 per 100 ms, S = 2 / 10 / 100 slots: max_sliding %.3f / %.3f / %.3f L on a "
           "flash crowd, %.3f / %.3f / %.3f L on poisson; every promise (window) held; one "
           "thread under overload %.1f / %.1f / %.1f ns a call, clock_faa (a clock read and a "
           "fetch-add) %.1f / %.1f / %.1f ns",
           flash[0], flash[1], flash[2], poisson[0], poisson[1], poisson[2], cost[0], cost[1],
           cost[2], floor_ns[0], floor_ns[1], floor_ns[2]);
    o->verdict = RL_CLAIM_DEPENDS;
    CONDITION(o,
              "on S: every S consecutive slots hold at most L (up to 2L in a sliding window at "
              "any S); the typical excess shrinks as S grows (%.2f L at S = 2, %.2f L at S = "
              "100 on the flash crowd); a call costs about a clock read at every S here, while "
              "memory grows with S",
              flash[0], flash[2]);
}

/* ---- 7. the Redis article: 250 / 2000 / 5000 QPS ---------------------------------- */

static void run_redis_qps(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    static const char *const names[] = {"redis_tb_article", "redis_noop"};
    static const uint64_t threads[] = {1, 10, 100};
    struct rl_config cfg = {.limit = 1000, .interval_ns = 100 * MS, .remote = env->remote};
    struct rl_result *rows;
    size_t n = stress_plan(names, 2, threads, 3, 3, 150 * MS, false, &cfg, &rows, o);
    if (n == 0)
        return;
    double rate[3], noop[3], ratio[3];
    for (int t = 0; t < 3; t++) {
        unsigned th = (unsigned)threads[t];
        rate[t] = median_of(rows, n, "redis_tb_article", th, false, decisions_per_s);
        noop[t] = median_of(rows, n, "redis_noop", th, false, decisions_per_s);
        ratio[t] = median_of(rows, n, "redis_tb_article", th, false, ratio_to_noop);
    }
    free(rows);
    FIGURE(o,
           "redis_tb_article on a private redis-server over a Unix socket, median of 3 runs of 150 "
           "ms: %.0f / "
           "%.0f / %.0f decisions a second at 1 / 10 / 100 client threads (%.1f / %.1f / %.1f "
           "times the article's 250 / 2000 / 5000); an empty script, redis_noop: %.0f / %.0f / "
           "%.0f; a call of the script takes x%.2f / x%.2f / x%.2f redis_noop's time",
           rate[0], rate[1], rate[2], rate[0] / 250, rate[1] / 2000, rate[2] / 5000, noop[0],
           noop[1], noop[2], ratio[0], ratio[1], ratio[2]);
    o->verdict = RL_CLAIM_DEPENDS;
    CONDITION(o,
              "on the round trip, not the script: here one host and a Unix socket (tens of us "
              "a call, %u CPUs), there a managed 2-core Redis over the network; from 10 threads "
              "on the single-threaded server is the limit (the total rate hardly grows from 10 to "
              "100 threads, and an empty script costs nearly as much)",
              online_cpus());
}

/* ---- 8. Cloudflare: 0.003% wrong decisions --------------------------------------- */

static void run_cloudflare(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    const struct sim_spec s = {.workload = "poisson",
                               .limit = 100,
                               .interval_ns = SEC,
                               .duration_ns = 60 * SEC,
                               .keys = 1000,
                               .rate = 110000};
    struct rl_result r;
    if (sim_row("sliding_counter", &s, NULL, &r, o) != 0)
        return;
    double share = r.attempts ? 100.0 * (double)wrong(&r) / (double)r.attempts : NAN;
    FIGURE(o,
           "sliding_counter, 1000 keys, poisson at 1.1 times L = 100 per 1 s on each, 60 s: "
           "%.1f%% of %llu decisions differ from the exact sliding log's (%llu false admits, "
           "%llu false rejects), max_sliding %.2f L; Cloudflare: 0.003%%",
           share, (unsigned long long)r.attempts, (unsigned long long)r.m.false_admits,
           (unsigned long long)r.m.false_rejects, per_limit(r.m.max_sliding, 100));
    o->verdict = RL_CLAIM_DEPENDS;
    CONDITION(o,
              "on the traffic: the post's figure is over all its requests (400 million, as "
              "quoted), most from sources far from any limit, where the estimate and an exact "
              "count agree; near and above the limit on every key, as here, they disagree on "
              "%.0f%%; and the measures differ (here the exact log replays the attempts with "
              "its own admits, so one difference can move later ones)",
              share);
}

/* ---- 9. golang/go#71360: a stale timestamp exceeds the rate ------------------- */

/* Runs argv (argv[0] a path) with stdout into out (len bytes, terminated).
 * -1 with a reason when it cannot run or exits non-zero. */
static int run_capture(char *const argv[], char *out, size_t len, char *err, size_t err_len)
{
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t used = 0;
    ssize_t got;
    char sink[4096];
    while ((got = read(fd[0], used + 1 < len ? out + used : sink,
                       used + 1 < len ? len - 1 - used : sizeof sink)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (used + 1 < len)
            used += (size_t)got;
    }
    out[used] = '\0';
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, err_len, "%s did not succeed", argv[0]);
        return -1;
    }
    return 0;
}

/* The case as ratelab's conformance docs give it: L = 1 per 1 s,
 * B = 2, attempts at 0, 1 s, 0, 1 s, 1 s (the third is stale). */
static const uint64_t go_times[] = {0, SEC, 0, SEC, SEC};

/* x/time/rate's admits on the case, through the conformance driver
 * when it is built; -1 when it is not (or fails). */
static int go_driver_admits(const struct rl_claim_env *env, unsigned *admits)
{
    char driver[512], dir[512], path[600], err[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ratelab-claims-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    snprintf(driver, sizeof driver, "%s/build/conformance/go/bin/driver", root_of(env));
    if (access(driver, X_OK) != 0 || mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    /* written here: the trace writer refuses times that go back */
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    if (f) {
        fputs(RL_TRACE_CSV_HEADER "\n", f);
        for (size_t i = 0; i < sizeof go_times / sizeof go_times[0]; i++)
            fprintf(f, "%llu,k,1\n", (unsigned long long)go_times[i]);
        rc = fclose(f) == 0 ? 0 : -1;
    }
    char out[4096] = "";
    if (rc == 0) {
        char *argv[] = {driver,       "--mode",  "real", "--limit", "1", "--interval-ns",
                        "1000000000", "--burst", "2",    path,      NULL};
        rc = run_capture(argv, out, sizeof out, err, sizeof err);
    }
    unlink(path);
    rmdir(dir);
    if (rc != 0)
        return -1;
    *admits = 0;
    for (const char *line = strchr(out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *last = line + 1 + strcspn(line + 1, "\n");
        while (last > line + 1 && last[-1] == '\r')
            last--;
        *admits += last > line + 1 && last[-1] == '1' && last[-2] == ',';
    }
    return 0;
}

static void run_go_stale(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    char err[512];
    /* ratelab's exact bucket on the same case, as sim --unsorted runs it */
    struct rl_trace trace = {0};
    if (rl_trace_name_keys(&trace, 1) != 0) {
        failed(o, "out of memory");
        return;
    }
    for (size_t i = 0; i < sizeof go_times / sizeof go_times[0]; i++)
        if (rl_trace_push(&trace, go_times[i], 0, 1) != 0) {
            rl_trace_free(&trace);
            failed(o, "out of memory");
            return;
        }
    struct rl_config cfg = {.limit = 1, .interval_ns = SEC, .burst = 2, .virtual_time = true};
    static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
    struct rl_result r;
    int rc = rl_measure_sim(rl_registry_find("tb_mutex"), &cfg, &independent, &trace, "go71360", 0,
                            &r, NULL, err, sizeof err);
    rl_trace_free(&trace);
    if (rc != 0) {
        failed(o, "sim tb_mutex: %s", err);
        return;
    }
    struct conformance c;
    bool have_csv = conformance_row(env, "go", "tb_mutex", &c, err, sizeof err) == 0;
    unsigned go_admits = 0;
    bool have_driver = go_driver_admits(env, &go_admits) == 0;
    if (have_csv)
        FIGURE(o,
               "%s (git %s, %s): on %llu seeded traces x/time/rate 0.3.0 admitted %lld more than "
               "ratelab's exact buckets where times go back (%llu stale-time mismatches of %llu "
               "decisions, %llu semantic)",
               c.path, c.git_rev, c.date, (unsigned long long)c.traces, c.stale_extra,
               (unsigned long long)c.stale, (unsigned long long)c.attempts,
               (unsigned long long)c.semantic);
    FIGURE(o, "%sthe issue's case (L = 1 per 1 s, B = 2; attempts at 0, 1 s, 0, 1 s, 1 s): ",
           have_csv ? "; " : "");
    if (have_driver)
        FIGURE(o, "x/time/rate admits %u within [0, 1 s], B + L = 3, ", go_admits);
    else
        FIGURE(o, "x/time/rate not run (build/conformance/go/bin/driver not built: make "
                  "conformance), ");
    FIGURE(o, "tb_mutex %llu", (unsigned long long)r.admits);
    if ((have_csv && c.stale_extra > 0) || (have_driver && go_admits > 3)) {
        o->verdict = RL_CLAIM_HOLDS;
    } else if (!have_csv && !have_driver) {
        o->verdict = RL_CLAIM_NA;
        CONDITION(o,
                  "neither results/conformance.csv nor the go driver was found under %s: run "
                  "from the repository root after make conformance",
                  root_of(env));
    } else {
        o->verdict = RL_CLAIM_FAILS;
    }
}

/* ---- 10. nginx limit_req: near one request per ms -------------------------------- */

static void run_nginx(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    const struct sim_spec s = {.workload = "uniform", .limit = 10000, .interval_ns = SEC};
    static const char *const names[] = {"leaky_nginx", "sliding_log"};
    struct rl_result r[2];
    if (sim_rows(names, 2, &s, NULL, r, o) != 0)
        return;
    double per_ms = r[0].duration_ns ? (double)r[0].admits / ((double)r[0].duration_ns / 1e6) : 0;
    FIGURE(o,
           "leaky_nginx (burst= left out, so 0), L = 10000 per 1 s, %llu attempts at 40000/s over "
           "2 s: %llu admitted, %.2f a millisecond where L allows 10 (utilization %.3f of the "
           "exact sliding log's %llu)",
           (unsigned long long)r[0].attempts, (unsigned long long)r[0].admits, per_ms,
           rl_check_utilization(&r[0].m, r[0].complete), (unsigned long long)r[1].admits);
    char err[512];
    struct conformance c;
    bool agree = false;
    if (conformance_row(env, "nginx", "leaky_nginx", &c, err, sizeof err) == 0) {
        agree = c.identical == c.attempts && c.semantic == 0;
        FIGURE(o,
               "; nginx 1.22 itself decided as leaky_nginx on %llu of %llu requests of %llu "
               "traces, rates above 1000 r/s among them (%s, git %s)",
               (unsigned long long)c.identical, (unsigned long long)c.attempts,
               (unsigned long long)c.traces, c.path, c.git_rev);
    } else {
        CONDITION(o, "nginx's own decisions not read (%s)", err);
    }
    bool capped = per_ms > 0.9 && per_ms < 1.1;
    o->verdict = capped ? RL_CLAIM_HOLDS : RL_CLAIM_FAILS;
    if (capped && agree)
        CONDITION(o, "nginx counts excess in thousandths of a request on a millisecond clock: "
                     "without burst= a second request in the same millisecond is refused");
}

/* ---- 11. resilience4j: aligned cycles, up to 2x in one period --------------------- */

static void run_resilience4j(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    const struct sim_spec s = {.workload = "boundary", .limit = 1000, .interval_ns = 100 * MS};
    struct rl_result r;
    if (sim_row("fw_aligned", &s, NULL, &r, o) != 0)
        return;
    FIGURE(o,
           "fw_aligned (L per aligned cycle, as resilience4j's AtomicRateLimiter; resilience4j "
           "itself not run), L = 1000 per 100 ms, boundary: %llu = %.3f L admitted within one "
           "period across a cycle edge, %llu in any one cycle (held %s)",
           (unsigned long long)r.m.max_sliding, per_limit(r.m.max_sliding, 1000),
           (unsigned long long)r.m.max_aligned, rl_result_promise_held(&r));
    o->verdict = r.m.max_sliding >= 2 * 1000 - 1 && r.m.max_sliding <= 2 * 1000 ? RL_CLAIM_HOLDS
                                                                                : RL_CLAIM_FAILS;
    CONDITION(o, "2L - 1 rather than 2L: the workload's opening attempt takes one of the first "
                 "cycle's permits");
}

/* ---- 12. relaxed atomics suffice for a one-word CAS bucket ------------------------ */

static void run_relaxed(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const char *const names[] = {"faa", "tb_cas", "tb_cas_relaxed"};
    static const uint64_t two[] = {2};
    struct rl_config cfg = {.limit = 1000, .interval_ns = 100 * MS};
    struct rl_result *rows;
    size_t n = stress_plan(names, 3, two, 1, 1, 300 * MS, true, &cfg, &rows, o);
    if (n == 0)
        return;
    const struct rl_result *relaxed = find_row(rows, n, "tb_cas_relaxed", 2, true);
    const struct rl_result *ordered = find_row(rows, n, "tb_cas", 2, true);
    if (relaxed == NULL || ordered == NULL) {
        free(rows);
        failed(o, "no recorded rows");
        return;
    }
    const char *held = rl_result_promise_held(relaxed);
    FIGURE(o,
           "2 threads, 300 ms recorded, L = B = 1000 per 100 ms: tb_cas_relaxed held %s (most "
           "admitted in a sliding window %llu, bound B + L = 2000), tb_cas (acquire/acq_rel) held "
           "%s (%llu); unrecorded %.1f and %.1f ns a call",
           held, (unsigned long long)relaxed->m.certain_max_sliding,
           rl_result_promise_held(ordered), (unsigned long long)ordered->m.certain_max_sliding,
           median_of(rows, n, "tb_cas_relaxed", 2, false, ns_per_op),
           median_of(rows, n, "tb_cas", 2, false, ns_per_op));
    free(rows);
    if (strcmp(held, "no") == 0) {
        o->verdict = RL_CLAIM_FAILS;
        return;
    }
    o->verdict = RL_CLAIM_DEPENDS;
    CONDITION(o,
              "on the machine and the state: held in this run on %s%s; on weakly ordered CPUs "
              "only the argument supports it (C11 gives the one time word a single modification "
              "order and every successful CAS reads its latest value: "
              "algorithms/buckets/tb_cas_relaxed.c); and only for state kept in one word",
              machine(),
              strcmp(machine(), "x86-64") == 0 ? " (TSO: relaxed and acq_rel give the same "
                                                 "lock cmpxchg)"
                                               : "");
}

/* ---- 13. Varnish vsthrottle: a truncating refill under-admits --------------------- */

static void run_varnish(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    static const char *const names[] = {"tb_mutex", "redis_tb_article"};
    const struct sim_spec steady = {.workload = "uniform",
                                    .limit = 1500,
                                    .interval_ns = SEC,
                                    .burst = 10,
                                    .rate = 1200,
                                    .duration_ns = 4 * SEC};
    const struct sim_spec jitter = {.workload = "poisson",
                                    .limit = 30,
                                    .interval_ns = SEC,
                                    .burst = 5,
                                    .rate = 24,
                                    .duration_ns = 60 * SEC};
    struct rl_result u[2], p[2];
    if (sim_rows(names, 2, &steady, env->remote, u, o) != 0 ||
        sim_rows(names, 2, &jitter, env->remote, p, o) != 0)
        return;
    double refused[2][2];
    for (int i = 0; i < 2; i++) {
        refused[0][i] = u[i].attempts ? 100.0 * (double)u[i].rejects / (double)u[i].attempts : 0;
        refused[1][i] = p[i].attempts ? 100.0 * (double)p[i].rejects / (double)p[i].attempts : 0;
    }
    FIGURE(o,
           "redis_tb_article (the Redis article's bucket, refill floored to whole tokens on a ms "
           "clock, the same bug class), at 80%% of L: steady 1200/s against 1500/s with B = 10 "
           "it refuses %llu of %llu (%.1f%%) where the exact tb_mutex refuses %.1f%%; poisson "
           "24/s against 30/s with B = 5 over 60 s %.1f%% against %.1f%%; Varnish: about 10%% "
           "at 4000 rps against 5000/s",
           (unsigned long long)u[1].rejects, (unsigned long long)u[1].attempts, refused[0][1],
           refused[0][0], refused[1][1], refused[1][0]);
    o->verdict = refused[0][0] == 0 && refused[0][1] >= 5 && refused[1][1] > refused[1][0]
                     ? RL_CLAIM_HOLDS
                     : RL_CLAIM_FAILS;
    CONDITION(o, "measured on ratelab's port of the Redis article's bucket, which loses the "
                 "fraction of a token the same way; vsthrottle itself not run");
}

/* ---- 14. Linux ___ratelimit: the trylock's false rejects --------------------------- */

static void run_linux(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    static const char *const names[] = {"fw_trylock"};
    static const uint64_t threads[] = {1, 2};
    struct rl_config cfg = {.limit = NEVER_LIMIT, .interval_ns = NEVER_INTERVAL};
    struct rl_result *rows;
    size_t n = stress_plan(names, 1, threads, 2, 1, 200 * MS, false, &cfg, &rows, o);
    if (n == 0)
        return;
    double one = median_of(rows, n, "fw_trylock", 1, false, reject_share);
    double two = median_of(rows, n, "fw_trylock", 2, false, reject_share);
    free(rows);
    FIGURE(o,
           "fw_trylock (___ratelimit's trylock), a limit never reached so every reject is false, "
           "200 ms closed loop: %.1f%% of attempts rejected on 1 thread, %.1f%% on 2 threads "
           "(%u CPUs)",
           100 * one, 100 * two, online_cpus());
    if (two > 0) {
        o->verdict = RL_CLAIM_HOLDS;
        CONDITION(o, "under contention: one thread alone is never refused");
    } else {
        o->verdict = RL_CLAIM_DEPENDS;
        CONDITION(o,
                  "on contention: two threads must be inside the call at once, which this run "
                  "on %u CPUs did not show",
                  online_cpus());
    }
}

/* ---- 15. wrk2: a closed loop omits the wait (coordinated omission) ---------------- */

static void run_wrk2(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    struct sim_spec s = {.workload = "uniform",
                         .limit = 1000,
                         .interval_ns = 100 * MS,
                         .rate = 100000,
                         .duration_ns = 300 * MS};
    char err[512];
    struct rl_trace trace = {0};
    if (spec_trace(&s, &trace, err, sizeof err) != 0) {
        failed(o, "%s", err);
        return;
    }
    struct rl_replay_params p = {
        .algo = rl_registry_find("redis_gcra"),
        .cfg = {.limit = 1000, .interval_ns = 100 * MS, .remote = env->remote},
        .trace = &trace,
        .threads = 2,
        .speed = 1,
        .clock = "monotonic"};
    struct rl_result r;
    int rc = rl_measure_replay(&p, "uniform", 1, 1, &r, NULL, NULL, err, sizeof err);
    rl_trace_free(&trace);
    if (rc != 0) {
        failed(o, "replay redis_gcra: %s", err);
        return;
    }
    FIGURE(o,
           "redis_gcra replayed open loop, 30000 attempts at 100000/s by 2 threads on a private "
           "redis-server: median wait from each attempt's due time %.1f ms, p99 %.1f ms, while "
           "the call alone took %.0f us at p99 (what a closed-loop tool reports)",
           (double)r.lat_p50_ns / 1e6, (double)r.lat_p99_ns / 1e6, (double)r.svc_p99_ns / 1e3);
    if (r.lat_p50_ns > 10 * r.svc_p99_ns) {
        o->verdict = RL_CLAIM_HOLDS;
        CONDITION(o, "when the server cannot keep up with the offered rate, as here");
    } else {
        o->verdict = RL_CLAIM_DEPENDS;
        CONDITION(o, "on a backlog: the server kept up with 100000/s in this run, so waits and "
                     "calls were alike");
    }
}

/* ---- 16. Guava: a burst of up to one second's permits after idling ---------------- */

static void run_guava(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    const struct sim_spec s = {.workload = "onoff",
                               .limit = 10,
                               .interval_ns = SEC,
                               .rate = 100,
                               .on_ns = SEC,
                               .off_ns = 2 * SEC,
                               .duration_ns = 9 * SEC};
    struct rl_result r;
    if (sim_row("tb_debt", &s, NULL, &r, o) != 0)
        return;
    FIGURE(o,
           "tb_debt (SmoothBursty's arithmetic), 10 permits a second, bursts of 1 s at 100/s "
           "after 2 s idle: %llu = %.1f x permitsPerSecond admitted within one second",
           (unsigned long long)r.m.max_sliding, per_limit(r.m.max_sliding, 10));
    char err[512];
    struct conformance c;
    if (conformance_row(env, "guava", "tb_debt", &c, err, sizeof err) == 0)
        FIGURE(o,
               "; Guava 31.1 itself decided as tb_debt on %llu of %llu decisions, the rest its "
               "whole-microsecond rounding (%llu) and stale times (%llu), %llu semantic (%s)",
               (unsigned long long)c.identical, (unsigned long long)c.attempts,
               (unsigned long long)c.rounding, (unsigned long long)c.stale,
               (unsigned long long)c.semantic, c.path);
    o->verdict = r.m.max_sliding <= 2 * 10 ? RL_CLAIM_DEPENDS : RL_CLAIM_FAILS;
    CONDITION(o, "on the span: after an idle spell one second holds up to twice permitsPerSecond "
                 "(the stored burst and a second's worth at the rate), which the same "
                 "documentation allows; only on average over longer spans is it the rate");
}

/* ---- the registry ------------------------------------------------------------ */

#define CPP_TITLE "C++ 实现线程安全的频率限制器 (A thread-safe frequency limiter in C++)"
#define CPP_ORG   "author not found (republished copies name none)"
#define CPP_URL   "URL not found (original); republished copy: http://cdysf.com/article/ddjiic.html"
#define NET_TITLE                                                                                                         \
    ".Net 如何模拟会话级别的信号量，对http接口调用频率进行限制(有demo) (How does .Net simulate " \
    "session-level semaphores, limit the http interface call frequency (with demo))"
#define NET_ORG                "1996V (cnblogs)"
#define NET_URL                "http://www.cnblogs.com/1996V/p/8127576.html"
#define CONFORMANCE_ROWS(peer) "awk -F, 'NR==1 || $1==\"" peer "\"' results/conformance.csv"

const struct rl_claim rl_claims[] = {
    {.id = "cpp_naive_double_admit",
     .source_title = CPP_TITLE,
     .source_org = CPP_ORG,
     .year = "not found",
     .url = CPP_URL,
     .claim = "Its first threaded step (atomic count and timestamp, the window reset by a plain "
              "load and store) is unsafe: two threads that both find the window expired both "
              "reset it, so a window admits twice and a late reset puts the count back to 1.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo fw_atomic_naive,fw_cas --threads 2 --record --limit "
                "50 --interval 10ms --duration 300ms --reps 1",
     .deterministic = false,
     .run = run_cpp_naive},
    {.id = "cpp_cas_weak",
     .source_title = CPP_TITLE,
     .source_org = CPP_ORG,
     .year = "not found",
     .url = CPP_URL,
     .claim = "With a compare-and-swap on the timestamp and the first-window fix, the limiter "
              "meets the weak statement: at most L in each window of a row of contiguous fixed "
              "windows of length I.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo fw_cas,fw_aligned --workload flash --limit 10 "
                "--interval 1s --rate 5 --duration 6s --at 3500ms --spike 1s --factor 10",
     .deterministic = true,
     .run = run_cpp_cas_weak},
    {.id = "cpp_acqrel_faster",
     .source_title = CPP_TITLE,
     .source_org = CPP_ORG,
     .year = "not found",
     .url = CPP_URL,
     .claim = "Relaxing the count's atomic operations from seq_cst to acq_rel (release on the "
              "reset) makes the limiter faster.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo fw_cas,fw_cas_acqrel --threads 1,2 --limit "
                "4000000000 --interval 10s --duration 100ms --reps 3",
     .deterministic = false,
     .run = run_cpp_acqrel},
    {.id = "dotnet_expiry_14",
     .source_title = NET_TITLE,
     .source_org = NET_ORG,
     .year = "not found",
     .url = NET_URL,
     .claim = "A counter cached to expire 1 s after it was created lets 14 requests through "
              "within one second at a limit of 10 (3 + 7 before the expiry, 7 + 3 after it).",
     .experiment = "sim",
     .command = "build/ratelab sim --algo fw_expiry --workload boundary --size 7 --limit 10 "
                "--interval 1s",
     .deterministic = true,
     .run = run_dotnet_expiry},
    {.id = "dotnet_sweeper",
     .source_title = NET_TITLE,
     .source_org = NET_ORG,
     .year = "not found",
     .url = NET_URL,
     .claim = "Its stand-alone version, a per-user list of request times cleaned by a background "
              "sweeper, limits each user to the configured number of requests per second.",
     .experiment = "sim",
     .command = "for r in 40000 10000 5000; do build/ratelab sim --algo sliding_log_sweeper "
                "--workload poisson --duration 20s --rate $r; done",
     .deterministic = true,
     .run = run_dotnet_sweeper},
    {.id = "wheel_slots",
     .source_title = "title not found (a Chinese article on limiting the packets a user sends in "
                     "a period with a time wheel, CRateLimitMgr::RotateWheel)",
     .source_org = "not found",
     .year = "not found",
     .url = "URL not found",
     .claim = "A time wheel of S slots limits what each user sends per period accurately and "
              "cheaply.",
     .experiment = "sim, stress",
     .command = "for s in 2 10 100; do build/ratelab sim --algo wheel --workload flash --slots "
                "$s; build/ratelab sim --algo wheel --workload poisson --slots $s; "
                "build/ratelab stress --algo clock_faa,wheel --threads 1 --slots $s --duration "
                "100ms --reps 1; done",
     .deterministic = false,
     .run = run_wheel},
    {.id = "redis_article_qps",
     .source_title = "Redis'e Dayalı Akım Sınırlama Sisteminin Tasarımı (Design of a Redis-based "
                     "rate limiting system; a Turkish machine translation, original not found)",
     .source_org = "not found",
     .year = "not found",
     .url = "URL not found",
     .claim = "Its Lua token bucket serves 250, 2000 and 5000 QPS at 1, 10 and 100 client "
              "threads against a 2-core managed Redis.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo redis_tb_article,redis_noop --threads 1,10,100 "
                "--duration 150ms --reps 3",
     .deterministic = false,
     .needs_redis = true,
     .run = run_redis_qps},
    {.id = "cloudflare_error_rate",
     .source_title = "How we built rate limiting capable of scaling to millions of domains",
     .source_org = "Julien Desgats, Cloudflare",
     .year = "2017",
     .url = "https://blog.cloudflare.com/counting-things-a-lot-of-different-things/",
     .claim = "The sliding-window estimate from two fixed-window counters decided wrongly on "
              "0.003% of requests (over 400 million requests, as the project quotes the post).",
     .experiment = "sim",
     .command = "build/ratelab sim --algo sliding_counter --workload poisson --limit 100 "
                "--interval 1s --duration 60s --keys 1000 --rate 110000 --format csv",
     .deterministic = true,
     .run = run_cloudflare},
    {.id = "go_stale_timestamp",
     .source_title = "x/time/rate: Rate limit can be exceeded 5000x under high lock contention "
                     "due to bug in `advance`",
     .source_org = "golang/go issue 71360 (reported by Ingovd)",
     .year = "2025",
     .url = "https://github.com/golang/go/issues/71360",
     .claim = "A call whose timestamp is older than the limiter's last update moves that update "
              "back, so the same time is refilled twice and x/time/rate exceeds its rate (by far, "
              "under lock contention).",
     .experiment = "conformance, sim",
     .command = CONFORMANCE_ROWS("go") "; printf "
                                       "'t_ns,key,n\\n0,k,1\\n1000000000,k,1\\n0,k,1\\n1000000000,"
                                       "k,1\\n1000000000,k,1\\n' > /tmp/go71360.csv; "
                                       "build/conformance/go/bin/driver --mode real --limit 1 "
                                       "--interval-ns 1000000000 --burst 2 /tmp/go71360.csv; "
                                       "build/ratelab sim --algo tb_mutex --trace "
                                       "/tmp/go71360.csv --unsorted --limit 1 --interval 1s "
                                       "--burst 2",
     .deterministic = true,
     .run = run_go_stale},
    {.id = "nginx_ms_cap",
     .source_title = "Module ngx_http_limit_req_module (and its ngx_http_limit_req_module.c)",
     .source_org = "nginx",
     .year = "not checked (the module exists since nginx 0.7.21)",
     .url = "https://nginx.org/en/docs/http/ngx_http_limit_req_module.html",
     .claim = "limit_req holds each key to the configured rate; read from its millisecond "
              "arithmetic (ratelab's reading, not nginx's words), a rate far above 1000 r/s "
              "without burst= is capped near one request per millisecond.",
     .experiment = "sim, conformance",
     .command = "build/ratelab sim --algo leaky_nginx,sliding_log --workload uniform --limit "
                "10000 --interval 1s; " CONFORMANCE_ROWS("nginx"),
     .deterministic = true,
     .run = run_nginx},
    {.id = "resilience4j_2x",
     .source_title = "Rate limiter let's pending requests pass too soon",
     .source_org = "resilience4j issue 1356 (tapioko; answered by storozhukBM)",
     .year = "2021",
     .url = "https://github.com/resilience4j/resilience4j/issues/1356",
     .claim = "AtomicRateLimiter cuts time into cycles fixed from its creation, so calls at the "
              "end of one cycle and the start of the next can pass up to twice limitForPeriod "
              "within one limitRefreshPeriod.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo fw_aligned --workload boundary",
     .deterministic = true,
     .run = run_resilience4j},
    {.id = "relaxed_cas_bucket",
     .source_title = "token bucket: new atomic token bucket implementation (AtomicTokenBucketImpl, "
                     "after folly's TokenBucket); also CppCommon's TokenBucket",
     .source_org = "Envoy, envoyproxy/envoy pull request 34789 (wbpcode); chronoxor, CppCommon",
     .year = "2024 (Envoy); CppCommon not checked",
     .url = "https://github.com/envoyproxy/envoy/pull/34789",
     .claim =
         "A token bucket kept as one time word updated by compare-and-swap needs only "
         "relaxed atomic operations (Envoy's and CppCommon's load and CAS it relaxed; folly's, "
         "which Envoy follows, keeps seq_cst).",
     .experiment = "stress",
     .command = "build/ratelab stress --algo tb_cas,tb_cas_relaxed --threads 2 --record "
                "--duration 300ms --reps 1",
     .deterministic = false,
     .run = run_relaxed},
    {.id = "varnish_truncation",
     .source_title = "vsthrottle.is_denied is triggering with less requests per second than "
                     "configured. (fixed by pull request 243, \"vsthrottle: don't lose fractional "
                     "refill on every admission\")",
     .source_org = "varnish-modules issue 237 (Varnish Software)",
     .year = "2026",
     .url = "https://github.com/varnish/varnish-modules/issues/237",
     .claim = "vsthrottle denies requests below its configured rate, because its refill is cut to "
              "whole tokens and restarted at every admission: about 10% denied at 4000 rps "
              "against 5000 per second.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo tb_mutex,redis_tb_article --workload uniform --limit "
                "1500 --interval 1s --burst 10 --rate 1200 --duration 4s; build/ratelab sim "
                "--algo tb_mutex,redis_tb_article --workload poisson --limit 30 --interval 1s "
                "--burst 5 --rate 24 --duration 60s",
     .deterministic = true,
     .needs_redis = true,
     .run = run_varnish},
    {.id = "linux_trylock",
     .source_title = "ratelimit: Reduce ___ratelimit() false-positive rate limiting",
     .source_org = "Petr Mladek, in Paul E. McKenney's ratelimit series (LKML, v5 patch 8/21)",
     .year = "2025",
     .url = "https://lore.kernel.org/all/20250508233335.1996059-8-paulmck@kernel.org/",
     .claim = "___ratelimit() takes a contended lock as a reason to suppress the caller, so under "
              "contention callers are refused although the burst has room (false positives).",
     .experiment = "stress",
     .command = "build/ratelab stress --algo fw_trylock --threads 1,2 --limit 4000000000 "
                "--interval 10s --duration 200ms --reps 1",
     .deterministic = false,
     .run = run_linux},
    {.id = "wrk2_omission",
     .source_title = "wrk2: a constant throughput, correct latency recording variant of wrk",
     .source_org = "Gil Tene",
     .year = "not checked",
     .url = "https://github.com/giltene/wrk2",
     .claim = "A load generator that waits for each response before sending the next omits the "
              "time requests spend waiting (coordinated omission), so it understates latency; "
              "latency must be counted from when each request should have been sent.",
     .experiment = "replay",
     .command = "build/ratelab replay --algo redis_gcra --threads 2 --workload uniform --rate "
                "100000 --duration 300ms",
     .deterministic = false,
     .needs_redis = true,
     .run = run_wrk2},
    {.id = "guava_idle_burst",
     .source_title = "RateLimiter, create(double permitsPerSecond) (API documentation)",
     .source_org = "Google, Guava",
     .year = "2012 (since Guava 13.0)",
     .url = "https://guava.dev/releases/snapshot-jre/api/docs/com/google/common/util/concurrent/"
            "RateLimiter.html",
     .claim = "On average no more than permitsPerSecond permits are issued in any second; after "
              "an idle spell a burst of up to permitsPerSecond is allowed, then the stable rate.",
     .experiment = "sim, conformance",
     .command = "build/ratelab sim --algo tb_debt --workload onoff --limit 10 --interval 1s "
                "--rate 100 --on 1s --off 2s --duration 9s; " CONFORMANCE_ROWS("guava"),
     .deterministic = true,
     .run = run_guava},
    {.id = NULL},
};

const struct rl_claim *rl_claim_find(const char *id)
{
    for (const struct rl_claim *c = rl_claims; c->id; c++)
        if (strcmp(c->id, id) == 0)
            return c;
    return NULL;
}

void rl_claim_run(const struct rl_claim *claim, const struct rl_claim_env *env,
                  struct rl_claim_outcome *out)
{
    static const struct rl_claim_env none = {0};
    memset(out, 0, sizeof *out);
    out->verdict = RL_CLAIM_NA;
    if (env == NULL)
        env = &none;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (rl_interrupted) {
        failed(out, "interrupted");
    } else if (claim->needs_redis && env->remote == NULL) {
        snprintf(out->condition, sizeof out->condition,
                 "needs a Redis server: no redis-server was found (make deps installs it; or "
                 "give --redis ADDR)");
    } else {
        claim->run(env, out);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    out->seconds =
        (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
}
