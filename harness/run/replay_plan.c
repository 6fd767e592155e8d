/* replay_plan.c — prepare a grid of replay runs once, then run it
 * interleaved. */
#include "replay_plan.h"

#include "measure.h"
#include "run_clock.h"
#include "harness/sys/interrupt.h"

#include <stdio.h>

/* Keeps, in place, the algorithms that can run with the plan's thread
 * counts and config. Returns how many, or 0 with err. */
static size_t usable_algos(const struct rl_replay_plan *plan, const struct rl_algo **algos,
                           size_t count, bool all, char *err, size_t err_len)
{
    uint64_t most_threads = 1;
    for (size_t t = 0; t < plan->thread_count; t++)
        most_threads = plan->threads[t] > most_threads ? plan->threads[t] : most_threads;
    size_t kept = 0;
    char why[400];
    for (size_t i = 0; i < count; i++) {
        if (!(algos[i]->flags & RL_THREAD_SAFE) && most_threads > 1) {
            if (all)
                continue;
            snprintf(err, err_len, "%s is not thread-safe: use --threads 1", algos[i]->name);
            return 0;
        }
        void *probe = algos[i]->create(&plan->run.cfg, why, sizeof why);
        if (probe == NULL) {
            snprintf(err, err_len, "%s: %s", algos[i]->name, why);
            return 0;
        }
        algos[i]->destroy(probe);
        algos[kept++] = algos[i];
    }
    if (kept == 0)
        snprintf(err, err_len, "no algorithm left to run");
    return kept;
}

/* Everything a replay run needs checked, checked here once (replay_plan.h). */
int rl_replay_plan_prepare(struct rl_replay_plan *plan, const struct rl_algo **algos, size_t count,
                           bool all, char *err, size_t err_len)
{
    if (rl_run_clock_start(plan->run.clock, "replay", &plan->clock, err, err_len) != 0)
        return -1;
    size_t kept = usable_algos(plan, algos, count, all, err, err_len);
    if (kept == 0)
        return -1;
    plan->algos = algos;
    plan->algo_count = kept;
    if (plan->keep_decisions && (kept != 1 || plan->thread_count != 1 || plan->reps != 1)) {
        snprintf(err, err_len,
                 "--decisions writes one run's decisions: give one --algo, one "
                 "--threads count and --reps 1");
        return -1;
    }
    return 0;
}

size_t rl_replay_plan_rows(const struct rl_replay_plan *plan)
{
    return plan->algo_count * plan->thread_count * plan->reps;
}

/* Interleaved as stress plans are, with the clock the plan started. */
size_t rl_replay_plan_run(struct rl_replay_plan *plan, const char *label, struct rl_result *rows,
                          bool *failed, char *err, size_t err_len)
{
    const struct rl_trace *trace = plan->run.trace;
    double seconds_each = (double)trace->attempts[trace->len - 1].t_ns / plan->run.speed / 1e9;
    size_t planned = rl_replay_plan_rows(plan), done = 0;
    struct rl_replay_params params = plan->run;
    params.started_clock = &plan->clock;
    *failed = false;
    /* interleaved as stress plans are: each rep runs every thread count of every algorithm */
    for (unsigned rep = 1; rep <= plan->reps && !*failed && !rl_interrupted; rep++)
        for (size_t t = 0; t < plan->thread_count && !*failed && !rl_interrupted; t++)
            for (size_t a = 0; a < plan->algo_count && !*failed && !rl_interrupted; a++) {
                params.algo = plan->algos[a];
                params.threads = (unsigned)plan->threads[t];
                if (plan->progress) {
                    char line[256];
                    snprintf(line, sizeof line, "%s: %zu/%zu %s x%u rep %u, ~%.0f s left", label,
                             done + 1, planned, params.algo->name, params.threads, rep,
                             seconds_each * (double)(planned - done));
                    plan->progress(line);
                }
                bool faulted = plan->faults && (params.algo->flags & RL_REMOTE);
                struct rl_fault_run faults;
                if (faulted && rl_faults_begin(&faults, plan->faults, plan->cluster,
                                               &plan->cluster_used, err, err_len) != 0) {
                    *failed = true;
                    break;
                }
                int rc =
                    rl_measure_replay(&params, plan->workload, plan->seed, rep, &rows[done],
                                      plan->cdfs ? &plan->cdfs[done] : NULL,
                                      plan->keep_decisions ? &plan->decisions : NULL, err, err_len);
                if (faulted && rc != 0)
                    rl_faults_join(&faults);
                else if (faulted)
                    rc = rl_faults_end(&faults, &rows[done], err, err_len);
                if (rc != 0)
                    *failed = true;
                else
                    rl_faults_name_cluster(plan->cluster, &rows[done++]);
            }
    if (plan->progress)
        plan->progress(NULL);
    return done;
}

void rl_replay_plan_free(struct rl_replay_plan *plan)
{
    rl_event_log_free(&plan->decisions);
}
