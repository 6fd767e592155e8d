/* stress_history.c — `ratelab stress --history`: the full-history run
 * (harness/run/history_recorder.h), measured against the unrecorded run and
 * the admit recorder (--record) on the same clock, one after the other. */
#include "stress_history.h"

#include "harness/sys/clock.h"

#include <stdio.h>
#include <string.h>

/* One of the three runs; -1 with a line on stderr. */
static int run_once(const struct rl_stress_plan *plan, const struct rl_algo *algo, bool record,
                    size_t history_ops, unsigned windows, struct rl_stress_outcome *out)
{
    struct rl_stress_params p = plan->run;
    p.algo = algo;
    p.threads = (unsigned)plan->threads[0];
    p.record = record;
    p.history = history_ops > 0;
    p.history_capacity = history_ops;
    p.history_windows = windows;
    p.started_clock = &plan->clock;
    char err[512];
    if (rl_stress_run(&p, out, err, sizeof err) != 0) {
        fprintf(stderr, "ratelab stress: %s\n", err);
        return -1;
    }
    return 0;
}

static void print_row(const char *mode, double ns_per_op, double plain_ns)
{
    printf("  %-10s %10.1f %9.2fx\n", mode, ns_per_op, plain_ns > 0 ? ns_per_op / plain_ns : 0.0);
}

/* ns/op inside the recorded windows: each thread's first call to the
 * return before its last in each, over those operations (between windows
 * the run is plain again, so the run's own ns/op would dilute the
 * recorder's cost; a thread's last operation is held open until the others
 * reach theirs, history_recorder.h, so it is left out). */
static double window_ns_per_op(const struct rl_hist_log *h)
{
    double busy = 0, ops = 0;
    for (unsigned w = 0; w < h->window_count; w++)
        for (unsigned i = 0; i < h->count; i++) {
            const struct rl_hist_thread *t = &h->threads[i];
            size_t len = t->lens[w];
            const struct rl_hist_record *r = t->ops + (size_t)w * t->cap;
            if (len < 2)
                continue;
            busy += (double)(r[len - 2].return_ns - r[0].call_ns);
            ops += (double)(len - 1);
        }
    return ops > 0 ? busy / ops : 0;
}

/* "a/b/…": each thread's operations in window w. */
static void print_per_thread(const struct rl_hist_log *h, unsigned w)
{
    for (unsigned i = 0; i < h->count; i++)
        printf("%s%zu", i ? "/" : "", rl_hist_log_window_len(h, w, i));
}

/* What each window holds: where it starts, each thread's operations and
 * what ended it. */
static void print_windows(const struct rl_hist_log *h, size_t max_ops)
{
    printf("  %-6s %10s %10s  %-14s %s\n", "window", "start ms", "length ms", "ops by thread",
           "ended");
    for (unsigned w = 0; w < h->window_count; w++) {
        const struct rl_hist_window *win = &h->windows[w];
        uint64_t end = 0;
        for (unsigned i = 0; i < h->count; i++) {
            size_t len = h->threads[i].lens[w];
            const struct rl_hist_record *r = h->threads[i].ops + (size_t)w * h->threads[i].cap;
            if (len && r[len - 1].return_ns > end)
                end = r[len - 1].return_ns;
        }
        printf("  %-6u %10.3f %10.3f  ", w, (double)(win->start_ns - h->epoch_ns) / 1e6,
               end > win->start_ns ? (double)(end - win->start_ns) / 1e6 : 0.0);
        print_per_thread(h, w);
        printf("  %s\n", win->filled   ? "every thread kept --history-max"
                         : win->cut_ns ? "the next window was due"
                                       : "the run ended");
    }
    (void)max_ops;
}

int rl_stress_history(const struct rl_stress_plan *plan, const struct rl_algo *algo, size_t max_ops,
                      unsigned windows, const char *path)
{
    struct rl_stress_outcome plain, admits, full;
    if (run_once(plan, algo, false, 0, 1, &plain) != 0)
        return 1;
    rl_stress_outcome_free(&plain);
    if (run_once(plan, algo, true, 0, 1, &admits) != 0)
        return 1;
    rl_stress_outcome_free(&admits);
    if (run_once(plan, algo, false, max_ops, windows, &full) != 0)
        return 1;
    int status = 0;
    if (plain.interrupted || admits.interrupted || full.interrupted) {
        fprintf(stderr, "ratelab stress: interrupted; no history written\n");
        status = 1;
        goto done;
    }
    const struct rl_hist_log *h = &full.history;
    size_t ops = rl_hist_log_len(h);
    printf("%s x%u, %.3f s, clock %s: the cost of recording (ns/op per thread, one run each)\n",
           algo->name, (unsigned)plan->threads[0], (double)plan->run.duration_ns / 1e9,
           plan->clock.name);
    printf("  %-10s %10s %10s\n", "mode", "ns/op", "vs plain");
    print_row("plain", plain.ns_per_op, plain.ns_per_op);
    print_row("--record", admits.ns_per_op, plain.ns_per_op);
    print_row("--history", window_ns_per_op(h), plain.ns_per_op);
    printf("  (--record stamps admits only; --history stamps every call twice and keeps its\n"
           "  witness: its ns/op is over the recorded windows, first call to last return,\n"
           "  each thread's last held open for the others left out)\n");
    double mib = (double)(ops * sizeof(struct rl_hist_record)) / 1048576.0;
    if (h->window_count > 1 || h->cut_ns)
        printf("history: %zu operations in %u window%s of the %llu calls (a window opens at a "
               "quiescent cut and ends when every thread has kept its --history-max %zu or the "
               "next is due; between windows the run goes on unrecorded), %.1f MiB kept\n",
               ops, h->window_count, h->window_count == 1 ? "" : "s",
               (unsigned long long)full.attempts, max_ops, mib);
    else
        printf("history: all %zu operations of the run, %.1f MiB kept\n", ops, mib);
    print_windows(h, max_ops);
    char err[512];
    if (rl_hist_log_write(h, algo->name, path, err, sizeof err) != 0) {
        fprintf(stderr, "ratelab stress: %s\n", err);
        status = 1;
        goto done;
    }
    const struct rl_config *cfg = &plan->run.cfg;
    printf("wrote %s; check it with: ratelab check --linearizable --algo %s --limit %llu "
           "--interval %lluns",
           path, algo->name, (unsigned long long)cfg->limit, (unsigned long long)cfg->interval_ns);
    if (cfg->burst)
        printf(" --burst %llu", (unsigned long long)cfg->burst);
    if (cfg->slots)
        printf(" --slots %u", cfg->slots);
    printf(" --events %s\n", path);
done:
    rl_stress_outcome_free(&full);
    return status;
}
