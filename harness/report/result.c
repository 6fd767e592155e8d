/* result.c — a result row's promise verdict and its CSV and JSON forms.
 * Both forms come from one column list, so they cannot drift apart. */
#include "result.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The one place rl.h's promise meets harness/check/verdict.h, which does
 * not know the algorithms. */
struct rl_promised rl_promised_of(enum rl_promise promise, const struct rl_config *cfg,
                                  uint64_t excess)
{
    static const enum rl_bound_kind kinds[] = {
        [RL_PROMISE_STRONG] = RL_BOUND_STRONG,
        [RL_PROMISE_WEAK] = RL_BOUND_WEAK,
        [RL_PROMISE_WINDOW] = RL_BOUND_WINDOW,
        [RL_PROMISE_BUCKET] = RL_BOUND_BUCKET,
        [RL_PROMISE_APPROX] = RL_BOUND_NONE,
        [RL_PROMISE_NONE] = RL_BOUND_NONE,
        [RL_PROMISE_CONCURRENCY] = RL_BOUND_CONCURRENCY,
    };
    bool bucket = promise == RL_PROMISE_BUCKET;
    return (struct rl_promised){
        .kind = (size_t)promise < sizeof kinds / sizeof *kinds ? kinds[promise] : RL_BOUND_NONE,
        .limit = cfg->limit,
        .burst = bucket ? rl_config_burst(cfg) : 0,
        .excess = bucket ? excess : 0,
    };
}

struct rl_promised rl_algo_promised(const struct rl_algo *algo, const struct rl_config *cfg,
                                    unsigned threads)
{
    return rl_promised_of(algo->promise, cfg,
                          algo->bucket_excess ? algo->bucket_excess(cfg, threads) : 0);
}

uint64_t rl_result_promised_bound(const struct rl_result *r)
{
    struct rl_promised p = rl_algo_promised(r->algo, &r->cfg, r->threads);
    return rl_promised_bound(&p);
}

uint64_t rl_result_verdict_measure(const struct rl_result *r)
{
    struct rl_promised p = rl_algo_promised(r->algo, &r->cfg, r->threads);
    return rl_verdict_measure(&p, &r->m);
}

enum rl_held rl_result_held(const struct rl_result *r)
{
    struct rl_promised p = rl_algo_promised(r->algo, &r->cfg, r->threads);
    struct rl_run_facts run = {.checked = r->checked,
                               .m = &r->m,
                               .dropped = r->dropped,
                               .errors = r->errors,
                               .has_in_flight = r->has_in_flight,
                               .max_in_flight = r->max_in_flight,
                               .uncertainty_ns = r->uncertainty_ns,
                               .interval_ns = r->cfg.interval_ns};
    return rl_verdict(&p, &run);
}

const char *rl_result_promise_held(const struct rl_result *r)
{
    return rl_held_name(rl_result_held(r));
}

/* ---- one column list for both formats ---------------------------------- */

typedef void (*emit_fn)(void *sink, const char *name, const char *value, bool is_text);

struct emitter {
    emit_fn emit;
    void *sink;
    char buf[64];
};

static void text(struct emitter *e, const char *name, const char *value)
{
    e->emit(e->sink, name, value ? value : "", true);
}

static void u64(struct emitter *e, const char *name, uint64_t value, bool present)
{
    if (present)
        snprintf(e->buf, sizeof e->buf, "%llu", (unsigned long long)value);
    e->emit(e->sink, name, present ? e->buf : "", false);
}

static void real(struct emitter *e, const char *name, double value)
{
    if (isfinite(value))
        snprintf(e->buf, sizeof e->buf, "%.6g", value);
    e->emit(e->sink, name, isfinite(value) ? e->buf : "", false);
}

/* What ran, and on what configuration: the fixed columns that name a row. */
static void emit_configuration(struct emitter *e, const struct rl_result *r)
{
    text(e, "algo", r->algo->name);
    text(e, "family", r->algo->family);
    text(e, "promise", rl_promise_name(r->algo->promise));
    text(e, "mode", r->mode);
    text(e, "workload", r->workload);
    text(e, "clock", r->clock);
    u64(e, "threads", r->threads, true);
    u64(e, "cpus", r->cpus, true);
    u64(e, "rep", r->rep, true);
    u64(e, "limit", r->cfg.limit, true);
    u64(e, "interval_ns", r->cfg.interval_ns, true);
    /* leaky_nginx (family leaky_bucket) reads cfg.burst as nginx's burst=, 0 when unset (rl.h) */
    u64(e, "burst",
        strcmp(r->algo->family, "leaky_bucket") == 0 ? r->cfg.burst : rl_config_burst(&r->cfg),
        true);
}

/* What it decided, how fast, and how accurately: the rest of the fixed
 * columns, the verdict among them. */
static void emit_outcome(struct emitter *e, const struct rl_result *r, const struct rl_context *ctx)
{
    bool checked = r->checked, oracle = r->checked && r->complete;
    const struct rl_key_metrics *m = &r->m;
    u64(e, "attempts", r->attempts, true);
    u64(e, "admits", r->admits, true);
    u64(e, "rejects", r->rejects, true);
    u64(e, "errors", r->errors, true);
    real(e, "ns_per_op", r->ns_per_op);
    real(e, "mops", r->mops);
    u64(e, "max_sliding", m->max_sliding, checked);
    u64(e, "max_aligned", m->max_aligned, checked);
    u64(e, "strong_excess", m->strong_excess, checked);
    u64(e, "weak_excess", m->weak_excess, checked);
    u64(e, "false_admits", m->false_admits, oracle);
    u64(e, "false_rejects", m->false_rejects, oracle);
    real(e, "utilization", oracle ? rl_check_utilization(m, true) : NAN);
    text(e, "promise_held", rl_result_promise_held(r));
    text(e, "host", ctx->host);
    text(e, "git_rev", ctx->git_rev);
}

/* Ours (results/README.md): the checker's further metrics and the run's
 * own measurements, in the order they were added to the format. */
static void emit_ours(struct emitter *e, const struct rl_result *r)
{
    bool checked = r->checked, oracle = r->checked && r->complete;
    const struct rl_key_metrics *m = &r->m;
    real(e, "ratio_faa", r->ratio_faa);
    real(e, "ratio_redis_noop", r->ratio_noop);
    u64(e, "admitted_cost", m->admitted_cost, checked);
    u64(e, "strong_violations", m->strong_violations, checked);
    u64(e, "window_excess", m->window_excess, checked);
    u64(e, "certain_max_sliding", m->certain_max_sliding, checked);
    u64(e, "certain_max_aligned", m->certain_max_aligned, checked);
    u64(e, "weak_false_admits", m->weak_false_admits, oracle);
    u64(e, "weak_false_rejects", m->weak_false_rejects, oracle);
    u64(e, "oracle_admitted_cost", m->oracle_admitted_cost, oracle);
    text(e, "orders", r->algo->orders ? r->algo->orders : "");
    text(e, "recorded", r->checked ? "yes" : "no");
    u64(e, "keys", r->keys, true);
    text(e, "worst_key", checked && r->worst_key ? r->worst_key : "");
    u64(e, "seed", r->seed, true);
    u64(e, "duration_ns", r->duration_ns, true);
    real(e, "clock_reads_per_op", r->clock_reads_per_op);
    u64(e, "stamp_uncertainty_ns", r->uncertainty_ns, checked && strcmp(r->mode, "sim") != 0);
    u64(e, "dropped_events", r->dropped, checked);
    u64(e, "max_in_flight", r->max_in_flight, r->has_in_flight);
    u64(e, "hold_ns", r->hold_ns, r->has_in_flight);
    u64(e, "keys_live", r->keys_live, r->keys > 1 && strcmp(r->mode, "stress") == 0);
    real(e, "bytes_per_key", r->bytes_per_key);
}

/* Ours as well: the machine and build it ran on, then replay's latencies
 * and the machine's load at the run's start. */
static void emit_machine_and_latency(struct emitter *e, const struct rl_result *r,
                                     const struct rl_context *ctx)
{
    text(e, "cpu_model", ctx->cpu_model);
    u64(e, "cores", ctx->cores, true);
    text(e, "compiler", ctx->compiler);
    text(e, "cflags", ctx->cflags);
    text(e, "allocator", ctx->allocator);
    text(e, "date", ctx->date);
    bool lat = r->has_latency;
    real(e, "speed", lat ? r->speed : NAN);
    u64(e, "lat_p50_ns", r->lat_p50_ns, lat);
    u64(e, "lat_p90_ns", r->lat_p90_ns, lat);
    u64(e, "lat_p99_ns", r->lat_p99_ns, lat);
    u64(e, "lat_p999_ns", r->lat_p999_ns, lat);
    u64(e, "lat_max_ns", r->lat_max_ns, lat);
    u64(e, "late_p50_ns", r->late_p50_ns, lat);
    u64(e, "late_p99_ns", r->late_p99_ns, lat);
    u64(e, "late_max_ns", r->late_max_ns, lat);
    u64(e, "svc_p50_ns", r->svc_p50_ns, lat);
    u64(e, "svc_p99_ns", r->svc_p99_ns, lat);
    real(e, "load_1m", r->has_load ? r->load_1m : NAN);
    u64(e, "runnable", r->runnable, r->has_load);
    text(e, "build", ctx->build ? ctx->build : "");
    u64(e, "slots", r->cfg.slots, true);
    /* the verdict's uncertainty (harness/check/verdict.h), added last */
    u64(e, "uncertain_admits", r->m.uncertain_admits, r->checked);
}

/* A Redis algorithm's cluster, and a run with --fault (harness/run/
 * faults.h): what was injected, how long
 * the cluster took to serve every slot again, and the admits beyond the
 * promise (lost writes show there). Empty in every other row. */
static void emit_fault(struct emitter *e, const struct rl_result *r)
{
    bool f = r->fault != NULL;
    text(e, "cluster", r->cluster);
    text(e, "fault", f ? r->fault : "");
    real(e, "outage_ms", f ? r->outage_ms : NAN);
    u64(e, "lost_admits", r->lost_admits, f && r->checked);
}

/* A shaper's real-clock run: the timer's overshoot past the releases
 * (woke − release), the harness's own, added last. */
static void emit_overshoot(struct emitter *e, const struct rl_result *r)
{
    bool o = r->has_overshoot;
    u64(e, "overshoot_p50_ns", r->overshoot_p50_ns, o);
    u64(e, "overshoot_p99_ns", r->overshoot_p99_ns, o);
    u64(e, "overshoot_max_ns", r->overshoot_max_ns, o);
}

/* Every column, in the order docs/design.md (Outputs) and results/README.md
 * give: the fixed columns first, then ours. */
static void emit_columns(struct emitter *e, const struct rl_result *r, const struct rl_context *ctx)
{
    emit_configuration(e, r);
    emit_outcome(e, r, ctx);
    emit_ours(e, r);
    emit_machine_and_latency(e, r, ctx);
    emit_fault(e, r);
    emit_overshoot(e, r);
}

/* ---- CSV ---------------------------------------------------------------- */

struct csv_sink {
    FILE *out;
    bool first;
    bool names;
};

void rl_csv_field(FILE *out, const char *value)
{
    if (strpbrk(value, ",\"\n") == NULL) {
        fputs(value, out);
        return;
    }
    fputc('"', out);
    for (const char *c = value; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

static void csv_emit(void *sink, const char *name, const char *value, bool is_text)
{
    (void)is_text;
    struct csv_sink *s = sink;
    if (!s->first)
        fputc(',', s->out);
    s->first = false;
    rl_csv_field(s->out, s->names ? name : value);
}

void rl_result_csv_header(FILE *out)
{
    static const struct rl_algo placeholder = {.name = "", .family = "", .orders = ""};
    struct rl_result blank = {.algo = &placeholder, .mode = ""};
    struct rl_context ctx = {
        .compiler = "", .cflags = "", .allocator = "", .git_rev = "", .build = ""};
    struct csv_sink sink = {out, true, true};
    struct emitter e = {csv_emit, &sink, {0}};
    emit_columns(&e, &blank, &ctx);
    fputc('\n', out);
}

void rl_result_csv_row(FILE *out, const struct rl_result *r, const struct rl_context *ctx)
{
    struct csv_sink sink = {out, true, false};
    struct emitter e = {csv_emit, &sink, {0}};
    emit_columns(&e, r, ctx);
    fputc('\n', out);
}

/* ---- JSON --------------------------------------------------------------- */

void rl_json_string(FILE *out, const char *value)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void json_emit(void *sink, const char *name, const char *value, bool is_text)
{
    struct csv_sink *s = sink;
    fputs(s->first ? "    " : ",\n    ", s->out);
    s->first = false;
    rl_json_string(s->out, name);
    fputs(": ", s->out);
    if (is_text)
        rl_json_string(s->out, value);
    else
        fputs(*value ? value : "null", s->out);
}

void rl_result_json_begin(FILE *out)
{
    fputs("[", out);
}

void rl_result_json_row(FILE *out, const struct rl_result *r, const struct rl_context *ctx,
                        bool first)
{
    fputs(first ? "\n  {\n" : ",\n  {\n", out);
    struct csv_sink sink = {out, true, false};
    struct emitter e = {json_emit, &sink, {0}};
    emit_columns(&e, r, ctx);
    fputs("\n  }", out);
}

void rl_result_json_end(FILE *out)
{
    fputs("\n]\n", out);
}

/* The names rl_result_key keeps: few (one a measured run), so a list. */
static struct {
    pthread_mutex_t lock;
    char **names;
    size_t count, cap;
} kept_keys = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void free_kept_keys(void)
{
    for (size_t i = 0; i < kept_keys.count; i++)
        free(kept_keys.names[i]);
    free(kept_keys.names);
}

const char *rl_result_key(const char *name)
{
    pthread_mutex_lock(&kept_keys.lock);
    const char *found = NULL;
    for (size_t i = 0; i < kept_keys.count && found == NULL; i++)
        if (strcmp(kept_keys.names[i], name) == 0)
            found = kept_keys.names[i];
    if (found == NULL && kept_keys.count == kept_keys.cap) {
        size_t cap = kept_keys.cap ? 2 * kept_keys.cap : 16;
        char **grown = realloc(kept_keys.names, cap * sizeof *grown);
        if (grown != NULL) {
            if (kept_keys.names == NULL)
                atexit(free_kept_keys);
            kept_keys.names = grown;
            kept_keys.cap = cap;
        }
    }
    if (found == NULL && kept_keys.count < kept_keys.cap &&
        (kept_keys.names[kept_keys.count] = strdup(name)) != NULL)
        found = kept_keys.names[kept_keys.count++];
    pthread_mutex_unlock(&kept_keys.lock);
    return found;
}
