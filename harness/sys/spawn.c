/* spawn.c — run a child with argv and capture its standard output (see
 * spawn.h). fork and exec rather than posix_spawn so the child's stderr can
 * go to /dev/null and a failed exec still shows as exit status 127. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static pid_t start_child(char *const argv[], int fd[2], char *err, size_t err_len)
{
    if (pipe(fd) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    return pid;
}

/* Reads fd to its end into out (len bytes, terminated), the excess into a
 * sink. false when the deadline (ms on the monotonic clock; 0: none)
 * passes first. */
static bool read_all(int fd, long long deadline, char *out, size_t len)
{
    size_t used = 0;
    char sink[4096];
    for (;;) {
        if (deadline) {
            long long left = deadline - now_ms();
            struct pollfd p = {.fd = fd, .events = POLLIN};
            if (left <= 0 || poll(&p, 1, (int)left) == 0)
                break;
        }
        bool room = used + 1 < len;
        ssize_t got = read(fd, room ? out + used : sink, room ? len - 1 - used : sizeof sink);
        if (got == 0 || (got < 0 && errno != EINTR)) {
            out[used] = '\0';
            return true;
        }
        if (got > 0 && room)
            used += (size_t)got;
    }
    out[used] = '\0';
    return false;
}

int rl_spawn_capture(char *const argv[], unsigned timeout_ms, char *out, size_t len, int *status,
                     char *err, size_t err_len)
{
    if (status)
        *status = -1;
    if (len)
        out[0] = '\0';
    int fd[2];
    pid_t pid = start_child(argv, fd, err, err_len);
    if (pid < 0)
        return -1;
    bool ended = read_all(fd[0], timeout_ms ? now_ms() + timeout_ms : 0, out, len);
    close(fd[0]);
    if (!ended)
        kill(pid, SIGKILL);
    int how;
    while (waitpid(pid, &how, 0) < 0 && errno == EINTR) {
    }
    if (!ended) {
        snprintf(err, err_len, "%s did not finish within %u ms", argv[0], timeout_ms);
        return -1;
    }
    if (!WIFEXITED(how)) {
        snprintf(err, err_len, "%s was stopped by signal %d", argv[0], WTERMSIG(how));
        return -1;
    }
    if (status)
        *status = WEXITSTATUS(how);
    if (WEXITSTATUS(how) != 0) {
        snprintf(err, err_len, "%s did not succeed", argv[0]);
        return -1;
    }
    return 0;
}
