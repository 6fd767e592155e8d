/* test_redis_server.c — the private redis-server: it comes up on a Unix
 * socket in a fresh folder, answers PING, and leaves nothing behind. */
#include "test_util.h"
#include "harness/sys/redis_server.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_start_ping_stop(void)
{
    struct rl_redis_server server;
    char err[256];
    CU_ASSERT_FATAL(rl_redis_server_available());
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_start(&server, err, sizeof err), 0);
    CU_ASSERT(server.pid > 0);
    CU_ASSERT_EQUAL(strncmp(server.address, "unix:", 5), 0);
    CU_ASSERT_EQUAL(rl_redis_ping(server.address, err, sizeof err), 0);
    char dir[sizeof server.dir];
    strcpy(dir, server.dir);
    pid_t pid = server.pid;
    rl_redis_server_stop(&server);
    CU_ASSERT_EQUAL(server.pid, 0);
    CU_ASSERT_EQUAL(kill(pid, 0), -1); /* the process is gone */
    struct stat st;
    CU_ASSERT_EQUAL(stat(dir, &st), -1); /* and so is its folder */
    CU_ASSERT_EQUAL(rl_redis_ping(server.address, err, sizeof err), -1);
    rl_redis_server_stop(&server); /* twice is harmless */
}

static void test_addresses(void)
{
    char err[256];
    CU_ASSERT_EQUAL(rl_redis_address_check("127.0.0.1:6379", err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_redis_address_check("localhost:6379", err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_redis_address_check("unix:/tmp/r.sock", err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_redis_address_check("10.0.0.5:6379", err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_redis_address_check("127.0.0.1", err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_redis_address_check("127.0.0.1:0", err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_redis_address_check("unix:", err, sizeof err), -1);
}

RL_TEST_SUITE("redis_server", {"start, PING, stop, nothing left", test_start_ping_stop},
              {"--redis addresses: loopback or unix only", test_addresses})
