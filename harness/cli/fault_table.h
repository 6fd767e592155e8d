/* fault_table.h — the table of runs with --fault: per algorithm and fault,
 * over the repetitions, the outage and the lost admits as median (min-max),
 * the errors the clients saw and the verdicts. */
#ifndef RL_FAULT_TABLE_H
#define RL_FAULT_TABLE_H

#include "harness/report/result.h"

#include <stddef.h>
#include <stdio.h>

/* One line per algorithm among rows that had a fault (others are left
 * out); nothing when none had one. */
void rl_table_faults(FILE *out, const struct rl_result *rows, size_t count);

#endif
