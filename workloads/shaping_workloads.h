/* shaping_workloads.h — the generators that expose shapers (generators.h
 * lists them among the others): idle_burst and warm_poll, and the
 * per-attempt columns they add to a trace (max wait, cancellation).
 * Internal to workloads/: callers use rl_workload_generate. */
#ifndef RL_SHAPING_WORKLOADS_H
#define RL_SHAPING_WORKLOADS_H

#include "generators.h"

/* idle_burst's attempts: the number it lays, and the times, in order, each
 * through emit (generators.c's emitter, which draws key and cost); -1 when
 * emit fails. */
long double rl_idle_burst_count(const struct rl_workload_params *p);
int rl_gen_idle_burst(const struct rl_workload_params *p, int (*emit)(void *ctx, uint64_t t_ns),
                      void *ctx);

/* After keys and costs: warm_poll's max wait 0 on every attempt, and
 * idle_burst's cancellations (cancel_share > 0). -1 on ENOMEM. */
int rl_shaping_columns(const struct rl_workload_params *p, bool warm_poll, bool idle_burst,
                       struct rl_trace *out);

#endif
