/* cluster_commands.h — what the cluster client's tests send to the nodes of
 * the shared test cluster (cluster_fixture.h) behind the client's back:
 * CLUSTER SETSLOT, SCRIPT FLUSH, INFO. */
#ifndef RL_TEST_CLUSTER_COMMANDS_H
#define RL_TEST_CLUSTER_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

/* Sends one command (printf-style, as hiredis's redisCommand) to the node
 * on 127.0.0.1:port on a connection of its own; the reply as text into out:
 * a string, status or error reply's text, an integer in decimal, "" for
 * anything else or no answer. */
void rl_test_node_command(unsigned port, char *out, size_t out_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Waits (up to 10 s) until every node of the shared cluster says
 * cluster_state:ok. */
bool rl_test_cluster_ok(void);

#endif
