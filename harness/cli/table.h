/* table.h — the human view of result rows: aligned tables on stdout. */
#ifndef RL_TABLE_H
#define RL_TABLE_H

#include "harness/report/result.h"

#include <stddef.h>
#include <stdio.h>

/* Tables show user-provided text (trace file names, keys) only through
 * this: bytes a terminal would act on (controls, escape sequences, invalid
 * UTF-8, C1 and bidirectional controls) become \xNN, a backslash \\, and
 * the rest is copied. Returns buf, always terminated; cut short to fit. */
const char *rl_table_text(char *buf, size_t len, const char *text);

/* Every table gets an `errors` column (RL_ERROR answers, summed over
 * repetitions in the speed table) when any of its rows has errors, and
 * ends with a footer, after a blank line, that explains its abbreviated
 * column names. */

/* One line per sim row: promise beside measured accuracy. */
void rl_table_accuracy(FILE *out, const struct rl_result *rows, size_t count);

/* One line per (algorithm, threads) over the stress rows: median ns/op with
 * min–max, median Mops/s and ratio to faa over repetitions (unrecorded rows
 * when there are any), and the worst accuracy of the recorded rows. */
void rl_table_speed(FILE *out, const struct rl_result *rows, size_t count);

/* One line per replay row: decision latency percentiles from the due time,
 * the harness's worst lateness, the call's own p99, and the accuracy of
 * the complete log (sliding/L, aligned/L, false admits and rejects against
 * the strong oracle, utilization, promise held). A threads column when the
 * rows' thread counts differ, a rep column when any row has rep > 1. */
void rl_table_replay(FILE *out, const struct rl_result *rows, size_t count);

#endif
