/* redis_cluster_fixture.h — a private Redis Cluster (3 primaries, one
 * replica each) on loopback for the test process, started on first use,
 * stopped (processes ended, folder removed) by rl_test_cluster_stop or at
 * exit. */
#ifndef RL_TEST_REDIS_CLUSTER_FIXTURE_H
#define RL_TEST_REDIS_CLUSTER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#define RL_TEST_CLUSTER_NODES 6

/* "cluster:127.0.0.1:P1,...", starting the cluster if needed (a failed
 * start is a fatal assertion). */
const char *rl_test_cluster_address(void);

/* The port of node i (0..5) of the running cluster. */
unsigned rl_test_cluster_port(unsigned i);

/* Sends one command (printf-style, hiredis's redisCommand) to the node on
 * port and returns its reply as text ("" for none; an error reply's
 * message; an integer in decimal) into out. */
void rl_test_cluster_command(unsigned port, char *out, size_t out_len, const char *fmt, ...);

/* Waits (up to 10 s) until every node says cluster_state:ok. */
bool rl_test_cluster_wait_ok(void);

void rl_test_cluster_stop(void);

#endif
