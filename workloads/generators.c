/* generators.c — the five synthetic workloads of generators.h.
 *
 * Each generator lays down the arrival times alone, in order, through
 * emit(); the emitter draws each attempt's key and cost as it comes (each
 * from its own stream of the seed, so the values do not depend on when
 * they are drawn) and hands batches to a sink: the held trace of
 * rl_workload_generate, or a streaming consumer (rl_workload_stream). The
 * size of a held trace is estimated before anything is allocated, so an
 * absurd parameter is refused at once instead of after minutes of paging.
 */
#include "generators.h"

#include "keys.h"
#include "rng.h"
#include "shaping_workloads.h"
#include "harness/io/errmsg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rl_workload_names[] = {"uniform", "poisson",    "onoff",     "boundary",
                                         "flash",   "idle_burst", "warm_poll", NULL};

enum generator {
    GEN_UNIFORM,
    GEN_POISSON,
    GEN_ONOFF,
    GEN_BOUNDARY,
    GEN_FLASH,
    GEN_IDLE_BURST,
    GEN_WARM_POLL
};

/* The seed's independent streams (rng.h). */
enum { STREAM_TIMES, STREAM_KEYS, STREAM_COSTS };

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

void rl_workload_defaults(struct rl_workload_params *p, uint64_t limit, uint64_t interval_ns)
{
    memset(p, 0, sizeof *p);
    p->name = "uniform";
    p->seed = 1;
    p->duration_ns = 2000000000ull;
    /* 4·L per interval; a zero interval leaves rate 0 for generate to refuse. */
    p->rate_per_s = interval_ns ? 4.0 * (double)limit * 1e9 / (double)interval_ns : 0.0;
    p->keys = 1;
    p->key_dist = RL_KEYS_UNIFORM;
    p->zipf_s = 1.0;
    p->cost_min = 1;
    p->cost_max = 1;
    p->on_ns = 200000000ull;
    p->off_ns = 800000000ull;
    p->interval_ns = interval_ns;
    p->burst_size = limit;
    p->spread_ns = interval_ns / 20;
    if (p->spread_ns == 0 && interval_ns > 0)
        p->spread_ns = 1; /* I < 20 ns: still a valid (if tight) burst */
    p->flash_at_ns = p->duration_ns / 2;
    p->flash_len_ns = interval_ns;
    p->flash_factor = 10.0;
}

void rl_workload_name_defaults(struct rl_workload_params *p, uint64_t limit, uint64_t interval_ns)
{
    if (p->name && strcmp(p->name, "idle_burst") == 0) {
        /* idle long enough to fill a pacer's default slack (10 T) at L >= 4 */
        p->off_ns = 3 * interval_ns;
        p->on_ns = 2 * interval_ns;
        p->burst_size = 2 * limit;
    } else if (p->name && strcmp(p->name, "warm_poll") == 0 && interval_ns) {
        p->rate_per_s = 5.0 / 6.0 * (double)limit * 1e9 / (double)interval_ns;
    }
}

/* ---- validation and size ---------------------------------------------------- */

static bool positive_finite(double x)
{
    return x > 0 && isfinite(x);
}

/* Finds the generator by name; -1 with err set for an unknown one. */
static int find_generator(const char *name, enum generator *gen, char *err, size_t err_len)
{
    for (int i = 0; rl_workload_names[i]; i++)
        if (name && strcmp(name, rl_workload_names[i]) == 0) {
            *gen = (enum generator)i;
            return 0;
        }
    char valid[128] = "";
    for (int i = 0; rl_workload_names[i]; i++) {
        if (i > 0)
            strcat(valid, ", ");
        strcat(valid, rl_workload_names[i]);
    }
    rl_set_err(err, err_len, "unknown workload '%s' (valid: %s)", name ? name : "(none)", valid);
    return -1;
}

/* Checks every parameter the generator uses; -1 with the first complaint. */
static int validate(const struct rl_workload_params *p, enum generator gen, char *err,
                    size_t err_len)
{
    const char *name = p->name;
    if (p->duration_ns == 0) {
        rl_set_err(err, err_len, "workload %s: duration_ns must be > 0", name);
        return -1;
    }
    if (gen != GEN_BOUNDARY && gen != GEN_IDLE_BURST && !positive_finite(p->rate_per_s)) {
        rl_set_err(err, err_len, "workload %s: rate_per_s must be a finite number > 0, not %g",
                   name, p->rate_per_s);
        return -1;
    }
    if (p->keys == 0 || p->keys > RL_WORKLOAD_MAX_ATTEMPTS) {
        rl_set_err(err, err_len, "workload %s: keys must be 1..%llu, not %u", name,
                   RL_WORKLOAD_MAX_ATTEMPTS, p->keys);
        return -1;
    }
    if (p->key_dist != RL_KEYS_UNIFORM && p->key_dist != RL_KEYS_ZIPF) {
        rl_set_err(err, err_len, "workload %s: key_dist %d is neither uniform nor zipf", name,
                   (int)p->key_dist);
        return -1;
    }
    if (p->key_dist == RL_KEYS_ZIPF && !positive_finite(p->zipf_s)) {
        rl_set_err(err, err_len, "workload %s: zipf_s must be a finite number > 0, not %g", name,
                   p->zipf_s);
        return -1;
    }
    if (p->cost_min == 0 || p->cost_min > p->cost_max) {
        rl_set_err(err, err_len,
                   "workload %s: cost range [%u, %u] is empty or holds 0 (need 1 <= cost_min <= "
                   "cost_max)",
                   name, p->cost_min, p->cost_max);
        return -1;
    }
    if (gen == GEN_ONOFF && p->on_ns == 0) {
        rl_set_err(err, err_len, "workload onoff: on_ns must be > 0");
        return -1;
    }
    if (gen == GEN_IDLE_BURST && (p->on_ns == 0 || p->off_ns == 0 || p->burst_size == 0)) {
        rl_set_err(err, err_len,
                   "workload idle_burst: on_ns, off_ns and burst_size must be > 0 (got %llu, "
                   "%llu, %llu)",
                   (unsigned long long)p->on_ns, (unsigned long long)p->off_ns,
                   (unsigned long long)p->burst_size);
        return -1;
    }
    if (!(p->cancel_share >= 0 && p->cancel_share <= 1) ||
        (p->cancel_share > 0 && gen != GEN_IDLE_BURST)) {
        rl_set_err(err, err_len,
                   "workload %s: cancel_share %g must be a share from 0 to 1, and only "
                   "idle_burst cancels",
                   name, p->cancel_share);
        return -1;
    }
    if (gen == GEN_BOUNDARY) {
        if (p->interval_ns == 0 || p->burst_size == 0 || p->spread_ns == 0) {
            rl_set_err(err, err_len,
                       "workload boundary: interval_ns, burst_size and spread_ns must be > 0 (got "
                       "%llu, %llu, %llu)",
                       (unsigned long long)p->interval_ns, (unsigned long long)p->burst_size,
                       (unsigned long long)p->spread_ns);
            return -1;
        }
        if (p->spread_ns > p->interval_ns) {
            rl_set_err(err, err_len,
                       "workload boundary: spread_ns %llu is wider than interval_ns %llu (need "
                       "spread <= interval)",
                       (unsigned long long)p->spread_ns, (unsigned long long)p->interval_ns);
            return -1;
        }
        if (p->duration_ns <= p->interval_ns) {
            rl_set_err(err, err_len,
                       "workload boundary: duration_ns %llu must exceed interval_ns %llu, or no "
                       "window edge falls inside the trace",
                       (unsigned long long)p->duration_ns, (unsigned long long)p->interval_ns);
            return -1;
        }
    }
    if (gen == GEN_FLASH &&
        (!positive_finite(p->flash_factor) || !positive_finite(p->flash_factor * p->rate_per_s))) {
        rl_set_err(err, err_len,
                   "workload flash: flash_factor must be a finite number > 0 whose product with "
                   "rate_per_s is a finite rate > 0, not %g",
                   p->flash_factor);
        return -1;
    }
    return 0;
}

/* Attempts that emit_spaced lays in a span: ceil(span·rate/1e9). */
static long double spaced_count(uint64_t span_ns, double rate_per_s)
{
    return ceill((long double)span_ns * rate_per_s / 1e9L);
}

static uint64_t boundary_edges(const struct rl_workload_params *p)
{
    /* Odd k with k·I < duration: k ≤ (duration − 1) / I. */
    return ((p->duration_ns - 1) / p->interval_ns + 1) / 2;
}

/* The number of attempts the generator will lay (the mean, for poisson).
 * Computed in long double so that no product of parameters can wrap. */
static long double expected_attempts(const struct rl_workload_params *p, enum generator gen)
{
    switch (gen) {
    case GEN_UNIFORM:
    case GEN_WARM_POLL:
        return spaced_count(p->duration_ns, p->rate_per_s);
    case GEN_IDLE_BURST:
        return rl_idle_burst_count(p);
    case GEN_POISSON:
        return (long double)p->duration_ns * p->rate_per_s / 1e9L;
    case GEN_ONOFF: {
        long double period = (long double)p->on_ns + (long double)p->off_ns;
        long double cycles = ceill((long double)p->duration_ns / period);
        return cycles * spaced_count(min_u64(p->on_ns, p->duration_ns), p->rate_per_s);
    }
    case GEN_BOUNDARY:
        return (long double)boundary_edges(p) * (2.0L * (long double)p->burst_size + 1.0L);
    case GEN_FLASH: {
        uint64_t at = min_u64(p->flash_at_ns, p->duration_ns);
        uint64_t end = min_u64(add_sat(at, p->flash_len_ns), p->duration_ns);
        return spaced_count(at, p->rate_per_s) +
               spaced_count(end - at, p->rate_per_s * p->flash_factor) +
               spaced_count(p->duration_ns - end, p->rate_per_s);
    }
    }
    return 0;
}

/* ---- the emitter: keys, costs and batches --------------------------------- */

/* What every generator writes through: attempts in time order, in batches
 * to the sink. rc is the sink's first nonzero answer, after which emit()
 * keeps returning it and the generator stops. */
struct emitter {
    const struct rl_workload_params *p;
    const struct rl_attempt_sink *sink;
    struct rl_key_sampler sampler;
    struct rl_rng key_rng, cost_rng;
    struct rl_attempt batch[RL_STREAM_BATCH];
    size_t len;
    int rc;
};

static int flush(struct emitter *e)
{
    if (e->rc == 0 && e->len > 0)
        e->rc = e->sink->take(e->sink->ctx, e->batch, e->len);
    e->len = 0;
    return e->rc;
}

/* One attempt at t_ns (not before the previous one's), its key and cost drawn now. */
static int emit(struct emitter *e, uint64_t t_ns)
{
    const struct rl_workload_params *p = e->p;
    struct rl_attempt *a = &e->batch[e->len++];
    a->t_ns = t_ns;
    a->key = rl_key_sampler_draw(&e->sampler, &e->key_rng);
    a->n = p->cost_min == p->cost_max
               ? p->cost_min
               : (uint32_t)rl_rng_range(&e->cost_rng, p->cost_min, p->cost_max);
    return e->len == RL_STREAM_BATCH ? flush(e) : e->rc;
}

/* ---- the arrival times ---------------------------------------------------- */

/* Lays attempts at start + floor(j·1e9/rate) for j = 0, 1, … while they fall
 * before end. Long double keeps j·1e9 exact far past 2^53, where a double
 * would start to round i·1e9 and let two attempts swap places. */
/* emit for a generator outside this file (shaping_workloads.c). */
static int emit_at(void *e, uint64_t t_ns)
{
    return emit(e, t_ns);
}

static int emit_spaced(struct emitter *out, uint64_t start, uint64_t end, double rate_per_s)
{
    if (start >= end)
        return 0;
    long double span = (long double)(end - start);
    for (uint64_t j = 0;; j++) {
        long double offset = (long double)j * 1e9L / rate_per_s;
        if (!(offset < span))
            return 0;
        if (emit(out, start + (uint64_t)offset) != 0)
            return -1;
    }
}

static int gen_poisson(const struct rl_workload_params *p, struct emitter *out)
{
    struct rl_rng rng;
    rl_rng_seed(&rng, p->seed, STREAM_TIMES);
    double mean_gap_ns = 1e9 / p->rate_per_s;
    double t = 0;
    for (;;) {
        t += rl_rng_exponential(&rng, mean_gap_ns);
        if (!(t < (double)p->duration_ns))
            return 0;
        uint64_t t_ns = (uint64_t)t;
        if (t_ns >= p->duration_ns) /* (double)duration rounded up */
            return 0;
        if (emit(out, t_ns) != 0)
            return -1;
    }
}

static int gen_onoff(const struct rl_workload_params *p, struct emitter *out)
{
    uint64_t period = add_sat(p->on_ns, p->off_ns);
    for (uint64_t start = 0;;) {
        uint64_t on_end = min_u64(add_sat(start, p->on_ns), p->duration_ns);
        if (emit_spaced(out, start, on_end, p->rate_per_s) != 0)
            return -1;
        if (period >= p->duration_ns - start)
            return 0;
        start += period;
    }
}

static int gen_boundary(const struct rl_workload_params *p, struct emitter *out)
{
    uint64_t burst = p->burst_size, spread = p->spread_ns;
    /* j·spread/burst without a 128-bit product: spread = q·burst + r, and
     * j·r < burst² stays small because the size check capped burst at 10^8. */
    uint64_t q = spread / burst, r = spread % burst;
    uint64_t edges = boundary_edges(p);
    for (uint64_t e = 0; e < edges; e++) {
        uint64_t edge_ns = (2 * e + 1) * p->interval_ns;
        /* The opener: starts the window of limiters whose window begins at
         * an attempt, so theirs ends at this edge too. */
        if (emit(out, edge_ns - p->interval_ns) != 0)
            return -1;
        for (uint64_t j = 0; j < burst; j++)
            if (emit(out, edge_ns - spread + j * q + j * r / burst) != 0)
                return -1;
        for (uint64_t j = 0; j < burst; j++) {
            uint64_t t_ns = edge_ns + j * q + j * r / burst;
            if (t_ns >= p->duration_ns)
                break;
            if (emit(out, t_ns) != 0)
                return -1;
        }
    }
    return 0;
}

static int gen_flash(const struct rl_workload_params *p, struct emitter *out)
{
    uint64_t at = min_u64(p->flash_at_ns, p->duration_ns);
    uint64_t end = min_u64(add_sat(at, p->flash_len_ns), p->duration_ns);
    if (emit_spaced(out, 0, at, p->rate_per_s) != 0 ||
        emit_spaced(out, at, end, p->rate_per_s * p->flash_factor) != 0 ||
        emit_spaced(out, end, p->duration_ns, p->rate_per_s) != 0)
        return -1;
    return 0;
}

/* ---- the entry points -------------------------------------------------- */

/* validate(), and for a stream (no size check) the bound gen_boundary's
 * arithmetic relies on: j·r < burst² fits in 64 bits. */
static int validate_stream(const struct rl_workload_params *p, enum generator *gen, char *err,
                           size_t err_len)
{
    if (find_generator(p->name, gen, err, err_len) != 0 || validate(p, *gen, err, err_len) != 0)
        return -1;
    if (*gen == GEN_BOUNDARY && p->burst_size > RL_WORKLOAD_MAX_ATTEMPTS) {
        rl_set_err(err, err_len, "workload boundary: burst_size must be at most %llu, not %llu",
                   RL_WORKLOAD_MAX_ATTEMPTS, (unsigned long long)p->burst_size);
        return -1;
    }
    return 0;
}

bool rl_workload_can_stream(const struct rl_workload_params *p)
{
    enum generator gen;
    char err[160];
    if (find_generator(p->name, &gen, err, sizeof err) != 0)
        return false;
    /* the shaping workloads' per-attempt columns (a max wait, a cancellation
     * that looks back at its attempt) ride on the held trace */
    return gen != GEN_WARM_POLL && !(gen == GEN_IDLE_BURST && p->cancel_share > 0);
}

int rl_workload_check(const struct rl_workload_params *p, char *err, size_t err_len)
{
    enum generator gen;
    return validate_stream(p, &gen, err, err_len);
}

/* Runs p's generator (gen, validated) into sink: 0, -1 when the sink said
 * so (*sink_failed set) or memory ran out for the emitter. */
static int run_generator(const struct rl_workload_params *p, enum generator gen,
                         const struct rl_attempt_sink *sink, bool *sink_failed)
{
    *sink_failed = false;
    struct emitter *e = malloc(sizeof *e); /* 16 KiB of batch: off the stack */
    if (e == NULL)
        return -1;
    e->p = p;
    e->sink = sink;
    e->len = 0;
    e->rc = 0;
    if (rl_key_sampler_init(&e->sampler, p->key_dist, p->keys, p->zipf_s) != 0) {
        free(e);
        return -1;
    }
    rl_rng_seed(&e->key_rng, p->seed, STREAM_KEYS);
    rl_rng_seed(&e->cost_rng, p->seed, STREAM_COSTS);
    int rc = 0;
    switch (gen) {
    case GEN_UNIFORM:
    case GEN_WARM_POLL:
        rc = emit_spaced(e, 0, p->duration_ns, p->rate_per_s);
        break;
    case GEN_IDLE_BURST:
        rc = rl_gen_idle_burst(p, emit_at, e);
        break;
    case GEN_POISSON:
        rc = gen_poisson(p, e);
        break;
    case GEN_ONOFF:
        rc = gen_onoff(p, e);
        break;
    case GEN_BOUNDARY:
        rc = gen_boundary(p, e);
        break;
    case GEN_FLASH:
        rc = gen_flash(p, e);
        break;
    }
    if (rc == 0)
        rc = flush(e);
    *sink_failed = e->rc != 0;
    rl_key_sampler_free(&e->sampler);
    free(e);
    return rc != 0 ? -1 : 0;
}

int rl_workload_stream(const struct rl_workload_params *p, const struct rl_attempt_sink *sink,
                       char *err, size_t err_len)
{
    enum generator gen;
    if (validate_stream(p, &gen, err, err_len) != 0)
        return -1;
    bool sink_failed;
    if (run_generator(p, gen, sink, &sink_failed) == 0)
        return 0;
    if (!sink_failed)
        rl_set_err(err, err_len, "workload %s: out of memory", p->name);
    return -1;
}

/* The held trace's sink: appends to the trace, which has room reserved for
 * the expected count; refuses to grow a poisson draw past the limit. */
struct trace_sink {
    struct rl_trace *trace;
    const char *name;
    bool nomem;
    char *err;
    size_t err_len;
};

static int take_into_trace(void *ctx, const struct rl_attempt *batch, size_t len)
{
    struct trace_sink *s = ctx;
    for (size_t i = 0; i < len; i++) {
        if (s->trace->len == RL_WORKLOAD_MAX_ATTEMPTS) { /* only poisson's count is random */
            rl_set_err(s->err, s->err_len,
                       "workload %s: drew more than %llu attempts; lower rate_per_s or "
                       "duration_ns",
                       s->name, RL_WORKLOAD_MAX_ATTEMPTS);
            return -1;
        }
        if (rl_trace_push(s->trace, batch[i].t_ns, batch[i].key, batch[i].n) != 0) {
            s->nomem = true;
            return -1;
        }
    }
    return 0;
}

int rl_workload_generate(const struct rl_workload_params *p, struct rl_trace *out, char *err,
                         size_t err_len)
{
    memset(out, 0, sizeof *out);
    enum generator gen;
    if (find_generator(p->name, &gen, err, err_len) != 0 || validate(p, gen, err, err_len) != 0)
        return -1;
    long double expected = expected_attempts(p, gen);
    if (!(expected <= (long double)RL_WORKLOAD_MAX_ATTEMPTS)) {
        char count[48];
        if (expected < 1e15L)
            snprintf(count, sizeof count, "%s%.0Lf", gen == GEN_POISSON ? "about " : "", expected);
        else if (isfinite(expected))
            snprintf(count, sizeof count, "about %.2Le", expected);
        else
            snprintf(count, sizeof count, "more than %llu", RL_WORKLOAD_MAX_ATTEMPTS);
        rl_set_err(err, err_len,
                   "workload %s would have %s attempts, over the limit of %llu; shorten "
                   "duration_ns or lower %s",
                   p->name, count, RL_WORKLOAD_MAX_ATTEMPTS,
                   gen == GEN_BOUNDARY || gen == GEN_IDLE_BURST ? "burst_size" : "the rate");
        return -1;
    }
    /* Poisson's count is random: room for the mean and six of its standard
     * deviations avoids any regrowth in practice. */
    size_t room = (size_t)expected + 1;
    if (gen == GEN_POISSON)
        room += (size_t)(6 * sqrtl(expected)) + 16;
    struct trace_sink ctx = {.trace = out, .name = p->name, .err = err, .err_len = err_len};
    struct rl_attempt_sink sink = {.take = take_into_trace, .ctx = &ctx};
    bool sink_failed = false;
    int rc = rl_trace_reserve(out, room);
    bool nomem = rc != 0;
    if (rc == 0) {
        rc = run_generator(p, gen, &sink, &sink_failed);
        nomem = rc != 0 && (!sink_failed || ctx.nomem);
    }
    if (rc == 0 && (rl_trace_name_keys(out, p->keys) != 0 ||
                    rl_shaping_columns(p, gen == GEN_WARM_POLL, gen == GEN_IDLE_BURST, out) != 0)) {
        rc = -1;
        nomem = true;
    }
    if (nomem)
        rl_set_err(err, err_len, "workload %s: out of memory for %zu attempts", p->name, room);
    if (rc != 0)
        rl_trace_free(out);
    return rc;
}
