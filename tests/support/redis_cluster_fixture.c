/* redis_cluster_fixture.c — see redis_cluster_fixture.h. Six redis-servers
 * in cluster mode, persistence off, in a fresh folder under /tmp, joined by
 * redis-cli --cluster create. Ports: a random base whose six ports and
 * their cluster-bus ports (+10000) are all free on 127.0.0.1. */
#include "redis_cluster_fixture.h"

#include "test_util.h"

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char folder[128];
static unsigned ports[RL_TEST_CLUSTER_NODES];
static char address[256];
static bool running;

static bool port_free(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static void sleep_ms(unsigned ms)
{
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&pause, NULL);
}

void rl_test_cluster_command(unsigned port, char *out, size_t out_len, const char *fmt, ...)
{
    out[0] = '\0';
    struct timeval timeout = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", (int)port, timeout);
    if (c == NULL || c->err) {
        if (c)
            redisFree(c);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *reply = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (reply && reply->type == REDIS_REPLY_INTEGER)
        snprintf(out, out_len, "%lld", reply->integer);
    else if (reply && reply->str)
        snprintf(out, out_len, "%s", reply->str);
    if (reply)
        freeReplyObject(reply);
    redisFree(c);
}

bool rl_test_cluster_wait_ok(void)
{
    for (int tries = 0; tries < 200; tries++) {
        bool ok = true;
        for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES && ok; i++) {
            char info[4096];
            rl_test_cluster_command(ports[i], info, sizeof info, "CLUSTER INFO");
            ok = strstr(info, "cluster_state:ok") != NULL;
        }
        if (ok)
            return true;
        sleep_ms(50);
    }
    return false;
}

static void stop_at_exit(void)
{
    rl_test_cluster_stop();
}

static bool start(void)
{
    snprintf(folder, sizeof folder, "/tmp/ratelab-test-cluster-XXXXXX");
    if (mkdtemp(folder) == NULL)
        return false;
    srand((unsigned)(time(NULL) ^ getpid()));
    for (int tries = 0; tries < 100; tries++) {
        unsigned base = 20000 + (unsigned)rand() % 25000;
        bool all = true;
        for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES && all; i++)
            all = port_free(base + i) && port_free(base + i + 10000);
        if (!all)
            continue;
        for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES; i++)
            ports[i] = base + i;
        break;
    }
    if (ports[0] == 0)
        return false;
    running = true;
    static bool registered;
    if (!registered && atexit(stop_at_exit) == 0)
        registered = true;
    char cmd[4096];
    size_t len = 0;
    for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES; i++)
        len += (size_t)snprintf(
            cmd + len, sizeof cmd - len,
            "mkdir -p %s/%u && redis-server --port %u --bind 127.0.0.1 --cluster-enabled yes "
            "--cluster-config-file nodes.conf --cluster-node-timeout 2000 --save '' "
            "--appendonly no --daemonize yes --dir %s/%u --pidfile %s/%u/pid "
            "--logfile %s/%u/log >/dev/null || exit 1; ",
            folder, ports[i], ports[i], folder, ports[i], folder, ports[i], folder, ports[i]);
    if (system(cmd) != 0)
        return false;
    for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES; i++) { /* each answers PING */
        char pong[64] = "";
        for (int t = 0; t < 100 && strcmp(pong, "PONG") != 0; t++, sleep_ms(20))
            rl_test_cluster_command(ports[i], pong, sizeof pong, "PING");
    }
    len = (size_t)snprintf(cmd, sizeof cmd, "redis-cli --cluster create");
    for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES; i++)
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, " 127.0.0.1:%u", ports[i]);
    snprintf(cmd + len, sizeof cmd - len,
             " --cluster-replicas 1 --cluster-yes > %s/create.log 2>&1", folder);
    if (system(cmd) != 0 || !rl_test_cluster_wait_ok())
        return false;
    len = (size_t)snprintf(address, sizeof address, "cluster:");
    for (unsigned i = 0; i < 3; i++)
        len += (size_t)snprintf(address + len, sizeof address - len, "%s127.0.0.1:%u", i ? "," : "",
                                ports[i]);
    return true;
}

const char *rl_test_cluster_address(void)
{
    if (!running) {
        bool ok = start();
        if (!ok)
            rl_test_cluster_stop();
        EXPECT_FATAL(ok, "the test cluster did not start (logs in %s)", folder);
    }
    return address;
}

unsigned rl_test_cluster_port(unsigned i)
{
    return ports[i];
}

void rl_test_cluster_stop(void)
{
    if (folder[0] == '\0')
        return;
    for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES && ports[i]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%u/pid", folder, ports[i]);
        FILE *f = fopen(path, "r");
        long pid = 0;
        if (f && fscanf(f, "%ld", &pid) == 1 && pid > 1) {
            kill((pid_t)pid, SIGKILL);
            for (int t = 0; t < 200 && kill((pid_t)pid, 0) == 0; t++)
                sleep_ms(5);
        }
        if (f)
            fclose(f);
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", folder);
    int removed = system(cmd);
    (void)removed; /* a leftover folder is found by the suite's last test */
    folder[0] = '\0';
    for (unsigned i = 0; i < RL_TEST_CLUSTER_NODES; i++)
        ports[i] = 0;
    running = false;
}
