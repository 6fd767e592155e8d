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

    for (size_t i = 0; i < trace->len; i++) {
        const struct rl_attempt *a = &trace->attempts[i];
        rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + a->t_ns);
        uint64_t arrival = RL_VIRTUAL_ORIGIN_NS + a->t_ns;
        struct rl_reservation reservation = {.release_ns = arrival};
        enum rl_decision d = algo->shape ? rl_keyed_shape(keyed, &clock, a->key, a->n,
                                                          wait_of(trace, i, max_wait), &reservation)
                                         : rl_keyed_acquire(keyed, &clock, a->key, a->n);
        uint64_t release = reservation.release_ns;
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
    out->clock_reads = clock.reads;
    rl_keyed_stats(keyed, &out->keyed);
    rl_keyed_destroy(keyed);
    return 0;
}

int rl_sim_run(const struct rl_algo *algo, const struct rl_config *cfg,
               const struct rl_trace *trace, struct rl_event_log *log, struct rl_sim_outcome *out,
               char *err, size_t err_len)
{
    static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
    return rl_sim_run_keyed(algo, cfg, &independent, trace, log, out, err, err_len);
}
