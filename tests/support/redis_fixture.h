/* redis_fixture.h — what the Redis tests share: one private redis-server
 * for the test process, started on first use, and hand-worked decision
 * sequences run against a remote algorithm in virtual time. */
#ifndef RL_TEST_REDIS_FIXTURE_H
#define RL_TEST_REDIS_FIXTURE_H

#include "decide.h"
#include "algorithms/rl.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The test server's address ("unix:PATH"), starting it if it is not
 * running; a failed start is a fatal assertion. rl_redis_server's atexit
 * handler stops it if the process ends first. */
const char *rl_test_redis_address(void);

/* Stops the test server (the next rl_test_redis_address starts another). */
void rl_test_redis_stop(void);

/* Sends one plain command to the server at addr (e.g. "SCRIPT FLUSH",
 * "DBSIZE") on a connection of its own; its integer reply, or 0. */
long long rl_test_redis_command(const char *addr, const char *command);

void rl_test_sleep_ms(unsigned ms);

/* The first child of process pid (a ratelab run's private redis-server),
 * from /proc; 0 when it has none yet. */
pid_t rl_test_child_pid(pid_t pid);

/* The folder a private redis-server runs in (its ratelab-redis-* working
 * folder) into dir; "" before it got there. */
void rl_test_server_folder(pid_t redis, char *dir, size_t len);

/* rl_expect_decisions for a remote algorithm on the test server in virtual
 * time: the steps on key 7, then again on key 8, which must not see key 7's
 * state (except for redis_sliding_log_scan, whose cleanup schedule belongs
 * to the instance, not the key). hook, if not NULL, runs before step
 * hook_at of key 7. */
void rl_expect_remote(const char *name, uint64_t limit, uint64_t interval_ns, uint64_t burst,
                      const struct rl_step *steps, size_t count, size_t hook_at,
                      void (*hook)(void));

#define RL_EXPECT_REMOTE(name, L, I, B, ...)                                                       \
    rl_expect_remote(name, L, I, B, RL_STEPS(__VA_ARGS__), 0, NULL)

#endif
