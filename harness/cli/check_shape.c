/* check_shape.c — `ratelab check --promise shape`: reads a shaped log,
 * judges it (harness/check/shape_check.c, verdict.c) and prints the
 * verdict with the distance from the ideal schedule. */
#include "check_shape.h"

#include "cli.h"
#include "parse.h"
#include "harness/check/shape_check.h"
#include "harness/check/verdict.h"

#include <stdio.h>

int rl_check_shape(const char *cmd, const struct rl_check_shape_request *req)
{
    struct rl_shaped_log log;
    char err[512];
    if (rl_shaped_log_read_csv(req->events_path, &log, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    struct rl_shape_params params = {.limit = req->limit,
                                     .interval_ns = req->interval_ns,
                                     .burst = req->burst,
                                     .max_wait_set = req->max_wait_set,
                                     .max_wait_ns = req->max_wait_ns};
    struct rl_shape_result r;
    uint32_t keys = log.key_count;
    int rc = rl_shape_check(&log, &params, &r, err, sizeof err);
    rl_shaped_log_free(&log);
    if (rc != 0)
        rl_cli_usage_error(cmd, "%s", err);
    enum rl_held held = rl_shape_verdict(&r);
    char interval[RL_DURATION_BUF_LEN], wait[RL_DURATION_BUF_LEN];
    printf("check: %llu shaped decisions over %u key%s; curve B=%llu + L=%llu per %s; "
           "max wait %s\n\n",
           (unsigned long long)r.attempts, keys, keys == 1 ? "" : "s",
           (unsigned long long)req->burst, (unsigned long long)req->limit,
           rl_format_duration_ns(req->interval_ns, interval, sizeof interval),
           req->max_wait_set ? rl_format_duration_ns(req->max_wait_ns, wait, sizeof wait) : "none");
    printf("%-20s %14llu\n", "admits", (unsigned long long)r.admits);
    printf("%-20s %14llu\n", "rejects", (unsigned long long)r.rejects);
    printf("%-20s %14llu\n", "noncausal", (unsigned long long)r.noncausal);
    printf("%-20s %14llu\n", "curve_violations", (unsigned long long)r.curve_violations);
    printf("%-20s %14.3f\n", "worst_excess", r.worst_excess);
    printf("%-20s %14llu\n", "over_wait", (unsigned long long)r.over_wait);
    printf("%-20s %14llu\n", "spurious_rejects", (unsigned long long)r.spurious_rejects);
    printf("%-20s %14llu\n", "fifo_inversions", (unsigned long long)r.fifo_inversions);
    printf("%-20s %14llu\n", "early_vs_ideal", (unsigned long long)r.early);
    printf("%-20s %14llu\n", "late_p50_ns", (unsigned long long)r.late_p50_ns);
    printf("%-20s %14llu\n", "late_p99_ns", (unsigned long long)r.late_p99_ns);
    printf("%-20s %14llu\n", "late_max_ns", (unsigned long long)r.late_max_ns);
    printf("%-20s %14llu\n", "delay_max_ns", (unsigned long long)r.delay_max_ns);
    printf("%-20s %14s   (releases causal, within B + L·u/I, delay bound, no spurious "
           "reject)\n\n",
           "held", rl_held_name(held));
    printf("late_*: release minus the ideal greedy schedule's (GCRA virtual scheduling of the\n"
           "admitted attempts, exact, rounded up to a ns), over admits; early_vs_ideal: releases\n"
           "before it (possible only off the curve or out of order); fifo_inversions: releases\n"
           "before an earlier arrival's, reported only (not every shaper promises FIFO).\n");
    return held == RL_HELD_YES ? 0 : 1;
}
