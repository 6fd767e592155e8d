/* sim.c — replay a trace through one algorithm in virtual time. */
#include "sim.h"

#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rl_keyed_config rl_sim_keyed_config(const struct rl_algo *algo, const struct rl_config *cfg,
                                           const struct rl_sim_options *options)
{
    struct rl_keyed_config keyed = {.algo = algo, .cfg = *cfg, .expiry = options->expiry};
    keyed.cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
    keyed.cfg.virtual_time = true;
    return keyed;
}

int rl_sim_check_config(const struct rl_algo *algo, const struct rl_config *cfg, char *err,
                        size_t err_len)
{
    static const struct rl_sim_options any = {.expiry = RL_EXPIRE_NEVER};
    struct rl_keyed_config keyed = rl_sim_keyed_config(algo, cfg, &any);
    void *probe = algo->create(&keyed.cfg, err, err_len);
    if (probe == NULL)
        return -1;
    algo->destroy(probe);
    return 0;
}

/* Attempt i's max wait: the trace's own (max_wait_ns column), else the run's. */
static uint64_t wait_of(const struct rl_trace *trace, size_t i, uint64_t run_wait)
{
    uint64_t own = trace->max_wait_ns ? trace->max_wait_ns[i] : RL_TRACE_WAIT_DEFAULT;
    return own != RL_TRACE_WAIT_DEFAULT ? own : run_wait;
}

/* A trace's cancellations in the order sim makes them: by time, then by
 * attempt (a cancellation at the time of a later arrival comes first, so
 * what it gives back is there for that arrival). */
struct cancellation {
    uint64_t t_ns;
    size_t attempt;
};

static int by_cancel_time(const void *a, const void *b)
{
    const struct cancellation *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    return x->attempt < y->attempt ? -1 : x->attempt > y->attempt;
}

/* The trace's cancellations, sorted (by_cancel_time), in *out (*count of
 * them); -1 on ENOMEM. None: *out NULL. */
static int plan_cancellations(const struct rl_trace *trace, struct cancellation **out,
                              size_t *count)
{
    *out = NULL;
    *count = 0;
    if (trace->cancel_ns == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < trace->len; i++)
        n += trace->cancel_ns[i] != RL_TRACE_NO_CANCEL;
    if (n == 0)
        return 0;
    struct cancellation *list = malloc(n * sizeof *list);
    if (list == NULL)
        return -1;
    for (size_t i = 0, k = 0; i < trace->len; i++)
        if (trace->cancel_ns[i] != RL_TRACE_NO_CANCEL)
            list[k++] = (struct cancellation){trace->cancel_ns[i], i};
    qsort(list, n, sizeof *list, by_cancel_time);
    *out = list;
    *count = n;
    return 0;
}

/* One cancellation at its time in virtual time; -2 with err when it has
 * nothing to cancel (a reject, or a reservation released by then). */
static int cancel_one(struct rl_keyed *keyed, struct rl_clock *clock, const struct rl_trace *trace,
                      const struct cancellation *c, const struct rl_reservation *reservations,
                      struct rl_event_log *log, char *err, size_t err_len)
{
    const struct rl_attempt *a = &trace->attempts[c->attempt];
    size_t line = c->attempt + 2;
    if (!log->events[c->attempt].admitted) {
        snprintf(err, err_len,
                 "trace line %zu: cancels the reservation of an attempt that was rejected: there "
                 "is none",
                 line);
        return -2;
    }
    uint64_t release = log->release_ns[c->attempt];
    if (release <= c->t_ns) {
        snprintf(err, err_len,
                 "trace line %zu: cancels at %llu a reservation already released at %llu", line,
                 (unsigned long long)c->t_ns, (unsigned long long)release);
        return -2;
    }
    rl_clock_set_virtual(clock, RL_VIRTUAL_ORIGIN_NS + c->t_ns);
    rl_keyed_cancel(keyed, clock, a->key, a->n, &reservations[c->attempt]);
    log->cancel_ns[c->attempt] = c->t_ns;
    return 0;
}

int rl_sim_run_keyed(const struct rl_algo *algo, const struct rl_config *cfg,
                     const struct rl_sim_options *options, const struct rl_trace *trace,
                     struct rl_event_log *log, struct rl_sim_outcome *out, char *err,
                     size_t err_len)
{
    memset(log, 0, sizeof *log);
    memset(out, 0, sizeof *out);
    log->complete = true;

    struct rl_keyed_config keyed_cfg = rl_sim_keyed_config(algo, cfg, options);
    struct rl_keyed *keyed = rl_keyed_create(&keyed_cfg, err, err_len);
    if (keyed == NULL)
        return -1;
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, err_len);

    log->events = malloc((trace->len ? trace->len : 1) * sizeof *log->events);
    log->key_count = trace->key_count;
    if (log->events == NULL ||
        rl_event_log_copy_key_names(log, trace->key_names, trace->key_count) != 0) {
        snprintf(err, err_len, "out of memory for a trace of %zu attempts", trace->len);
        rl_keyed_destroy(keyed);
        rl_event_log_free(log);
        return -1;
    }
    log->cap = trace->len;
    bool shapes = rl_sim_shapes(algo, options) || trace->max_wait_ns != NULL;
    if (shapes && (log->release_ns =
                       malloc((trace->len ? trace->len : 1) * sizeof *log->release_ns)) == NULL) {
        snprintf(err, err_len, "out of memory for a trace of %zu attempts", trace->len);
        rl_keyed_destroy(keyed);
        rl_event_log_free(log);
        return -1;
    }
    uint64_t max_wait = options->max_wait_set ? options->max_wait_ns : UINT64_MAX;
    struct cancellation *cancels;
    size_t cancel_count, next_cancel = 0;
    struct rl_reservation *reservations = NULL;
    if (plan_cancellations(trace, &cancels, &cancel_count) != 0 ||
        (cancel_count &&
         ((reservations = malloc(trace->len * sizeof *reservations)) == NULL ||
          (log->cancel_ns = malloc(trace->len * sizeof *log->cancel_ns)) == NULL))) {
        snprintf(err, err_len, "out of memory for a trace of %zu attempts", trace->len);
        free(cancels);
        free(reservations);
        rl_keyed_destroy(keyed);
        rl_event_log_free(log);
        return -1;
    }
    if (cancel_count && (algo->shape == NULL || algo->cancel == NULL)) {
        snprintf(err, err_len, "the trace cancels reservations, and %s cannot cancel one",
                 algo->name);
        free(cancels);
        free(reservations);
        rl_keyed_destroy(keyed);
        rl_event_log_free(log);
        return -2;
    }
    if (options->rate_count && (algo->set_rate == NULL || cancel_count ||
                                options->rates[options->rate_count - 1].at_ns >
                                    (trace->len ? trace->attempts[trace->len - 1].t_ns : 0))) {
        if (algo->set_rate == NULL)
            snprintf(err, err_len, "--set-rate: %s cannot change its rate (no set_rate)",
                     algo->name);
        else if (cancel_count)
            snprintf(err, err_len,
                     "--set-rate with a trace that cancels reservations is not modelled");
        else
            snprintf(err, err_len, "--set-rate at %llu ns is after the trace's last attempt",
                     (unsigned long long)options->rates[options->rate_count - 1].at_ns);
        free(cancels);
        free(reservations);
        rl_keyed_destroy(keyed);
        rl_event_log_free(log);
        return -2;
    }
    size_t next_rate = 0;
    for (size_t i = 0; i < trace->len && log->cancel_ns; i++)
        log->cancel_ns[i] = RL_NO_RELEASE;

    int rc = 0;
    for (size_t i = 0; i < trace->len && rc == 0; i++) {
        const struct rl_attempt *a = &trace->attempts[i];
        while (rc == 0 && next_cancel < cancel_count &&
               (cancels[next_cancel].t_ns < a->t_ns ||
                (cancels[next_cancel].t_ns == a->t_ns && cancels[next_cancel].attempt < i)))
            rc = cancel_one(keyed, &clock, trace, &cancels[next_cancel++], reservations, log, err,
                            err_len);
        if (rc != 0)
            break;
        for (; next_rate < options->rate_count && options->rates[next_rate].at_ns <= a->t_ns;
             next_rate++) {
            const struct rl_rate_change *c = &options->rates[next_rate];
            rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + c->at_ns);
            if (!rl_keyed_set_rate(keyed, &clock, c->limit, c->interval_ns)) {
                snprintf(err, err_len,
                         "--set-rate at %llu ns: a key's state cannot take %llu per %llu ns",
                         (unsigned long long)c->at_ns, (unsigned long long)c->limit,
                         (unsigned long long)c->interval_ns);
                rc = -1;
            }
        }
        if (rc != 0)
            break;
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + a->t_ns);
        uint64_t arrival = RL_VIRTUAL_ORIGIN_NS + a->t_ns;
        struct rl_reservation reservation = {.release_ns = arrival};
        enum rl_decision d = algo->shape ? rl_keyed_shape(keyed, &clock, a->key, a->n,
                                                          wait_of(trace, i, max_wait), &reservation)
                                         : rl_keyed_acquire(keyed, &clock, a->key, a->n);
        uint64_t release = reservation.release_ns;
        if (reservations)
            reservations[i] = reservation;
        out->errors += d == RL_ERROR;
        if (d == RL_ERROR)
            d = options->error_admits ? RL_ADMIT : RL_REJECT;
        else if (d == RL_ADMIT && (algo->flags & RL_NEEDS_RELEASE))
            rl_keyed_release(keyed, &clock, a->key, a->n); /* served at once */
        /* as the shaper said, early or not (the checker judges it); an
         * error admitted fail-open goes at once */
        if (shapes)
            log->release_ns[log->len] = d != RL_ADMIT ? RL_NO_RELEASE
                                        : release >= RL_VIRTUAL_ORIGIN_NS
                                            ? release - RL_VIRTUAL_ORIGIN_NS
                                            : 0;
        out->attempts++;
        out->admits += d == RL_ADMIT;
        out->rejects += d == RL_REJECT;
        log->events[log->len++] = (struct rl_event){
            .t_ns = a->t_ns, .key = a->key, .n = a->n, .thread = 0, .admitted = d == RL_ADMIT};
    }
    while (rc == 0 && next_cancel < cancel_count)
        rc = cancel_one(keyed, &clock, trace, &cancels[next_cancel++], reservations, log, err,
                        err_len);
    free(cancels);
    free(reservations);
    out->clock_reads = clock.reads;
    rl_keyed_stats(keyed, &out->keyed);
    rl_keyed_destroy(keyed);
    if (rc != 0)
        rl_event_log_free(log);
    return rc;
}

int rl_sim_run(const struct rl_algo *algo, const struct rl_config *cfg,
               const struct rl_trace *trace, struct rl_event_log *log, struct rl_sim_outcome *out,
               char *err, size_t err_len)
{
    static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
    return rl_sim_run_keyed(algo, cfg, &independent, trace, log, out, err, err_len);
}

/* ---- streaming ------------------------------------------------------------ */

bool rl_sim_can_stream(const struct rl_algo *algo, const struct rl_sim_options *options)
{
    return !rl_sim_shapes(algo, options) && options->rate_count == 0;
}

/* The sink between the generator and the checker: decides a batch as
 * rl_sim_run_keyed's loop does when it does not shape, then hands the
 * batch's decisions to the checker. */
struct stream_run {
    const struct rl_algo *algo;
    bool error_admits;
    struct rl_keyed *keyed;
    struct rl_clock clock;
    struct rl_checker *checker;
    struct rl_event events[RL_STREAM_BATCH];
    struct rl_sim_streamed *out;
    char *err;
    size_t err_len;
};

static int decide_batch(void *ctx, const struct rl_attempt *batch, size_t len)
{
    struct stream_run *s = ctx;
    struct rl_sim_outcome *out = &s->out->sim;
    bool needs_release = (s->algo->flags & RL_NEEDS_RELEASE) != 0;
    for (size_t i = 0; i < len; i++) {
        const struct rl_attempt *a = &batch[i];
        rl_clock_set_virtual(&s->clock, RL_VIRTUAL_ORIGIN_NS + a->t_ns);
        enum rl_decision d = rl_keyed_acquire(s->keyed, &s->clock, a->key, a->n);
        out->errors += d == RL_ERROR;
        if (d == RL_ERROR)
            d = s->error_admits ? RL_ADMIT : RL_REJECT;
        else if (d == RL_ADMIT && needs_release)
            rl_keyed_release(s->keyed, &s->clock, a->key, a->n); /* served at once */
        out->admits += d == RL_ADMIT;
        out->rejects += d == RL_REJECT;
        s->events[i] = (struct rl_event){
            .t_ns = a->t_ns, .key = a->key, .n = a->n, .thread = 0, .admitted = d == RL_ADMIT};
        if (a->t_ns > s->out->last_t_ns)
            s->out->last_t_ns = a->t_ns;
    }
    out->attempts += len;
    return s->checker ? rl_checker_add(s->checker, s->events, len, s->err, s->err_len) : 0;
}

int rl_sim_stream(const struct rl_algo *algo, const struct rl_config *cfg,
                  const struct rl_sim_options *options, const struct rl_workload_params *workload,
                  const struct rl_trace *trace, const struct rl_check_params *check,
                  struct rl_sim_streamed *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct stream_run *s = calloc(1, sizeof *s); /* a batch of events: off the stack */
    if (s == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    *s = (struct stream_run){.algo = algo,
                             .error_admits = options->error_admits,
                             .out = out,
                             .err = err,
                             .err_len = err_len};
    struct rl_keyed_config keyed_cfg = rl_sim_keyed_config(algo, cfg, options);
    s->keyed = rl_keyed_create(&keyed_cfg, err, err_len);
    if (s->keyed == NULL) {
        free(s);
        return -1;
    }
    rl_clock_init(&s->clock, "virtual", err, err_len);
    s->checker = check ? rl_checker_new(check, true, err, err_len) : NULL;
    int rc = s->checker || check == NULL ? 0 : -1;
    if (rc == 0 && trace == NULL) {
        struct rl_attempt_sink sink = {.take = decide_batch, .ctx = s};
        rc = rl_workload_stream(workload, &sink, err, err_len);
    }
    for (size_t i = 0; rc == 0 && trace != NULL && i < trace->len; i += RL_STREAM_BATCH) {
        size_t len = trace->len - i < RL_STREAM_BATCH ? trace->len - i : RL_STREAM_BATCH;
        rc = decide_batch(s, trace->attempts + i, len);
    }
    uint64_t key_count = trace ? trace->key_count : workload->keys;
    if (rc == 0 && s->checker)
        rc = rl_checker_finish(s->checker, key_count, &out->check, err, err_len);
    out->sim.clock_reads = s->clock.reads;
    rl_keyed_stats(s->keyed, &out->sim.keyed);
    rl_keyed_destroy(s->keyed);
    rl_checker_free(s->checker);
    free(s);
    return rc;
}
