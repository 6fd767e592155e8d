/* stress_print.h — what `ratelab stress` (and `bench`'s stress plans) print
 * beside the speed table: the run's header and the recorder's overhead. */
#ifndef RL_STRESS_PRINT_H
#define RL_STRESS_PRINT_H

#include "harness/run/stress_plan.h"
#include "harness/report/result.h"
#include "harness/sys/clock.h"

#include <stddef.h>
#include <stdio.h>

/* The header above the speed table: the plan's limiter, duration, reps,
 * clock and CPUs, then the clock's measured cost (when report->name). */
void rl_print_stress_header(FILE *out, const struct rl_stress_plan *plan,
                            const struct rl_clock_report *report);

/* The recorder's overhead: recorded ÷ unrecorded ns/op, median over the
 * paired runs of each algorithm and thread count. */
void rl_print_recorder_overhead(FILE *out, const struct rl_result *rows, size_t count);

#endif
