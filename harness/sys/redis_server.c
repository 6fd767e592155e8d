/* redis_server.c — start, wait for, and stop a private redis-server. */
#include "redis_server.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Servers still running, stopped by the atexit handler. */
#define MAX_SERVERS 8
static struct rl_redis_server *running[MAX_SERVERS];
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;

static void stop_all_at_exit(void)
{
    for (int i = 0; i < MAX_SERVERS; i++)
        if (running[i])
            rl_redis_server_stop(running[i]);
}

static void register_atexit(void)
{
    atexit(stop_all_at_exit);
}

static void track(struct rl_redis_server *server, bool add)
{
    pthread_mutex_lock(&running_lock);
    for (int i = 0; i < MAX_SERVERS; i++)
        if (add ? running[i] == NULL : running[i] == server) {
            running[i] = add ? server : NULL;
            break;
        }
    pthread_mutex_unlock(&running_lock);
}

static const char *find_binary(void)
{
    static char found[PATH_MAX];
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "");
    char *save = NULL;
    for (char *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(found, sizeof found, "%s/redis-server", dir);
        if (access(found, X_OK) == 0)
            return found;
    }
    return access("/usr/bin/redis-server", X_OK) == 0 ? "/usr/bin/redis-server" : NULL;
}

bool rl_redis_server_available(void)
{
    return find_binary() != NULL;
}

static redisContext *connect_to(const char *address, int timeout_ms)
{
    struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    if (strncmp(address, "unix:", 5) == 0)
        return redisConnectUnixWithTimeout(address + 5, timeout);
    char host[256];
    const char *colon = strrchr(address, ':');
    if (colon == NULL || (size_t)(colon - address) >= sizeof host)
        return NULL;
    memcpy(host, address, (size_t)(colon - address));
    host[colon - address] = '\0';
    return redisConnectWithTimeout(host, atoi(colon + 1), timeout);
}

int rl_redis_ping(const char *address, char *err, size_t err_len)
{
    redisContext *c = connect_to(address, 1000);
    if (c == NULL || c->err) {
        snprintf(err, err_len, "cannot connect to redis at %s: %s", address,
                 c ? c->errstr : "bad address");
        if (c)
            redisFree(c);
        return -1;
    }
    redisReply *reply = redisCommand(c, "PING");
    int ok = reply && reply->type == REDIS_REPLY_STATUS && strcmp(reply->str, "PONG") == 0;
    if (!ok)
        snprintf(err, err_len, "redis at %s did not answer PING: %s", address,
                 reply ? (reply->str ? reply->str : "unexpected reply") : c->errstr);
    if (reply)
        freeReplyObject(reply);
    redisFree(c);
    return ok ? 0 : -1;
}

int rl_redis_address_check(const char *address, char *err, size_t err_len)
{
    if (strncmp(address, "unix:", 5) == 0 && address[5] != '\0')
        return 0;
    const char *colon = strrchr(address, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (colon == NULL || end == colon + 1 || *end != '\0' || port < 1 || port > 65535) {
        snprintf(err, err_len, "--redis '%s' is not HOST:PORT or unix:PATH", address);
        return -1;
    }
    size_t host_len = (size_t)(colon - address);
    if (!((host_len == 9 && strncmp(address, "localhost", 9) == 0) ||
          strncmp(address, "127.", 4) == 0 || strncmp(address, "[::1]", 5) == 0)) {
        snprintf(err, err_len,
                 "--redis '%s': only loopback servers (127.x.x.x, localhost, [::1]) or unix "
                 "sockets are used",
                 address);
        return -1;
    }
    return 0;
}

static void last_log_line(const char *dir, char *buf, size_t len)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/redis.log", dir);
    snprintf(buf, len, "no log");
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(buf, len, "%.200s", line);
    }
    if (f)
        fclose(f);
}

/* Forks and execs redis-server on server->dir's socket, then waits for
 * PING. The folder and address are already set. */
static int spawn(struct rl_redis_server *server, const char *binary, char *err, size_t err_len)
{
    char socket_path[PATH_MAX + 16], log_path[PATH_MAX + 16];
    snprintf(socket_path, sizeof socket_path, "%s/redis.sock", server->dir);
    snprintf(log_path, sizeof log_path, "%s/redis.log", server->dir);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "cannot fork redis-server: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* Die with the harness, whatever kills it. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (log >= 0) {
            dup2(log, STDOUT_FILENO);
            dup2(log, STDERR_FILENO);
            close(log);
        }
        execl(binary, "redis-server", "--port", "0", "--unixsocket", socket_path,
              "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--daemonize", "no",
              "--dir", server->dir, "--loglevel", "warning", (char *)NULL);
        _exit(127);
    }
    server->pid = pid;
    for (int waited_ms = 0; waited_ms < 5000; waited_ms += 10) {
        char ping_err[256];
        if (rl_redis_ping(server->address, ping_err, sizeof ping_err) == 0)
            return 0;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) { /* it exited: say why */
            server->pid = 0;
            char line[256];
            last_log_line(server->dir, line, sizeof line);
            snprintf(err, err_len, "redis-server exited at start: %s", line);
            return -1;
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    char line[256];
    last_log_line(server->dir, line, sizeof line);
    snprintf(err, err_len, "redis-server did not answer within 5 s: %s", line);
    return -1;
}

int rl_redis_server_start(struct rl_redis_server *server, char *err, size_t err_len)
{
    memset(server, 0, sizeof *server);
    const char *binary = find_binary();
    if (binary == NULL) {
        snprintf(err, err_len, "redis-server not found (install it: make deps)");
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(server->dir, sizeof server->dir, "%s/ratelab-redis-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(server->dir) == NULL) {
        snprintf(err, err_len, "cannot make a temporary folder for redis: %s", strerror(errno));
        return -1;
    }
    snprintf(server->address, sizeof server->address, "unix:%.4000s/redis.sock", server->dir);
    pthread_once(&atexit_once, register_atexit);
    track(server, true);
    if (spawn(server, binary, err, err_len) != 0) {
        rl_redis_server_stop(server);
        return -1;
    }
    return 0;
}

int rl_redis_server_restart(struct rl_redis_server *server, char *err, size_t err_len)
{
    const char *binary = find_binary();
    rl_redis_server_kill(server);
    if (binary == NULL) {
        snprintf(err, err_len, "redis-server not found (install it: make deps)");
        return -1;
    }
    char socket_path[PATH_MAX + 16];
    snprintf(socket_path, sizeof socket_path, "%s/redis.sock", server->dir);
    unlink(socket_path);
    return spawn(server, binary, err, err_len);
}

void rl_redis_server_kill(struct rl_redis_server *server)
{
    if (server->pid > 0) {
        kill(server->pid, SIGKILL);
        waitpid(server->pid, NULL, 0);
        server->pid = 0;
    }
}

void rl_redis_server_stop(struct rl_redis_server *server)
{
    if (server->pid > 0) {
        kill(server->pid, SIGTERM);
        int status;
        for (int waited_ms = 0; waited_ms < 2000; waited_ms += 10) {
            if (waitpid(server->pid, &status, WNOHANG) == server->pid) {
                server->pid = 0;
                break;
            }
            struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        rl_redis_server_kill(server);
    }
    if (server->dir[0]) {
        char path[PATH_MAX + 16];
        const char *files[] = {"redis.sock", "redis.log", "dump.rdb"};
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            snprintf(path, sizeof path, "%s/%s", server->dir, files[i]);
            unlink(path);
        }
        rmdir(server->dir);
        server->dir[0] = '\0';
    }
    track(server, false);
}
