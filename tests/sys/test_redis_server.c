/* test_redis_server.c — the private redis-server: it comes up on a Unix
 * socket in a fresh folder, answers PING, and leaves nothing behind, not
 * even after a SIGKILL (the next run sweeps); --redis takes literal
 * loopback addresses only. */
#include "tests/support/cli_run.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "harness/sys/redis_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* rl_redis_repeat sends its command exactly `times` times, across more
 * than one pipelined batch, with binary-safe arguments, and an error reply
 * fails it with one line. On the suites' shared server: with a private one
 * started and stopped here, the SIGKILL test below found its folder gone
 * (not looked into). */
static void test_repeat_counts(void)
{
    const char *address = rl_test_redis_address(); /* the suites' shared server */
    char err[256], reply[64];
    const char *del[] = {"EVAL", "redis.call('DEL', 'rl:repeat:n', 'rl:repeat:b') return 'ok'",
                         "0"};
    CU_ASSERT_EQUAL_FATAL(rl_redis_command(address, 3, del, reply, sizeof reply, err, sizeof err),
                          0);
    const char *incr[] = {"INCR", "rl:repeat:n"};
    const size_t incr_lens[] = {4, 11};
    EXPECT(rl_redis_repeat(address, 2, incr, incr_lens, 1000, err, sizeof err) == 0, "%s", err);
    const char *get[] = {"GET", "rl:repeat:n"};
    CU_ASSERT_EQUAL(rl_redis_command(address, 2, get, reply, sizeof reply, err, sizeof err), 0);
    EXPECT(strcmp(reply, "1000") == 0, "1000 INCRs left n = %s", reply);
    const char *append[] = {"APPEND", "rl:repeat:b", "x\0y"};
    const size_t append_lens[] = {6, 11, 3};
    CU_ASSERT_EQUAL(rl_redis_repeat(address, 3, append, append_lens, 2, err, sizeof err), 0);
    const char *strlen_b[] = {"EVAL", "return tostring(redis.call('STRLEN', 'rl:repeat:b'))", "0"};
    CU_ASSERT_EQUAL(rl_redis_command(address, 3, strlen_b, reply, sizeof reply, err, sizeof err),
                    0);
    EXPECT(strcmp(reply, "6") == 0, "two 3-byte APPENDs left %s bytes", reply);
    const char *wrong[] = {"INCR", "rl:repeat:b"}; /* not an integer */
    err[0] = '\0';
    CU_ASSERT_EQUAL(rl_redis_repeat(address, 2, wrong, incr_lens, 3, err, sizeof err), -1);
    EXPECT(err[0] != '\0' && strchr(err, '\n') == NULL, "one line, got '%s'", err);
}

static void expect_address(const char *address, int want, const char *canonical_want)
{
    char err[256] = "", canonical[256] = "";
    int rc = rl_redis_address_check(address, canonical, sizeof canonical, err, sizeof err);
    EXPECT(rc == want, "--redis '%s': got %d, want %d (%s)", address, rc, want, err);
    if (canonical_want)
        EXPECT(strcmp(canonical, canonical_want) == 0, "--redis '%s' connects to '%s', want '%s'",
               address, canonical, canonical_want);
    if (want != 0)
        EXPECT(err[0] != '\0' && strchr(err, '\n') == NULL, "--redis '%s': one line, got '%s'",
               address, err);
}

/* Literal loopback addresses, localhost and unix sockets only: nothing that
 * would be looked up (127.evil.example is a DNS name, not 127.0.0.0/8). */
static void test_addresses(void)
{
    expect_address("127.0.0.1:6379", 0, "127.0.0.1:6379");
    expect_address("127.1.2.3:1", 0, "127.1.2.3:1");
    expect_address("127.255.255.255:65535", 0, NULL);
    expect_address("localhost:6379", 0, "127.0.0.1:6379");
    expect_address("[::1]:6379", 0, "[::1]:6379");
    expect_address("[0:0:0:0:0:0:0:1]:6379", 0, NULL);
    expect_address("unix:/tmp/r.sock", 0, "unix:/tmp/r.sock");
    static const char *const refused[] = {
        "127.evil.example:6379",
        "127.0.0.1.evil.example:6379",
        "127.example:6379",
        "localhost.evil.example:6379",
        "LOCALHOST.:6379",
        "10.0.0.5:6379",
        "128.0.0.1:6379",
        "127.1:6379",
        "0x7f.0.0.1:6379",
        "127.0.0.01:6379",
        "[::2]:6379",
        "[::ffff:127.0.0.1]:6379",
        "::1:6379",
        "[::1]",
        "[]:6379",
        ":6379",
        "127.0.0.1",
        "127.0.0.1:",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:+80",
        "127.0.0.1: 80",
        "127.0.0.1:80x",
        "127.0.0.1:0x50",
        "unix:",
        "",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        expect_address(refused[i], -1, NULL);
}

static const char *ratelab_bin(void)
{
    return getenv("RATELAB_BIN") ? getenv("RATELAB_BIN") : "build/ratelab";
}

static bool gone(pid_t pid)
{
    waitpid(pid, NULL, WNOHANG); /* ours only if we are its subreaper */
    return kill(pid, 0) != 0 && errno == ESRCH;
}

/* A ratelab killed outright leaves its folder (SIGKILL runs no cleanup;
 * the server dies with it); the next run that starts a server removes it. */
static void test_killed_run_folder_swept(void)
{
    const char *bin = ratelab_bin();
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
        execl(bin, bin, "stress", "--algo", "redis_gcra", "--threads", "1", "--duration", "30s",
              "--reps", "1", (char *)NULL);
        _exit(127);
    }
    pid_t redis = 0;
    char dir[4096] = "";
    struct stat st;
    for (int ms = 0; ms < 5000 && (redis == 0 || dir[0] == '\0'); ms += 10) {
        rl_test_sleep_ms(10);
        redis = rl_test_child_pid(pid);
        rl_test_server_folder(redis, dir, sizeof dir);
    }
    EXPECT(redis > 0 && dir[0], "no private redis-server with a folder under ratelab (pid %d)",
           (int)pid);
    char owner_path[4200];
    snprintf(owner_path, sizeof owner_path, "%s/owner.pid", dir);
    FILE *f = fopen(owner_path, "r");
    long owner = 0;
    if (f && fscanf(f, "%ld", &owner) != 1)
        owner = 0;
    if (f)
        fclose(f);
    EXPECT(owner == pid, "%s names %ld, want the ratelab process %d", owner_path, owner, (int)pid);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (redis <= 0 || dir[0] == '\0')
        return;
    for (int ms = 0; ms < 5000 && !gone(redis); ms += 10)
        rl_test_sleep_ms(10);
    EXPECT(gone(redis), "redis-server %d outlived its ratelab", (int)redis);
    EXPECT(stat(dir, &st) == 0, "%s should still be there after SIGKILL", dir);
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo redis_gcra --workload uniform --duration 100ms");
    EXPECT(o.status == 0, "the next run: exit %d: %s", o.status, o.err);
    EXPECT(stat(dir, &st) != 0, "%s was left by a killed run and not removed", dir);
}

/* A folder whose owner is alive, or whose socket still listens, is kept. */
static void test_sweep_keeps_live_folders(void)
{
    struct rl_redis_server server;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_start(&server, err, sizeof err), 0);
    rl_redis_server_sweep();
    struct stat st;
    CU_ASSERT_EQUAL(stat(server.dir, &st), 0); /* our own: the owner is alive */
    /* the owner file naming a process that is gone: the socket still listens */
    char path[sizeof server.dir + 16];
    snprintf(path, sizeof path, "%s/owner.pid", server.dir);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%d\n", (int)child);
    fclose(f);
    rl_redis_server_sweep();
    CU_ASSERT_EQUAL(stat(server.dir, &st), 0);
    CU_ASSERT_EQUAL(rl_redis_ping(server.address, err, sizeof err), 0);
    /* and once nothing listens, it goes */
    rl_redis_server_kill(&server);
    rl_redis_server_sweep();
    CU_ASSERT_NOT_EQUAL(stat(server.dir, &st), 0);
    rl_redis_server_stop(&server);
}

/* A redis-server on a free TCP port of 127.0.0.1 and ::1, dying with us. */
static pid_t start_tcp_redis(int *port)
{
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    socklen_t sa_len = sizeof sa;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                    getsockname(fd, (struct sockaddr *)&sa, &sa_len) == 0);
    *port = ntohs(sa.sin6_port);
    close(fd);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", *port);
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
        const char *args[] = {"redis-server", "--port", port_text, "--bind",       "127.0.0.1",
                              "::1",          "--save", "",        "--appendonly", "no",
                              "--dir",        "/tmp",   NULL};
        execvp("redis-server", (char *const *)args);
        execv("/usr/bin/redis-server", (char *const *)args);
        _exit(127);
    }
    char address[64], err[256];
    snprintf(address, sizeof address, "127.0.0.1:%d", *port);
    for (int ms = 0; ms < 5000 && rl_redis_ping(address, err, sizeof err) != 0; ms += 10)
        rl_test_sleep_ms(10);
    return pid;
}

/* Every accepted TCP form reaches a server: [::1] too (hiredis takes it
 * without the brackets), and localhost without a lookup. */
static void test_tcp_forms_connect(void)
{
    int port;
    pid_t redis = start_tcp_redis(&port);
    char err[256], address[64];
    static const char *const hosts[] = {"127.0.0.1", "localhost", "[::1]"};
    for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
        snprintf(address, sizeof address, "%s:%d", hosts[i], port);
        char canonical[64];
        CU_ASSERT_EQUAL(
            rl_redis_address_check(address, canonical, sizeof canonical, err, sizeof err), 0);
        EXPECT(rl_redis_ping(canonical, err, sizeof err) == 0, "PING %s: %s", canonical, err);
        static struct rl_cli_outcome o;
        char args[256];
        snprintf(args, sizeof args,
                 "sim --algo redis_gcra --workload uniform --duration 100ms --redis %s", address);
        rl_cli_run(&o, args);
        EXPECT(o.status == 0, "ratelab %s: exit %d: %s", args, o.status, o.err);
        EXPECT(strstr(o.out, "redis_gcra") != NULL, "ratelab %s: no table: %s", args, o.out);
    }
    kill(redis, SIGKILL);
    waitpid(redis, NULL, 0);
}

/* Something that accepts and never answers: PING gives up (it used to wait
 * for a reply forever, the connect timeout not covering it). */
static void test_silent_port_refused(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CU_ASSERT_FATAL(fd >= 0);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof at;
    CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&at, sizeof at) == 0 && listen(fd, 4) == 0 &&
                    getsockname(fd, (struct sockaddr *)&at, &len) == 0);
    char address[64], err[256];
    snprintf(address, sizeof address, "127.0.0.1:%u", ntohs(at.sin_port));
    EXPECT(rl_redis_ping(address, err, sizeof err) == -1, "PING of a silent port succeeded");
    EXPECT(strstr(err, "did not answer PING") != NULL, "error: %s", err);
    close(fd);
}

RL_TEST_SUITE("redis_server", {"start, PING, stop, nothing left", test_start_ping_stop},
              {"repeat: exactly n times, binary-safe, an error fails", test_repeat_counts},
              {"a port that accepts and never answers is refused", test_silent_port_refused},
              {"--redis addresses: literal loopback, localhost or unix only", test_addresses},
              {"--redis 127.0.0.1, localhost and [::1] reach a TCP server", test_tcp_forms_connect},
              {"a SIGKILLed run's folder is removed by the next run", test_killed_run_folder_swept},
              {"the sweep keeps folders in use", test_sweep_keeps_live_folders})
