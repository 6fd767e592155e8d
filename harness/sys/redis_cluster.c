/* redis_cluster.c — start, build, join, fault and stop a Redis Cluster. */
#include "redis_cluster.h"

#include "redis_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOTS            16384
#define FOLDER_PREFIX    "ratelab-cluster-"
#define OWNER_FILE       "owner.pid"
#define START_TIMEOUT_NS (30ull * 1000000000ull)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* ---- clusters still running, stopped at exit ----------------------------- */

#define MAX_CLUSTERS 4
static struct rl_redis_cluster *running[MAX_CLUSTERS];
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;

static void stop_all_at_exit(void)
{
    for (int i = 0; i < MAX_CLUSTERS; i++)
        if (running[i])
            rl_redis_cluster_stop(running[i]);
}

/* dst = a + b, with only what a signal handler may call. */
static void join_path(char *dst, size_t len, const char *a, const char *b)
{
    size_t n = 0;
    for (; *a && n + 1 < len; a++)
        dst[n++] = *a;
    for (; *b && n + 1 < len; b++)
        dst[n++] = *b;
    dst[n] = '\0';
}

/* SIGINT or SIGTERM where nothing else handles them (sim, check): kill the
 * nodes and remove the files a node writes, then die of the signal as we
 * would have. Only async-signal-safe calls; a file we do not know keeps its
 * folder, which the next run sweeps (the owner is gone by then). */
static void die_cleanly(int signo)
{
    static const char *const node_files[] = {"/nodes.conf", "/redis.log", "/pid", "/dump.rdb"};
    char path[PATH_MAX + 32];
    for (int k = 0; k < MAX_CLUSTERS; k++) {
        struct rl_redis_cluster *c = running[k];
        if (c == NULL || c->joined)
            continue;
        for (size_t i = 0; i < c->node_count; i++)
            if (c->nodes[i].pid > 0)
                kill(c->nodes[i].pid, SIGKILL);
        for (size_t i = 0; i < c->node_count; i++) {
            for (size_t f = 0; f < sizeof node_files / sizeof *node_files; f++) {
                join_path(path, sizeof path, c->nodes[i].dir, node_files[f]);
                unlink(path);
            }
            rmdir(c->nodes[i].dir);
        }
        join_path(path, sizeof path, c->dir, "/" OWNER_FILE);
        unlink(path);
        rmdir(c->dir);
    }
    signal(signo, SIG_DFL);
    raise(signo);
}

static void register_atexit(void)
{
    atexit(stop_all_at_exit);
    /* Commands that handle the signals themselves (rl_interrupt_install)
     * replace this and stop through atexit. */
    static const int signals[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = die_cleanly;
            sigemptyset(&sa.sa_mask);
            sigaction(signals[i], &sa, NULL);
        }
    }
}

static void track(struct rl_redis_cluster *c, bool add)
{
    pthread_mutex_lock(&running_lock);
    for (int i = 0; i < MAX_CLUSTERS; i++)
        if (add ? running[i] == NULL : running[i] == c) {
            running[i] = add ? c : NULL;
            break;
        }
    pthread_mutex_unlock(&running_lock);
}

bool rl_redis_cluster_available(void)
{
    return rl_redis_server_available();
}

/* ---- talking to one node ------------------------------------------------- */

static redisContext *node_connect(const struct rl_redis_cluster_node *n, int timeout_ms)
{
    struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    char host[64];
    snprintf(host, sizeof host, "%s", n->host[0] ? n->host : "127.0.0.1");
    size_t len = strlen(host);
    if (len > 2 && host[0] == '[' && host[len - 1] == ']') { /* hiredis takes ::1 */
        memmove(host, host + 1, len - 2);
        host[len - 2] = '\0';
    }
    redisContext *ctx = redisConnectWithTimeout(host, (int)n->port, timeout);
    if (ctx && ctx->err == 0)
        redisSetTimeout(ctx, timeout);
    return ctx;
}

/* One command on a connection of its own; NULL (and a line in err) when the
 * node does not answer. An error reply is returned as is. */
static redisReply *node_command(const struct rl_redis_cluster_node *n, char *err, size_t err_len,
                                const char *fmt, ...)
{
    redisContext *ctx = node_connect(n, 1000);
    if (ctx == NULL || ctx->err) {
        snprintf(err, err_len, "cannot connect to %s:%u: %s", n->host[0] ? n->host : "127.0.0.1",
                 n->port, ctx ? ctx->errstr : "out of memory");
        if (ctx)
            redisFree(ctx);
        return NULL;
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *reply = redisvCommand(ctx, fmt, ap);
    va_end(ap);
    if (reply == NULL)
        snprintf(err, err_len, "%s:%u did not answer: %s", n->host[0] ? n->host : "127.0.0.1",
                 n->port, ctx->errstr);
    redisFree(ctx);
    return reply;
}

/* PING with a timeout on the answer too (hiredis's connect timeout alone
 * waits forever on a port that accepts and never answers). */
static int node_ping(const struct rl_redis_cluster_node *n, int timeout_ms, char *err,
                     size_t err_len)
{
    redisContext *ctx = node_connect(n, timeout_ms);
    const char *host = n->host[0] ? n->host : "127.0.0.1";
    if (ctx == NULL || ctx->err) {
        snprintf(err, err_len, "cannot connect to redis at %s:%u: %s", host, n->port,
                 ctx ? ctx->errstr : "out of memory");
        if (ctx)
            redisFree(ctx);
        return -1;
    }
    redisReply *r = redisCommand(ctx, "PING");
    int ok = r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0;
    if (!ok)
        snprintf(err, err_len, "%s:%u did not answer PING within %d ms: %s", host, n->port,
                 timeout_ms, r && r->str ? r->str : ctx->errstr);
    if (r)
        freeReplyObject(r);
    redisFree(ctx);
    return ok ? 0 : -1;
}

/* A command whose reply must not be an error; -1 with the reason in err. */
static int node_ok(const struct rl_redis_cluster_node *n, char *err, size_t err_len,
                   const char *what, const char *fmt, ...)
{
    redisContext *ctx = node_connect(n, 1000);
    if (ctx == NULL || ctx->err) {
        snprintf(err, err_len, "%s on port %u: cannot connect: %s", what, n->port,
                 ctx ? ctx->errstr : "out of memory");
        if (ctx)
            redisFree(ctx);
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *reply = redisvCommand(ctx, fmt, ap);
    va_end(ap);
    int rc = reply && reply->type != REDIS_REPLY_ERROR ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_len, "%s on port %u: %s", what, n->port,
                 reply ? reply->str : ctx->errstr);
    if (reply)
        freeReplyObject(reply);
    redisFree(ctx);
    return rc;
}

/* The value of "name:" in an INFO-style reply, into buf ("" if absent). */
static void info_field(const char *text, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t name_len = strlen(name);
    for (const char *line = text; line && *line;) {
        if (strncmp(line, name, name_len) == 0 && line[name_len] == ':') {
            const char *v = line + name_len + 1;
            size_t n = strcspn(v, "\r\n");
            snprintf(buf, len, "%.*s", (int)n, v);
            return;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
}

static bool live(const struct rl_redis_cluster *c, size_t i)
{
    return c->joined || (c->nodes[i].pid > 0 && !c->nodes[i].stopped);
}

static int node_by_port(const struct rl_redis_cluster *c, unsigned port)
{
    for (size_t i = 0; i < c->node_count; i++)
        if (c->nodes[i].port == port)
            return (int)i;
    return -1;
}

static int node_by_id(const struct rl_redis_cluster *c, const char *id, size_t id_len)
{
    for (size_t i = 0; i < c->node_count; i++)
        if (strlen(c->nodes[i].id) == id_len && strncmp(c->nodes[i].id, id, id_len) == 0)
            return (int)i;
    return -1;
}

/* ---- the run folder ------------------------------------------------------ */

static const char *temp_root(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

/* Removes dir and what is in it, one level of subfolders deep (the run
 * folder holds node folders of plain files). */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
                continue;
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0)
                remove_tree(path, depth - 1);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Whether pid is a redis-server working in dir (a node chdirs to its
 * folder; its title no longer names the folder). */
static bool works_in(pid_t pid, const char *dir)
{
    char link[64], cwd[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/cwd", (long)pid);
    ssize_t n = readlink(link, cwd, sizeof cwd - 1);
    if (n <= 0)
        return false;
    cwd[n] = '\0';
    const char *deleted = " (deleted)";
    size_t dl = strlen(deleted);
    if ((size_t)n > dl && strcmp(cwd + n - dl, deleted) == 0)
        cwd[n - dl] = '\0';
    return strcmp(cwd, dir) == 0;
}

static long read_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    long pid = 0;
    if (f && fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    if (f)
        fclose(f);
    return pid;
}

/* Kills the nodes a dead run left (their pid files, checked against the
 * folder they work in) and removes its folder. */
static void sweep_run(const char *run)
{
    DIR *d = opendir(run);
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "node-", 5) != 0)
            continue;
        char node_dir[PATH_MAX], pid_path[PATH_MAX + 8];
        if (snprintf(node_dir, sizeof node_dir, "%s/%s", run, e->d_name) >= (int)sizeof node_dir)
            continue;
        snprintf(pid_path, sizeof pid_path, "%s/pid", node_dir);
        long pid = read_pid(pid_path);
        if (pid > 0 && works_in((pid_t)pid, node_dir)) {
            kill((pid_t)pid, SIGKILL);
            for (int waited = 0; waited < 200 && kill((pid_t)pid, 0) == 0; waited++)
                sleep_ms(5);
        }
    }
    closedir(d);
    remove_tree(run, 1);
}

void rl_redis_cluster_sweep(void)
{
    const char *root = temp_root();
    DIR *d = opendir(root);
    if (d == NULL)
        return;
    uid_t me = getuid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, FOLDER_PREFIX, strlen(FOLDER_PREFIX)) != 0)
            continue;
        char dir[PATH_MAX], owner[PATH_MAX + 16];
        if (snprintf(dir, sizeof dir, "%s/%s", root, e->d_name) >= (int)sizeof dir)
            continue;
        struct stat st;
        if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me)
            continue;
        snprintf(owner, sizeof owner, "%s/" OWNER_FILE, dir);
        long pid = read_pid(owner);
        bool gone = pid > 0 ? kill((pid_t)pid, 0) != 0 && errno == ESRCH
                            : time(NULL) - st.st_mtime > 600; /* never got its owner file */
        if (gone)
            sweep_run(dir);
    }
    closedir(d);
}

/* ---- nodes ---------------------------------------------------------------- */

/* Whether a node's log says one of its ports was taken ("Could not create
 * server TCP listening socket ...: bind: Address already in use", then
 * "Failed listening on port ..., aborting."). */
static bool log_says_port_taken(const struct rl_redis_cluster_node *n)
{
    char path[PATH_MAX + 16], line[512];
    snprintf(path, sizeof path, "%s/redis.log", n->dir);
    FILE *f = fopen(path, "r");
    bool taken = false;
    while (f && !taken && fgets(line, sizeof line, f))
        taken = strstr(line, "Address already in use") != NULL;
    if (f)
        fclose(f);
    return taken;
}

/* The last non-empty line of a node's log, with the log's path. */
static void log_tail(const struct rl_redis_cluster_node *n, char *buf, size_t len)
{
    char path[PATH_MAX + 16], last[256] = "empty";
    snprintf(path, sizeof path, "%s/redis.log", n->dir);
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(last, sizeof last, "%.200s", line);
    }
    if (f)
        fclose(f);
    snprintf(buf, len, "%s: %s", path, last);
}

/* Two free loopback ports per node (client and cluster bus), all probe
 * sockets held until every port is chosen so that none repeats. A port
 * taken between the probe and the node's bind makes the node exit with
 * "Address already in use"; start then tries fresh ports. */
static unsigned forced_ports[16];
static size_t forced_count, forced_next;

void rl_redis_cluster_force_ports(const unsigned *ports, size_t count)
{
    forced_count = count < 16 ? count : 16;
    forced_next = 0;
    memcpy(forced_ports, ports, forced_count * sizeof *ports);
}

static int choose_ports(unsigned *ports, size_t count, char *err, size_t err_len)
{
    int fds[2 * RL_REDIS_CLUSTER_MAX_NODES];
    size_t opened = 0, forced = 0;
    int rc = 0;
    while (forced < count && forced_next < forced_count)
        ports[forced++] = forced_ports[forced_next++];
    ports += forced;
    count -= forced;
    while (opened < count) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t sl = sizeof sa;
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
            getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
            snprintf(err, err_len, "cannot find a free loopback port: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            rc = -1;
            break;
        }
        fds[opened] = fd;
        ports[opened++] = ntohs(sa.sin_port);
    }
    for (size_t i = 0; i < opened; i++)
        close(fds[i]);
    return rc;
}

static pid_t spawn_node(const struct rl_redis_cluster_node *n, unsigned bus_port)
{
    char port[16], bus[16], timeout[16], conf[PATH_MAX + 16], log_path[PATH_MAX + 16];
    snprintf(port, sizeof port, "%u", n->port);
    snprintf(bus, sizeof bus, "%u", bus_port);
    snprintf(timeout, sizeof timeout, "%d", RL_REDIS_CLUSTER_NODE_TIMEOUT_MS);
    snprintf(conf, sizeof conf, "%s/nodes.conf", n->dir);
    snprintf(log_path, sizeof log_path, "%s/redis.log", n->dir);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* die with the harness, whatever kills it */
    if (getppid() != parent)
        _exit(1);
    /* Out of the terminal's process group: a Ctrl-C reaches ratelab, which
     * finishes its rows, and not the nodes under it. */
    setpgid(0, 0);
    int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        close(log);
    }
    char *const argv[] = {"redis-server",
                          "--port",
                          port,
                          "--cluster-port",
                          bus,
                          "--bind",
                          "127.0.0.1",
                          "--protected-mode",
                          "no",
                          "--cluster-enabled",
                          "yes",
                          "--cluster-config-file",
                          conf,
                          "--cluster-node-timeout",
                          timeout,
                          "--save",
                          "",
                          "--appendonly",
                          "no",
                          "--repl-diskless-sync-delay",
                          "0",
                          "--repl-diskless-load",
                          "swapdb",
                          "--daemonize",
                          "no",
                          "--dir",
                          (char *)n->dir,
                          "--logfile",
                          "",
                          "--loglevel",
                          "notice",
                          NULL};
    execvp("redis-server", argv);
    execv("/usr/bin/redis-server", argv);
    _exit(127);
}

/* Waits until node i answers PING; -1 with the log's last line when it
 * exits or stays silent for 5 s. *port_taken says whether it exited
 * because its port was taken. */
static int wait_node_up(struct rl_redis_cluster *c, size_t i, bool *port_taken, char *err,
                        size_t err_len)
{
    struct rl_redis_cluster_node *n = &c->nodes[i];
    *port_taken = false;
    char ping_err[256], tail[PATH_MAX + 300];
    uint64_t deadline = now_ns() + 5000000000ull;
    for (;;) {
        int status;
        if (waitpid(n->pid, &status, WNOHANG) == n->pid) {
            n->pid = 0;
            log_tail(n, tail, sizeof tail);
            *port_taken = log_says_port_taken(n);
            snprintf(err, err_len, "cluster node %zu (port %u) exited at start: %s", i, n->port,
                     tail);
            return -1;
        }
        /* a short answer timeout: the port may be held by something else
         * that accepts and never answers, until our node gives up */
        if (node_ping(n, 200, ping_err, sizeof ping_err) == 0)
            return 0;
        if (now_ns() > deadline)
            break;
        sleep_ms(10);
    }
    log_tail(n, tail, sizeof tail);
    snprintf(err, err_len, "cluster node %zu (port %u) did not answer within 5 s: %s", i, n->port,
             tail);
    return -1;
}

static int start_node(struct rl_redis_cluster *c, size_t i, char *err, size_t err_len)
{
    struct rl_redis_cluster_node *n = &c->nodes[i];
    snprintf(n->dir, sizeof n->dir, "%.4000s/node-%zu", c->dir, i);
    if (mkdir(n->dir, 0700) != 0) {
        snprintf(err, err_len, "cannot make %s: %s", n->dir, strerror(errno));
        return -1;
    }
    for (int attempt = 0; attempt < 5; attempt++) {
        unsigned ports[2];
        if (choose_ports(ports, 2, err, err_len) != 0)
            return -1;
        n->port = ports[0];
        char conf[PATH_MAX + 16], log_path[PATH_MAX + 16];
        snprintf(conf, sizeof conf, "%s/nodes.conf", n->dir);
        snprintf(log_path, sizeof log_path, "%s/redis.log", n->dir);
        unlink(conf);
        unlink(log_path); /* each try's log says why that try failed */
        n->pid = spawn_node(n, ports[1]);
        if (n->pid < 0) {
            n->pid = 0;
            snprintf(err, err_len, "cannot fork redis-server: %s", strerror(errno));
            return -1;
        }
        char pid_path[PATH_MAX + 8];
        snprintf(pid_path, sizeof pid_path, "%s/pid", n->dir);
        FILE *f = fopen(pid_path, "w");
        if (f) {
            fprintf(f, "%ld\n", (long)n->pid);
            fclose(f);
        }
        bool port_taken;
        if (wait_node_up(c, i, &port_taken, err, err_len) == 0)
            return 0;
        if (!port_taken)
            return -1;
    }
    return -1; /* err says the port was taken, five times */
}

/* ---- roles and slots ----------------------------------------------------- */

/* The field (0-based) of a CLUSTER NODES line, into buf. */
static void line_field(const char *line, int field, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int f = 0; f < field && line; f++) {
        line = strchr(line, ' ');
        if (line)
            line++;
    }
    if (line == NULL)
        return;
    size_t n = strcspn(line, " \r\n");
    snprintf(buf, len, "%.*s", (int)n, line);
}

/* Role and primary of node i, from its own CLUSTER NODES ("myself"). */
static int read_role(struct rl_redis_cluster *c, size_t i, char *err, size_t err_len)
{
    struct rl_redis_cluster_node *n = &c->nodes[i];
    redisReply *r = node_command(n, err, err_len, "CLUSTER NODES");
    if (r == NULL || r->type != REDIS_REPLY_STRING) {
        if (r)
            snprintf(err, err_len, "CLUSTER NODES on port %u: %s", n->port,
                     r->str ? r->str : "unexpected reply");
        if (r)
            freeReplyObject(r);
        return -1;
    }
    int rc = -1;
    for (const char *line = r->str; line && *line;) {
        char flags[128], id[48], primary[48];
        line_field(line, 2, flags, sizeof flags);
        if (strstr(flags, "myself")) {
            line_field(line, 0, id, sizeof id);
            line_field(line, 3, primary, sizeof primary);
            snprintf(n->id, sizeof n->id, "%s", id);
            n->primary = strstr(flags, "master") != NULL;
            n->primary_of = n->primary ? -1 : node_by_id(c, primary, strlen(primary));
            rc = 0;
            break;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    freeReplyObject(r);
    if (rc != 0)
        snprintf(err, err_len, "CLUSTER NODES on port %u has no myself line", n->port);
    return rc;
}

int rl_redis_cluster_refresh(struct rl_redis_cluster *c, char *err, size_t err_len)
{
    /* ids first, so that primaries can be looked up by id */
    for (size_t i = 0; i < c->node_count; i++)
        if (live(c, i) && read_role(c, i, err, err_len) != 0)
            return -1;
    for (size_t i = 0; i < c->node_count; i++)
        if (live(c, i) && read_role(c, i, err, err_len) != 0)
            return -1;
    return 0;
}

/* CLUSTER SLOTS from node i: for each slot range, whether its primary is a
 * live node of ours (private) and, with owner_of, which node owns slot. */
static int check_slots(struct rl_redis_cluster *c, size_t i, unsigned slot, int *owner,
                       bool *all_live, char *err, size_t err_len)
{
    redisReply *r = node_command(&c->nodes[i], err, err_len, "CLUSTER SLOTS");
    if (r == NULL || r->type != REDIS_REPLY_ARRAY) {
        if (r) {
            snprintf(err, err_len, "CLUSTER SLOTS on port %u: %s", c->nodes[i].port,
                     r->str ? r->str : "unexpected reply");
            freeReplyObject(r);
        }
        return -1;
    }
    *all_live = true;
    if (owner)
        *owner = -1;
    for (size_t k = 0; k < r->elements; k++) {
        redisReply *range = r->element[k];
        if (range->type != REDIS_REPLY_ARRAY || range->elements < 3 ||
            range->element[2]->type != REDIS_REPLY_ARRAY || range->element[2]->elements < 2)
            continue;
        long long lo = range->element[0]->integer, hi = range->element[1]->integer;
        int who = node_by_port(c, (unsigned)range->element[2]->element[1]->integer);
        if (!c->joined && (who < 0 || !live(c, (size_t)who)))
            *all_live = false;
        if (owner && (long long)slot >= lo && (long long)slot <= hi)
            *owner = who;
    }
    freeReplyObject(r);
    return 0;
}

int rl_redis_cluster_slot_owner(struct rl_redis_cluster *c, unsigned slot)
{
    char err[256];
    for (size_t i = 0; i < c->node_count; i++) {
        int owner;
        bool all_live;
        if (live(c, i) && check_slots(c, i, slot, &owner, &all_live, err, sizeof err) == 0)
            return owner;
    }
    return -1;
}

/* Whether node i serves: cluster_state:ok, all slots assigned, and (private)
 * every slot's primary live in its view. The reason in err when not. */
static bool node_serves(struct rl_redis_cluster *c, size_t i, char *err, size_t err_len)
{
    redisReply *r = node_command(&c->nodes[i], err, err_len, "CLUSTER INFO");
    if (r == NULL)
        return false;
    char state[32] = "", assigned[32] = "";
    if (r->type == REDIS_REPLY_STRING) {
        info_field(r->str, "cluster_state", state, sizeof state);
        info_field(r->str, "cluster_slots_assigned", assigned, sizeof assigned);
    }
    if (strcmp(state, "ok") != 0 || atoi(assigned) != SLOTS) {
        snprintf(err, err_len,
                 "node on port %u says cluster_state:%s, %s slots assigned%s%.3000s%s",
                 c->nodes[i].port, state[0] ? state : "?", assigned[0] ? assigned : "?",
                 c->joined ? "" : " (log: ", c->joined ? "" : c->nodes[i].dir,
                 c->joined ? "" : "/redis.log)");
        freeReplyObject(r);
        return false;
    }
    freeReplyObject(r);
    bool all_live;
    if (check_slots(c, i, 0, NULL, &all_live, err, err_len) != 0)
        return false;
    if (!all_live)
        snprintf(err, err_len, "node on port %u still maps slots to a node that is down",
                 c->nodes[i].port);
    return all_live;
}

int rl_redis_cluster_wait_ok(struct rl_redis_cluster *c, uint64_t timeout_ns, uint64_t *took_ns,
                             char *err, size_t err_len)
{
    uint64_t start = now_ns();
    char why[512] = "no live node";
    for (;;) {
        bool ok = false;
        for (size_t i = 0; i < c->node_count; i++) {
            if (!live(c, i))
                continue;
            ok = node_serves(c, i, why, sizeof why);
            if (!ok)
                break;
        }
        uint64_t elapsed = now_ns() - start;
        if (ok) {
            if (took_ns)
                *took_ns = elapsed;
            return c->joined ? 0 : rl_redis_cluster_refresh(c, err, err_len);
        }
        if (elapsed > timeout_ns) {
            snprintf(err, err_len, "the cluster did not reach cluster_state:ok within %.1f s: %s",
                     (double)timeout_ns / 1e9, why);
            return -1;
        }
        sleep_ms(20);
    }
}

/* ---- building a private cluster ------------------------------------------ */

/* Slots, epochs, meetings, replicas: what redis-cli --cluster create does,
 * over hiredis, for any number of primaries. */
static int build(struct rl_redis_cluster *c, char *err, size_t err_len)
{
    for (size_t i = 0; i < c->node_count; i++)
        if (read_role(c, i, err, err_len) != 0)
            return -1;
    for (unsigned p = 0; p < c->primaries; p++) {
        unsigned lo = p * SLOTS / c->primaries, hi = (p + 1) * SLOTS / c->primaries - 1;
        if (node_ok(&c->nodes[p], err, err_len, "CLUSTER SET-CONFIG-EPOCH",
                    "CLUSTER SET-CONFIG-EPOCH %u", p + 1) != 0 ||
            node_ok(&c->nodes[p], err, err_len, "CLUSTER ADDSLOTSRANGE",
                    "CLUSTER ADDSLOTSRANGE %u %u", lo, hi) != 0)
            return -1;
    }
    for (size_t i = 1; i < c->node_count; i++) {
        char bus[32];
        snprintf(bus, sizeof bus, "%s", ""); /* the bus port is read back below */
        redisReply *r = node_command(&c->nodes[i], err, err_len, "CONFIG GET cluster-port");
        if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2)
            snprintf(bus, sizeof bus, "%s", r->element[1]->str);
        if (r)
            freeReplyObject(r);
        if (bus[0] == '\0')
            return -1;
        if (node_ok(&c->nodes[0], err, err_len, "CLUSTER MEET", "CLUSTER MEET 127.0.0.1 %u %s",
                    c->nodes[i].port, bus) != 0)
            return -1;
    }
    /* A replica can follow its primary once gossip has told it the id. */
    uint64_t deadline = now_ns() + START_TIMEOUT_NS;
    for (size_t i = c->primaries; i < c->node_count; i++) {
        const struct rl_redis_cluster_node *primary = &c->nodes[(i - c->primaries) / c->replicas];
        while (node_ok(&c->nodes[i], err, err_len, "CLUSTER REPLICATE", "CLUSTER REPLICATE %s",
                       primary->id) != 0) {
            if (now_ns() > deadline)
                return -1;
            sleep_ms(20);
        }
    }
    uint64_t took;
    if (rl_redis_cluster_wait_ok(c, START_TIMEOUT_NS, &took, err, err_len) != 0)
        return -1;
    /* Every node knows every other, and every replica has its data. */
    for (size_t i = 0; i < c->node_count; i++) {
        char known[16] = "", link[16] = "up", why[256];
        for (;;) {
            redisReply *r = node_command(&c->nodes[i], why, sizeof why, "CLUSTER INFO");
            if (r && r->type == REDIS_REPLY_STRING)
                info_field(r->str, "cluster_known_nodes", known, sizeof known);
            if (r)
                freeReplyObject(r);
            if (i >= c->primaries) {
                r = node_command(&c->nodes[i], why, sizeof why, "INFO replication");
                if (r && r->type == REDIS_REPLY_STRING)
                    info_field(r->str, "master_link_status", link, sizeof link);
                if (r)
                    freeReplyObject(r);
            }
            if ((size_t)atoi(known) == c->node_count && strcmp(link, "up") == 0)
                break;
            if (now_ns() > deadline) {
                char tail[PATH_MAX + 300];
                log_tail(&c->nodes[i], tail, sizeof tail);
                snprintf(err, err_len,
                         "cluster node %zu (port %u) knows %s of %zu nodes, replication link "
                         "%s: %s",
                         i, c->nodes[i].port, known, c->node_count, link, tail);
                return -1;
            }
            sleep_ms(20);
        }
    }
    return 0;
}

static void set_address(struct rl_redis_cluster *c)
{
    size_t used = (size_t)snprintf(c->address, sizeof c->address, "cluster:");
    for (size_t i = 0; i < c->node_count && used < sizeof c->address; i++)
        if (c->nodes[i].primary || c->joined)
            used += (size_t)snprintf(
                c->address + used, sizeof c->address - used, "%s%s:%u", used > 8 ? "," : "",
                c->nodes[i].host[0] ? c->nodes[i].host : "127.0.0.1", c->nodes[i].port);
}

int rl_redis_cluster_start(struct rl_redis_cluster *c, unsigned primaries, unsigned replicas,
                           char *err, size_t err_len)
{
    memset(c, 0, sizeof *c);
    if (primaries == 0 || (size_t)primaries * (replicas + 1) > RL_REDIS_CLUSTER_MAX_NODES) {
        snprintf(err, err_len, "a cluster has 1 to %d nodes: %ux%u is %u",
                 RL_REDIS_CLUSTER_MAX_NODES, primaries, replicas, primaries * (replicas + 1));
        return -1;
    }
    if (!rl_redis_cluster_available()) {
        snprintf(err, err_len, "redis-server not found (install it: make deps)");
        return -1;
    }
    rl_redis_cluster_sweep();
    c->primaries = primaries;
    c->replicas = replicas;
    snprintf(c->dir, sizeof c->dir, "%s/" FOLDER_PREFIX "XXXXXX", temp_root());
    if (mkdtemp(c->dir) == NULL) {
        snprintf(err, err_len, "cannot make a temporary folder for the cluster: %s",
                 strerror(errno));
        c->dir[0] = '\0';
        return -1;
    }
    char owner[PATH_MAX + 16];
    snprintf(owner, sizeof owner, "%s/" OWNER_FILE, c->dir);
    FILE *f = fopen(owner, "wx");
    bool written = f && fprintf(f, "%ld\n", (long)getpid()) > 0;
    if (f && fclose(f) != 0)
        written = false;
    if (!written) {
        snprintf(err, err_len, "cannot write %s: %s", owner, strerror(errno));
        remove_tree(c->dir, 1);
        c->dir[0] = '\0';
        return -1;
    }
    pthread_once(&atexit_once, register_atexit);
    track(c, true);
    c->node_count = (size_t)primaries * (replicas + 1);
    for (size_t i = 0; i < c->node_count; i++) {
        c->nodes[i].primary = i < primaries;
        c->nodes[i].primary_of = i < primaries ? -1 : (int)((i - primaries) / replicas);
    }
    for (size_t i = 0; i < c->node_count; i++)
        if (start_node(c, i, err, err_len) != 0) {
            rl_redis_cluster_stop(c);
            return -1;
        }
    if (build(c, err, err_len) != 0) {
        rl_redis_cluster_stop(c);
        return -1;
    }
    set_address(c);
    return 0;
}

/* ---- joining an existing cluster ----------------------------------------- */

int rl_redis_cluster_parse(const char *spec, unsigned *primaries, unsigned *replicas, char *seeds,
                           size_t seeds_len, char *err, size_t err_len)
{
    *primaries = *replicas = 0;
    if (seeds_len)
        seeds[0] = '\0';
    if (strchr(spec, ':') == NULL) {
        /* digits, 'x', digits: nothing else (no sign, space or 0x) */
        unsigned long n = 0, r = 0;
        const char *at = spec;
        size_t nd = 0, rd = 0;
        for (; *at >= '0' && *at <= '9' && nd < 6; at++, nd++)
            n = n * 10 + (unsigned long)(*at - '0');
        bool x = *at == 'x';
        if (x)
            for (at++; *at >= '0' && *at <= '9' && rd < 6; at++, rd++)
                r = r * 10 + (unsigned long)(*at - '0');
        if (nd == 0 || !x || rd == 0 || *at != '\0') {
            snprintf(err, err_len,
                     "--redis-cluster '%s' is not NxR (primaries x replicas each, e.g. 3x1) or "
                     "HOST:PORT[,HOST:PORT...]",
                     spec);
            return -1;
        }
        if (n == 0 || n * (r + 1) > RL_REDIS_CLUSTER_MAX_NODES) {
            snprintf(err, err_len,
                     "--redis-cluster %s: at least 1 primary and at most %d nodes in all "
                     "(primaries x (replicas + 1))",
                     spec, RL_REDIS_CLUSTER_MAX_NODES);
            return -1;
        }
        *primaries = (unsigned)n;
        *replicas = (unsigned)r;
        return 0;
    }
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf) {
        snprintf(err, err_len, "--redis-cluster: the address list is too long");
        return -1;
    }
    size_t out = (size_t)snprintf(seeds, seeds_len, "cluster:");
    char *save = NULL;
    int count = 0;
    for (char *a = strtok_r(buf, ",", &save); a; a = strtok_r(NULL, ",", &save), count++) {
        char canonical[256], check_err[512];
        if (strncmp(a, "unix:", 5) == 0 ||
            rl_redis_address_check(a, canonical, sizeof canonical, check_err, sizeof check_err) !=
                0) {
            snprintf(err, err_len,
                     "--redis-cluster '%s': '%s' is not a loopback HOST:PORT (127.x.x.x, "
                     "localhost or [::1], port 1-65535)",
                     spec, a);
            return -1;
        }
        out += (size_t)snprintf(seeds + out, out < seeds_len ? seeds_len - out : 0, "%s%s",
                                count ? "," : "", canonical);
    }
    if (count == 0 || spec[strlen(spec) - 1] == ',' || spec[0] == ',' || strstr(spec, ",,")) {
        snprintf(err, err_len, "--redis-cluster '%s': an empty address in the list", spec);
        return -1;
    }
    if (out >= seeds_len) {
        snprintf(err, err_len, "--redis-cluster: the address list is too long");
        return -1;
    }
    return 0;
}

/* Host and port of "HOST:PORT" (HOST may be "[::1]"). */
static void split_address(const char *address, char *host, size_t host_len, unsigned *port)
{
    const char *colon = strrchr(address, ':');
    snprintf(host, host_len, "%.*s", (int)(colon - address), address);
    *port = (unsigned)atoi(colon + 1);
}

/* The nodes of a joined cluster, from the seed's CLUSTER NODES. */
static int read_nodes(struct rl_redis_cluster *c, const struct rl_redis_cluster_node *seed,
                      char *err, size_t err_len)
{
    redisReply *r = node_command(seed, err, err_len, "CLUSTER NODES");
    if (r == NULL || r->type != REDIS_REPLY_STRING) {
        if (r) {
            snprintf(err, err_len, "CLUSTER NODES on port %u: %s", seed->port,
                     r->str ? r->str : "unexpected reply");
            freeReplyObject(r);
        }
        return -1;
    }
    char primaries[RL_REDIS_CLUSTER_MAX_NODES][48];
    c->node_count = 0;
    for (const char *line = r->str; line && *line && c->node_count < RL_REDIS_CLUSTER_MAX_NODES;) {
        char id[48], addr[128], flags[128];
        line_field(line, 0, id, sizeof id);
        line_field(line, 1, addr, sizeof addr);
        line_field(line, 2, flags, sizeof flags);
        addr[strcspn(addr, "@,")] = '\0';
        if (id[0] && strchr(addr, ':') && !strstr(flags, "fail") && !strstr(flags, "noaddr")) {
            struct rl_redis_cluster_node *n = &c->nodes[c->node_count];
            snprintf(n->id, sizeof n->id, "%s", id);
            split_address(addr, n->host, sizeof n->host, &n->port);
            if (strchr(n->host, ':')) { /* an IPv6 literal: keep the bracket form */
                char bracketed[64];
                snprintf(bracketed, sizeof bracketed, "[%.60s]", n->host);
                snprintf(n->host, sizeof n->host, "%s", bracketed);
            }
            if (n->host[0] == '\0')
                snprintf(n->host, sizeof n->host, "%s", seed->host);
            n->primary = strstr(flags, "master") != NULL;
            line_field(line, 3, primaries[c->node_count], sizeof primaries[0]);
            c->node_count++;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    freeReplyObject(r);
    for (size_t i = 0; i < c->node_count; i++) {
        c->nodes[i].primary_of =
            c->nodes[i].primary ? -1 : node_by_id(c, primaries[i], strlen(primaries[i]));
        if (c->nodes[i].primary)
            c->primaries++;
    }
    c->replicas = c->primaries ? (unsigned)((c->node_count - c->primaries) / c->primaries) : 0;
    return 0;
}

int rl_redis_cluster_join(struct rl_redis_cluster *c, const char *seeds, char *err, size_t err_len)
{
    memset(c, 0, sizeof *c);
    c->joined = true;
    unsigned p, r;
    char list[4096];
    if (rl_redis_cluster_parse(strncmp(seeds, "cluster:", 8) == 0 ? seeds + 8 : seeds, &p, &r, list,
                               sizeof list, err, err_len) != 0)
        return -2;
    if (p != 0) {
        snprintf(err, err_len, "--redis-cluster %s: not an address list", seeds);
        return -2;
    }
    struct rl_redis_cluster_node seed;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list + 8);
    char *save = NULL;
    for (char *a = strtok_r(buf, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        char ping_err[512];
        memset(&seed, 0, sizeof seed);
        split_address(a, seed.host, sizeof seed.host, &seed.port);
        if (node_ping(&seed, 1000, ping_err, sizeof ping_err) != 0) {
            snprintf(err, err_len, "--redis-cluster: %s", ping_err);
            return -2;
        }
        redisReply *reply = node_command(&seed, err, err_len, "CLUSTER INFO");
        bool cluster = reply && reply->type == REDIS_REPLY_STRING;
        if (!cluster)
            snprintf(err, err_len, "--redis-cluster: %s is not in cluster mode (%s)", a,
                     reply && reply->str ? reply->str : "no answer to CLUSTER INFO");
        if (reply)
            freeReplyObject(reply);
        if (!cluster)
            return -2;
    }
    if (read_nodes(c, &seed, err, err_len) != 0)
        return -1;
    snprintf(c->address, sizeof c->address, "%s", list);
    if (rl_redis_cluster_wait_ok(c, 5000000000ull, NULL, err, err_len) != 0)
        return -1;
    return 0;
}

/* ---- stopping ------------------------------------------------------------- */

void rl_redis_cluster_stop(struct rl_redis_cluster *c)
{
    if (c->joined) {
        c->node_count = 0;
        return;
    }
    for (size_t i = 0; i < c->node_count; i++)
        if (c->nodes[i].pid > 0) {
            kill(c->nodes[i].pid, SIGTERM);
            kill(c->nodes[i].pid, SIGCONT); /* a stopped node handles SIGTERM once continued */
        }
    uint64_t deadline = now_ns() + 2000000000ull;
    for (size_t i = 0; i < c->node_count; i++) {
        struct rl_redis_cluster_node *n = &c->nodes[i];
        while (n->pid > 0) {
            if (waitpid(n->pid, NULL, WNOHANG) == n->pid)
                n->pid = 0;
            else if (now_ns() > deadline) {
                kill(n->pid, SIGKILL);
                waitpid(n->pid, NULL, 0);
                n->pid = 0;
            } else
                sleep_ms(5);
        }
        n->stopped = false;
    }
    if (c->dir[0]) {
        remove_tree(c->dir, 1);
        c->dir[0] = '\0';
    }
    track(c, false);
}

/* ---- faults --------------------------------------------------------------- */

static int private_only(const struct rl_redis_cluster *c, const char *what, char *err,
                        size_t err_len)
{
    if (c->joined || c->node_count == 0) {
        snprintf(err, err_len, "%s: only on a private cluster (--redis-cluster NxR)", what);
        return -1;
    }
    return 0;
}

/* The primary serving slot 0, or a live replica of it. */
static int default_node(struct rl_redis_cluster *c, bool replica, const char *what, char *err,
                        size_t err_len)
{
    int owner = rl_redis_cluster_slot_owner(c, 0);
    if (owner < 0) {
        snprintf(err, err_len, "%s: no live node says who serves slot 0", what);
        return -1;
    }
    if (!replica)
        return owner;
    for (size_t i = 0; i < c->node_count; i++)
        if (live(c, i) && !c->nodes[i].primary && c->nodes[i].primary_of == owner)
            return (int)i;
    snprintf(err, err_len, "%s: the primary on port %u has no live replica", what,
             c->nodes[owner].port);
    return -1;
}

static int pick(struct rl_redis_cluster *c, int node, bool replica, const char *what, char *err,
                size_t err_len)
{
    if (private_only(c, what, err, err_len) != 0)
        return -1;
    if (node < 0)
        return default_node(c, replica, what, err, err_len);
    if ((size_t)node >= c->node_count || c->nodes[node].pid == 0 ||
        c->nodes[node].primary == replica) {
        snprintf(err, err_len, "%s: node %d is not a running %s", what, node,
                 replica ? "replica" : "primary");
        return -1;
    }
    return node;
}

/* Waits (up to 10 s) until every live node says slot is served by owner:
 * a failover or a moved slot is known to a node through gossip, a little
 * after the nodes that made it. */
static int wait_views(struct rl_redis_cluster *c, unsigned slot, int owner, const char *what,
                      char *err, size_t err_len)
{
    uint64_t deadline = now_ns() + 10000000000ull;
    for (;;) {
        size_t agree = 0, asked = 0;
        for (size_t i = 0; i < c->node_count; i++) {
            int who;
            bool all_live;
            char why[256];
            if (!live(c, i))
                continue;
            asked++;
            agree += check_slots(c, i, slot, &who, &all_live, why, sizeof why) == 0 && who == owner;
        }
        if (agree == asked)
            return 0;
        if (now_ns() > deadline) {
            snprintf(err, err_len, "%s: %zu of %zu nodes say slot %u is on port %u after 10 s",
                     what, agree, asked, slot, c->nodes[owner].port);
            return -1;
        }
        sleep_ms(20);
    }
}

int rl_redis_cluster_kill_primary(struct rl_redis_cluster *c, int node, char *err, size_t err_len)
{
    int i = pick(c, node, false, "kill-primary", err, err_len);
    if (i < 0)
        return -1;
    kill(c->nodes[i].pid, SIGKILL);
    waitpid(c->nodes[i].pid, NULL, 0);
    c->nodes[i].pid = 0;
    c->nodes[i].stopped = false;
    return i;
}

int rl_redis_cluster_failover(struct rl_redis_cluster *c, int node, char *err, size_t err_len)
{
    int i = pick(c, node, true, "failover", err, err_len);
    if (i < 0)
        return -1;
    if (c->nodes[i].stopped) {
        snprintf(err, err_len, "failover: node %d is stalled", i);
        return -1;
    }
    /* a slot of its primary, to see every node learn the new owner */
    int old = c->nodes[i].primary_of;
    long slot = -1;
    for (unsigned s = 0; s < SLOTS && slot < 0 && old >= 0; s += 64)
        if (rl_redis_cluster_slot_owner(c, s) == old)
            slot = s;
    if (slot < 0) {
        snprintf(err, err_len, "failover: the replica on port %u has no primary serving slots",
                 c->nodes[i].port);
        return -1;
    }
    if (node_ok(&c->nodes[i], err, err_len, "CLUSTER FAILOVER", "CLUSTER FAILOVER") != 0)
        return -1;
    uint64_t deadline = now_ns() + 10000000000ull;
    for (;;) {
        char why[256];
        redisReply *r = node_command(&c->nodes[i], why, sizeof why, "ROLE");
        bool primary = r && r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
                       r->element[0]->type == REDIS_REPLY_STRING &&
                       strcmp(r->element[0]->str, "master") == 0;
        if (r)
            freeReplyObject(r);
        if (primary)
            return wait_views(c, (unsigned)slot, i, "failover", err, err_len) == 0 &&
                           rl_redis_cluster_refresh(c, err, err_len) == 0
                       ? i
                       : -1;
        if (now_ns() > deadline) {
            snprintf(err, err_len, "failover: the replica on port %u is not a primary after 10 s",
                     c->nodes[i].port);
            return -1;
        }
        sleep_ms(20);
    }
}

/* One command on an open connection that must not fail. */
static int ctx_ok(redisContext *ctx, char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(ctx, fmt, ap);
    va_end(ap);
    int rc = r && r->type != REDIS_REPLY_ERROR ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_len, "reshard: %s", r ? r->str : ctx->errstr);
    if (r)
        freeReplyObject(r);
    return rc;
}

/* Moves one slot's keys from src to dst, then gives dst the slot on every
 * live primary (the way redis-cli --cluster reshard does). */
static int move_slot(struct rl_redis_cluster *c, redisContext **ctx, int from, int to,
                     unsigned slot, char *err, size_t err_len)
{
    const struct rl_redis_cluster_node *src = &c->nodes[from], *dst = &c->nodes[to];
    if (ctx_ok(ctx[to], err, err_len, "CLUSTER SETSLOT %u IMPORTING %s", slot, src->id) != 0 ||
        ctx_ok(ctx[from], err, err_len, "CLUSTER SETSLOT %u MIGRATING %s", slot, dst->id) != 0)
        return -1;
    for (;;) {
        redisReply *keys = redisCommand(ctx[from], "CLUSTER GETKEYSINSLOT %u 100", slot);
        if (keys == NULL || keys->type != REDIS_REPLY_ARRAY) {
            snprintf(err, err_len, "reshard: GETKEYSINSLOT: %s",
                     keys && keys->str ? keys->str : ctx[from]->errstr);
            if (keys)
                freeReplyObject(keys);
            return -1;
        }
        size_t n = keys->elements;
        if (n == 0) {
            freeReplyObject(keys);
            break;
        }
        /* MIGRATE host port "" 0 timeout KEYS k... */
        const char **argv = malloc((n + 7) * sizeof *argv);
        size_t *lens = malloc((n + 7) * sizeof *lens);
        char port[16];
        snprintf(port, sizeof port, "%u", dst->port);
        const char *head[] = {"MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS"};
        for (size_t k = 0; k < 7; k++)
            argv[k] = head[k];
        for (size_t k = 0; k < n; k++) {
            argv[7 + k] = keys->element[k]->str;
            lens[7 + k] = keys->element[k]->len;
        }
        for (size_t k = 0; k < 7; k++)
            lens[k] = strlen(argv[k]);
        redisReply *r = argv && lens ? redisCommandArgv(ctx[from], (int)(n + 7), argv, lens) : NULL;
        int rc = r && r->type != REDIS_REPLY_ERROR ? 0 : -1;
        if (rc != 0)
            snprintf(err, err_len, "reshard: MIGRATE slot %u: %s", slot,
                     r ? r->str : ctx[from]->errstr);
        if (r)
            freeReplyObject(r);
        free(argv);
        free(lens);
        freeReplyObject(keys);
        if (rc != 0)
            return -1;
    }
    /* The target first, then the source, then the other primaries. */
    if (ctx_ok(ctx[to], err, err_len, "CLUSTER SETSLOT %u NODE %s", slot, dst->id) != 0 ||
        ctx_ok(ctx[from], err, err_len, "CLUSTER SETSLOT %u NODE %s", slot, dst->id) != 0)
        return -1;
    for (size_t i = 0; i < c->node_count; i++)
        if (ctx[i] && (int)i != from && (int)i != to)
            ctx_ok(ctx[i], err, err_len, "CLUSTER SETSLOT %u NODE %s", slot, dst->id);
    return 0;
}

int rl_redis_cluster_reshard(struct rl_redis_cluster *c, int from, int to, double share, char *err,
                             size_t err_len)
{
    from = pick(c, from, false, "reshard", err, err_len);
    if (from < 0)
        return -1;
    if (!(share > 0 && share <= 1)) {
        snprintf(err, err_len, "reshard: the share %g is not in (0, 1]", share);
        return -1;
    }
    if (to < 0)
        for (size_t k = 1; k < c->node_count && to < 0; k++) {
            size_t i = ((size_t)from + k) % c->node_count;
            if (live(c, i) && c->nodes[i].primary)
                to = (int)i;
        }
    if (to < 0 || to == from || (size_t)to >= c->node_count || !live(c, (size_t)to) ||
        !c->nodes[to].primary) {
        snprintf(err, err_len, "reshard: no other live primary to move slots to");
        return -1;
    }
    /* The source's slots, from its own view. */
    static unsigned char owned[SLOTS];
    memset(owned, 0, sizeof owned);
    redisReply *r = node_command(&c->nodes[from], err, err_len, "CLUSTER SLOTS");
    if (r == NULL || r->type != REDIS_REPLY_ARRAY) {
        if (r)
            freeReplyObject(r);
        return -1;
    }
    for (size_t k = 0; k < r->elements; k++) {
        redisReply *range = r->element[k];
        if (range->elements >= 3 && range->element[2]->elements >= 2 &&
            (unsigned)range->element[2]->element[1]->integer == c->nodes[from].port)
            for (long long s = range->element[0]->integer; s <= range->element[1]->integer; s++)
                owned[s] = 1;
    }
    freeReplyObject(r);
    unsigned have = 0;
    for (unsigned s = 0; s < SLOTS; s++)
        have += owned[s];
    unsigned want = (unsigned)(share * have + 0.999999);
    if (want == 0) {
        snprintf(err, err_len, "reshard: the primary on port %u serves no slot",
                 c->nodes[from].port);
        return -1;
    }
    redisContext *ctx[RL_REDIS_CLUSTER_MAX_NODES] = {0};
    int rc = 0;
    for (size_t i = 0; i < c->node_count && rc == 0; i++)
        if (live(c, i) && c->nodes[i].primary) {
            ctx[i] = node_connect(&c->nodes[i], 5000);
            if (ctx[i] == NULL || ctx[i]->err) {
                snprintf(err, err_len, "reshard: cannot connect to port %u", c->nodes[i].port);
                rc = -1;
            }
        }
    unsigned moved = 0, last = 0;
    for (int s = SLOTS - 1; s >= 0 && moved < want && rc == 0; s--)
        if (owned[s]) {
            rc = move_slot(c, ctx, from, to, (unsigned)s, err, err_len);
            moved += rc == 0;
            last = (unsigned)s;
        }
    for (size_t i = 0; i < c->node_count; i++)
        if (ctx[i])
            redisFree(ctx[i]);
    if (rc == 0)
        rc = wait_views(c, last, to, "reshard", err, err_len);
    return rc == 0 ? (int)moved : -1;
}

int rl_redis_cluster_stall_replica(struct rl_redis_cluster *c, int node, char *err, size_t err_len)
{
    int i = pick(c, node, true, "stall-replica", err, err_len);
    if (i < 0)
        return -1;
    kill(c->nodes[i].pid, SIGSTOP);
    c->nodes[i].stopped = true;
    /* the signal is delivered asynchronously: return once it has stopped */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)c->nodes[i].pid);
    for (int waited_ms = 0; waited_ms < 1000; waited_ms++) {
        char state = '?';
        FILE *f = fopen(path, "r");
        if (f && fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
            state = '?';
        if (f)
            fclose(f);
        if (state == 'T')
            break;
        sleep_ms(1);
    }
    return i;
}

int rl_redis_cluster_resume_replica(struct rl_redis_cluster *c, int node, char *err, size_t err_len)
{
    if (private_only(c, "resume-replica", err, err_len) != 0)
        return -1;
    int resumed = -1;
    for (size_t i = 0; i < c->node_count; i++)
        if (c->nodes[i].stopped && c->nodes[i].pid > 0 && (node < 0 || (size_t)node == i)) {
            kill(c->nodes[i].pid, SIGCONT);
            c->nodes[i].stopped = false;
            resumed = (int)i;
        }
    if (resumed < 0)
        snprintf(err, err_len, "resume-replica: no stalled replica%s",
                 node < 0 ? "" : " with that index");
    return resumed;
}
