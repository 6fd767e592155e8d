/* claims_kit.c — the helpers every claim's runner uses (claims_kit.h):
 * text for the figure and condition, the sim and stress runs a claim takes,
 * medians over repeated rows, the committed conformance results. */
#include "harness/sys/cpus.h"
#include "harness/report/stats.h"
#include "claims_kit.h"

#include "harness/run/measure.h"
#include "harness/run/stress_plan.h"
#include "algorithms/rl.h"
#include "harness/io/csv_read.h"
#include "harness/io/file_bytes.h"
#include "workloads/generators.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- small helpers ---------------------------------------------------------- */

/* Appends formatted text to buf (len bytes), cutting it short if full. */
void rl_claim_add(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf + used, len - used, fmt, args);
    va_end(args);
}

void rl_claim_verdict(struct rl_claim_outcome *o, enum rl_claim_verdict verdict, const char *fmt,
                      ...)
{
    o->verdict = verdict;
    size_t used = strlen(o->condition);
    if (used + 1 >= sizeof o->condition)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(o->condition + used, sizeof o->condition - used, fmt, args);
    va_end(args);
}

/* Marks the claim unmeasured: a run could not be made. */
void rl_claim_failed(struct rl_claim_outcome *o, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(o->err, sizeof o->err, fmt, args);
    va_end(args);
    o->failed = true;
    o->verdict = RL_CLAIM_NA;
    snprintf(o->condition, sizeof o->condition, "not measured: %s", o->err);
}

unsigned rl_claim_cpus(void)
{
    return (unsigned)rl_cpu_count();
}

const char *rl_claim_machine(void)
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

double rl_claim_per_limit(uint64_t value, uint64_t limit)
{
    return limit ? (double)value / (double)limit : NAN;
}

const char *rl_claim_root(const struct rl_claim_env *env)
{
    return env && env->root ? env->root : ".";
}

/* ---- sim ------------------------------------------------------------------ */

static struct rl_config spec_config(const struct rl_claim_sim *s, const char *remote)
{
    return (struct rl_config){.limit = s->limit,
                              .interval_ns = s->interval_ns,
                              .burst = s->burst,
                              .slots = s->slots,
                              .remote = remote,
                              .virtual_time = true};
}

int rl_claim_sim_trace(const struct rl_claim_sim *s, struct rl_trace *trace, char *err, size_t len)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, s->limit, s->interval_ns);
    p.name = s->workload;
    rl_workload_name_defaults(&p, s->limit, s->interval_ns);
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
int rl_claim_sim_rows(const char *const *names, size_t count, const struct rl_claim_sim *s,
                      const char *remote, struct rl_result *rows, struct rl_claim_outcome *o)
{
    char err[512];
    struct rl_trace trace = {0};
    if (rl_claim_sim_trace(s, &trace, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s", err);
        return -1;
    }
    struct rl_config cfg = spec_config(s, remote);
    static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const struct rl_algo *a = rl_registry_find(names[i]);
        if (a == NULL) {
            rl_claim_failed(o, "no algorithm %s", names[i]);
            rc = -1;
        } else if (rl_measure_sim(a, &cfg, &independent, &trace, s->workload, 1, &rows[i], NULL,
                                  err, sizeof err) != 0) {
            rl_claim_failed(o, "sim %s on %s: %s", names[i], s->workload, err);
            rc = -1;
        }
    }
    rl_trace_free(&trace);
    return rc;
}

int rl_claim_sim_row(const char *name, const struct rl_claim_sim *s, const char *remote,
                     struct rl_result *row, struct rl_claim_outcome *o)
{
    return rl_claim_sim_rows(&name, 1, s, remote, row, o);
}

uint64_t rl_claim_wrong(const struct rl_result *r)
{
    return r->m.false_admits + r->m.false_rejects;
}

/* ---- stress --------------------------------------------------------------- */

/* One stress run of the named algorithm, recorded or not. */
int rl_claim_stress_row(const char *name, const struct rl_config *cfg, unsigned threads,
                        uint64_t duration_ns, bool record, struct rl_result *row,
                        struct rl_claim_outcome *o)
{
    char err[512];
    const struct rl_algo *a = rl_registry_find(name);
    if (a == NULL) {
        rl_claim_failed(o, "no algorithm %s", name);
        return -1;
    }
    struct rl_stress_params p = {.algo = a,
                                 .cfg = *cfg,
                                 .threads = threads,
                                 .duration_ns = duration_ns,
                                 .clock = "monotonic",
                                 .record = record};
    if (rl_measure_stress(&p, 1, row, NULL, err, sizeof err) != 0) {
        rl_claim_failed(o, "stress %s x%u: %s", name, threads, err);
        return -1;
    }
    return 0;
}

size_t rl_claim_stress_plan(const struct rl_claim_stress *s, struct rl_result **rows,
                            struct rl_claim_outcome *o)
{
    const struct rl_algo *algos[16];
    size_t count = s->count < 16 ? s->count : 16;
    *rows = NULL;
    for (size_t i = 0; i < count; i++)
        if ((algos[i] = rl_registry_find(s->names[i])) == NULL) {
            rl_claim_failed(o, "no algorithm %s", s->names[i]);
            return 0;
        }
    struct rl_stress_plan plan = {.algos = algos,
                                  .algo_count = count,
                                  .threads = s->threads,
                                  .thread_count = s->thread_count,
                                  .reps = s->reps,
                                  .run = {.duration_ns = s->duration_ns,
                                          .clock = "monotonic",
                                          .cfg = s->cfg,
                                          .record = s->record},
                                  .cluster = s->cluster,
                                  .cluster_primaries = s->cluster_primaries,
                                  .cluster_replicas = s->cluster_replicas,
                                  .faults = s->faults};
    size_t planned = rl_stress_plan_rows(&plan);
    *rows = calloc(planned ? planned : 1, sizeof **rows);
    if (*rows == NULL) {
        rl_claim_failed(o, "out of memory");
        return 0;
    }
    bool interrupted = false, run_failed = false;
    char err[512] = "";
    size_t done =
        rl_stress_plan_run(&plan, "claims", *rows, &interrupted, &run_failed, err, sizeof err);
    if (done < planned) {
        rl_claim_failed(o, "%s", interrupted ? "interrupted" : err);
        free(*rows);
        *rows = NULL;
        return 0;
    }
    return done;
}

/* The median of field() over the unrecorded (or, with recorded, the
 * recorded) rows of the named algorithm at threads; NAN if none. */
double rl_claim_median(const struct rl_result *rows, size_t count, const char *name,
                       unsigned threads, bool recorded, double (*field)(const struct rl_result *r))
{
    double values[64];
    size_t n = 0;
    for (size_t i = 0; i < count && n < 64; i++)
        if (strcmp(rows[i].algo->name, name) == 0 && rows[i].threads == threads &&
            rows[i].checked == recorded)
            values[n++] = field(&rows[i]);
    return rl_median(values, n);
}

struct rl_spread rl_claim_spread(const struct rl_result *rows, size_t count, const char *name,
                                 unsigned threads, bool recorded,
                                 double (*field)(const struct rl_result *r))
{
    double values[64];
    size_t n = 0;
    for (size_t i = 0; i < count && n < 64; i++)
        if (strcmp(rows[i].algo->name, name) == 0 && rows[i].threads == threads &&
            rows[i].checked == recorded && !isnan(field(&rows[i])))
            values[n++] = field(&rows[i]);
    return rl_spread_of(values, n);
}

enum rl_claim_order rl_claim_compare(struct rl_claim_outcome *o, const char *name_a,
                                     struct rl_spread a, const char *name_b, struct rl_spread b,
                                     const char *unit)
{
    if (a.count > 0 && b.count > 0 && a.max < b.min)
        return RL_CLAIM_A_BELOW;
    if (a.count > 0 && b.count > 0 && b.max < a.min)
        return RL_CLAIM_B_BELOW;
    /* one of each is no interval at all: nothing to tell apart */
    rl_claim_verdict(o, RL_CLAIM_DEPENDS,
                     "%swithin noise: %s %.1f%s (min-max %.1f-%.1f, %zu run%s) and %s %.1f%s "
                     "(%.1f-%.1f, %zu run%s) overlap, so these runs show no difference",
                     o->condition[0] ? "; " : "", name_a, a.median, unit, a.min, a.max, a.count,
                     a.count == 1 ? "" : "s", name_b, b.median, unit, b.min, b.max, b.count,
                     b.count == 1 ? "" : "s");
    return RL_CLAIM_WITHIN_NOISE;
}

double rl_claim_ns_per_op(const struct rl_result *r)
{
    return r->ns_per_op;
}

double rl_claim_decisions_per_s(const struct rl_result *r)
{
    return r->mops * 1e6;
}

double rl_claim_ratio_to_noop(const struct rl_result *r)
{
    return r->ratio_noop;
}

double rl_claim_reject_share(const struct rl_result *r)
{
    return r->attempts ? (double)r->rejects / (double)r->attempts : NAN;
}

const struct rl_result *rl_claim_find_row(const struct rl_result *rows, size_t count,
                                          const char *name, unsigned threads, bool recorded)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(rows[i].algo->name, name) == 0 && rows[i].threads == threads &&
            rows[i].checked == recorded)
            return &rows[i];
    return NULL;
}

/* ---- the conformance results ------------------------------------------------ */

enum { CONF_FIELDS = 32 };

/* The columns a conformance row is read from, in this order. */
static const char *const conformance_columns[] = {
    "peer",      "algo",          "traces",          "skipped",  "attempts",
    "identical", "peer_rounding", "peer_stale_time", "semantic", "stale_extra_admits",
    "git_rev",   "date"};
enum { CONF_COLUMNS = sizeof conformance_columns / sizeof conformance_columns[0] };

/* Fills c from the record's fields at col[] (conformance_columns' order). */
static void conformance_fill(struct rl_claim_conformance *c, char *const *f, const int *col)
{
    uint64_t *numbers[] = {&c->traces,   &c->skipped, &c->attempts, &c->identical,
                           &c->rounding, &c->stale,   &c->semantic};
    for (int i = 0; i < 7; i++)
        *numbers[i] = strtoull(f[col[2 + i]], NULL, 10);
    c->stale_extra = strtoll(f[col[9]], NULL, 10);
    snprintf(c->git_rev, sizeof c->git_rev, "%s", f[col[10]]);
    snprintf(c->date, sizeof c->date, "%s", f[col[11]]);
}

/* Finds peer and algo's row in the CSV text; -1 with err when there is
 * none, a column is missing or the text is not CSV. */
static int conformance_find(const char *text, size_t len, const char *peer, const char *algo,
                            struct rl_claim_conformance *c, char *err, size_t err_len)
{
    struct rl_csv_reader r;
    char store[4096], why[256];
    char *f[CONF_FIELDS];
    int col[CONF_COLUMNS];
    rl_csv_reader_init(&r, text, len);
    int n = rl_csv_next(&r, store, sizeof store, f, CONF_FIELDS, why, sizeof why);
    for (size_t i = 0; n >= 0 && i < CONF_COLUMNS; i++)
        if ((col[i] = rl_csv_column(f, n, conformance_columns[i])) < 0) {
            snprintf(err, err_len, "%.200s: no column %s", c->path, conformance_columns[i]);
            return -1;
        }
    while (n > 0 &&
           (n = rl_csv_next(&r, store, sizeof store, f, CONF_FIELDS, why, sizeof why)) > 0) {
        bool complete = true;
        for (size_t i = 0; i < CONF_COLUMNS; i++)
            complete &= col[i] < n;
        if (complete && strcmp(f[col[0]], peer) == 0 && strcmp(f[col[1]], algo) == 0) {
            conformance_fill(c, f, col);
            return 0;
        }
    }
    if (n < 0)
        snprintf(err, err_len, "%.200s: %s", c->path, why);
    else
        snprintf(err, err_len, "%.200s: no row for %s and %s", c->path, peer, algo);
    return -1;
}

int rl_claim_conformance_row(const struct rl_claim_env *env, const char *peer, const char *algo,
                             struct rl_claim_conformance *c, char *err, size_t err_len)
{
    memset(c, 0, sizeof *c);
    if (strcmp(rl_claim_root(env), ".") == 0)
        snprintf(c->path, sizeof c->path, "results/conformance.csv");
    else
        snprintf(c->path, sizeof c->path, "%s/results/conformance.csv", rl_claim_root(env));
    struct rl_file_bytes fb;
    if (rl_file_bytes_load(c->path, &fb, err, err_len) != 0)
        return -1;
    int rc = conformance_find((const char *)fb.data, fb.len, peer, algo, c, err, err_len);
    rl_file_bytes_free(&fb);
    return rc;
}
