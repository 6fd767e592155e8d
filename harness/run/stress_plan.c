/* stress_plan.c — prepare a grid of stress measurements once, then run it
 * interleaved. */
#include "stress_plan.h"

#include "measure.h"
#include "run_clock.h"
#include "harness/sys/interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether algo can run in the plan: thread-safe for its thread counts (or
 * allowed not to be) and creatable with its config. 0 to keep it, 1 to leave
 * it out ("all"), -1 with err to refuse it. */
static int check_algo(const struct rl_stress_plan *plan, const struct rl_stress_asked *asked,
                      const struct rl_algo *algo, char *err, size_t err_len)
{
    uint64_t most_threads = 0;
    for (size_t i = 0; i < plan->thread_count; i++)
        most_threads = plan->threads[i] > most_threads ? plan->threads[i] : most_threads;
    if (!(algo->flags & RL_THREAD_SAFE) && most_threads > 1 && !asked->unsafe) {
        if (asked->all)
            return 1; /* "all" means all that can run here */
        snprintf(err, err_len,
                 "%s is not thread-safe: use --threads 1, or --unsafe to watch it fail",
                 algo->name);
        return -1;
    }
    char why[400];
    void *probe = algo->create(&plan->run.cfg, why, sizeof why);
    if (probe == NULL) {
        snprintf(err, err_len, "%s: %s", algo->name, why);
        return -1;
    }
    algo->destroy(probe);
    return 0;
}

/* The asked algorithms after their floors: faa first, so every other row has
 * its floor from the same run, and redis_noop (the server's floor) next when
 * any is remote. The chosen algorithm runs after its floors, so the last
 * recorded run is its own. Returns the list's length, or 0 with err. */
static size_t list_with_floors(const struct rl_stress_plan *plan,
                               const struct rl_stress_asked *asked, const struct rl_algo **list,
                               size_t room, bool *any_remote, char *err, size_t err_len)
{
    const struct rl_algo *faa = rl_registry_find("faa"), *noop = rl_registry_find("redis_noop");
    bool has_noop = false;
    size_t kept = 1;
    list[0] = faa;
    *any_remote = false;
    for (size_t i = 0; i < asked->count && kept < room; i++) {
        const struct rl_algo *algo = asked->algos[i];
        if (algo == faa)
            continue;
        int verdict = check_algo(plan, asked, algo, err, err_len);
        if (verdict < 0)
            return 0;
        if (verdict > 0)
            continue;
        *any_remote |= (algo->flags & RL_REMOTE) != 0;
        has_noop |= algo == noop;
        list[kept++] = algo;
    }
    if (noop && *any_remote && !has_noop && kept < room) {
        memmove(list + 2, list + 1, (kept - 1) * sizeof *list);
        list[1] = noop;
        kept++;
    }
    return kept;
}

/* Everything a stress run needs checked, checked here once (stress_plan.h). */
int rl_stress_plan_prepare(struct rl_stress_plan *plan, const struct rl_stress_asked *asked,
                           const struct rl_algo **list, size_t room, char *err, size_t err_len)
{
    if (rl_run_clock_start(plan->run.clock, "stress", &plan->clock, err, err_len) != 0)
        return -1;
    plan->clock_started = true;
    bool any_remote;
    size_t kept = list_with_floors(plan, asked, list, room, &any_remote, err, err_len);
    if (kept == 0)
        return -1;
    plan->algos = list;
    plan->algo_count = kept;
    if (plan->keep_decisions) {
        size_t floors = 1 + (any_remote && rl_registry_find("redis_noop") != NULL);
        if (kept > floors + 1 || plan->thread_count != 1 || plan->reps != 1) {
            snprintf(err, err_len,
                     "--decisions writes one run's admits: give one --algo, one "
                     "--threads count and --reps 1");
            return -1;
        }
        plan->run.record = true; /* --decisions implies --record */
    }
    return 0;
}

/* Each run paired with a recorded twin (--record), unless faults make
 * every run a recorded one. */
static bool paired(const struct rl_stress_plan *plan)
{
    return plan->run.record && plan->faults == NULL;
}

size_t rl_stress_plan_rows(const struct rl_stress_plan *plan)
{
    return plan->algo_count * plan->thread_count * plan->reps * (paired(plan) ? 2 : 1);
}

/* One line of progress before run number `done` + 1 of `total`. */
static void show_progress(const struct rl_stress_plan *plan, const char *label, size_t done,
                          size_t total, const struct rl_stress_params *params, unsigned rep)
{
    if (plan->progress == NULL)
        return;
    char line[256];
    snprintf(line, sizeof line, "%s: %zu/%zu %s x%u rep %u%s, ~%.0f s left", label, done + 1, total,
             params->algo->name, params->threads, rep, params->record ? " (recorded)" : "",
             (double)plan->run.duration_ns / 1e9 * (double)(total - done));
    plan->progress(line);
}

/* One run with the plan's faults, on a fresh cluster unless this is the
 * first; the row gets the fault, the outage and the lost admits. */
static int run_faulted(struct rl_stress_plan *plan, const struct rl_stress_params *params,
                       unsigned rep, struct rl_result *row, struct rl_event_log *kept, char *err,
                       size_t err_len)
{
    struct rl_fault_run faults;
    if (rl_faults_begin(&faults, plan->faults, plan->cluster, &plan->cluster_used, err, err_len) !=
        0)
        return -1;
    int rc = rl_measure_stress(params, rep, row, kept, err, err_len);
    if (rc != 0) {
        rl_faults_join(&faults);
        return -1;
    }
    return rl_faults_end(&faults, row, err, err_len);
}

/* One run into *row; a recorded run's admits replace the plan's decisions
 * when it keeps them. -1 with err (or interrupted). */
static int run_one(struct rl_stress_plan *plan, const struct rl_stress_params *params, unsigned rep,
                   struct rl_result *row, char *err, size_t err_len)
{
    struct rl_event_log kept = {0};
    bool keep = params->record && plan->keep_decisions;
    bool faulted = plan->faults && (params->algo->flags & RL_REMOTE);
    int rc = faulted ? run_faulted(plan, params, rep, row, keep ? &kept : NULL, err, err_len)
                     : rl_measure_stress(params, rep, row, keep ? &kept : NULL, err, err_len);
    if (rc != 0)
        return -1;
    rl_faults_name_cluster(plan->cluster, row);
    if (keep) {
        rl_event_log_free(&plan->decisions);
        plan->decisions = kept;
    }
    return 0;
}

/* The plan's own private cluster (cluster_primaries): the one running
 * when it has the shape and no fault touched it, else a fresh one. */
static int prepare_cluster(struct rl_stress_plan *plan, char *err, size_t err_len)
{
    struct rl_redis_cluster *c = plan->cluster;
    static bool faulted; /* the cluster running now had faults */
    bool fits = c->node_count > 0 && !c->joined && c->primaries == plan->cluster_primaries &&
                c->replicas == plan->cluster_replicas && !faulted;
    if (!fits) {
        rl_redis_cluster_stop(c);
        if (rl_redis_cluster_start(c, plan->cluster_primaries, plan->cluster_replicas, err,
                                   err_len) != 0)
            return -1;
    }
    faulted = plan->faults != NULL;
    plan->cluster_used = false;
    plan->run.cfg.remote = c->address;
    return 0;
}

/* Repetitions outermost, so each one passes over every algorithm and thread
 * count before the next: a slow spell lands on all of them alike. */
size_t rl_stress_plan_run(struct rl_stress_plan *plan, const char *label, struct rl_result *rows,
                          bool *interrupted, bool *failed, char *err, size_t err_len)
{
    size_t total = rl_stress_plan_rows(plan), done = 0;
    *interrupted = *failed = false;
    if (!plan->clock_started) { /* once for the whole plan, not once a run */
        if (rl_run_clock_start(plan->run.clock, "stress", &plan->clock, err, err_len) != 0) {
            *failed = true;
            goto out;
        }
        plan->clock_started = true;
    }
    if (plan->cluster_primaries && prepare_cluster(plan, err, err_len) != 0) {
        *failed = true;
        goto out;
    }
    struct rl_stress_params params = plan->run;
    params.started_clock = &plan->clock;
    for (unsigned rep = 1; rep <= plan->reps; rep++)
        for (size_t t = 0; t < plan->thread_count; t++)
            for (size_t a = 0; a < plan->algo_count; a++)
                for (int recorded = plan->faults ? 1 : 0; recorded <= (plan->run.record ? 1 : 0);
                     recorded++) {
                    if (rl_interrupted) {
                        *interrupted = true;
                        goto out;
                    }
                    params.algo = plan->algos[a];
                    params.threads = (unsigned)plan->threads[t];
                    params.record = recorded;
                    show_progress(plan, label, done, total, &params, rep);
                    if (run_one(plan, &params, rep, &rows[done], err, err_len) != 0) {
                        *(rl_interrupted ? interrupted : failed) = true;
                        goto out;
                    }
                    done++;
                }
out:
    if (plan->progress)
        plan->progress(NULL);
    rl_results_fill_ratio_faa(rows, done);
    return done;
}

void rl_stress_plan_free(struct rl_stress_plan *plan)
{
    rl_event_log_free(&plan->decisions);
}
