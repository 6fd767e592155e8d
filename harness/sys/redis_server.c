/* redis_server.c — start, wait for, and stop a private redis-server. */
#include "redis_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

/* "unix:PATH" or "HOST:PORT", HOST a literal address ("[::1]" loses its
 * brackets: hiredis takes "::1"). Callers check user input first
 * (rl_redis_address_check), so no name reaches the resolver. */
static redisContext *connect_to(const char *address, int timeout_ms)
{
    struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    if (strncmp(address, "unix:", 5) == 0)
        return redisConnectUnixWithTimeout(address + 5, timeout);
    char host[256];
    const char *colon = strrchr(address, ':');
    if (colon == NULL || (size_t)(colon - address) >= sizeof host)
        return NULL;
    const char *start = address, *end = colon;
    if (*start == '[' && end > start + 1 && end[-1] == ']')
        start++, end--;
    memcpy(host, start, (size_t)(end - start));
    host[end - start] = '\0';
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
    /* The connect timeout does not cover the reply: something that accepts
     * and never answers must not hang the run. */
    struct timeval reply_timeout = {.tv_sec = 1};
    redisSetTimeout(c, reply_timeout);
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

/* A port: 1 to 65535 in decimal digits only (no sign, space or 0x). */
static bool parse_port(const char *text, long *port)
{
    *port = 0;
    if (*text == '\0' || strlen(text) > 5)
        return false;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return false;
        *port = *port * 10 + (*c - '0');
    }
    return *port >= 1 && *port <= 65535;
}

int rl_redis_address_check(const char *address, char *canonical, size_t canonical_len, char *err,
                           size_t err_len)
{
    if (strncmp(address, "unix:", 5) == 0 && address[5] != '\0') {
        if (canonical)
            snprintf(canonical, canonical_len, "%s", address);
        return 0;
    }
    const char *colon = strrchr(address, ':');
    long port;
    if (colon == NULL || colon == address || !parse_port(colon + 1, &port)) {
        snprintf(err, err_len,
                 "--redis '%s' is not HOST:PORT (127.x.x.x, localhost or [::1], port 1-65535) or "
                 "unix:PATH",
                 address);
        return -1;
    }
    char host[64];
    size_t host_len = (size_t)(colon - address);
    bool loopback = false;
    if (host_len < sizeof host) {
        memcpy(host, address, host_len);
        host[host_len] = '\0';
        struct in_addr v4;
        struct in6_addr v6;
        /* Literal addresses only, parsed here: a name is never looked up,
         * and "localhost" is taken to mean 127.0.0.1 without asking anyone.
         * inet_pton takes exactly four dotted decimals for IPv4. */
        if (strcmp(host, "localhost") == 0) {
            loopback = true;
            snprintf(host, sizeof host, "127.0.0.1");
        } else if (inet_pton(AF_INET, host, &v4) == 1) {
            loopback = (ntohl(v4.s_addr) >> 24) == 127;
        } else if (host_len > 2 && host[0] == '[' && host[host_len - 1] == ']') {
            char inner[64];
            snprintf(inner, sizeof inner, "%.*s", (int)(host_len - 2), host + 1);
            loopback = inet_pton(AF_INET6, inner, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
        }
    }
    if (!loopback) {
        snprintf(err, err_len,
                 "--redis '%s': only loopback servers (127.x.x.x, localhost, [::1]) or unix "
                 "sockets are used",
                 address);
        return -1;
    }
    if (canonical)
        snprintf(canonical, canonical_len, "%s:%ld", host, port);
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

/* ---- folders left by a killed run --------------------------------------- */

#define FOLDER_PREFIX "ratelab-redis-"
#define OWNER_FILE    "owner.pid"
/* A folder without an owner file this old was left by a build before the
 * owner file, not one whose start is just writing it. */
#define UNOWNED_AGE_S 600

/* Everything a server folder may hold; anything else keeps it (rmdir fails). */
static const char *const folder_files[] = {"redis.sock", "redis.log", "dump.rdb", OWNER_FILE};

static const char *temp_root(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

static void remove_folder(const char *dir)
{
    char path[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof folder_files / sizeof *folder_files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, folder_files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Whether something listens on dir's socket: a connection is taken or
 * queued (a stopped server still queues), or the queue is full. */
static bool socket_listening(const char *dir)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (snprintf(sa.sun_path, sizeof sa.sun_path, "%s/redis.sock", dir) >= (int)sizeof sa.sun_path)
        return true; /* cannot tell: keep it */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return true;
    bool listening = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EAGAIN ||
                     errno == EINPROGRESS;
    close(fd);
    return listening;
}

/* Whether the process that made dir is gone: its owner file names a pid
 * that no longer exists. Without the file, only when the folder is old. */
static bool owner_gone(const char *dir, const struct stat *st)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, OWNER_FILE);
    FILE *f = fopen(path, "r");
    long pid = 0;
    bool read = f && fscanf(f, "%ld", &pid) == 1 && pid > 0;
    if (f)
        fclose(f);
    if (!read)
        return time(NULL) - st->st_mtime > UNOWNED_AGE_S;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void rl_redis_server_sweep(void)
{
    const char *root = temp_root();
    DIR *d = opendir(root);
    if (d == NULL)
        return;
    uid_t me = getuid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, FOLDER_PREFIX, strlen(FOLDER_PREFIX)) != 0)
            continue;
        char dir[PATH_MAX];
        if (snprintf(dir, sizeof dir, "%s/%s", root, e->d_name) >= (int)sizeof dir)
            continue;
        struct stat st;
        if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me)
            continue;
        if (owner_gone(dir, &st) && !socket_listening(dir))
            remove_folder(dir);
    }
    closedir(d);
}

int rl_redis_server_start(struct rl_redis_server *server, char *err, size_t err_len)
{
    memset(server, 0, sizeof *server);
    const char *binary = find_binary();
    if (binary == NULL) {
        snprintf(err, err_len, "redis-server not found (install it: make deps)");
        return -1;
    }
    rl_redis_server_sweep();
    snprintf(server->dir, sizeof server->dir, "%s/" FOLDER_PREFIX "XXXXXX", temp_root());
    if (mkdtemp(server->dir) == NULL) {
        snprintf(err, err_len, "cannot make a temporary folder for redis: %s", strerror(errno));
        return -1;
    }
    /* Who made it, so that a later run can tell the folder of a run that
     * was killed (SIGKILL runs no cleanup) from one still in use. */
    char owner[PATH_MAX + 16];
    snprintf(owner, sizeof owner, "%s/" OWNER_FILE, server->dir);
    FILE *f = fopen(owner, "wx");
    bool written = f && fprintf(f, "%ld\n", (long)getpid()) > 0;
    if (f && fclose(f) != 0)
        written = false;
    if (!written) {
        snprintf(err, err_len, "cannot write %s: %s", owner, strerror(errno));
        remove_folder(server->dir);
        server->dir[0] = '\0';
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
        kill(server->pid, SIGCONT); /* a stopped server handles SIGTERM only once continued */
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
        remove_folder(server->dir);
        server->dir[0] = '\0';
    }
    track(server, false);
}

int rl_redis_command(const char *address, int argc, const char *const *argv, char *reply_text,
                     size_t reply_len, char *err, size_t err_len)
{
    redisContext *c = connect_to(address, 1000);
    if (c == NULL || c->err) {
        snprintf(err, err_len, "cannot connect to redis at %s: %s", address,
                 c ? c->errstr : "bad address");
        if (c)
            redisFree(c);
        return -1;
    }
    redisReply *reply = redisCommandArgv(c, argc, (const char **)argv, NULL);
    int ok = reply && (reply->type == REDIS_REPLY_STATUS || reply->type == REDIS_REPLY_STRING);
    if (ok)
        snprintf(reply_text, reply_len, "%s", reply->str);
    else
        snprintf(err, err_len, "redis at %s: %s: %s", address, argv[0],
                 reply ? (reply->str ? reply->str : "unexpected reply") : c->errstr);
    if (reply)
        freeReplyObject(reply);
    redisFree(c);
    return ok ? 0 : -1;
}

int rl_redis_repeat(const char *address, int argc, const char *const *argv, const size_t *lens,
                    unsigned times, char *err, size_t err_len)
{
    enum { BATCH = 256 }; /* replies read per write: the socket buffers hold them */
    redisContext *c = connect_to(address, 1000);
    if (c == NULL || c->err) {
        snprintf(err, err_len, "cannot connect to redis at %s: %s", address,
                 c ? c->errstr : "bad address");
        if (c)
            redisFree(c);
        return -1;
    }
    int status = 0;
    for (unsigned done = 0; done < times && status == 0;) {
        unsigned batch = times - done < BATCH ? times - done : BATCH;
        for (unsigned i = 0; i < batch; i++)
            redisAppendCommandArgv(c, argc, (const char **)argv, lens);
        for (unsigned i = 0; i < batch; i++) {
            void *r = NULL;
            if (redisGetReply(c, &r) != REDIS_OK || r == NULL) {
                snprintf(err, err_len, "redis at %s: %s", address, c->errstr);
                status = -1;
                break;
            }
            redisReply *reply = r;
            if (reply->type == REDIS_REPLY_ERROR && status == 0) {
                snprintf(err, err_len, "redis at %s: %s: %s", address, argv[0], reply->str);
                status = -1;
            }
            freeReplyObject(reply);
        }
        done += batch;
    }
    redisFree(c);
    return status;
}
