/* suite_linearizable.c — record, judge, retry (suite_linearizable.h): one
 * algorithm's recorded histories until a race shows or the tries run out. */
#include "suite_linearizable.h"

#include "algorithms/race_point.h"
#include "harness/run/lin_model.h"
#include "harness/run/stress.h"
#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rl_lin_suite_algos[] = {"fw_atomic_naive",
                                          "fw_cas_nofirst",
                                          "fw_cas",
                                          "fw_cas_acqrel",
                                          "fw_mutex",
                                          "fw_expiry",
                                          "fw_trylock",
                                          "fw_aligned",
                                          "tb_mutex",
                                          "tb_cas",
                                          "tb_cas_relaxed",
                                          "tb_sharded",
                                          "gcra_cas",
                                          "tb_debt",
                                          "leaky_nginx",
                                          "sliding_log",
                                          "sliding_log_sweeper",
                                          "sliding_counter",
                                          "freq_ctr",
                                          "wheel",
                                          "wheel_atomic",
                                          NULL};

struct rl_lin_trial_params rl_lin_suite_params(const char *algo)
{
    return (struct rl_lin_trial_params){.algo = algo,
                                        .threads = 2,
                                        .limit = RL_LIN_SUITE_LIMIT,
                                        .interval_ns = RL_LIN_SUITE_INTERVAL,
                                        .duration_ns = RL_LIN_SUITE_DURATION,
                                        .max_ops = RL_LIN_SUITE_MAX_OPS,
                                        .budget = RL_LIN_SUITE_BUDGET,
                                        .tries = RL_LIN_SUITE_TRIES};
}

static unsigned threads_in(const struct rl_history *h)
{
    uint32_t seen[64];
    unsigned n = 0;
    for (size_t i = 0; i < h->len; i++) {
        unsigned j = 0;
        while (j < n && seen[j] != h->ops[i].thread)
            j++;
        if (j == n && n < 64)
            seen[n++] = h->ops[i].thread;
    }
    return n;
}

static int by_call(const void *a, const void *b)
{
    const struct rl_hist_op *x = a, *y = b;
    return x->call_ns < y->call_ns ? -1 : x->call_ns > y->call_ns;
}

/* Operations called while an operation of another thread was in flight
 * (threads numbered below 64): a sweep by call keeping each thread's
 * latest return. Zero means the threads took turns and no race could be
 * recorded. */
static size_t overlapping_ops(const struct rl_history *h)
{
    struct rl_hist_op *ops = malloc((h->len ? h->len : 1) * sizeof *ops);
    if (ops == NULL)
        return 0;
    memcpy(ops, h->ops, h->len * sizeof *ops);
    qsort(ops, h->len, sizeof *ops, by_call);
    uint64_t last_return[64] = {0};
    size_t n = 0;
    for (size_t i = 0; i < h->len; i++) {
        uint32_t t = ops[i].thread;
        if (t >= 64)
            continue;
        for (uint32_t u = 0; u < 64; u++)
            if (u != t && last_return[u] > ops[i].call_ns) {
                n++;
                break;
            }
        if (ops[i].return_ns > last_return[t])
            last_return[t] = ops[i].return_ns;
    }
    free(ops);
    return n;
}

/* One recorded run, judged: 0 with h and r filled. */
static int record_once(const struct rl_lin_trial_params *p, const struct rl_algo *algo,
                       struct rl_history *h, struct rl_lin_result *r, double *check_s, char *err,
                       size_t err_len)
{
    struct rl_stress_params sp = {.algo = algo,
                                  .threads = p->threads,
                                  .duration_ns = p->duration_ns,
                                  .clock = "monotonic",
                                  .history = true,
                                  .history_capacity = p->max_ops,
                                  .max_wait_ns = UINT64_MAX};
    sp.cfg.limit = p->limit;
    sp.cfg.interval_ns = p->interval_ns;
    struct rl_stress_outcome out;
    rl_race_mute_all(p->plain_races);
    int ran = rl_stress_run(&sp, &out, err, err_len);
    rl_race_mute_all(false);
    if (ran != 0)
        return -1;
    int rc = rl_hist_log_to_history(&out.history, algo->name, h);
    rl_stress_outcome_free(&out);
    if (rc != 0) {
        snprintf(err, err_len, "%s: out of memory for the history", algo->name);
        return -1;
    }
    struct rl_config cfg = sp.cfg;
    cfg.epoch_ns = h->epoch_ns;
    struct rl_lin_algo ctx = {0};
    struct rl_lin_model model;
    struct rl_lin_options o = {.budget = p->budget};
    uint64_t t0 = rl_monotonic_ns();
    rl_race_mute(true); /* the model replays on this thread, sequentially */
    int failed = rl_lin_model_of(algo, &cfg, &ctx, &model, err, err_len) != 0 ||
                 rl_lin_check(h, &model, &o, r, err, err_len) != 0;
    rl_race_mute(false);
    rl_lin_model_free(&ctx);
    if (failed) {
        rl_history_free(h);
        return -1;
    }
    *check_s = (double)(rl_monotonic_ns() - t0) / 1e9;
    return 0;
}

int rl_lin_trial_run(const struct rl_lin_trial_params *p, struct rl_lin_trial *t, char *err,
                     size_t err_len)
{
    memset(t, 0, sizeof *t);
    const struct rl_algo *algo = rl_registry_find(p->algo);
    if (algo == NULL) {
        snprintf(err, err_len, "%s: not in this build", p->algo);
        return -1;
    }
    unsigned tries = p->threads < 2 ? 1 : p->tries;
    bool kept = false;
    for (unsigned run = 1; run <= tries; run++) {
        struct rl_history h;
        struct rl_lin_result r;
        double check_s;
        if (record_once(p, algo, &h, &r, &check_s, err, err_len) != 0) {
            rl_lin_trial_free(t);
            return -1;
        }
        t->runs = run;
        unsigned threads = threads_in(&h);
        bool all = threads >= p->threads;
        t->unknown += all && r.verdict == RL_LIN_UNKNOWN;
        /* all the threads replace fewer, and a decided run an unknown one */
        if (!kept || (all && (t->threads < p->threads || r.verdict != RL_LIN_UNKNOWN))) {
            rl_lin_trial_free(t);
            t->history = h;
            t->result = r;
            t->ops = h.len;
            t->threads = threads;
            t->overlapping = overlapping_ops(&h);
            t->check_s = check_s;
            t->tries = run;
            kept = true;
        } else {
            rl_lin_result_free(&r);
            rl_history_free(&h);
        }
        if (all && t->result.verdict == RL_LIN_NO)
            break;
    }
    return 0;
}

void rl_lin_trial_free(struct rl_lin_trial *t)
{
    rl_history_free(&t->history);
    rl_lin_result_free(&t->result);
}
