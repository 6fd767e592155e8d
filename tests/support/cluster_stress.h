/* cluster_stress.h — a recorded stress run with faults on a private 3x1
 * cluster (tests of harness/run/faults.h). */
#ifndef RL_TEST_CLUSTER_STRESS_H
#define RL_TEST_CLUSTER_STRESS_H

#include "harness/report/result.h"

#include <stdint.h>

/* One recorded 2-thread stress run of algo with the faults `spec` on a
 * fresh 3x1 cluster (started and stopped here; its folder must be gone
 * after), L per I for duration_ns, the algorithm's row into *row (the
 * floors' rows are checked: faa without a fault, redis_noop with it). */
void rl_test_faulted_run(const char *algo, const char *spec, uint64_t limit, uint64_t interval_ns,
                         uint64_t duration_ns, struct rl_result *row);

/* Every faulted row: the fault named, checked, an outage measured, never
 * "yes" with errors. */
void rl_test_expect_faulted_row(const struct rl_result *r, const char *spec);

#endif
