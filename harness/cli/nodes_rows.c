/* nodes_rows.c — a many-nodes run's rows as a table, CSV and JSON
 * (nodes_rows.h). */
#include "nodes_rows.h"

#include "parse.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

static const char *const columns[] = {"mode",
                                      "experiment",
                                      "coord",
                                      "nodes",
                                      "sync_ns",
                                      "rtt_ns",
                                      "jitter_ns",
                                      "loss",
                                      "spread",
                                      "limit",
                                      "interval_ns",
                                      "workload",
                                      "seed",
                                      "keys",
                                      "attempts",
                                      "admits",
                                      "rejects",
                                      "max_sliding",
                                      "max_sliding_ratio",
                                      "bound",
                                      "bound_ratio",
                                      "promise_held",
                                      "node_max_sliding_ratio",
                                      "node0_admit_share",
                                      "window_max_ratio",
                                      "window_p99_ratio",
                                      "step_max_ratio",
                                      "converge_ns",
                                      "messages",
                                      "lost",
                                      "messages_per_node_s",
                                      "store_calls",
                                      "store_calls_per_decision",
                                      "node_offered_max",
                                      "false_admits",
                                      "false_rejects",
                                      "dies",
                                      "stranded",
                                      "freed_ns",
                                      "death_window_ratio",
                                      "next_window_ratio",
                                      "host",
                                      "cpus",
                                      "cpu_model",
                                      "git_rev",
                                      "date",
                                      "wall_s",
                                      NULL};

double rl_nodes_seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct rows {
    const struct rl_nodes_row *rows;
    size_t count;
};

static double per_node_second(const struct rl_nodes_row *r)
{
    double seconds = (double)r->out.span_ns / 1e9;
    return seconds > 0 ? (double)r->out.messages / r->run.p.nodes / seconds : NAN;
}

static double per_decision(const struct rl_nodes_row *r)
{
    return r->out.attempts ? (double)r->out.store_calls / (double)r->out.attempts : NAN;
}

static double bound_ratio(const struct rl_nodes_row *r)
{
    return r->out.promised.kind == RL_BOUND_NONE
               ? NAN
               : (double)rl_promised_bound(&r->out.promised) / (double)r->run.p.limit;
}

static void fill(struct rl_cli_sheet *s, const void *data)
{
    const struct rows *all = data;
    char spread[64], dies[RL_NODES_MAX_DEATHS * 32];
    for (size_t i = 0; i < all->count; i++) {
        const struct rl_nodes_row *r = &all->rows[i];
        const struct rl_nodes_outcome *o = &r->out;
        double limit = (double)r->run.p.limit;
        rl_cli_sheet_text(s, "sim_nodes");
        rl_cli_sheet_text(s, r->experiment);
        rl_cli_sheet_text(s, r->coord);
        rl_cli_sheet_u64(s, r->run.p.nodes);
        rl_cli_sheet_u64(s, r->run.p.sync_ns);
        rl_cli_sheet_u64(s, r->run.rtt_ns);
        rl_cli_sheet_u64(s, r->run.jitter_ns);
        rl_cli_sheet_real(s, r->run.loss);
        rl_cli_sheet_text(s, rl_node_spread_text(&r->run.spread, spread, sizeof spread));
        rl_cli_sheet_u64(s, r->run.p.limit);
        rl_cli_sheet_u64(s, r->run.p.interval_ns);
        rl_cli_sheet_text(s, r->workload);
        rl_cli_sheet_u64(s, r->run.seed);
        rl_cli_sheet_u64(s, r->run.p.keys);
        rl_cli_sheet_u64(s, o->attempts);
        rl_cli_sheet_u64(s, o->admits);
        rl_cli_sheet_u64(s, o->rejects);
        rl_cli_sheet_u64(s, o->global.max_sliding);
        rl_cli_sheet_real(s, (double)o->global.max_sliding / limit);
        if (o->promised.kind == RL_BOUND_NONE)
            rl_cli_sheet_empty(s);
        else
            rl_cli_sheet_u64(s, rl_promised_bound(&o->promised));
        rl_cli_sheet_real(s, bound_ratio(r));
        rl_cli_sheet_text(s, rl_held_name(o->held));
        rl_cli_sheet_real(s, (double)o->node_max_sliding / limit);
        rl_cli_sheet_real(s, o->admits ? (double)o->node0_admits / (double)o->admits : NAN);
        rl_cli_sheet_real(s, o->window_max);
        rl_cli_sheet_real(s, o->window_p99);
        rl_cli_sheet_real(s, o->step_max);
        rl_cli_sheet_u64(s, o->converge_ns);
        rl_cli_sheet_u64(s, o->messages);
        rl_cli_sheet_u64(s, o->lost);
        rl_cli_sheet_real(s, per_node_second(r));
        rl_cli_sheet_u64(s, o->store_calls);
        rl_cli_sheet_real(s, per_decision(r));
        rl_cli_sheet_u64(s, o->h);
        rl_cli_sheet_u64(s, o->global.false_admits);
        rl_cli_sheet_u64(s, o->global.false_rejects);
        bool died = r->run.death_count > 0;
        rl_cli_sheet_text(s, rl_node_deaths_text(&r->run, dies, sizeof dies));
        if (died) {
            rl_cli_sheet_u64(s, o->stranded);
            rl_cli_sheet_u64(s, o->freed_ns);
        } else {
            rl_cli_sheet_empty(s);
            rl_cli_sheet_empty(s);
        }
        rl_cli_sheet_real(s, died ? o->death_window_ratio : NAN);
        rl_cli_sheet_real(s, died ? o->next_window_ratio : NAN);
        rl_cli_sheet_text(s, r->ctx->host);
        rl_cli_sheet_u64(s, r->ctx->cores);
        rl_cli_sheet_text(s, r->ctx->cpu_model);
        rl_cli_sheet_text(s, r->ctx->git_rev);
        rl_cli_sheet_text(s, r->ctx->date);
        rl_cli_sheet_real(s, r->wall_s);
    }
}

void rl_nodes_write_rows(const char *cmd, const struct rl_cli_output *output,
                         const struct rl_nodes_row *rows, size_t count)
{
    struct rows all = {rows, count};
    rl_cli_write_sheet(cmd, output, columns, fill, &all);
}

void rl_nodes_print_heading(const struct rl_nodes_row *rows, size_t attempts)
{
    char interval[RL_DURATION_BUF_LEN], sync[RL_DURATION_BUF_LEN], rtt[RL_DURATION_BUF_LEN],
        spread[64];
    const struct rl_nodes_config *run = &rows[0].run;
    printf("sim: %u nodes share L=%llu per %s; sync %s, rtt %s, spread %s; %s: %zu attempts\n\n",
           run->p.nodes, (unsigned long long)run->p.limit,
           rl_format_duration_ns(run->p.interval_ns, interval, sizeof interval),
           rl_format_duration_ns(run->p.sync_ns, sync, sizeof sync),
           rl_format_duration_ns(run->rtt_ns, rtt, sizeof rtt),
           rl_node_spread_text(&run->spread, spread, sizeof spread), rows[0].workload, attempts);
}

void rl_nodes_print_table(const struct rl_nodes_row *rows, size_t count)
{
    printf("%-11s %5s %6s %8s %7s %7s %7s %7s %7s %7s %10s %9s\n", "coord", "N", "T", "admit%",
           "max/L", "bound/L", "held", "node/L", "p99/L", "step/L", "msg/node/s", "calls/dec");
    for (size_t i = 0; i < count; i++) {
        const struct rl_nodes_row *r = &rows[i];
        const struct rl_nodes_outcome *o = &r->out;
        double limit = (double)r->run.p.limit;
        char bound[16], sync[RL_DURATION_BUF_LEN];
        if (isnan(bound_ratio(r)))
            snprintf(bound, sizeof bound, "-");
        else
            snprintf(bound, sizeof bound, "%.2f", bound_ratio(r));
        printf("%-11s %5u %6s %7.1f%% %7.2f %7s %7s %7.2f %7.2f %7.2f %10.1f %9.3f\n", r->coord,
               r->run.p.nodes, rl_format_duration_ns(r->run.p.sync_ns, sync, sizeof sync),
               o->attempts ? 100.0 * (double)o->admits / (double)o->attempts : 0.0,
               (double)o->global.max_sliding / limit, bound, rl_held_name(o->held),
               (double)o->node_max_sliding / limit, o->window_p99, o->step_max, per_node_second(r),
               per_decision(r));
    }
    for (size_t i = 0; i < count && rows[0].run.death_count; i++) {
        const struct rl_nodes_row *r = &rows[i];
        char dies[RL_NODES_MAX_DEATHS * 32];
        printf("%s%-11s dies %s: stranded %llu tokens, freed after %.0f ms; admitted/L %.2f in the "
               "I after the death, %.2f in the next\n",
               i ? "" : "\n", r->coord, rl_node_deaths_text(&r->run, dies, sizeof dies),
               (unsigned long long)r->out.stranded, (double)r->out.freed_ns / 1e6,
               r->out.death_window_ratio, r->out.next_window_ratio);
    }
    printf("\nmax/L: the most admitted in any sliding window, all nodes; bound/L: the\n"
           "strategy's derived bound (docs/nodes.md); held: whether the run kept it;\n"
           "node/L: one node's most; p99/L: p99 of admitted/L over aligned windows;\n"
           "step/L: the most from the demand step on (flash); calls/dec: store calls\n"
           "per decision.\n");
}
