/* nodes_rows.h — the rows of a many-nodes run (`sim --nodes`, `bench
 * --suite nodes`): their table, and their CSV and JSON columns
 * (results/README.md, "Many-nodes rows"). */
#ifndef RL_NODES_ROWS_H
#define RL_NODES_ROWS_H

#include "output.h"
#include "harness/run/nodes_sim.h"
#include "harness/sys/build_info.h"

#include <stddef.h>

struct rl_nodes_row {
    const char *experiment; /* "sim", or the suite's experiment */
    const char *workload;
    const char *coord; /* as --coord named it, parameters included ("lease:k=250") */
    struct rl_nodes_config run;
    struct rl_nodes_outcome out;
    const struct rl_context *ctx; /* host, CPUs, revision, date: every row's provenance */
    double wall_s;                /* the simulation's own wall time (not the trace's) */
};

/* Seconds on the monotonic clock: a row's wall_s. */
double rl_nodes_seconds_now(void);

/* The heading line of a table of rows sharing one network (rows[0]'s). */
void rl_nodes_print_heading(const struct rl_nodes_row *rows, size_t attempts);

/* One line a row, and the footer that says what the columns are. */
void rl_nodes_print_table(const struct rl_nodes_row *rows, size_t count);

/* The rows as CSV or JSON where output says (output.h). */
void rl_nodes_write_rows(const char *cmd, const struct rl_cli_output *output,
                         const struct rl_nodes_row *rows, size_t count);

#endif
