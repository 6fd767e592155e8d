/* driver.c — the conformance driver for nginx's limit_req (README.md here).
 *
 *   driver --mode real|port-rounded|port-exact --limit L --interval-ns I
 *          [--burst B] [--slots D] TRACE.csv
 *
 * real: starts a private nginx (one process, 127.0.0.1, a free port, a
 * scratch prefix), sends one GET per attempt on schedule over keep-alive
 * connections, stops nginx by its pid and writes t_ns,key,n,admitted in the
 * order nginx logged its decisions, t_ns being the decision's ms on
 * limit_req's own clock (ngx_current_msec, through $connection_time).
 * With RL_NGINX_MSEC_OUT=FILE it also writes the same decisions timed by
 * $msec (the wall clock, ms from its first value) to FILE: only to show
 * that it is the wrong clock (check.sh).
 * port-rounded / port-exact: our ports of the meter's arithmetic on a trace
 * (the realised one).
 * --slots D or --shaped yes (the nginx_delay peer, ../nginx_delay/README.md):
 * `burst=B delay=D` (D = 0 without --slots, nginx's default) instead of
 * nodelay; every request on a connection of its own, sent early in a ms of
 * CLOCK_MONOTONIC (nginx's ms clock), so that its send time names the ms
 * limit_req decided on; the output gains release_ns: t_ns for a request
 * nginx passed, for one it delayed ($limit_req_status says which) the ms it
 * answered in, or, answered more than 5 ms late (a stalled event loop), the
 * time its timer was armed for (write_delayed).
 *
 * Exit: 0 ok, 1 failure (one line on stderr), 2 usage, 3 skipped (a
 * configuration or trace nginx cannot express).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NGINX_BIN        "/usr/sbin/nginx"
#define MAX_ATTEMPTS     20000u        /* a bounded client */
#define MAX_KEYS         1000u         /* far below what zone=z:1m holds: no forced eviction */
#define MAX_SPAN_NS      3000000000ull /* longer traces are compressed to this */
#define MAX_BURST        100000000ull  /* burst·1000 stays far inside nginx's integers */
#define CONNS            4             /* keep-alive connections */
#define DRAIN_TIMEOUT_NS 10000000000ull
#define DELAY_CONNS      96 /* --slots: one idle connection per request */
#define MAX_CONNS        DELAY_CONNS
#define RELEASE_STALL_MS 5 /* ../nginx_delay/release_tolerance.txt's upper bound */

typedef unsigned __int128 u128;

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("nginx driver: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* ---- the trace ----------------------------------------------------------- */

struct attempt {
    uint64_t t_ns;
    uint64_t n;
    uint32_t key; /* id, in order of first appearance */
};

static struct attempt *att;
static size_t n_att;
static char **key_names;
static uint32_t n_keys;

/* key name -> id, open addressing */
static uint32_t *key_slots;
static size_t key_cap;

static uint64_t fnv(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint32_t intern(const char *s, size_t len)
{
    if ((size_t)n_keys * 2 >= key_cap) {
        size_t cap = key_cap ? key_cap * 2 : 64;
        uint32_t *slots = malloc(cap * sizeof *slots);
        if (slots == NULL)
            die(1, "out of memory");
        for (size_t i = 0; i < cap; i++)
            slots[i] = UINT32_MAX;
        for (uint32_t k = 0; k < n_keys; k++) {
            size_t j = fnv(key_names[k], strlen(key_names[k])) & (cap - 1);
            while (slots[j] != UINT32_MAX)
                j = (j + 1) & (cap - 1);
            slots[j] = k;
        }
        free(key_slots);
        key_slots = slots;
        key_cap = cap;
        key_names = realloc(key_names, cap * sizeof *key_names);
        if (key_names == NULL)
            die(1, "out of memory");
    }
    size_t j = fnv(s, len) & (key_cap - 1);
    while (key_slots[j] != UINT32_MAX) {
        const char *k = key_names[key_slots[j]];
        if (strlen(k) == len && memcmp(k, s, len) == 0)
            return key_slots[j];
        j = (j + 1) & (key_cap - 1);
    }
    char *copy = strndup(s, len);
    if (copy == NULL)
        die(1, "out of memory");
    key_names[n_keys] = copy;
    key_slots[j] = n_keys;
    return n_keys++;
}

static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20)
        return false;
    u128 v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > UINT64_MAX)
        return false;
    *out = (uint64_t)v;
    return true;
}

static void read_trace(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        die(1, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, cap_att = 0, line_no = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        line_no++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line_no == 1) {
            if (strcmp(line, "t_ns,key,n") != 0)
                die(1, "%s: header is not t_ns,key,n", path);
            continue;
        }
        char *c1 = memchr(line, ',', (size_t)len);
        char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(line + len - c1 - 1)) : NULL;
        if (c2 == NULL || memchr(c2 + 1, ',', (size_t)(line + len - c2 - 1)) != NULL)
            die(1, "%s:%zu: expected t_ns,key,n", path, line_no);
        struct attempt a;
        if (!parse_u64(line, (size_t)(c1 - line), &a.t_ns) ||
            !parse_u64(c2 + 1, (size_t)(line + len - c2 - 1), &a.n) || c2 == c1 + 1)
            die(1, "%s:%zu: bad t_ns, key or n", path, line_no);
        if (n_att == cap_att) {
            cap_att = cap_att ? cap_att * 2 : 1024;
            att = realloc(att, cap_att * sizeof *att);
            if (att == NULL)
                die(1, "out of memory");
        }
        a.key = intern(c1 + 1, (size_t)(c2 - c1 - 1));
        att[n_att++] = a;
    }
    free(line);
    if (ferror(f))
        die(1, "%s: read error", path);
    fclose(f);
    if (line_no == 0)
        die(1, "%s: empty (no header)", path);
}

/* ---- the configuration --------------------------------------------------- */

static uint64_t cfg_limit, cfg_interval, cfg_burst;
static bool cfg_has_delay; /* --slots D given: the nginx_delay peer */
static uint64_t cfg_delay;

/* nginx's rate= is a whole number per second or per minute; L per I maps
 * when L·10^9/I or L·60·10^9/I is whole. Returns false when neither is. */
static bool nginx_rate(uint64_t *number, bool *per_minute)
{
    u128 per_s = (u128)cfg_limit * 1000000000u, per_m = per_s * 60;
    if (per_s % cfg_interval == 0 && per_s / cfg_interval <= 1000000000u) {
        *number = (uint64_t)(per_s / cfg_interval), *per_minute = false;
        return *number > 0;
    }
    if (per_m % cfg_interval == 0 && per_m / cfg_interval <= 1000000000u) {
        *number = (uint64_t)(per_m / cfg_interval), *per_minute = true;
        return *number > 0;
    }
    return false;
}

static void check_expressible(bool need_rate)
{
    for (size_t i = 0; i < n_att; i++)
        if (att[i].n != 1)
            die(3, "skipped: nginx sees single requests, no cost (attempt %zu has n = %" PRIu64 ")",
                i + 1, att[i].n);
    uint64_t number;
    bool per_minute;
    if (need_rate && !nginx_rate(&number, &per_minute))
        die(3,
            "skipped: %" PRIu64 " per %" PRIu64 " ns is no whole number of r/s or r/m "
            "(or above 10^9 of them)",
            cfg_limit, cfg_interval);
    if (cfg_burst > MAX_BURST)
        die(3, "skipped: burst above %llu", (unsigned long long)MAX_BURST);
}

/* ---- the ports ----------------------------------------------------------- */

struct meter {
    bool live;
    int64_t excess;   /* thousandths of a request */
    uint64_t last;    /* ms */
    uint64_t touched; /* LRU order (nginx's queue), port-rounded only */
};

/* nginx's ngx_http_limit_req_expire(ctx, 1), run before a new key's node is
 * made: the least recently looked-up node goes when idle 60 s with its
 * excess drained, then possibly one more. */
static void nginx_expire(struct meter *m, uint64_t now, int64_t rate)
{
    for (int n = 1; n < 3; n++) {
        uint32_t oldest = UINT32_MAX;
        for (uint32_t k = 0; k < n_keys; k++)
            if (m[k].live && (oldest == UINT32_MAX || m[k].touched < m[oldest].touched))
                oldest = k;
        if (oldest == UINT32_MAX)
            return;
        int64_t ms = (int64_t)(now - m[oldest].last);
        if (ms < 0)
            ms = -ms;
        if (ms < 60000)
            return;
        if ((__int128)m[oldest].excess - (__int128)rate * ms / 1000 > 0)
            return;
        m[oldest].live = false;
    }
}

static void run_port(bool rounded)
{
    check_expressible(rounded);
    int64_t rate;
    if (rounded) { /* nginx: rate = number·1000/scale (scale 1 or 60) */
        uint64_t number;
        bool per_minute;
        nginx_rate(&number, &per_minute);
        rate = (int64_t)(number * 1000 / (per_minute ? 60 : 1));
    } else { /* leaky_nginx: ⌊L·10^12/I⌋ */
        u128 r = (u128)cfg_limit * 1000000000000ull / cfg_interval;
        if (r == 0 || r > INT64_MAX / 4000000000ull)
            die(3, "skipped: rate outside the port's range");
        rate = (int64_t)r;
    }
    int64_t burst = (int64_t)cfg_burst * 1000;
    struct meter *m = calloc(n_keys ? n_keys : 1, sizeof *m);
    if (m == NULL)
        die(1, "out of memory");
    printf(cfg_has_delay ? "t_ns,key,n,admitted,release_ns\n" : "t_ns,key,n,admitted\n");
    for (size_t i = 0; i < n_att; i++) {
        struct meter *s = &m[att[i].key];
        int64_t taken = 0; /* the excess this request left: its delay's measure */
        uint64_t now = att[i].t_ns / 1000000u;
        bool admit;
        if (rounded && !s->live)
            nginx_expire(m, now, rate);
        if (!s->live) { /* a new node: passes with excess 0 */
            s->live = true, s->excess = 0, s->last = now;
            admit = true;
        } else {
            int64_t ms;
            if (rounded) { /* ngx_http_limit_req_lookup */
                ms = (int64_t)(now - s->last);
                if (ms < -60000)
                    ms = 1;
                else if (ms < 0)
                    ms = 0;
            } else { /* leaky_nginx: a backward read drains nothing */
                ms = now > s->last ? (int64_t)(now - s->last) : 0;
            }
            __int128 drain = (__int128)rate * ms / 1000, level = (__int128)s->excess + 1000;
            int64_t excess = drain >= level ? 0 : (int64_t)(level - drain);
            admit = excess <= burst;
            if (admit) {
                taken = excess;
                s->excess = excess;
                if (ms)
                    s->last = now;
            }
        }
        s->touched = i + 1; /* nginx bumps the node on every lookup */
        printf("%" PRIu64 ",%s,%" PRIu64 ",%d", att[i].t_ns, key_names[att[i].key], att[i].n,
               admit);
        if (cfg_has_delay) { /* (excess − delay)·1000/rate ms, the timer from the ms tick */
            int64_t d = (int64_t)(cfg_delay > MAX_BURST ? MAX_BURST : cfg_delay) * 1000;
            uint64_t wait_ms = taken > d ? (uint64_t)((taken - d) * 1000 / rate) : 0;
            if (!admit)
                printf(",");
            else if (wait_ms == 0)
                printf(",%" PRIu64, att[i].t_ns);
            else
                printf(",%" PRIu64, (now + wait_ms) * 1000000u);
        }
        printf("\n");
    }
    free(m);
}

/* ---- the real nginx ------------------------------------------------------ */

static pid_t nginx_pid = -1;
static char scratch[256];
static bool keep_scratch;

static void remove_tree(const char *dir)
{
    if (keep_scratch || dir[0] == '\0')
        return;
    static const char *files[] = {"conf/nginx.conf", "html/r",    "html/ready", "access.log",
                                  "error.log",       "nginx.pid", NULL};
    static const char *dirs[] = {"tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi",
                                 "tmp",      "conf",      "html",        NULL};
    char p[512];
    for (int i = 0; files[i]; i++)
        snprintf(p, sizeof p, "%s/%s", dir, files[i]), unlink(p);
    for (int i = 0; dirs[i]; i++)
        snprintf(p, sizeof p, "%s/%s", dir, dirs[i]), rmdir(p);
    rmdir(dir);
}

static void stop_nginx_now(void)
{
    if (nginx_pid > 0) {
        kill(nginx_pid, SIGCONT);
        kill(nginx_pid, SIGKILL);
        waitpid(nginx_pid, NULL, 0);
        nginx_pid = -1;
    }
}

static void cleanup(void)
{
    stop_nginx_now();
    remove_tree(scratch);
}

static void on_signal(int sig)
{
    if (nginx_pid > 0) {
        kill(nginx_pid, SIGCONT);
        kill(nginx_pid, SIGKILL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        die(1, "%s: cannot write", path);
}

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0)
        die(1, "no free port on 127.0.0.1: %s", strerror(errno));
    close(s);
    return ntohs(a.sin_port);
}

static void write_conf(int port)
{
    uint64_t number;
    bool per_minute;
    nginx_rate(&number, &per_minute);
    char burst[64] = "";
    if (cfg_burst > 0) /* nginx refuses burst=0; leaving it out is its default, 0 */
        snprintf(burst, sizeof burst, " burst=%" PRIu64, cfg_burst);
    char delay[64] = " nodelay";
    if (cfg_has_delay && cfg_delay > 0) /* nginx's delay=; 0 is its default */
        snprintf(delay, sizeof delay, " delay=%" PRIu64, cfg_delay);
    else if (cfg_has_delay)
        delay[0] = '\0'; /* every excessive request delayed */
    char conf[4096], path[512];
    snprintf(conf, sizeof conf,
             "# written by tests/conformance/nginx/driver for one trace\n"
             "master_process off;\n"
             "daemon off;\n"
             "worker_processes 1;\n"
             "pid %1$s/nginx.pid;\n"
             "error_log %1$s/error.log %7$s;\n"
             "events {\n"
             "    worker_connections 256;\n"
             "    multi_accept on;\n" /* all connections accepted in one tick: one origin */
             "    accept_mutex off;\n"
             "}\n"
             "http {\n"
             "    access_log off;\n"
             "    default_type text/plain;\n"
             "    sendfile off;\n"
             "    keepalive_requests 1000000;\n"
             "    keepalive_timeout 60s;\n"
             "    client_body_temp_path %1$s/tmp/body;\n"
             "    proxy_temp_path %1$s/tmp/proxy;\n"
             "    fastcgi_temp_path %1$s/tmp/fastcgi;\n"
             "    uwsgi_temp_path %1$s/tmp/uwsgi;\n"
             "    scgi_temp_path %1$s/tmp/scgi;\n"
             "    limit_req_zone $arg_key zone=z:1m rate=%2$" PRIu64 "r/%3$s;\n"
             "    log_format rl '$arg_i $status $connection $connection_time $msec "
             "$limit_req_status';\n"
             "    server {\n"
             "        listen 127.0.0.1:%4$d;\n"
             "        root %1$s/html;\n"
             "        location = /ready {\n"
             "        }\n"
             "        location = /r {\n" /* a static file: `return` would run before limit_req */
             "            limit_req zone=z%5$s%6$s;\n"
             "            limit_req_status 503;\n"
             "            limit_req_log_level %8$s;\n"
             "            access_log %1$s/access.log rl;\n"
             "        }\n"
             "    }\n"
             "}\n",
             scratch, number, per_minute ? "m" : "s", port, burst, delay,
             /* --shaped: each delay in the error log, with the excess it
              * came from (a delay is logged one level below refusals) */
             cfg_has_delay ? "notice" : "warn", cfg_has_delay ? "warn" : "info");
    snprintf(path, sizeof path, "%s/conf/nginx.conf", scratch);
    write_file(path, conf);
}

static void make_scratch(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/ratelab-nginx.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(scratch) == NULL)
        die(1, "mkdtemp %s: %s", scratch, strerror(errno));
    static const char *dirs[] = {"conf",        "html",      "tmp",      "tmp/body", "tmp/proxy",
                                 "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi", NULL};
    char p[512];
    for (int i = 0; dirs[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch, dirs[i]);
        if (mkdir(p, 0755) != 0)
            die(1, "mkdir %s: %s", p, strerror(errno));
    }
    snprintf(p, sizeof p, "%s/html/r", scratch);
    write_file(p, "ok\n");
    snprintf(p, sizeof p, "%s/html/ready", scratch);
    write_file(p, "ready\n");
}

static void first_line(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(out, (int)len, f) != NULL)
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static int connect_to(int port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (s < 0)
        return -1;
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        close(s);
        return -1;
    }
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return s;
}

/* GET /ready on a fresh connection: the event loop runs. */
static bool probe(int port)
{
    int s = connect_to(port);
    if (s < 0)
        return false;
    const char req[] = "GET /ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    char buf[512];
    size_t got = 0;
    ssize_t r;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (write(s, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) {
        close(s);
        return false;
    }
    while (got < sizeof buf - 1 && (r = read(s, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    buf[got] = '\0';
    close(s);
    return strncmp(buf, "HTTP/1.1 200", 12) == 0;
}

/* Starts nginx on a free port; returns the port. */
static int start_nginx(void)
{
    char path[512], conf[512], err_log[512], line[512];
    snprintf(conf, sizeof conf, "%s/conf/nginx.conf", scratch);
    snprintf(err_log, sizeof err_log, "%s/error.log", scratch);
    for (int tries = 0; tries < 5; tries++) {
        int port = free_port();
        write_conf(port);
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0)
            die(1, "fork: %s", strerror(errno));
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the driver */
            if (getppid() != parent)
                _exit(127);
            int devnull = open("/dev/null", O_RDWR);
            if (devnull >= 0) {
                dup2(devnull, 0), dup2(devnull, 1), dup2(devnull, 2);
            }
            snprintf(path, sizeof path, "%s/", scratch);
            execl(NGINX_BIN, "nginx", "-p", path, "-c", conf, "-e", err_log, (char *)NULL);
            _exit(127);
        }
        nginx_pid = pid;
        uint64_t deadline = mono_ns() + 5000000000ull;
        while (mono_ns() < deadline) {
            int status;
            if (waitpid(pid, &status, WNOHANG) == pid) {
                nginx_pid = -1;
                first_line(err_log, line, sizeof line);
                if (strstr(line, "Address already in use"))
                    break; /* the port went in between: another one */
                die(1, "nginx exited at start: %s",
                    line[0] ? line : "(nothing in its error log; is " NGINX_BIN " there?)");
            }
            if (probe(port))
                return port;
            usleep(5000);
        }
        if (nginx_pid > 0)
            die(1, "nginx did not answer on 127.0.0.1:%d within 5 s", port);
    }
    die(1, "no free port for nginx after 5 tries");
    return -1;
}

static void stop_nginx(void)
{
    kill(nginx_pid, SIGCONT);
    kill(nginx_pid, SIGQUIT); /* graceful: every request was logged already */
    uint64_t deadline = mono_ns() + 3000000000ull;
    while (mono_ns() < deadline) {
        if (waitpid(nginx_pid, NULL, WNOHANG) == nginx_pid) {
            nginx_pid = -1;
            return;
        }
        usleep(2000);
    }
    stop_nginx_now();
}

static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

struct conn {
    int fd;
    char *out;
    size_t out_len, out_cap;
    char in[65536];
    size_t in_len;
    size_t *sent; /* attempt indices, in the order sent on this connection */
    size_t n_sent, n_done;
};

static int *client_status;              /* per attempt, as the client read it */
static uint64_t *sent_ns, *answered_ns; /* per attempt, CLOCK_MONOTONIC */
static size_t responses;
static int n_conns = CONNS;

static void conn_flush(struct conn *c)
{
    while (c->out_len > 0) {
        ssize_t w = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return;
            die(1, "send to nginx: %s", strerror(errno));
        }
        memmove(c->out, c->out + w, c->out_len - (size_t)w);
        c->out_len -= (size_t)w;
    }
}

/* Reads what is there and takes whole responses (status line, headers with
 * Content-Length, body) off the buffer. */
static void conn_read(struct conn *c)
{
    for (;;) {
        if (c->in_len == sizeof c->in)
            die(1, "a response larger than %zu bytes", sizeof c->in);
        ssize_t r = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, MSG_DONTWAIT);
        if (r == 0)
            die(1, "nginx closed a keep-alive connection (%zu responses of %zu)", responses, n_att);
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            die(1, "recv from nginx: %s", strerror(errno));
        }
        c->in_len += (size_t)r;
    }
    for (;;) {
        char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
        if (end == NULL)
            return;
        size_t head = (size_t)(end - c->in) + 4;
        int status = 0;
        if (sscanf(c->in, "HTTP/1.%*d %d", &status) != 1)
            die(1, "a response without a status line");
        size_t body = 0;
        for (char *p = c->in; p < end; p++)
            if ((p == c->in || p[-1] == '\n') && strncasecmp(p, "Content-Length:", 15) == 0)
                body = strtoull(p + 15, NULL, 10);
        if (c->in_len < head + body)
            return;
        if (c->n_done >= c->n_sent)
            die(1, "a response to no request");
        answered_ns[c->sent[c->n_done]] = mono_ns();
        client_status[c->sent[c->n_done++]] = status;
        responses++;
        memmove(c->in, c->in + head + body, c->in_len - head - body);
        c->in_len -= head + body;
    }
}

static void poll_conns(struct conn *cs, int k, uint64_t wait_ns)
{
    struct pollfd p[MAX_CONNS];
    for (int i = 0; i < k; i++)
        p[i] = (struct pollfd){.fd = cs[i].fd, .events = POLLIN | (cs[i].out_len ? POLLOUT : 0)};
    struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000u),
                          .tv_nsec = (long)(wait_ns % 1000000000u)};
    int r = ppoll(p, (nfds_t)k, &ts, NULL);
    if (r < 0 && errno != EINTR)
        die(1, "poll: %s", strerror(errno));
    for (int i = 0; i < k && r > 0; i++) {
        if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
            conn_read(&cs[i]);
        if (p[i].revents & POLLOUT)
            conn_flush(&cs[i]);
    }
}

static void append(struct conn *c, const char *s, size_t len)
{
    if (c->out_len + len > c->out_cap) {
        c->out_cap = (c->out_len + len) * 2;
        c->out = realloc(c->out, c->out_cap);
        if (c->out == NULL)
            die(1, "out of memory");
    }
    memcpy(c->out + c->out_len, s, len);
    c->out_len += len;
}

/* The limit_req key: "k" and the trace's key, percent-encoded (nginx's
 * $arg_key is the raw, still-encoded argument: distinct keys stay distinct,
 * and none is empty, which limit_req would not limit). */
static void request_for(size_t i, char *buf, size_t len)
{
    const char *k = key_names[att[i].key];
    char enc[3 * 256 + 2], *e = enc;
    *e++ = 'k';
    for (; *k && e < enc + sizeof enc - 4; k++) {
        unsigned char ch = (unsigned char)*k;
        if (isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~')
            *e++ = (char)ch;
        else
            e += sprintf(e, "%%%02X", ch);
    }
    *e = '\0';
    if (*k)
        die(3, "skipped: a key longer than 255 bytes");
    snprintf(buf, len, "GET /r?key=%s&i=%zu HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", enc, i);
}

/* --slots: the decisions in the order sent (one at a time, each on an idle
 * connection: the order nginx decided in). The ms nginx decided on: $connection_time
 * for a request passed or rejected (logged in the same handler), and for a
 * delayed one (logged at its release) its send's CLOCK_MONOTONIC ms less the
 * offset O between the two, the offset most passed or rejected requests
 * show (all, when every send landed in the ms it was meant to; the others
 * are counted on stderr). The release: t_ns when passed; for a delayed one,
 * nginx's own ms when it answered ($connection_time in the log phase, after
 * the response), the same time base: the delay as nginx observed it. How
 * much later the client saw the response is said on stderr (the client's
 * own scheduling on a loaded machine, not nginx's). */
/* The excess (thousandths) nginx delayed each request with, from its
 * error log's "delaying request, excess: X.YYY" lines (attempt i from the
 * request line's &i=); -1 where none. */
static int64_t *delay_excess(void)
{
    int64_t *ex = malloc((n_att ? n_att : 1) * sizeof *ex);
    if (ex == NULL)
        die(1, "out of memory");
    for (size_t i = 0; i < n_att; i++)
        ex[i] = -1;
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/error.log", scratch);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return ex;
    while (fgets(line, sizeof line, f) != NULL) {
        char *e = strstr(line, "delaying request, excess: "), *q = strstr(line, "&i=");
        unsigned long long whole, milli;
        size_t i;
        if (e && q && sscanf(e + 26, "%llu.%3llu", &whole, &milli) == 2 &&
            sscanf(q + 3, "%zu", &i) == 1 && i < n_att)
            ex[i] = (int64_t)(whole * 1000 + milli);
    }
    fclose(f);
    return ex;
}

static void write_delayed(const uint64_t *ct_of, const char *lrs_of)
{
    int64_t *excess = delay_excess();
    uint64_t number;
    bool per_minute;
    nginx_rate(&number, &per_minute);
    uint64_t rate = number * 1000 / (per_minute ? 60 : 1); /* thousandths a second */
    size_t stalled = 0;
    int64_t stall_max = 0;
    int64_t best = 0;
    size_t best_n = 0, direct = 0;
    for (size_t i = 0; i < n_att; i++) { /* the mode of the offsets, by Boyer-Moore vote */
        if (lrs_of[i] == 'D')
            continue;
        int64_t off = (int64_t)(sent_ns[i] / 1000000u) - (int64_t)ct_of[i];
        direct++;
        if (best_n == 0)
            best = off, best_n = 1;
        else
            best_n += off == best ? 1 : (size_t)-1;
    }
    size_t apart = 0, early = 0, read_late = 0, unresolved = 0;
    int64_t client_late_max = 0;
    /* nginx's meter per key, replayed on the ms found, to place a delayed
     * request nginx read later than it was sent (a stalled event loop): the
     * first ms from its send on whose excess is the one nginx logged. */
    struct meter *m = calloc(n_keys ? n_keys : 1, sizeof *m);
    if (m == NULL)
        die(1, "out of memory");
    printf("t_ns,key,n,admitted,release_ns\n");
    for (size_t i = 0; i < n_att; i++) {
        struct meter *k = &m[att[i].key];
        int64_t ms = (int64_t)(sent_ns[i] / 1000000u) - best;
        if (lrs_of[i] != 'D') {
            apart += ms != (int64_t)ct_of[i];
            ms = (int64_t)ct_of[i];
        } else {
            early += (int64_t)ct_of[i] <= ms; /* released in the ms it came: not delayed */
            if (excess[i] >= 0 && k->live) {
                int64_t found = -1;
                for (int64_t c = ms; c < (int64_t)ct_of[i] && found < 0; c++) {
                    int64_t el = c > (int64_t)k->last ? c - (int64_t)k->last : 0;
                    int64_t x = k->excess - (int64_t)rate * el / 1000 + 1000;
                    if ((x < 0 ? 0 : x) == excess[i])
                        found = c;
                }
                if (found < 0)
                    unresolved++;
                else
                    read_late += found != ms, ms = found;
            }
        }
        if (lrs_of[i] != 'R' && ms >= 0) { /* the meter takes this request */
            if (!k->live) {
                k->live = true, k->excess = 0, k->last = (uint64_t)ms;
            } else {
                int64_t el = ms > (int64_t)k->last ? ms - (int64_t)k->last : 0;
                int64_t x = k->excess - (int64_t)rate * el / 1000 + 1000;
                k->excess = x < 0 ? 0 : x;
                if (el)
                    k->last = (uint64_t)ms;
            }
        }
        if (ms < 0)
            die(1, "attempt %zu: a negative ms", i + 1);
        uint64_t t = (uint64_t)ms * 1000000u;
        printf("%" PRIu64 ",%s,1,%d,", t, key_names[att[i].key], lrs_of[i] != 'R');
        if (lrs_of[i] == 'P')
            printf("%" PRIu64, t);
        else if (lrs_of[i] == 'D') {
            /* nginx answered at ct; its timer was armed for ms + the delay its
             * logged excess gives. Answered more than the tolerance late: its
             * event loop stalled; the armed time is the rule's answer. */
            uint64_t answered = ct_of[i], armed = answered;
            if (excess[i] >= 0 && rate > 0) {
                uint64_t d = cfg_delay * 1000;
                uint64_t wait_ms =
                    (uint64_t)excess[i] > d ? ((uint64_t)excess[i] - d) * 1000 / rate : 0;
                armed = (uint64_t)ms + wait_ms;
            }
            if (answered > armed + RELEASE_STALL_MS) {
                stalled++;
                stall_max = (int64_t)(answered - armed) > stall_max ? (int64_t)(answered - armed)
                                                                    : stall_max;
                answered = armed;
            }
            printf("%" PRIu64, answered * 1000000u);
            int64_t late = (int64_t)(answered_ns[i] - (uint64_t)best * 1000000u) -
                           (int64_t)(ct_of[i] * 1000000u);
            client_late_max = late > client_late_max ? late : client_late_max;
        }
        printf("\n");
    }
    free(excess);
    free(m);
    if (read_late || unresolved)
        fprintf(stderr,
                "nginx driver: read late: %zu delayed placed in a later ms than sent, by the "
                "excess nginx logged; %zu whose logged excess no ms fits\n",
                read_late, unresolved);
    if (stalled)
        fprintf(stderr,
                "nginx driver: stalled: %zu delayed answered more than %d ms after the time "
                "their logged excess armed (at most %" PRId64 " ms): written at that time\n",
                stalled, RELEASE_STALL_MS, stall_max);
    if (apart || early || getenv("RL_NGINX_VERBOSE"))
        fprintf(stderr,
                "nginx driver: %zu of %zu passed or rejected sent in another ms than nginx "
                "read; %zu delayed released in their own ms; the client saw a delayed "
                "response up to %.3f ms after nginx's answer ms began\n",
                apart, direct, early, (double)client_late_max / 1e6);
}

static void run_real(void)
{
    check_expressible(true);
    if (n_att > MAX_ATTEMPTS)
        die(3, "skipped: %zu attempts, more than the %u this bounded client sends", n_att,
            MAX_ATTEMPTS);
    if (n_keys > MAX_KEYS)
        die(3, "skipped: %u keys, more than %u", n_keys, MAX_KEYS);
    keep_scratch = getenv("RL_NGINX_KEEP") != NULL;

    /* The schedule: the trace's offsets from its first time, compressed to
     * at most MAX_SPAN_NS; an attempt whose time went back goes at once. */
    uint64_t t_min = UINT64_MAX, t_max = 0;
    for (size_t i = 0; i < n_att; i++) {
        t_min = att[i].t_ns < t_min ? att[i].t_ns : t_min;
        t_max = att[i].t_ns > t_max ? att[i].t_ns : t_max;
    }
    uint64_t span = n_att ? t_max - t_min : 0;

    make_scratch();
    atexit(cleanup);
    signal(SIGINT, on_signal), signal(SIGTERM, on_signal), signal(SIGHUP, on_signal);
    signal(SIGPIPE, SIG_IGN);
    int port = start_nginx();

    /* All connections made while nginx is stopped, so that one accept loop
     * takes them in one tick: $connection_time then counts from one origin
     * on every connection. */
    struct conn cs[MAX_CONNS];
    memset(cs, 0, sizeof cs);
    n_conns = cfg_has_delay ? DELAY_CONNS : CONNS;
    if (kill(nginx_pid, SIGSTOP) != 0)
        die(1, "SIGSTOP nginx: %s", strerror(errno));
    for (uint64_t deadline = mono_ns() + 1000000000u; proc_state(nginx_pid) != 'T';) {
        if (mono_ns() > deadline)
            die(1, "nginx did not stop on SIGSTOP");
        usleep(100);
    }
    for (int i = 0; i < n_conns; i++) {
        cs[i].fd = connect_to(port);
        if (cs[i].fd < 0)
            die(1, "connect to nginx: %s", strerror(errno));
        cs[i].sent = malloc(((cfg_has_delay ? n_att : n_att / CONNS) + 1) * sizeof *cs[i].sent);
        if (cs[i].sent == NULL)
            die(1, "out of memory");
    }
    kill(nginx_pid, SIGCONT);

    client_status = calloc(n_att ? n_att : 1, sizeof *client_status);
    sent_ns = calloc(n_att ? n_att : 1, sizeof *sent_ns);
    answered_ns = calloc(n_att ? n_att : 1, sizeof *answered_ns);
    if (client_status == NULL || sent_ns == NULL || answered_ns == NULL)
        die(1, "out of memory");
    uint64_t start = mono_ns() + 2000000u;
    char req[1024];
    for (size_t i = 0; i < n_att; i++) {
        uint64_t off = span > MAX_SPAN_NS
                           ? (uint64_t)((u128)(att[i].t_ns - t_min) * MAX_SPAN_NS / span)
                           : att[i].t_ns - t_min;
        uint64_t now;
        while ((now = mono_ns()) < start + off)
            poll_conns(cs, n_conns, start + off - now);
        struct conn *c = &cs[i % CONNS];
        if (cfg_has_delay) {
            /* Early in a ms (0.1–0.6 ms into it), so that nginx, woken a
             * few µs later, reads the same ms: the send time names it. */
            for (;;) {
                now = mono_ns();
                uint64_t in_ms = now % 1000000u;
                if (in_ms >= 100000u && in_ms <= 600000u)
                    break;
                poll_conns(cs, n_conns, in_ms < 100000u ? 100000u - in_ms : 1100000u - in_ms);
            }
            /* A delayed request holds its connection: take an idle one. */
            c = NULL;
            for (int k = 0; k < n_conns && c == NULL; k++)
                if (cs[k].n_done == cs[k].n_sent && cs[k].out_len == 0)
                    c = &cs[k];
            if (c == NULL)
                die(1, "more than %d requests in flight at attempt %zu", n_conns, i + 1);
            sent_ns[i] = mono_ns();
        }
        request_for(i, req, sizeof req);
        append(c, req, strlen(req));
        c->sent[c->n_sent++] = i;
        conn_flush(c);
    }
    uint64_t deadline = mono_ns() + DRAIN_TIMEOUT_NS;
    while (responses < n_att) {
        uint64_t now = mono_ns();
        if (now > deadline)
            die(1, "nginx answered %zu of %zu requests within 10 s", responses, n_att);
        poll_conns(cs, n_conns, deadline - now);
    }
    for (int i = 0; i < n_conns; i++)
        close(cs[i].fd);
    stop_nginx();

    /* The access log: one line per decision, in the order nginx decided. */
    char path[512];
    snprintf(path, sizeof path, "%s/access.log", scratch);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        die(1, "no access log from nginx: %s", strerror(errno));
    bool *seen = calloc(n_att ? n_att : 1, sizeof *seen);
    size_t *order = malloc((n_att ? n_att : 1) * sizeof *order);
    uint64_t *t_ms = malloc((n_att ? n_att : 1) * sizeof *t_ms);
    uint64_t *w_ms_of = malloc((n_att ? n_att : 1) * sizeof *w_ms_of);
    int *status = malloc((n_att ? n_att : 1) * sizeof *status);
    uint64_t *ct_of = malloc((n_att ? n_att : 1) * sizeof *ct_of); /* by attempt */
    char *lrs_of = malloc(n_att ? n_att : 1); /* $limit_req_status: P, D or R */
    if (!seen || !order || !t_ms || !w_ms_of || !status || !ct_of || !lrs_of)
        die(1, "out of memory");
    size_t lines = 0;
    uint64_t wall_min = UINT64_MAX;
    int64_t skew_min = INT64_MAX, skew_max = INT64_MIN;
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        size_t i;
        int st;
        unsigned long long conn, ct_s, ct_ms, w_s, w_ms;
        char lrs[16];
        if (sscanf(line, "%zu %d %llu %llu.%3llu %llu.%3llu %15s", &i, &st, &conn, &ct_s, &ct_ms,
                   &w_s, &w_ms, lrs) != 8 ||
            i >= n_att || seen[i] || lines >= n_att)
            die(1, "access log line %zu unexpected: %s", lines + 1, line);
        if (st != 200 && st != 503)
            die(1, "nginx answered %d to attempt %zu", st, i + 1);
        if (st != client_status[i])
            die(1, "the log says %d, the client read %d (attempt %zu)", st, client_status[i],
                i + 1);
        seen[i] = true;
        order[lines] = i;
        status[lines] = st;
        uint64_t mono = ct_s * 1000 + ct_ms, wall = w_s * 1000 + w_ms;
        ct_of[i] = mono;
        lrs_of[i] = strcmp(lrs, "PASSED") == 0     ? 'P'
                    : strcmp(lrs, "DELAYED") == 0  ? 'D'
                    : strcmp(lrs, "REJECTED") == 0 ? 'R'
                                                   : '?';
        if (lrs_of[i] == '?' || (lrs_of[i] == 'R') != (st == 503))
            die(1, "attempt %zu: status %d with $limit_req_status %s", i + 1, st, lrs);
        w_ms_of[lines] = wall;
        t_ms[lines++] = mono;
        wall_min = wall < wall_min ? wall : wall_min;
        int64_t skew = (int64_t)(wall - mono);
        skew_min = skew < skew_min ? skew : skew_min;
        skew_max = skew > skew_max ? skew : skew_max;
    }
    fclose(f);
    if (lines != n_att)
        die(1, "the access log has %zu of %zu decisions", lines, n_att);
    /* One origin for every connection makes $msec − $connection_time take at
     * most two neighbouring values (the two clocks' ms ticks fall apart). */
    if (n_att && skew_max - skew_min > 1)
        fprintf(stderr,
                "nginx driver: warning: $msec - $connection_time spans %" PRId64
                " ms (connections from different ticks, or the wall clock stepped)\n",
                skew_max - skew_min);
    if (getenv("RL_NGINX_VERBOSE"))
        fprintf(stderr,
                "nginx driver: port %d, %zu decisions, $msec - $connection_time in %" PRId64
                "..%" PRId64 " ms\n",
                port, lines, skew_min, skew_max);
    if (cfg_has_delay) {
        write_delayed(ct_of, lrs_of);
        return;
    }
    printf("t_ns,key,n,admitted\n");
    for (size_t j = 0; j < lines; j++)
        printf("%" PRIu64 ",%s,1,%d\n", t_ms[j] * 1000000u, key_names[att[order[j]].key],
               status[j] == 200);
    const char *msec_out = getenv("RL_NGINX_MSEC_OUT");
    if (msec_out && *msec_out) {
        FILE *w = fopen(msec_out, "w");
        if (w == NULL)
            die(1, "%s: %s", msec_out, strerror(errno));
        fprintf(w, "t_ns,key,n,admitted\n");
        for (size_t j = 0; j < lines; j++)
            fprintf(w, "%" PRIu64 ",%s,1,%d\n", (w_ms_of[j] - wall_min) * 1000000u,
                    key_names[att[order[j]].key], status[j] == 200);
        if (fclose(w) != 0)
            die(1, "%s: write error", msec_out);
    }
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: driver --mode real|port-rounded|port-exact --limit L --interval-ns I "
                    "[--burst B] [--slots D] [--shaped yes] TRACE.csv\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *mode = NULL, *trace = NULL;
    bool have_limit = false, have_interval = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-') {
            if (trace)
                usage();
            trace = a;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        if (strcmp(a, "--mode") == 0)
            mode = v;
        else if (strcmp(a, "--limit") == 0 && parse_u64(v, strlen(v), &cfg_limit))
            have_limit = true;
        else if (strcmp(a, "--interval-ns") == 0 && parse_u64(v, strlen(v), &cfg_interval))
            have_interval = true;
        else if (strcmp(a, "--burst") == 0 && parse_u64(v, strlen(v), &cfg_burst))
            ;
        else if (strcmp(a, "--slots") == 0 && parse_u64(v, strlen(v), &cfg_delay))
            cfg_has_delay = true;
        else if (strcmp(a, "--shaped") == 0 && strcmp(v, "yes") == 0)
            cfg_has_delay = true; /* delay= as --slots says, nginx's default 0 without it */
        else
            usage();
    }
    if (!mode || !trace || !have_limit || !have_interval || cfg_limit == 0 || cfg_interval == 0)
        usage();
    read_trace(trace);
    if (strcmp(mode, "real") == 0)
        run_real();
    else if (strcmp(mode, "port-rounded") == 0)
        run_port(true);
    else if (strcmp(mode, "port-exact") == 0)
        run_port(false);
    else
        usage();
    if (fflush(stdout) != 0 || ferror(stdout))
        die(1, "stdout: %s", strerror(errno));
    return 0;
}
