/* stress_check.c — see stress_check.h.
 *
 * Why these bounds are sound from the log: the recorder stamps each admit
 * after acquire returns, so a stamp is never earlier than the admit. A
 * `window` limiter starts its k-th window no earlier than epoch + k·I and
 * admits ≤ L in each, so by stamp time T at most L·(⌊T/I⌋ + 1) admits can
 * exist, and admits stamped in [0, I) all belong to its first window. A
 * sliding-window bound of exactly L is NOT sound for such limiters: two
 * back-to-back windows of L each, one admitting a little more densely than
 * the other, put L + a few into some window of length I. */
#include "stress_check.h"

#include "test_util.h"
#include "harness/run/stress.h"

#include <CUnit/CUnit.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counted acquires ---------------------------------------------------- */

#define COUNT_SLOTS 64 /* threads per run; the tests start at most a handful */

struct count_slot {
    _Alignas(64) struct rl_call_counts counts; /* written by one thread only */
};

static struct count_slot slots[COUNT_SLOTS];
static _Atomic unsigned slots_taken;
static _Atomic unsigned generation = 1; /* bumped per run: a thread's slot is per run */
static const struct rl_algo *counted_inner;
static struct rl_algo counted_algo;

static _Thread_local struct {
    unsigned generation;
    struct rl_call_counts *counts;
} mine;

/* This thread's slot for the current run, taken on its first call. */
static struct rl_call_counts *my_counts(void)
{
    unsigned g = atomic_load_explicit(&generation, memory_order_relaxed);
    if (mine.generation != g) {
        unsigned i = atomic_fetch_add_explicit(&slots_taken, 1, memory_order_relaxed);
        if (i >= COUNT_SLOTS) { /* a CUnit assertion cannot end a worker thread */
            fprintf(stderr, "stress_check: more than %d threads called acquire\n", COUNT_SLOTS);
            abort();
        }
        mine.counts = &slots[i].counts;
        mine.generation = g;
    }
    return mine.counts;
}

static enum rl_decision counted_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                        uint64_t n)
{
    enum rl_decision d = counted_inner->acquire(state, clock, key, n);
    struct rl_call_counts *c = my_counts();
    c->calls++;
    c->answers[d <= RL_ERROR ? d : RL_ERROR]++;
    return d;
}

void rl_count_calls(struct rl_stress_params *params)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(params->algo);
    counted_inner = params->algo;
    counted_algo = *params->algo;
    counted_algo.acquire = counted_acquire;
    memset(slots, 0, sizeof slots);
    atomic_store(&slots_taken, 0);
    atomic_fetch_add(&generation, 1);
    params->algo = &counted_algo;
}

void rl_counted_calls(struct rl_call_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    unsigned taken = atomic_load(&slots_taken);
    for (unsigned i = 0; i < taken && i < COUNT_SLOTS; i++) {
        counts->calls += slots[i].counts.calls;
        for (int d = 0; d < 3; d++)
            counts->answers[d] += slots[i].counts.answers[d];
    }
}

int rl_stress_counted(struct rl_stress_params *params, struct rl_stress_outcome *out, char *err,
                      size_t err_len)
{
    const struct rl_algo *inner = params->algo;
    rl_count_calls(params);
    int rc = rl_stress_run(params, out, err, err_len);
    params->algo = inner;
    if (rc != 0)
        return rc;
    struct rl_call_counts c;
    rl_counted_calls(&c);
    /* the caller's error policy moves each error to admits or rejects */
    uint64_t admitted = c.answers[RL_ADMIT] + (params->error_admits ? c.answers[RL_ERROR] : 0);
    uint64_t rejected = c.answers[RL_REJECT] + (params->error_admits ? 0 : c.answers[RL_ERROR]);
    EXPECT(c.calls > 0, "%s: no acquire was made", inner->name);
    if (params->keys > 1) { /* a one-word key may retry its acquire */
        EXPECT(out->attempts <= c.calls && out->admits <= admitted && out->rejects <= rejected &&
                   out->errors <= c.answers[RL_ERROR],
               "%s: run counted %llu attempts (%llu admits, %llu rejects, %llu errors), more "
               "than the %llu acquires made (%llu admit, %llu reject, %llu error answers)",
               inner->name, (unsigned long long)out->attempts, (unsigned long long)out->admits,
               (unsigned long long)out->rejects, (unsigned long long)out->errors,
               (unsigned long long)c.calls, (unsigned long long)c.answers[RL_ADMIT],
               (unsigned long long)c.answers[RL_REJECT], (unsigned long long)c.answers[RL_ERROR]);
    } else {
        EXPECT(out->attempts == c.calls && out->admits == admitted && out->rejects == rejected &&
                   out->errors == c.answers[RL_ERROR],
               "%s: run counted %llu attempts (%llu admits, %llu rejects, %llu errors), the "
               "acquires made %llu (%llu admit, %llu reject, %llu error answers)",
               inner->name, (unsigned long long)out->attempts, (unsigned long long)out->admits,
               (unsigned long long)out->rejects, (unsigned long long)out->errors,
               (unsigned long long)c.calls, (unsigned long long)c.answers[RL_ADMIT],
               (unsigned long long)c.answers[RL_REJECT], (unsigned long long)c.answers[RL_ERROR]);
    }
    if (params->record)
        EXPECT(out->log.len + out->log.dropped == out->admits,
               "%s: %zu admits recorded + %llu dropped, the run counted %llu admits", inner->name,
               out->log.len, (unsigned long long)out->log.dropped, (unsigned long long)out->admits);
    return 0;
}

void rl_sim_counts_match(const struct rl_sim_outcome *out, const struct rl_event_log *log,
                         size_t trace_len)
{
    uint64_t admitted = 0;
    for (size_t i = 0; i < log->len; i++)
        admitted += log->events[i].admitted != 0;
    EXPECT(log->complete && out->attempts == trace_len && log->len == trace_len &&
               out->admits == admitted && out->rejects == log->len - admitted,
           "sim: %llu attempts (%llu admits, %llu rejects) for a trace of %zu; its log has %zu "
           "lines, %llu admitted",
           (unsigned long long)out->attempts, (unsigned long long)out->admits,
           (unsigned long long)out->rejects, trace_len, log->len, (unsigned long long)admitted);
}

uint64_t rl_sim_checked(const char *name, const struct rl_config *cfg, const struct rl_trace *trace,
                        struct rl_event_log *log, struct rl_check_result *res)
{
    struct rl_sim_outcome out;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(
        rl_sim_run(rl_registry_find(name), cfg, trace, log, &out, err, sizeof err), 0);
    rl_sim_counts_match(&out, log, trace->len);
    struct rl_check_params params = {.limit = cfg->limit, .interval_ns = cfg->interval_ns};
    CU_ASSERT_EQUAL_FATAL(rl_check(log, &params, res, err, sizeof err), 0);
    return out.errors;
}

size_t rl_logs_differ(const struct rl_event_log *a, const struct rl_event_log *b)
{
    size_t differ = 0;
    for (size_t i = 0; i < a->len; i++)
        differ += a->events[i].admitted != b->events[i].admitted;
    return differ;
}

/* ---- sound bounds from the log ------------------------------------------- */

uint64_t rl_certain_max_aligned(const struct rl_event_log *log, uint64_t interval_ns)
{
    uint32_t keys = log->key_count ? log->key_count : 1;
    for (size_t i = 0; i < log->len; i++)
        keys = log->events[i].key >= keys ? log->events[i].key + 1 : keys;
    uint64_t *window = calloc(keys, sizeof *window), *count = calloc(keys, sizeof *count);
    CU_ASSERT_FATAL(window != NULL && count != NULL);
    uint64_t most = 0;
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *e = &log->events[i];
        if (!e->admitted || e->t_ns % interval_ns < e->gap_ns)
            continue;
        uint64_t w = e->t_ns / interval_ns + 1; /* + 1: 0 means "none yet" */
        if (window[e->key] != w) {
            window[e->key] = w;
            count[e->key] = 0;
        }
        count[e->key] += e->n;
        most = count[e->key] > most ? count[e->key] : most;
    }
    free(window);
    free(count);
    return most;
}

void rl_stress_checked(const char *name, unsigned threads, uint64_t limit, uint64_t interval_ns,
                       uint64_t duration_ns, struct rl_stress_verdict *v)
{
    memset(v, 0, sizeof *v);
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_stress_params params = {
        .algo = algo,
        .cfg = {.limit = limit, .interval_ns = interval_ns},
        .threads = threads,
        .duration_ns = duration_ns,
        .clock = "monotonic",
        .record = true,
    };
    struct rl_stress_outcome out;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
    v->attempts = out.attempts;
    v->admits = out.admits;
    v->rejects = out.rejects;
    v->errors = out.errors;
    v->recorded = out.log.len;
    v->dropped = out.log.dropped;
    v->uncertainty_ns = out.log.uncertainty_ns;
    CU_ASSERT(out.attempts > 0);
    CU_ASSERT_EQUAL(out.log.dropped, 0);
    for (size_t i = 0; i < out.log.len; i++) {
        uint64_t t = out.log.events[i].t_ns;
        v->last_stamp_ns = t > v->last_stamp_ns ? t : v->last_stamp_ns;
        v->first_window_admits += t < interval_ns;
    }
    v->window_bound = limit * (v->last_stamp_ns / interval_ns + 1);
    v->certain_max_aligned = rl_certain_max_aligned(&out.log, interval_ns);
    struct rl_check_params check = {.limit = limit, .interval_ns = interval_ns};
    struct rl_check_result res;
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    v->m = res.total;
    CU_ASSERT_EQUAL(res.total.admits, out.log.len);
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}
