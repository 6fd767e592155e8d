/* test_redis_cluster_cli.c — --redis-cluster through the real binary: each
 * bad input is one line and exit 2 on every command that takes it, a run on
 * a private cluster leaves nothing in its temporary folder, and SIGTERM or
 * SIGINT while the cluster starts kills its nodes and removes its folder.
 * Every run here gets a private $TMPDIR, so "nothing left" is exact. */
#include "tests/support/cli_run.h"
#include "tests/support/cluster_fixture.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"

#include <arpa/inet.h>
#include <dirent.h>
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

static char tmpdir[256];
static char saved_tmpdir[4096];
static bool had_tmpdir;

/* A fresh $TMPDIR for the runs of one test. */
static void private_tmpdir(void)
{
    const char *old = getenv("TMPDIR");
    had_tmpdir = old != NULL;
    snprintf(saved_tmpdir, sizeof saved_tmpdir, "%s", old ? old : "");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rl-cluster-cli-XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(tmpdir) != NULL);
    setenv("TMPDIR", tmpdir, 1);
}

/* What is left in it (one name, or ""), then it is removed. */
static void end_tmpdir(const char *after)
{
    char left[512] = "";
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && left[0] == '\0')
            snprintf(left, sizeof left, "%s", e->d_name);
    if (d)
        closedir(d);
    EXPECT(left[0] == '\0', "after %s, %s/%s was left behind", after, tmpdir, left);
    if (left[0]) {
        char command[600];
        snprintf(command, sizeof command, "rm -rf %s", tmpdir);
        if (system(command) != 0)
            return;
    }
    rmdir(tmpdir);
    if (had_tmpdir)
        setenv("TMPDIR", saved_tmpdir, 1);
    else
        unsetenv("TMPDIR");
}

static unsigned free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    close(fd);
    return ntohs(sa.sin_port);
}

/* A redis-server not in cluster mode on a free port. */
static pid_t start_plain_redis(unsigned port)
{
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%u", port);
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
    for (int ms = 0; ms < 5000 && rl_test_port_free(port); ms += 10)
        rl_test_sleep_ms(10);
    return pid;
}

static void test_bad_input(void)
{
    private_tmpdir();
    unsigned silent = free_port(), plain_port = free_port();
    pid_t plain = start_plain_redis(plain_port);
    static const char *const runs[] = {
        "sim --algo redis_gcra --workload uniform --duration 100ms",
        "stress --algo redis_gcra --duration 100ms --reps 1 --threads 1",
        "bench --suite redis",
    };
    struct {
        char option[96];
        const char *needle;
    } bad[] = {
        {"--redis-cluster 0x1", "at least 1 primary"},
        {"--redis-cluster 3", "is not NxR"},
        {"--redis-cluster 3x1 --redis 127.0.0.1:6379", "give one"},
        {"--redis 127.0.0.1:6379 --redis-cluster 3x1", "give one"},
        {"--redis-cluster 10.1.2.3:7000", "not a loopback HOST:PORT"},
        {"--redis-cluster unix:/tmp/x.sock", "not a loopback HOST:PORT"},
        {"", "cannot connect"},
        {"", "is not in cluster mode"},
    };
    snprintf(bad[6].option, sizeof bad[6].option, "--redis-cluster 127.0.0.1:%u", silent);
    snprintf(bad[7].option, sizeof bad[7].option, "--redis-cluster localhost:%u", plain_port);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
        for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
            char args[1024];
            snprintf(args, sizeof args, "%s %s", runs[r], bad[b].option);
            rl_cli_expect_usage_error(args, bad[b].needle);
        }
    rl_cli_expect_usage_error("replay --redis-cluster 3x", "is not NxR");
    kill(plain, SIGKILL);
    waitpid(plain, NULL, 0);
    end_tmpdir("the bad inputs");
}

/* A run on a private cluster leaves nothing, whatever its status (until
 * the cluster client lands, the Redis limiters cannot reach it). */
static void test_run_leaves_nothing(void)
{
    private_tmpdir();
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo redis_gcra --workload uniform --duration 100ms --redis-cluster 1x0");
    EXPECT(o.status >= 0 && strstr(o.err, "cannot start") == NULL, "exit %d: %s", o.status, o.err);
    end_tmpdir("a run on a private cluster");
}

/* The pids in TMPDIR/ratelab-cluster-* /node-N/pid, into pids. */
static size_t node_pids(pid_t *pids, size_t max)
{
    size_t n = 0;
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "ratelab-cluster-", 16) != 0)
            continue;
        for (size_t i = 0; i < max; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s/node-%zu/pid", tmpdir, e->d_name, i);
            FILE *f = fopen(path, "r");
            long pid = 0;
            if (f && fscanf(f, "%ld", &pid) == 1 && pid > 0)
                pids[n++] = (pid_t)pid;
            if (f)
                fclose(f);
        }
    }
    if (d)
        closedir(d);
    return n;
}

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

static void signalled_while_starting(int signo)
{
    private_tmpdir();
    const char *bin = getenv("RATELAB_BIN") ? getenv("RATELAB_BIN") : "build/ratelab";
    pid_t run = fork();
    CU_ASSERT_FATAL(run >= 0);
    if (run == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
        execl(bin, bin, "sim", "--algo", "redis_gcra", "--workload", "uniform", "--duration",
              "100ms", "--redis-cluster", "3x1", (char *)NULL);
        _exit(127);
    }
    pid_t pids[6];
    size_t n = 0;
    for (int ms = 0; ms < 10000 && n < 6; ms += 5) {
        rl_test_sleep_ms(5);
        n = node_pids(pids, 6);
    }
    EXPECT(n == 6, "the run started %zu of 6 nodes", n);
    kill(run, signo);
    int status = 0;
    waitpid(run, &status, 0);
    EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == signo,
           "ratelab should die of signal %d, status %#x", signo, status);
    for (size_t i = 0; i < n; i++) {
        for (int ms = 0; ms < 2000 && !dead(pids[i]); ms += 10)
            rl_test_sleep_ms(10);
        EXPECT(dead(pids[i]), "node %zu (pid %d) outlived the signalled run", i, (int)pids[i]);
    }
    end_tmpdir(signo == SIGTERM ? "SIGTERM" : "SIGINT");
}

static void test_sigterm_while_starting(void)
{
    signalled_while_starting(SIGTERM);
}

static void test_sigint_while_starting(void)
{
    signalled_while_starting(SIGINT);
}

RL_TEST_SUITE("redis_cluster_cli",
              {"--redis-cluster bad input: one line, exit 2, nothing left", test_bad_input},
              {"a run on a private cluster leaves nothing", test_run_leaves_nothing},
              {"SIGTERM while the cluster starts: nodes killed, folder removed",
               test_sigterm_while_starting},
              {"SIGINT while the cluster starts: nodes killed, folder removed",
               test_sigint_while_starting})
