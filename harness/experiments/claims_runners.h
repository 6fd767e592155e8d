/* claims_runners.h — the runners the registry (claims_data.c)
 * points to, one per claim, grouped by the file that holds them. Each
 * fills the outcome as claims.h describes; rl_claim_run calls them.
 * Internal to harness/experiments/. */
#ifndef RL_EXPERIMENTS_CLAIMS_RUNNERS_H
#define RL_EXPERIMENTS_CLAIMS_RUNNERS_H

#include "claims.h"

#define RL_CLAIM_RUNNER(name) void name(const struct rl_claim_env *env, struct rl_claim_outcome *o)

/* claims_sim.c: sim in virtual time */
RL_CLAIM_RUNNER(rl_claim_cpp_cas_weak);
RL_CLAIM_RUNNER(rl_claim_dotnet_expiry);
RL_CLAIM_RUNNER(rl_claim_dotnet_sweeper);
RL_CLAIM_RUNNER(rl_claim_cloudflare);
RL_CLAIM_RUNNER(rl_claim_resilience4j);
RL_CLAIM_RUNNER(rl_claim_varnish);

/* claims_stress.c: real threads, timing */
RL_CLAIM_RUNNER(rl_claim_cpp_naive);
RL_CLAIM_RUNNER(rl_claim_cpp_acqrel);
RL_CLAIM_RUNNER(rl_claim_wheel);
RL_CLAIM_RUNNER(rl_claim_redis_qps);
RL_CLAIM_RUNNER(rl_claim_relaxed);
RL_CLAIM_RUNNER(rl_claim_linux);
RL_CLAIM_RUNNER(rl_claim_wrk2);

/* claims_nodes.c: many nodes in the node simulator, virtual time */
RL_CLAIM_RUNNER(rl_claim_drl_disconnected);
RL_CLAIM_RUNNER(rl_claim_databricks_overshoot);
RL_CLAIM_RUNNER(rl_claim_doorman_lease_death);
RL_CLAIM_RUNNER(rl_claim_gubernator_global);

/* claims_peers.c: the peers' own decisions beside ratelab's */
RL_CLAIM_RUNNER(rl_claim_go_stale);
RL_CLAIM_RUNNER(rl_claim_nginx);
RL_CLAIM_RUNNER(rl_claim_guava);

/* claims_shaping.c: shapers in virtual time, judged by the shaping checker */
RL_CLAIM_RUNNER(rl_claim_uber_idle);
RL_CLAIM_RUNNER(rl_claim_uber_noslack);
RL_CLAIM_RUNNER(rl_claim_uber_slack);
RL_CLAIM_RUNNER(rl_claim_uber_slack_observable);
RL_CLAIM_RUNNER(rl_claim_go_cancelat);
RL_CLAIM_RUNNER(rl_claim_go_setlimit_pending);
RL_CLAIM_RUNNER(rl_claim_go_failed_reserve);
RL_CLAIM_RUNNER(rl_claim_guava_no_more_than);
RL_CLAIM_RUNNER(rl_claim_guava_warmup_cold);

/* claims_cluster.c: on a private Redis Cluster of their own */
RL_CLAIM_RUNNER(rl_claim_github_replica_read);
RL_CLAIM_RUNNER(rl_claim_failover_lost_writes);
RL_CLAIM_RUNNER(rl_claim_redis_qps_cluster);

#undef RL_CLAIM_RUNNER

#endif
