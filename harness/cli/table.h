/* table.h — the human view of result rows: aligned tables on stdout. */
#ifndef RL_TABLE_H
#define RL_TABLE_H

#include "harness/report/result.h"

#include <stddef.h>
#include <stdio.h>

/* One line per sim row: promise beside measured accuracy. */
void rl_table_accuracy(FILE *out, const struct rl_result *rows, size_t count);

/* One line per (algorithm, threads) over the stress rows: median ns/op with
 * min–max, median Mops/s and ratio to faa over repetitions (unrecorded rows
 * when there are any), and the worst accuracy of the recorded rows. */
void rl_table_speed(FILE *out, const struct rl_result *rows, size_t count);

/* One line per replay row: decision latency percentiles from the due time,
 * the harness's worst lateness, the call's own p99, and the accuracy of
 * the complete log (sliding/L, aligned/L, false admits and rejects against
 * the strong oracle, utilization, promise held). A rep column when any row
 * has rep > 1. */
void rl_table_replay(FILE *out, const struct rl_result *rows, size_t count);

#endif
