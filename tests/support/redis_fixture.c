/* redis_fixture.c — see redis_fixture.h. */
#include "redis_fixture.h"

#include "test_util.h"
#include "algorithms/redis/redis_common.h"
#include "harness/sys/clock.h"
#include "harness/sys/redis_server.h"

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct rl_redis_server server;

const char *rl_test_redis_address(void)
{
    if (server.pid == 0) {
        char err[256];
        int rc = rl_redis_server_start(&server, err, sizeof err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
    }
    return server.address;
}

void rl_test_redis_stop(void)
{
    rl_redis_server_stop(&server);
}

long long rl_test_redis_command(const char *addr, const char *command)
{
    redisContext *c = redisConnectUnix(addr + strlen("unix:"));
    CU_ASSERT_FATAL(c != NULL && c->err == 0);
    redisReply *reply = redisCommand(c, command);
    CU_ASSERT_PTR_NOT_NULL(reply);
    long long value = reply && reply->type == REDIS_REPLY_INTEGER ? reply->integer : 0;
    if (reply)
        freeReplyObject(reply);
    redisFree(c);
    return value;
}

void rl_test_sleep_ms(unsigned ms)
{
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&pause, NULL);
}

void rl_expect_remote(const char *name, uint64_t limit, uint64_t interval_ns, uint64_t burst,
                      const struct rl_step *steps, size_t count, size_t hook_at, void (*hook)(void))
{
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_config cfg = {.limit = limit,
                            .interval_ns = interval_ns,
                            .burst = burst,
                            .epoch_ns = RL_VIRTUAL_ORIGIN_NS,
                            .remote = rl_test_redis_address(),
                            .virtual_time = true};
    char err[256];
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    uint64_t last_key = strcmp(name, "redis_sliding_log_scan") == 0 ? 7 : 8;
    for (uint64_t key = 7; key <= last_key; key++)
        for (size_t i = 0; i < count; i++) {
            if (hook && i == hook_at && key == 7)
                hook();
            rl_clock_set_virtual(&clock, RL_VIRTUAL_ORIGIN_NS + steps[i].t_ns);
            enum rl_decision d = algo->acquire(state, &clock, key, steps[i].n);
            char got = d == RL_ADMIT ? 'A' : d == RL_REJECT ? 'R' : 'E';
            EXPECT(got == steps[i].expect,
                   "%s key %llu step %zu (t=%llu n=%llu): expected %c, got %c %s", name,
                   (unsigned long long)key, i, (unsigned long long)steps[i].t_ns,
                   (unsigned long long)steps[i].n, steps[i].expect, got,
                   got == 'E' ? rl_redis_last_error() : "");
        }
    algo->destroy(state);
}

pid_t rl_test_child_pid(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    pid_t found = 0;
    if (f && fgets(line, sizeof line, f))
        found = (pid_t)atoi(line);
    if (f)
        fclose(f);
    return found;
}

void rl_test_server_folder(pid_t redis, char *dir, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)redis);
    ssize_t n = redis > 0 ? readlink(link, dir, len - 1) : -1;
    dir[n > 0 ? n : 0] = '\0';
    if (strstr(dir, "/ratelab-redis-") == NULL)
        dir[0] = '\0';
}
