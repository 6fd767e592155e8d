/* check_shape.c — `ratelab check --promise shape`: reads a shaped log,
 * judges it (harness/check/shape_check.c, verdict.c) and prints the
 * verdict with the distance from the ideal schedule. */
#include "check_shape.h"

#include "cli.h"
#include "parse.h"
#include "harness/check/shape_check.h"
#include "harness/check/verdict.h"

#include <stddef.h>
#include <stdio.h>

/* The metrics in the order of the table and the csv/json row. */
struct shape_metric {
    const char *name;
    enum { U64, REAL } kind;
    size_t offset;
};

#define U64_METRIC(field)                                                                          \
    {                                                                                              \
#field, U64, offsetof(struct rl_shape_result, field)                                       \
    }
#define REAL_METRIC(field)                                                                         \
    {                                                                                              \
#field, REAL, offsetof(struct rl_shape_result, field)                                      \
    }

static const struct shape_metric metrics[] = {
    U64_METRIC(attempts),
    U64_METRIC(admits),
    U64_METRIC(rejects),
    U64_METRIC(noncausal),
    U64_METRIC(curve_violations),
    REAL_METRIC(worst_excess),
    U64_METRIC(over_wait),
    U64_METRIC(spurious_rejects),
    U64_METRIC(fifo_inversions),
    {"early_vs_ideal", U64, offsetof(struct rl_shape_result, early)},
    U64_METRIC(late_p50_ns),
    U64_METRIC(late_p99_ns),
    U64_METRIC(late_max_ns),
    U64_METRIC(delay_max_ns),
    U64_METRIC(cancellations),
    REAL_METRIC(cancel_tokens_gained),
    REAL_METRIC(cancel_tokens_lost),
    U64_METRIC(old_rate_releases), /* with --set-rate only: the last */
};
#define ALL_METRICS (sizeof metrics / sizeof metrics[0])
/* The metrics a request shows: old_rate_releases only with rate changes,
 * so a run without them prints what it always did. */
static size_t metric_count(const struct rl_check_shape_request *req)
{
    return req->rate_count ? ALL_METRICS : ALL_METRICS - 1;
}

static uint64_t u64_of(const struct rl_shape_result *r, const struct shape_metric *m)
{
    return *(const uint64_t *)(const void *)((const char *)r + m->offset);
}

static double real_of(const struct rl_shape_result *r, const struct shape_metric *m)
{
    return *(const double *)(const void *)((const char *)r + m->offset);
}

/* What the csv/json row needs beside the metrics. */
struct shape_row {
    const struct rl_check_shape_request *req;
    const struct rl_shape_result *r;
    uint32_t keys;
    enum rl_held held;
};

static void fill_row(struct rl_cli_sheet *s, const void *data)
{
    const struct shape_row *row = data;
    rl_cli_sheet_u64(s, row->keys);
    rl_cli_sheet_u64(s, row->req->limit);
    rl_cli_sheet_u64(s, row->req->interval_ns);
    rl_cli_sheet_u64(s, row->req->burst);
    if (row->req->max_wait_set)
        rl_cli_sheet_u64(s, row->req->max_wait_ns);
    else
        rl_cli_sheet_empty(s);
    for (size_t i = 0; i < metric_count(row->req); i++)
        if (metrics[i].kind == U64)
            rl_cli_sheet_u64(s, u64_of(row->r, &metrics[i]));
        else
            rl_cli_sheet_real(s, real_of(row->r, &metrics[i]));
    rl_cli_sheet_text(s, "shape");
    rl_cli_sheet_text(s, rl_held_name(row->held));
}

static void print_table(const struct rl_check_shape_request *req, const struct rl_shape_result *r,
                        uint32_t keys, enum rl_held held)
{
    char interval[RL_DURATION_BUF_LEN], wait[RL_DURATION_BUF_LEN];
    printf("check: %llu shaped decisions over %u key%s; curve B=%llu + L=%llu per %s; "
           "max wait %s\n\n",
           (unsigned long long)r->attempts, keys, keys == 1 ? "" : "s",
           (unsigned long long)req->burst, (unsigned long long)req->limit,
           rl_format_duration_ns(req->interval_ns, interval, sizeof interval),
           req->max_wait_set ? rl_format_duration_ns(req->max_wait_ns, wait, sizeof wait) : "none");
    for (size_t i = 1; i < metric_count(req); i++) { /* attempts is in the line above */
        if (i >= ALL_METRICS - 4 && i < ALL_METRICS - 1 && r->cancellations == 0)
            continue; /* the cancellation lines only where there were some */
        if (metrics[i].kind == U64)
            printf("%-20s %14llu\n", metrics[i].name, (unsigned long long)u64_of(r, &metrics[i]));
        else
            printf("%-20s %14.3f\n", metrics[i].name, real_of(r, &metrics[i]));
    }
    printf("%-20s %14s   (releases causal, within B + L·u/I, delay bound, no spurious "
           "reject)\n\n",
           "held", rl_held_name(held));
    for (size_t k = 0; k < req->rate_count; k++) {
        char at[RL_DURATION_BUF_LEN], per[RL_DURATION_BUF_LEN];
        printf("rate from %s: L=%llu per %s\n",
               rl_format_duration_ns(req->rates[k].at_ns, at, sizeof at),
               (unsigned long long)req->rates[k].limit,
               rl_format_duration_ns(req->rates[k].interval_ns, per, sizeof per));
    }
    if (req->rate_count)
        printf("With rate changes the curve is B + the allowance of each rate over its part of\n"
               "the span, and the ideal schedule knows the changes; old_rate_releases: releases\n"
               "after a change that broke that curve and kept the old rate's (reservations\n"
               "made before the change, released at the old spacing).\n\n");
    printf("late_*: release minus the ideal greedy schedule's (GCRA virtual scheduling of the\n"
           "admitted attempts, exact, rounded up to a ns), over admits; early_vs_ideal: releases\n"
           "before it (possible only off the curve or out of order); fifo_inversions: releases\n"
           "before an earlier arrival's, reported only (not every shaper promises FIFO).\n");
    if (r->cancellations)
        printf("cancel_tokens_*: at the first arrival after each cancellation, its release\n"
               "against the ideal schedule recomputed without the cancelled requests, less the\n"
               "lag the shaper kept before it, in tokens (earlier: gained, later: lost);\n"
               "reported only.\n");
}

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
                                     .max_wait_ns = req->max_wait_ns,
                                     .rates = req->rates,
                                     .rate_count = req->rate_count};
    struct rl_shape_result r;
    uint32_t keys = log.key_count;
    int rc = rl_shape_check(&log, &params, &r, err, sizeof err);
    rl_shaped_log_free(&log);
    if (rc != 0)
        rl_cli_usage_error(cmd, "%s", err);
    enum rl_held held = rl_shape_verdict(&r);
    if (rl_cli_output_view(req->output) == RL_FORMAT_TABLE)
        print_table(req, &r, keys, held);
    /* csv or json on standard output, and --out's CSV: one row */
    const char *columns[ALL_METRICS + 8] = {"keys", "limit", "interval_ns", "burst", "max_wait_ns"};
    size_t shown = metric_count(req);
    for (size_t i = 0; i < shown; i++)
        columns[5 + i] = metrics[i].name;
    columns[5 + shown] = "promise";
    columns[6 + shown] = "held";
    struct rl_cli_output sheet = *req->output;
    if (rl_cli_output_view(req->output) == RL_FORMAT_TABLE)
        sheet.format = RL_FORMAT_TABLE; /* shown above: only --out is left */
    const struct shape_row row = {req, &r, keys, held};
    rl_cli_write_sheet(cmd, &sheet, columns, fill_row, &row);
    return held == RL_HELD_YES ? 0 : 1;
}
