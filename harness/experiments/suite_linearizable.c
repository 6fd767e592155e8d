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
                                        .tries = RL_LIN_SUITE_TRIES,
                                        .solo_retries = RL_LIN_SUITE_SOLO_RETRIES};
}

/* One operation's span for the sweep; last: its thread's last operation of
 * its window, the one the recorder may hold open. */
struct span {
    uint64_t call_ns, return_ns;
    uint32_t thread;
    bool last;
};

static int by_call(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->call_ns < y->call_ns ? -1 : x->call_ns > y->call_ns;
}

/* Marks each thread's last operation (the latest call) in ops[first, end). */
static void mark_last_calls(const struct rl_history *h, size_t first, size_t end,
                            struct span *spans)
{
    size_t last[RL_LIN_TRIAL_MAX_THREADS];
    for (uint32_t u = 0; u < RL_LIN_TRIAL_MAX_THREADS; u++)
        last[u] = SIZE_MAX;
    for (size_t i = first; i < end; i++) {
        uint32_t t = h->ops[i].thread;
        if (t < RL_LIN_TRIAL_MAX_THREADS &&
            (last[t] == SIZE_MAX || h->ops[i].call_ns >= h->ops[last[t]].call_ns))
            last[t] = i;
    }
    for (uint32_t u = 0; u < RL_LIN_TRIAL_MAX_THREADS; u++)
        if (last[u] != SIZE_MAX)
            spans[last[u]].last = true;
}

/* Overlapping: a sweep by call keeping each thread's latest return (a
 * thread's calls do not overlap each other, so its latest return is that of
 * its operation in flight, if any). A thread's last operation of a window is
 * left out of the spans others are called in: the recorder holds the first
 * finisher's last call open until the others have called their last
 * (history_recorder.c, hold_last_open), so every call they make meanwhile
 * lies inside it without the two threads ever racing. Zero means the
 * threads took turns, or met only in that held-open call, and no race could
 * be recorded. */
int rl_lin_concurrency_of(const struct rl_history *h, unsigned asked, struct rl_lin_concurrency *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < h->len; i++) {
        uint32_t t = h->ops[i].thread;
        if (t < RL_LIN_TRIAL_MAX_THREADS && c->thread_ops[t]++ == 0)
            c->threads++;
    }
    struct span *spans = calloc(h->len ? h->len : 1, sizeof *spans);
    if (spans == NULL)
        return -1;
    for (size_t i = 0; i < h->len; i++)
        spans[i] = (struct span){h->ops[i].call_ns, h->ops[i].return_ns, h->ops[i].thread, false};
    if (h->window_count == 0)
        mark_last_calls(h, 0, h->len, spans);
    for (uint32_t w = 0; w < h->window_count; w++)
        mark_last_calls(h, h->windows[w].first_op,
                        w + 1 < h->window_count ? h->windows[w + 1].first_op : h->len, spans);
    qsort(spans, h->len, sizeof *spans, by_call);
    uint64_t last_return[RL_LIN_TRIAL_MAX_THREADS] = {0};
    for (size_t i = 0; i < h->len; i++) {
        uint32_t t = spans[i].thread;
        if (t >= RL_LIN_TRIAL_MAX_THREADS)
            continue;
        for (uint32_t u = 0; u < RL_LIN_TRIAL_MAX_THREADS; u++)
            if (u != t && last_return[u] > spans[i].call_ns) {
                c->overlapping++;
                break;
            }
        if (!spans[i].last && spans[i].return_ns > last_return[t])
            last_return[t] = spans[i].return_ns;
    }
    free(spans);
    bool all = true;
    for (unsigned i = 0; i < asked && i < RL_LIN_TRIAL_MAX_THREADS; i++)
        all &= c->thread_ops[i] > 0;
    c->concurrent = asked < 2 || (all && c->overlapping > 0);
    return 0;
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
                                  /* thread i on CPU i: unpinned, the scheduler
                                   * often ran both on one CPU, and one thread's
                                   * whole window (tens of µs) fit in the
                                   * other's wait: 115-361 solo runs a suite
                                   * against none pinned, on 2 CPUs */
                                  .pin = true,
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
    bool control = p->threads < 2;
    unsigned tries = control ? 1 : p->tries, solo_left = control ? 0 : p->solo_retries;
    unsigned concurrent_runs = 0;
    bool kept = false;
    for (unsigned run = 1; concurrent_runs < tries; run++) {
        struct rl_history h;
        struct rl_lin_result r;
        double check_s;
        if (record_once(p, algo, &h, &r, &check_s, err, err_len) != 0) {
            rl_lin_trial_free(t);
            return -1;
        }
        t->runs = run;
        struct rl_lin_concurrency c;
        if (rl_lin_concurrency_of(&h, p->threads, &c) != 0) {
            rl_lin_result_free(&r);
            rl_history_free(&h);
            rl_lin_trial_free(t);
            snprintf(err, err_len, "%s: out of memory counting the history", algo->name);
            return -1;
        }
        bool concurrent = c.concurrent;
        concurrent_runs += concurrent;
        t->solo += !concurrent;
        t->unknown += concurrent && r.verdict == RL_LIN_UNKNOWN;
        /* a concurrent run replaces one that is not, and a decided run an
         * unknown one */
        if (!kept || (concurrent && (!t->concurrent || r.verdict != RL_LIN_UNKNOWN))) {
            rl_lin_trial_free(t);
            t->history = h;
            t->result = r;
            t->ops = h.len;
            t->threads = c.threads;
            memcpy(t->thread_ops, c.thread_ops, sizeof c.thread_ops);
            t->overlapping = c.overlapping;
            t->concurrent = concurrent;
            t->check_s = check_s;
            t->tries = run;
            kept = true;
        } else {
            rl_lin_result_free(&r);
            rl_history_free(&h);
        }
        if (concurrent && t->result.verdict == RL_LIN_NO)
            break;
        if (!concurrent && solo_left-- == 0)
            break; /* the retries are spent: the kept history says it is not concurrent */
    }
    return 0;
}

const char *rl_lin_trial_verdict(const struct rl_lin_trial *t)
{
    return t->concurrent ? rl_lin_verdict_name(t->result.verdict) : "no concurrent history";
}

void rl_lin_trial_free(struct rl_lin_trial *t)
{
    rl_history_free(&t->history);
    rl_lin_result_free(&t->result);
}
