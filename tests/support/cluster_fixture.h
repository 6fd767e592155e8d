/* cluster_fixture.h — one private Redis Cluster (3 primaries, 1 replica
 * each) shared by the test process's cluster suites: started on first use,
 * stopped by rl_test_cluster_stop or at exit (redis_cluster.c's handler). A
 * suite that injects faults starts a cluster of its own instead. */
#ifndef RL_TEST_CLUSTER_FIXTURE_H
#define RL_TEST_CLUSTER_FIXTURE_H

#include "harness/sys/redis_cluster.h"

/* The shared cluster, started if it is not running; a failed start is a
 * fatal assertion. Its address ("cluster:127.0.0.1:P,...") is ->address. */
struct rl_redis_cluster *rl_test_cluster(void);

/* Stops the shared cluster (the next rl_test_cluster starts another). */
void rl_test_cluster_stop(void);

/* Whether nothing listens on 127.0.0.1:port (a connection is refused). */
int rl_test_port_free(unsigned port);

#endif
