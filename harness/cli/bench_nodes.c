/* bench_nodes.c — `ratelab bench --suite nodes`: every run of the suite
 * (suite_nodes.c) in order, a table per experiment, and the rows in the
 * suite's CSV (nodes_rows.h), with the time the whole suite took. */
#include "bench_nodes.h"

#include "cli.h"
#include "nodes_rows.h"
#include "harness/experiments/suite_nodes.h"
#include "harness/sys/build_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_cli_bench_nodes(const struct rl_cli_output *output)
{
    const char *cmd = "bench";
    rl_cli_output_check(cmd, output);
    size_t count = rl_nodes_suite_plan(NULL, 0);
    struct rl_nodes_item *items = calloc(count, sizeof *items);
    struct rl_nodes_row *rows = calloc(count, sizeof *rows);
    if (items == NULL || rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    rl_nodes_suite_plan(items, count);
    struct rl_context ctx;
    rl_context_init(&ctx);
    char err[512];
    double start = rl_nodes_seconds_now();
    uint64_t decisions = 0;
    for (size_t i = 0; i < count; i++) {
        rl_cli_progress("bench nodes: %zu/%zu %s %s N=%u", i + 1, count, items[i].experiment,
                        items[i].coord, items[i].run.p.nodes);
        double began = rl_nodes_seconds_now();
        if (rl_nodes_suite_run(&items[i], &rows[i].out, err, sizeof err) != 0)
            rl_cli_run_error(cmd, "%s: %s", items[i].coord, err);
        rows[i].wall_s = rl_nodes_seconds_now() - began;
        rows[i].ctx = &ctx;
        rows[i].experiment = items[i].experiment;
        rows[i].coord = items[i].coord;
        rows[i].workload = items[i].workload.name;
        rows[i].run = items[i].run;
        decisions += rows[i].out.attempts;
    }
    rl_cli_progress_done();
    double took = rl_nodes_seconds_now() - start;
    if (rl_cli_output_view(output) == RL_FORMAT_TABLE) {
        for (size_t i = 0; i < count;) {
            size_t j = i;
            while (j < count && strcmp(rows[j].experiment, rows[i].experiment) == 0 &&
                   rows[j].run.p.nodes == rows[i].run.p.nodes &&
                   rows[j].run.p.sync_ns == rows[i].run.p.sync_ns &&
                   rows[j].run.spread.kind == rows[i].run.spread.kind)
                j++;
            printf("[%s] ", rows[i].experiment);
            rl_nodes_print_heading(&rows[i], rows[i].out.attempts);
            rl_nodes_print_table(&rows[i], j - i);
            printf("\n");
            i = j;
        }
        printf("bench nodes: %zu runs, %llu decisions simulated in %.1f s\n", count,
               (unsigned long long)decisions, took);
        for (size_t i = 0; i < count; i++)
            if (strcmp(rows[i].experiment, "speed") == 0)
                printf("speed: %s, %u nodes, %llu decisions: %.1f s of wall time, the trace's "
                       "generation included (the issue's goal: under 60 s)\n",
                       rows[i].coord, rows[i].run.p.nodes, (unsigned long long)rows[i].out.attempts,
                       rows[i].wall_s);
        if (output->out_path)
            printf("wrote %zu rows to %s\n", count, output->out_path);
    }
    rl_nodes_write_rows(cmd, output, rows, count);
    free(items);
    free(rows);
    return 0;
}
