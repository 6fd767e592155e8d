/* test_redis_cluster.c — the private Redis Cluster: a 3x1 cluster comes up
 * with every slot served and leaves nothing behind (processes, folder,
 * ports), not even after a SIGKILL of its owner (the next start sweeps);
 * NxR and address lists are parsed strictly; joining checks that every
 * seed answers and is in cluster mode (the faults: test_redis_cluster_faults.c). */
#include "tests/support/cluster_fixture.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "harness/sys/redis_cluster.h"
#include "harness/sys/redis_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Whether a process is a zombie or gone (a SIGKILLed node whose parent,
 * also killed, was not there to reap it is reaped by init soon after). */
static bool dead(pid_t pid)
{
    char path[64], state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return true;
    if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
        state = '?';
    fclose(f);
    return state == 'Z' || state == 'X';
}

static bool folder_exists(const char *dir)
{
    struct stat st;
    return stat(dir, &st) == 0;
}

/* One command to 127.0.0.1:port, its reply (caller frees) or NULL. */
static redisReply *command(unsigned port, const char *fmt, ...)
{
    struct timeval timeout = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", (int)port, timeout);
    if (c == NULL || c->err) {
        if (c)
            redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, timeout);
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    redisFree(c);
    return r;
}

static void expect_nothing_left(const struct rl_redis_cluster *before, size_t count,
                                const char *dir)
{
    for (size_t i = 0; i < count; i++) {
        EXPECT(gone(before->nodes[i].pid), "node %zu (pid %d) outlived stop", i,
               (int)before->nodes[i].pid);
        EXPECT(rl_test_port_free(before->nodes[i].port), "port %u still answers after stop",
               before->nodes[i].port);
    }
    EXPECT(!folder_exists(dir), "%s is still there after stop", dir);
}

static void test_start_stop_nothing_left(void)
{
    static struct rl_redis_cluster c, copy;
    char err[1024];
    CU_ASSERT_FATAL(rl_redis_cluster_available());
    EXPECT_FATAL(rl_redis_cluster_start(&c, 3, 1, err, sizeof err) == 0, "start 3x1: %s", err);
    EXPECT_EQ(c.node_count, 6);
    EXPECT_EQ(c.primaries, 3);
    EXPECT_EQ(c.replicas, 1);
    EXPECT(strncmp(c.address, "cluster:127.0.0.1:", 18) == 0, "address '%s'", c.address);
    size_t primaries = 0;
    for (size_t i = 0; i < c.node_count; i++) {
        const struct rl_redis_cluster_node *n = &c.nodes[i];
        EXPECT(n->pid > 0 && strlen(n->id) == 40, "node %zu: pid %d id '%s'", i, (int)n->pid,
               n->id);
        EXPECT(strstr(n->dir, c.dir) == n->dir, "node %zu works in %s, outside %s", i, n->dir,
               c.dir);
        primaries += n->primary;
        if (!n->primary)
            EXPECT(n->primary_of >= 0 && c.nodes[n->primary_of].primary,
                   "replica %zu follows %d, not a primary", i, n->primary_of);
        /* the address names the primaries */
        char port[16];
        snprintf(port, sizeof port, ":%u", n->port);
        EXPECT((strstr(c.address, port) != NULL) == n->primary, "%s and node %zu (%s)", c.address,
               i, n->primary ? "primary" : "replica");
    }
    EXPECT_EQ(primaries, 3);
    /* every node serves, every slot is assigned, the ranges are even */
    for (size_t i = 0; i < c.node_count; i++) {
        redisReply *r = command(c.nodes[i].port, "CLUSTER INFO");
        EXPECT(r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok") &&
                   strstr(r->str, "cluster_slots_assigned:16384"),
               "node %zu: %s", i, r && r->str ? r->str : "no answer");
        if (r)
            freeReplyObject(r);
        r = command(c.nodes[i].port, "CONFIG GET save");
        EXPECT(r && r->elements == 2 && strcmp(r->element[1]->str, "") == 0,
               "node %zu persists: save '%s'", i, r && r->elements == 2 ? r->element[1]->str : "?");
        if (r)
            freeReplyObject(r);
    }
    EXPECT_EQ(rl_redis_cluster_slot_owner(&c, 0), 0);
    EXPECT_EQ(rl_redis_cluster_slot_owner(&c, 5461), 1);
    EXPECT_EQ(rl_redis_cluster_slot_owner(&c, 16383), 2);
    copy = c;
    char dir[sizeof c.dir];
    snprintf(dir, sizeof dir, "%s", c.dir);
    rl_redis_cluster_stop(&c);
    expect_nothing_left(&copy, copy.node_count, dir);
    rl_redis_cluster_stop(&c); /* twice is harmless */
}

/* A port taken between the probe and the node's bind: the node is started
 * again on fresh ports; taken on every try, start fails in one line quoting
 * the node's log, and leaves nothing. */
static void test_port_taken(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                    listen(fd, 1) == 0 && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    unsigned taken = ntohs(sa.sin_port);
    char tmp[64] = "/tmp/rl-cluster-port-XXXXXX", saved[4096] = "";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    const char *old = getenv("TMPDIR");
    bool had = old != NULL;
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    setenv("TMPDIR", tmp, 1);

    static struct rl_redis_cluster c;
    char err[1024];
    /* first try: the client port taken; second: a free client port, the
     * bus port taken; the third probes */
    int free_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in free_sa = {.sin_family = AF_INET};
    free_sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sl = sizeof free_sa;
    CU_ASSERT_FATAL(free_fd >= 0 &&
                    bind(free_fd, (struct sockaddr *)&free_sa, sizeof free_sa) == 0 &&
                    getsockname(free_fd, (struct sockaddr *)&free_sa, &sl) == 0);
    unsigned free_port = ntohs(free_sa.sin_port);
    close(free_fd);
    unsigned twice[] = {taken, taken, free_port, taken};
    rl_redis_cluster_force_ports(twice, 4);
    EXPECT(rl_redis_cluster_start(&c, 1, 0, err, sizeof err) == 0, "start: %s", err);
    EXPECT(c.nodes[0].port != taken && c.nodes[0].port != free_port,
           "the node is on port %u, not on a third, probed one", c.nodes[0].port);
    rl_redis_cluster_stop(&c);

    unsigned always[10];
    for (size_t i = 0; i < 10; i++)
        always[i] = taken;
    rl_redis_cluster_force_ports(always, 10);
    err[0] = '\0';
    EXPECT(rl_redis_cluster_start(&c, 1, 0, err, sizeof err) == -1 && strstr(err, "redis.log: ") &&
               strstr(err, "Failed listening on port") && !strchr(err, '\n'),
           "a port taken five times: '%s'", err);
    rl_redis_cluster_force_ports(NULL, 0);
    close(fd);
    EXPECT(rmdir(tmp) == 0, "%s is not empty after the failed start", tmp);
    if (had)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
}

/* A process that starts a cluster, says where, and waits to be killed. */
static pid_t start_owner(int fd_out)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    static struct rl_redis_cluster c;
    char err[1024];
    if (rl_redis_cluster_start(&c, 3, 1, err, sizeof err) != 0)
        _exit(1);
    /* the folder, then the node pids */
    if (write(fd_out, &c, sizeof c) != (ssize_t)sizeof c)
        _exit(1);
    for (;;)
        pause();
}

/* Runs in a $TMPDIR of its own, so that no other process's sweep (another
 * test run on this machine) removes the dead run's folder in its place. */
static void test_killed_owner_swept(void)
{
    char tmp[64] = "/tmp/rl-cluster-sweep-XXXXXX", saved[4096] = "";
    CU_ASSERT_FATAL(mkdtemp(tmp) != NULL);
    const char *old = getenv("TMPDIR");
    bool had = old != NULL;
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    setenv("TMPDIR", tmp, 1);
    int fds[2];
    CU_ASSERT_FATAL(pipe(fds) == 0);
    pid_t owner = start_owner(fds[1]);
    CU_ASSERT_FATAL(owner > 0);
    close(fds[1]);
    static struct rl_redis_cluster seen;
    size_t got = 0;
    for (ssize_t n;
         got < sizeof seen && (n = read(fds[0], (char *)&seen + got, sizeof seen - got)) > 0;)
        got += (size_t)n;
    close(fds[0]);
    kill(owner, SIGKILL);
    waitpid(owner, NULL, 0);
    EXPECT_FATAL(got == sizeof seen, "the owner did not start its cluster");
    EXPECT(folder_exists(seen.dir), "%s should still be there after SIGKILL", seen.dir);
    /* the nodes die with their owner (PR_SET_PDEATHSIG) */
    for (size_t i = 0; i < seen.node_count; i++) {
        for (int ms = 0; ms < 5000 && !dead(seen.nodes[i].pid); ms += 10)
            rl_test_sleep_ms(10);
        EXPECT(dead(seen.nodes[i].pid), "node %zu (pid %d) outlived its owner", i,
               (int)seen.nodes[i].pid);
    }
    /* the next start (one primary, no replica: what redis-cli --cluster
     * create cannot build) removes the folder */
    static struct rl_redis_cluster next;
    char err[1024];
    EXPECT(rl_redis_cluster_start(&next, 1, 0, err, sizeof err) == 0, "start: %s", err);
    EXPECT(!folder_exists(seen.dir), "%s was left by a killed run and not swept", seen.dir);
    EXPECT_EQ(next.node_count, 1);
    EXPECT_EQ(rl_redis_cluster_slot_owner(&next, 16383), 0);
    rl_redis_cluster_stop(&next);
    EXPECT(rmdir(tmp) == 0, "%s is not empty at the end", tmp);
    if (had)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
}

/* A node that outlived its run (here a stand-in working in a dead run's
 * node folder) is killed by the sweep; a live run's folder is kept. */
static void test_sweep_kills_orphans_keeps_live(void)
{
    char run[4096], node[4200], path[4300];
    const char *tmp = getenv("TMPDIR");
    snprintf(run, sizeof run, "%s/ratelab-cluster-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CU_ASSERT_FATAL(mkdtemp(run) != NULL);
    snprintf(node, sizeof node, "%s/node-0", run);
    CU_ASSERT_FATAL(mkdir(node, 0700) == 0);
    pid_t dead_owner = fork(); /* a pid that no longer exists */
    if (dead_owner == 0)
        _exit(0);
    waitpid(dead_owner, NULL, 0);
    snprintf(path, sizeof path, "%s/owner.pid", run);
    FILE *f = fopen(path, "w");
    fprintf(f, "%d\n", (int)dead_owner);
    fclose(f);
    pid_t orphan = fork();
    if (orphan == 0) {
        if (chdir(node) != 0)
            _exit(1);
        for (;;)
            pause();
    }
    snprintf(path, sizeof path, "%s/pid", node);
    f = fopen(path, "w");
    fprintf(f, "%d\n", (int)orphan);
    fclose(f);
    /* wait until it works in the folder */
    char link[64], cwd[4200];
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)orphan);
    for (int ms = 0; ms < 2000; ms += 5) {
        ssize_t n = readlink(link, cwd, sizeof cwd - 1);
        if (n > 0 && (cwd[n] = '\0', strcmp(cwd, node) == 0))
            break;
        rl_test_sleep_ms(5);
    }
    /* a live run: this process owns it */
    struct rl_redis_cluster *shared = rl_test_cluster();
    rl_redis_cluster_sweep();
    for (int ms = 0; ms < 2000 && !dead(orphan); ms += 10)
        rl_test_sleep_ms(10);
    EXPECT(dead(orphan), "the orphan node (pid %d) in a dead run's folder was not killed",
           (int)orphan);
    waitpid(orphan, NULL, WNOHANG);
    EXPECT(!folder_exists(run), "%s (owner gone) was not removed", run);
    EXPECT(folder_exists(shared->dir), "%s belongs to a live run and was removed", shared->dir);
    for (size_t i = 0; i < shared->node_count; i++)
        EXPECT(!gone(shared->nodes[i].pid), "the sweep killed live node %zu", i);
    if (!dead(orphan)) {
        kill(orphan, SIGKILL);
        waitpid(orphan, NULL, 0);
    }
}

static void expect_parse(const char *spec, int want, unsigned want_p, unsigned want_r,
                         const char *want_seeds)
{
    unsigned p = 99, r = 99;
    char seeds[512] = "?", err[512] = "";
    int rc = rl_redis_cluster_parse(spec, &p, &r, seeds, sizeof seeds, err, sizeof err);
    EXPECT(rc == want, "'%s': got %d, want %d (%s)", spec, rc, want, err);
    if (want != 0) {
        EXPECT(err[0] && strchr(err, '\n') == NULL, "'%s': one line, got '%s'", spec, err);
        return;
    }
    EXPECT(p == want_p && r == want_r, "'%s': %ux%u, want %ux%u", spec, p, r, want_p, want_r);
    EXPECT(strcmp(seeds, want_seeds) == 0, "'%s': seeds '%s', want '%s'", spec, seeds, want_seeds);
}

static void test_parse(void)
{
    expect_parse("3x1", 0, 3, 1, "");
    expect_parse("1x0", 0, 1, 0, "");
    expect_parse("6x0", 0, 6, 0, "");
    expect_parse("32x1", 0, 32, 1, "");
    expect_parse("0x1", -1, 0, 0, NULL);
    expect_parse("33x1", -1, 0, 0, NULL); /* 66 nodes */
    static const char *const bad[] = {"",     "3",    "3x",   "x1",   "3x1x", "3X1",   "3xx1",
                                      "-3x1", "3x-1", " 3x1", "3x1 ", "+3x1", "0x3x1", "three"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_parse(bad[i], -1, 0, 0, NULL);
    expect_parse("127.0.0.1:7000", 0, 0, 0, "cluster:127.0.0.1:7000");
    expect_parse("localhost:7000,127.0.0.2:7001,[::1]:7002", 0, 0, 0,
                 "cluster:127.0.0.1:7000,127.0.0.2:7001,[::1]:7002");
    static const char *const bad_lists[] = {
        "10.0.0.1:7000",         "127.0.0.1:7000,",
        ",127.0.0.1:7000",       "127.0.0.1:7000,,127.0.0.1:7001",
        "unix:/tmp/r.sock",      "127.0.0.1:0",
        "127.evil.example:7000", "127.0.0.1:7000,example:1"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof *bad_lists; i++)
        expect_parse(bad_lists[i], -1, 0, 0, NULL);
}

/* A plain (not cluster) redis-server on a free TCP port. */
static pid_t start_plain_redis(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    *port = ntohs(sa.sin_port);
    close(fd);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%u", *port);
    pid_t parent = getpid();
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
        const char *args[] = {"redis-server", "--port", port_text, "--bind",
                              "127.0.0.1",    "--save", "",        "--appendonly",
                              "no",           "--dir",  "/tmp",    NULL};
        execvp("redis-server", (char *const *)args);
        execv("/usr/bin/redis-server", (char *const *)args);
        _exit(127);
    }
    char address[64], err[256];
    snprintf(address, sizeof address, "127.0.0.1:%u", *port);
    for (int ms = 0; ms < 5000 && rl_redis_ping(address, err, sizeof err) != 0; ms += 10)
        rl_test_sleep_ms(10);
    return pid;
}

static void test_join(void)
{
    struct rl_redis_cluster *shared = rl_test_cluster();
    static struct rl_redis_cluster joined;
    char seeds[256], err[1024];
    snprintf(seeds, sizeof seeds, "127.0.0.1:%u,localhost:%u", shared->nodes[0].port,
             shared->nodes[4].port);
    EXPECT(rl_redis_cluster_join(&joined, seeds, err, sizeof err) == 0, "join %s: %s", seeds, err);
    EXPECT(joined.joined, "a joined cluster says so");
    EXPECT_EQ(joined.node_count, 6);
    EXPECT_EQ(joined.primaries, 3);
    char want[256];
    snprintf(want, sizeof want, "cluster:127.0.0.1:%u,127.0.0.1:%u", shared->nodes[0].port,
             shared->nodes[4].port);
    EXPECT(strcmp(joined.address, want) == 0, "address '%s', want '%s'", joined.address, want);
    err[0] = '\0';
    EXPECT(rl_redis_cluster_kill_primary(&joined, -1, err, sizeof err) == -1 && err[0],
           "a joined cluster is never faulted by us");
    rl_redis_cluster_stop(&joined); /* forgets it only */
    for (size_t i = 0; i < shared->node_count; i++)
        EXPECT(!gone(shared->nodes[i].pid), "stopping a joined cluster killed node %zu", i);

    /* an address that does not answer: a port nobody listens on */
    unsigned plain_port;
    pid_t plain = start_plain_redis(&plain_port);
    unsigned silent = plain_port; /* free again once the plain server is gone */
    snprintf(seeds, sizeof seeds, "127.0.0.1:%u", plain_port);
    int rc = rl_redis_cluster_join(&joined, seeds, err, sizeof err);
    EXPECT(rc == -2 && strstr(err, "not in cluster mode") && !strchr(err, '\n'),
           "join a plain server: %d '%s'", rc, err);
    kill(plain, SIGKILL);
    waitpid(plain, NULL, 0);
    for (int ms = 0; ms < 2000 && !rl_test_port_free(silent); ms += 10)
        rl_test_sleep_ms(10);
    rc = rl_redis_cluster_join(&joined, seeds, err, sizeof err);
    EXPECT(rc == -2 && strstr(err, "cannot connect") && !strchr(err, '\n'),
           "join a port nobody answers: %d '%s'", rc, err);

    /* a port that accepts and never answers (not a redis) */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                    listen(fd, 4) == 0 && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    snprintf(seeds, sizeof seeds, "127.0.0.1:%u", ntohs(sa.sin_port));
    rc = rl_redis_cluster_join(&joined, seeds, err, sizeof err);
    EXPECT(rc == -2 && strstr(err, "did not answer PING") && !strchr(err, '\n'),
           "join a port that never answers: %d '%s'", rc, err);
    close(fd);
}

RL_TEST_SUITE("redis_cluster",
              {"start 3x1, every slot served, stop, nothing left", test_start_stop_nothing_left},
              {"a port taken: fresh ports, or one line and nothing left", test_port_taken},
              {"a SIGKILLed owner's nodes die and its folder is swept", test_killed_owner_swept},
              {"the sweep kills orphan nodes and keeps live runs",
               test_sweep_kills_orphans_keeps_live},
              {"NxR and address lists are parsed strictly", test_parse},
              {"join: seeds answer and are in cluster mode", test_join})
