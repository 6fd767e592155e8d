/* redis_common.c — see redis_common.h. */
#include "redis_common.h"
#include "algorithms/buckets/tb_ticks.h"
#include "algorithms/redis/cluster/cluster_client.h"

#include <hiredis/hiredis.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One thread's connection to one instance's server. Only its owning thread
 * touches it after creation; the instance's lock guards only the list. */
struct conn {
    struct conn *next;
    uint64_t thread;                  /* the owning thread's id (thread_id()) */
    redisContext *ctx;                /* NULL: down */
    uint64_t retry_ns;                /* CLOCK_MONOTONIC: no connect attempt before this */
    uint64_t backoff_ns;              /* the wait after the next failure; 0: RL_REDIS_RETRY_NS */
    bool mask_sigpipe;                /* block SIGPIPE around each command (see command()) */
    struct rl_cluster_conns *cluster; /* on a cluster: the connections to its nodes */
};

struct rl_redis {
    uint64_t id; /* process-unique, never reused: the thread caches' key */
    char *address;
    struct rl_cluster *cluster; /* "cluster:" addresses; NULL on a single server */
    char prefix[64];
    char algo[48];
    bool virtual_time;
    size_t script_count;
    struct rl_redis_script scripts[RL_REDIS_MAX_SCRIPTS];
    char sha[RL_REDIS_MAX_SCRIPTS][41]; /* written once in open, read-only after */
    pthread_mutex_t lock;               /* guards conns */
    struct conn *conns;
    _Atomic uint64_t reloads;
    _Atomic unsigned waiting; /* commands sent and not yet answered, all threads */
};

/* Ids are only compared for equality: relaxed increments suffice. */
static _Atomic uint64_t next_instance_id = 1;
static _Atomic uint64_t next_thread_id = 1;

static _Thread_local uint64_t my_thread_id;
static _Thread_local uint64_t my_unique_count;
static _Thread_local char last_error[256];

/* This thread's recent instances and its connection to each. An entry of
 * a destroyed instance is never matched again (ids are not reused), so it
 * only waits to be overwritten; a thread using more than CACHE_SLOTS
 * instances in turn falls back to the instance's list, under its lock. */
#define CACHE_SLOTS 8
static _Thread_local struct {
    uint64_t instance;
    struct conn *conn;
} conn_cache[CACHE_SLOTS];
static _Thread_local unsigned conn_cache_next;

static uint64_t thread_id(void)
{
    if (my_thread_id == 0)
        my_thread_id = atomic_fetch_add_explicit(&next_thread_id, 1, memory_order_relaxed);
    return my_thread_id;
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((format(printf, 1, 2))) static void set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *rl_redis_last_error(void)
{
    return last_error;
}

void rl_redis_arg_u64(struct rl_redis_args *a, uint64_t v)
{
    /* digits from the right, then moved to the front: snprintf's format
     * parsing would cost more than the digits themselves */
    char digits[20];
    size_t len = 0;
    do {
        digits[sizeof digits - ++len] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    char *text = a->text[a->count];
    memcpy(text, digits + sizeof digits - len, len);
    text[len] = '\0';
    a->argv[a->count] = text;
    a->len[a->count] = len;
    a->count++;
}

void rl_redis_arg_str(struct rl_redis_args *a, const char *s)
{
    rl_redis_arg_bytes(a, s, strlen(s));
}

void rl_redis_arg_bytes(struct rl_redis_args *a, const void *p, size_t len)
{
    a->argv[a->count] = p;
    a->len[a->count] = len;
    a->count++;
}

void rl_redis_pack_doubles(unsigned char *out, const int64_t *values, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double d = (double)values[i]; /* exact: |values[i]| ≤ 2^53 − 1 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        for (int b = 0; b < 8; b++)
            out[8 * i + (size_t)b] = (unsigned char)(bits >> (8 * b));
    }
}

enum rl_decision rl_redis_decide_packed(struct rl_redis *r, uint64_t key, const int64_t numbers[7],
                                        const char *ttl_ms, size_t ttl_len)
{
    unsigned char packed[7 * sizeof(double)];
    rl_redis_pack_doubles(packed, numbers, 7);
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_bytes(&args, packed, sizeof packed);
    rl_redis_arg_bytes(&args, ttl_ms, ttl_len);
    return rl_redis_decide(r, 0, key, &args);
}

bool rl_redis_script_time(bool server_time, struct rl_clock *clock, uint64_t epoch_ns,
                          uint64_t horizon_ns, int64_t *now)
{
    if (server_time) {
        *now = -1;
        return true;
    }
    uint64_t since = tb_since_epoch(rl_clock_now(clock), epoch_ns);
    if (since > horizon_ns)
        return false;
    *now = (int64_t)since; /* ≤ horizon_ns < 2^53 */
    return true;
}

uint64_t rl_redis_unique(void)
{
    return thread_id() << 40 | (my_unique_count++ & ((1ull << 40) - 1));
}

/* ---- connections ----------------------------------------------------- */

/* "unix:PATH" or "HOST:PORT" (HOST may be "[::1]"). NULL on a bad address. */
static redisContext *connect_to(const char *address)
{
    struct timeval timeout = {1, 0};
    if (strncmp(address, "unix:", 5) == 0)
        return redisConnectUnixWithTimeout(address + 5, timeout);
    const char *colon = strrchr(address, ':');
    char host[256];
    if (colon == NULL || (size_t)(colon - address) >= sizeof host)
        return NULL;
    const char *start = address, *end = colon;
    if (*start == '[' && end > start && end[-1] == ']')
        start++, end--;
    memcpy(host, start, (size_t)(end - start));
    host[end - start] = '\0';
    return redisConnectWithTimeout(host, atoi(colon + 1), timeout);
}

/* A write to a socket whose server died raises SIGPIPE, which kills the
 * process unless handled; hiredis writes with write(2), not
 * send(MSG_NOSIGNAL). A library must not change the process's signal
 * handling, so unless SIGPIPE is already ignored or blocked here, it is
 * blocked around each command, and one it raised is consumed before the
 * mask is restored. Decided per connection, when it is opened. */
static bool sigpipe_needs_mask(void)
{
    struct sigaction sa;
    sigset_t current;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
        return false;
    if (pthread_sigmask(SIG_BLOCK, NULL, &current) == 0 && sigismember(&current, SIGPIPE))
        return false;
    return true;
}

/* A failure on c: no connect attempt for the backoff, counted from now (a
 * command that timed out has already waited RL_REDIS_TIMEOUT_MS, and a
 * stopped server still accepts connections, so retrying at once would wait
 * that long again on every call); each failure in a row doubles the wait,
 * up to the command timeout. */
static void back_off(struct conn *c)
{
    uint64_t most = (uint64_t)RL_REDIS_TIMEOUT_MS * 1000000;
    uint64_t wait = c->backoff_ns ? c->backoff_ns : RL_REDIS_RETRY_NS;
    c->retry_ns = monotonic_ns() + wait;
    c->backoff_ns = wait < most / 2 ? wait * 2 : most;
}

static void drop(struct conn *c)
{
    if (c->ctx)
        redisFree(c->ctx);
    c->ctx = NULL;
}

/* hiredis's redisCommandArgv, but waiting for the reply in poll(POLLIN)
 * rather than in a blocking read(2). On a Unix socket a reader blocked in
 * read is woken whenever the server drains the request (the peer frees
 * write space, which wakes the same wait queue), finds nothing, and sleeps
 * again; poll wakes only for what it asked. NULL, with ctx->err and errstr
 * set, on any failure or after RL_REDIS_TIMEOUT_MS without a reply. */
static redisReply *exchange(redisContext *ctx, int argc, const char **argv, const size_t *lens)
{
    if (redisAppendCommandArgv(ctx, argc, argv, lens) != REDIS_OK)
        return NULL;
    int done = 0;
    while (!done)
        if (redisBufferWrite(ctx, &done) != REDIS_OK)
            return NULL;
    uint64_t deadline = monotonic_ns() + (uint64_t)RL_REDIS_TIMEOUT_MS * 1000000;
    for (;;) {
        void *reply = NULL;
        if (redisGetReplyFromReader(ctx, &reply) != REDIS_OK)
            return NULL;
        if (reply != NULL)
            return reply;
        uint64_t now = monotonic_ns();
        struct pollfd wait = {.fd = ctx->fd, .events = POLLIN};
        int ready = now < deadline ? poll(&wait, 1, (int)((deadline - now) / 1000000 + 1)) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            ctx->err = REDIS_ERR_IO;
            snprintf(ctx->errstr, sizeof ctx->errstr, "%s",
                     ready == 0 ? "no reply within the timeout" : strerror(errno));
            return NULL;
        }
        if (redisBufferRead(ctx) != REDIS_OK) /* readable: data, EOF or an error */
            return NULL;
    }
}

/* Sends one command. NULL when the connection failed (it is then dropped,
 * and the next call may reconnect at once); otherwise the reply.
 *
 * How it waits depends on whether other threads wait on the same server.
 * Alone, it blocks in read: the spurious wakeup when the server drains the
 * request (see exchange) keeps an idle core from sleeping deeply before
 * the reply (a lone caller waited 10-20% longer in poll on the project's
 * VM, in runs alternating the two). Among others, it waits in poll: there
 * each spurious wakeup is one more IPI the single-threaded server sends
 * while the others wait (perf, 10 threads: 23% of its samples in
 * unix_write_space with read, 2% with poll), and the longer the script,
 * the surer the caller pays a second wakeup (docs/redis.md, "What a
 * script call costs"). */
static redisReply *command(struct rl_redis *r, struct conn *c, int argc, const char **argv,
                           const size_t *lens)
{
    sigset_t pipe_only, old;
    if (c->mask_sigpipe) {
        sigemptyset(&pipe_only);
        sigaddset(&pipe_only, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    }
    /* a heuristic: nothing is ordered by the count */
    bool crowded = atomic_fetch_add_explicit(&r->waiting, 1, memory_order_relaxed) > 0;
    redisReply *reply =
        crowded ? exchange(c->ctx, argc, argv, lens) : redisCommandArgv(c->ctx, argc, argv, lens);
    atomic_fetch_sub_explicit(&r->waiting, 1, memory_order_relaxed);
    if (reply == NULL)
        set_error("%s: lost the connection to redis at %s: %s", r->algo, r->address,
                  c->ctx->errstr);
    if (c->mask_sigpipe) {
        sigset_t pending;
        struct timespec zero = {0, 0};
        if (reply == NULL && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
            sigtimedwait(&pipe_only, NULL, &zero);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (reply == NULL) {
        back_off(c);
        drop(c);
    }
    return reply;
}

/* SCRIPT LOAD of every script on c; with store, keeps the SHAs (open only:
 * they are the same on every connection, SHA1 of the source). */
static int load_scripts(struct rl_redis *r, struct conn *c, bool store)
{
    for (size_t i = 0; i < r->script_count; i++) {
        const char *argv[] = {"SCRIPT", "LOAD", r->scripts[i].source};
        size_t lens[] = {6, 4, strlen(r->scripts[i].source)};
        redisReply *reply = command(r, c, 3, argv, lens);
        if (reply == NULL)
            return -1;
        bool ok = reply->type == REDIS_REPLY_STRING && reply->len == 40;
        if (ok && store)
            memcpy(r->sha[i], reply->str, 41);
        else if (!ok)
            set_error("%s: redis refused script %s.lua: %.160s", r->algo, r->scripts[i].name,
                      reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
        freeReplyObject(reply);
        if (!ok)
            return -1;
    }
    return 0;
}

/* Connects c if it is down and the backoff allows, loading the scripts. */
static int ensure_connected(struct rl_redis *r, struct conn *c, bool store_sha)
{
    if (c->ctx)
        return 0;
    uint64_t now = monotonic_ns();
    if (now < c->retry_ns) {
        set_error("%s: redis at %s is down (next reconnect in %" PRIu64 " ms)", r->algo, r->address,
                  (c->retry_ns - now) / 1000000 + 1);
        return -1;
    }
    redisContext *ctx = connect_to(r->address);
    if (ctx == NULL || ctx->err) {
        set_error("%s: cannot connect to redis at %s: %s", r->algo, r->address,
                  ctx ? ctx->errstr : "bad address (HOST:PORT or unix:PATH)");
        if (ctx)
            redisFree(ctx);
        back_off(c);
        return -1;
    }
    struct timeval timeout = {RL_REDIS_TIMEOUT_MS / 1000, (RL_REDIS_TIMEOUT_MS % 1000) * 1000};
    redisSetTimeout(ctx, timeout);
    c->ctx = ctx;
    c->mask_sigpipe = sigpipe_needs_mask();
    if (load_scripts(r, c, store_sha) != 0) {
        drop(c); /* a failed command backed off already; a refused script: */
        if (now >= c->retry_ns)
            back_off(c);
        return -1;
    }
    c->retry_ns = 0; /* connected: the next failure waits RL_REDIS_RETRY_NS */
    c->backoff_ns = 0;
    return 0;
}

/* This thread's connection to r: the thread cache, else the instance's
 * list (a cache slot was reused), else a new one. NULL on ENOMEM. */
static struct conn *this_thread_conn(struct rl_redis *r)
{
    for (unsigned i = 0; i < CACHE_SLOTS; i++)
        if (conn_cache[i].instance == r->id)
            return conn_cache[i].conn;
    uint64_t me = thread_id();
    pthread_mutex_lock(&r->lock);
    struct conn *c = r->conns;
    while (c && c->thread != me)
        c = c->next;
    if (c == NULL && (c = calloc(1, sizeof *c)) != NULL) {
        c->thread = me;
        c->next = r->conns;
        r->conns = c;
    }
    pthread_mutex_unlock(&r->lock);
    if (c == NULL) {
        set_error("%s: out of memory for a redis connection", r->algo);
        return NULL;
    }
    unsigned slot = conn_cache_next++ % CACHE_SLOTS;
    conn_cache[slot].instance = r->id;
    conn_cache[slot].conn = c;
    return c;
}

/* ---- on a cluster ------------------------------------------------------ */

/* The cluster client's prepare hook: every script loaded on a node's new
 * connection, and again after its NOSCRIPT (a promoted replica, a flush). */
static int load_scripts_on(void *arg, redisContext *ctx, char *err, size_t err_len)
{
    const struct rl_redis *r = arg;
    for (size_t i = 0; i < r->script_count; i++) {
        const char *argv[] = {"SCRIPT", "LOAD", r->scripts[i].source};
        size_t lens[] = {6, 4, strlen(r->scripts[i].source)};
        redisReply *reply = redisCommandArgv(ctx, 3, argv, lens);
        bool ok = reply && reply->type == REDIS_REPLY_STRING && reply->len == 40;
        if (!ok)
            snprintf(err, err_len, "redis refused script %s.lua: %.160s", r->scripts[i].name,
                     reply == NULL                      ? ctx->errstr
                     : reply->type == REDIS_REPLY_ERROR ? reply->str
                                                        : "unexpected reply");
        if (reply)
            freeReplyObject(reply);
        if (!ok)
            return -1;
    }
    return 0;
}

/* This thread's connections to the cluster's nodes; NULL on ENOMEM. */
static struct rl_cluster_conns *this_thread_cluster(struct rl_redis *r)
{
    struct conn *c = this_thread_conn(r);
    if (c && c->cluster == NULL && (c->cluster = rl_cluster_conns_new()) == NULL)
        set_error("%s: out of memory for cluster connections", r->algo);
    return c ? c->cluster : NULL;
}

/* rl_redis_open's end on a cluster: the slot map, then the SHAs (SHA1 of
 * the source, the same on every node). Frees r on failure. */
static struct rl_redis *open_cluster(struct rl_redis *r, char *err, size_t err_len)
{
    char why[512] = "out of memory";
    const char *seeds = r->address + strlen(RL_REDIS_CLUSTER_PREFIX);
    r->cluster = rl_cluster_open(seeds, load_scripts_on, r, why, sizeof why);
    struct rl_cluster_conns *cc = r->cluster ? this_thread_cluster(r) : NULL;
    for (size_t i = 0; cc && i < r->script_count; i++) {
        const char *argv[] = {"SCRIPT", "LOAD", r->scripts[i].source};
        size_t lens[] = {6, 4, strlen(r->scripts[i].source)};
        redisReply *reply = rl_cluster_command(r->cluster, cc, -1, 3, argv, lens, why, sizeof why);
        bool ok = reply && reply->type == REDIS_REPLY_STRING && reply->len == 40;
        if (ok)
            memcpy(r->sha[i], reply->str, 41);
        else if (reply)
            snprintf(why, sizeof why, "redis refused script %s.lua: %.160s", r->scripts[i].name,
                     reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
        if (reply)
            freeReplyObject(reply);
        if (!ok)
            cc = NULL;
    }
    if (cc == NULL) {
        snprintf(err, err_len, "%s: %s", r->algo, why);
        rl_redis_close(r);
        return NULL;
    }
    return r;
}

/* Whether reply is what the caller asked for: with count 0 one integer,
 * into out[0]; else an array of exactly count integers, into out. Sets
 * the error line when it is not. */
static bool take_reply(const struct rl_redis *r, unsigned index, const redisReply *reply,
                       long long *out, size_t count)
{
    if (count == 0 && reply->type == REDIS_REPLY_INTEGER) {
        out[0] = reply->integer;
        return true;
    }
    bool array = count > 0 && reply->type == REDIS_REPLY_ARRAY && reply->elements == count;
    for (size_t i = 0; array && i < count; i++)
        array = reply->element[i]->type == REDIS_REPLY_INTEGER;
    if (array) {
        for (size_t i = 0; i < count; i++)
            out[i] = reply->element[i]->integer;
        return true;
    }
    if (reply->type == REDIS_REPLY_ERROR)
        set_error("%s: redis error from %s.lua: %.160s", r->algo, r->scripts[index].name,
                  reply->str);
    else if (count == 0)
        set_error("%s: %s.lua answered a non-integer (type %d)", r->algo, r->scripts[index].name,
                  reply->type);
    else
        set_error("%s: %s.lua answered type %d, not %zu integers", r->algo, r->scripts[index].name,
                  reply->type, count);
    return false;
}

/* rl_redis_eval (count 0) and rl_redis_eval_ints on a cluster. With keys,
 * on the primary serving the first key's slot (all of them must share it:
 * one hash tag). Without keys (the KEYS-scan cleanup), on every primary,
 * each scanning its own keys; the integer replies are summed. */
static int cluster_eval(struct rl_redis *r, unsigned index, int nkeys, const char *const *keys,
                        const struct rl_redis_args *args, long long *out, size_t count)
{
    struct rl_cluster_conns *cc = this_thread_cluster(r);
    if (cc == NULL)
        return -1;
    if (nkeys < 0 || nkeys > RL_REDIS_MAX_KEYS || (nkeys == 0 && count > 0)) {
        set_error("%s: %d keys for one script (at most %d; one for an array reply)", r->algo, nkeys,
                  RL_REDIS_MAX_KEYS);
        return -1;
    }
    const char *argv[3 + RL_REDIS_MAX_KEYS + RL_REDIS_MAX_ARGS];
    size_t lens[3 + RL_REDIS_MAX_KEYS + RL_REDIS_MAX_ARGS];
    char numkeys[8];
    int argc = 0;
    snprintf(numkeys, sizeof numkeys, "%d", nkeys);
    argv[argc] = "EVALSHA", lens[argc++] = 7;
    argv[argc] = r->sha[index], lens[argc++] = 40;
    argv[argc] = numkeys, lens[argc++] = strlen(numkeys);
    int slot = -1;
    for (int i = 0; i < nkeys; i++) {
        argv[argc] = keys[i], lens[argc++] = strlen(keys[i]);
        int s = (int)rl_cluster_key_slot(keys[i], strlen(keys[i]));
        if (slot >= 0 && s != slot) {
            set_error("%s: %s.lua's keys lie in different slots (%d, %d): one hash tag needed",
                      r->algo, r->scripts[index].name, slot, s);
            return -1;
        }
        slot = s;
    }
    for (int i = 0; args && i < args->count; i++)
        argv[argc] = args->argv[i], lens[argc++] = args->len[i];

    unsigned nodes[RL_CLUSTER_MAX_NODES];
    unsigned targets = 1;
    if (nkeys == 0)
        targets = rl_cluster_primaries(r->cluster, nodes, RL_CLUSTER_MAX_NODES);
    long long sum = 0;
    for (unsigned t = 0; t < targets; t++) {
        int to = nkeys > 0 ? slot : rl_cluster_slot_of_node(r->cluster, nodes[t]);
        char why[256];
        redisReply *reply =
            rl_cluster_command(r->cluster, cc, to, argc, argv, lens, why, sizeof why);
        if (reply == NULL) {
            set_error("%s: %s", r->algo, why);
            return -1;
        }
        long long one;
        bool ok = take_reply(r, index, reply, count ? out : &one, count);
        freeReplyObject(reply);
        if (!ok)
            return -1;
        sum += count ? 0 : one;
    }
    if (count == 0)
        out[0] = sum;
    return 0;
}

/* ---- instances ------------------------------------------------------- */

struct rl_redis *rl_redis_open(const struct rl_config *cfg, const char *algo,
                               const struct rl_redis_script *scripts, size_t count, char *err,
                               size_t err_len)
{
    if (cfg->remote == NULL || cfg->remote[0] == '\0') {
        snprintf(err, err_len,
                 "%s: needs a Redis server: --redis ADDRESS, or let ratelab start one", algo);
        return NULL;
    }
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "%s: limit and interval must be at least 1", algo);
        return NULL;
    }
    struct rl_redis *r = calloc(1, sizeof *r);
    if (r == NULL || (r->address = strdup(cfg->remote)) == NULL) {
        free(r);
        snprintf(err, err_len, "%s: out of memory", algo);
        return NULL;
    }
    r->id = atomic_fetch_add_explicit(&next_instance_id, 1, memory_order_relaxed);
    snprintf(r->algo, sizeof r->algo, "%s", algo);
    r->virtual_time = cfg->virtual_time;
    r->script_count = count < RL_REDIS_MAX_SCRIPTS ? count : RL_REDIS_MAX_SCRIPTS;
    memcpy(r->scripts, scripts, r->script_count * sizeof *scripts);
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    snprintf(r->prefix, sizeof r->prefix, "%ld.%" PRIu64 ".%llx", (long)getpid(), r->id,
             (unsigned long long)(((uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec) &
                                  0xffffffffffffull));
    pthread_mutex_init(&r->lock, NULL);
    atomic_init(&r->reloads, 0);
    atomic_init(&r->waiting, 0);
    if (strncmp(cfg->remote, RL_REDIS_CLUSTER_PREFIX, strlen(RL_REDIS_CLUSTER_PREFIX)) == 0)
        return open_cluster(r, err, err_len);

    struct conn *c = this_thread_conn(r);
    const char *ping[] = {"PING"};
    size_t ping_len[] = {4};
    redisReply *reply = NULL;
    if (c == NULL || ensure_connected(r, c, true) != 0 ||
        (reply = command(r, c, 1, ping, ping_len)) == NULL || reply->type != REDIS_REPLY_STATUS ||
        strcmp(reply->str, "PONG") != 0) {
        if (reply)
            set_error("%s: redis at %s did not answer PING with PONG", algo, cfg->remote);
        snprintf(err, err_len, "%s", last_error);
        if (reply)
            freeReplyObject(reply);
        rl_redis_close(r);
        return NULL;
    }
    freeReplyObject(reply);
    return r;
}

void rl_redis_close(struct rl_redis *r)
{
    if (r == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    for (struct conn *c = r->conns, *next; c; c = next) {
        next = c->next;
        drop(c);
        rl_cluster_conns_free(c->cluster);
        free(c);
    }
    r->conns = NULL;
    pthread_mutex_unlock(&r->lock);
    pthread_mutex_destroy(&r->lock);
    rl_cluster_close(r->cluster);
    free(r->address);
    free(r);
}

void *rl_redis_create(const struct rl_config *cfg, const char *algo, size_t state_size,
                      const struct rl_redis_script *scripts, size_t count, char *err,
                      size_t err_len)
{
    /* The state's first member is its struct rl_redis *: a pointer to a
     * struct, converted, points to its first member (C11 6.7.2.1p15). */
    struct rl_redis **state = calloc(1, state_size);
    if (state == NULL) {
        snprintf(err, err_len, "%s: out of memory", algo);
        return NULL;
    }
    *state = rl_redis_open(cfg, algo, scripts, count, err, err_len);
    if (*state == NULL) {
        free(state);
        return NULL;
    }
    return state;
}

void rl_redis_destroy(void *state)
{
    if (state == NULL)
        return;
    rl_redis_close(*(struct rl_redis **)state);
    free(state);
}

void rl_redis_key(const struct rl_redis *r, uint64_t key, const char *suffix, char *buf, size_t len)
{
    if (r->cluster) /* the hash tag: every key of one limiter key in one slot */
        snprintf(buf, len, "{rl:%s:%" PRIu64 "}%s", r->prefix, key, suffix ? suffix : "");
    else
        snprintf(buf, len, "rl:%s:%" PRIu64 "%s", r->prefix, key, suffix ? suffix : "");
}

void rl_redis_key_pattern(const struct rl_redis *r, char *buf, size_t len)
{
    snprintf(buf, len, "%srl:%s:*", r->cluster ? "{" : "", r->prefix);
}

bool rl_redis_on_cluster(const struct rl_redis *r)
{
    return r->cluster != NULL;
}

uint64_t rl_redis_redirects(const struct rl_redis *r)
{
    return r->cluster ? rl_cluster_redirects(r->cluster) : 0;
}

uint64_t rl_remote_redirects(void)
{
    return rl_cluster_redirects_total();
}

const char *rl_redis_prefix(const struct rl_redis *r)
{
    return r->prefix;
}

bool rl_redis_virtual(const struct rl_redis *r)
{
    return r->virtual_time;
}

uint64_t rl_redis_reloads(const struct rl_redis *r)
{
    /* a statistic: nothing is ordered by it */
    return atomic_load_explicit(&r->reloads, memory_order_relaxed) +
           (r->cluster ? rl_cluster_reloads(r->cluster) : 0);
}

uint64_t rl_redis_ttl_ms(const struct rl_redis *r, uint64_t life_ns)
{
    const uint64_t max_ms = 10ull * 365 * 24 * 3600 * 1000; /* PEXPIRE's range is far wider */
    uint64_t ms = life_ns / 1000000 + (life_ns % 1000000 != 0) + 1;
    if (ms > max_ms)
        ms = max_ms;
    if (r->virtual_time && ms < RL_REDIS_VIRTUAL_TTL_MS)
        ms = RL_REDIS_VIRTUAL_TTL_MS;
    return ms;
}

bool rl_redis_tick_horizon(const char *algo, uint64_t per_ns, uint64_t per_token, uint64_t burst,
                           uint64_t *horizon_ns, char *err, size_t err_len)
{
    __extension__ unsigned __int128 capacity = (unsigned __int128)burst * per_token;
    if (capacity > RL_LUA_INT_MAX ||
        (*horizon_ns = (RL_LUA_INT_MAX - (uint64_t)capacity) / per_ns) < RL_REDIS_MIN_HORIZON_NS) {
        snprintf(err, err_len,
                 "%s: B·I/gcd(L,I) and L/gcd(L,I) are too large for Lua's exact 2^53 (the "
                 "bucket would overflow within a day); use tb_mutex, or an interval that L "
                 "divides",
                 algo);
        return false;
    }
    return true;
}

/* ---- calls ----------------------------------------------------------- */

/* rl_redis_eval (count 0) and rl_redis_eval_ints. */
static int eval_reply(struct rl_redis *r, unsigned index, int nkeys, const char *const *keys,
                      const struct rl_redis_args *args, long long *out, size_t count)
{
    if (r->cluster)
        return cluster_eval(r, index, nkeys, keys, args, out, count);
    struct conn *c = this_thread_conn(r);
    if (c == NULL || ensure_connected(r, c, false) != 0)
        return -1;
    const char *argv[3 + RL_REDIS_MAX_KEYS + RL_REDIS_MAX_ARGS];
    size_t lens[3 + RL_REDIS_MAX_KEYS + RL_REDIS_MAX_ARGS];
    char numkeys[8];
    int argc = 0;
    if (nkeys < 0 || nkeys > RL_REDIS_MAX_KEYS) {
        set_error("%s: %d keys for one script (at most %d)", r->algo, nkeys, RL_REDIS_MAX_KEYS);
        return -1;
    }
    snprintf(numkeys, sizeof numkeys, "%d", nkeys);
    argv[argc] = "EVALSHA", lens[argc++] = 7;
    argv[argc] = r->sha[index], lens[argc++] = 40;
    argv[argc] = numkeys, lens[argc++] = strlen(numkeys);
    for (int i = 0; i < nkeys; i++)
        argv[argc] = keys[i], lens[argc++] = strlen(keys[i]);
    for (int i = 0; args && i < args->count; i++)
        argv[argc] = args->argv[i], lens[argc++] = args->len[i];

    for (int attempt = 0;; attempt++) {
        redisReply *reply = command(r, c, argc, argv, lens);
        if (reply == NULL)
            return -1;
        bool noscript = reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "NOSCRIPT", 8) == 0;
        bool ok = take_reply(r, index, reply, out, count);
        freeReplyObject(reply);
        if (ok)
            return 0;
        if (!noscript || attempt > 0)
            return -1;
        /* the server lost its scripts (restart, SCRIPT FLUSH): load, retry once */
        if (load_scripts(r, c, false) != 0)
            return -1;
        atomic_fetch_add_explicit(&r->reloads, 1, memory_order_relaxed); /* a statistic */
    }
}

int rl_redis_eval(struct rl_redis *r, unsigned index, int nkeys, const char *const *keys,
                  const struct rl_redis_args *args, long long *result)
{
    return eval_reply(r, index, nkeys, keys, args, result, 0);
}

int rl_redis_eval_ints(struct rl_redis *r, unsigned index, int nkeys, const char *const *keys,
                       const struct rl_redis_args *args, long long *out, size_t count)
{
    if (count == 0) {
        set_error("%s: an array reply of no integers asked for", r->algo);
        return -1;
    }
    return eval_reply(r, index, nkeys, keys, args, out, count);
}

/* --wait-replicas: process-wide, set once before any limiter opens. */
static unsigned wait_replicas;
/* The slot of the last key a cluster call named: a fault aims at its node. */
static _Atomic int last_slot = -1;

void rl_remote_set_wait_replicas(unsigned replicas)
{
    wait_replicas = replicas;
}

int rl_remote_last_slot(void)
{
    return atomic_load_explicit(&last_slot, memory_order_relaxed);
}

/* WAIT replicas RL_REDIS_WAIT_TIMEOUT_MS on the node that holds name. 0
 * when that many replicas acknowledged the admit's write; -1 with the
 * error set when fewer did in time (the write may be lost in a failover:
 * the admit becomes an error, which --on-error turns into a reject or an
 * admit) or the node does not answer. */
static int wait_for_replicas(struct rl_redis *r, const char *name)
{
    char count[16], timeout[16];
    snprintf(count, sizeof count, "%u", wait_replicas);
    snprintf(timeout, sizeof timeout, "%d", RL_REDIS_WAIT_TIMEOUT_MS);
    const char *argv[] = {"WAIT", count, timeout};
    size_t lens[] = {4, strlen(count), strlen(timeout)};
    redisReply *reply;
    if (r->cluster) {
        struct rl_cluster_conns *cc = this_thread_cluster(r);
        char why[256];
        int slot = (int)rl_cluster_key_slot(name, strlen(name));
        reply =
            cc ? rl_cluster_command(r->cluster, cc, slot, 3, argv, lens, why, sizeof why) : NULL;
        if (reply == NULL && cc)
            set_error("%s: WAIT: %s", r->algo, why);
    } else {
        struct conn *c = this_thread_conn(r);
        reply = c && ensure_connected(r, c, false) == 0 ? command(r, c, 3, argv, lens) : NULL;
    }
    if (reply == NULL)
        return -1;
    bool integer = reply->type == REDIS_REPLY_INTEGER;
    bool ok = integer && reply->integer >= (long long)wait_replicas;
    if (!integer)
        set_error("%s: WAIT answered %.160s", r->algo,
                  reply->type == REDIS_REPLY_ERROR ? reply->str : "a non-integer");
    else if (!ok)
        set_error("%s: WAIT: %lld of %u replicas acknowledged the admit within %d ms", r->algo,
                  reply->integer, wait_replicas, RL_REDIS_WAIT_TIMEOUT_MS);
    freeReplyObject(reply);
    return ok ? 0 : -1;
}

enum rl_decision rl_redis_decide(struct rl_redis *r, unsigned index, uint64_t key,
                                 const struct rl_redis_args *args)
{
    char name[128];
    rl_redis_key(r, key, NULL, name, sizeof name);
    const char *keys[] = {name};
    long long result;
    if (r->cluster)
        atomic_store_explicit(&last_slot, (int)rl_cluster_key_slot(name, strlen(name)),
                              memory_order_relaxed);
    if (rl_redis_eval(r, index, 1, keys, args, &result) != 0)
        return RL_ERROR;
    if (result == 1 && wait_replicas > 0 && wait_for_replicas(r, name) != 0)
        return RL_ERROR;
    if (result == 1)
        return RL_ADMIT;
    if (result == 0)
        return RL_REJECT;
    set_error("%s: %s.lua answered %lld, not 0 or 1", r->algo, r->scripts[index].name, result);
    return RL_ERROR;
}

int rl_redis_time_us(struct rl_redis *r, uint64_t *us)
{
    const char *argv[] = {"TIME"};
    size_t lens[] = {4};
    redisReply *reply;
    if (r->cluster) { /* any primary's clock: see rl_redis_time_us in the header */
        struct rl_cluster_conns *cc = this_thread_cluster(r);
        char why[256];
        if (cc == NULL)
            return -1;
        if ((reply = rl_cluster_command(r->cluster, cc, -1, 1, argv, lens, why, sizeof why)) ==
            NULL) {
            set_error("%s: %s", r->algo, why);
            return -1;
        }
    } else {
        struct conn *c = this_thread_conn(r);
        if (c == NULL || ensure_connected(r, c, false) != 0)
            return -1;
        reply = command(r, c, 1, argv, lens);
    }
    if (reply == NULL)
        return -1;
    int rc = -1;
    if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
        reply->element[0]->type == REDIS_REPLY_STRING &&
        reply->element[1]->type == REDIS_REPLY_STRING) {
        *us = strtoull(reply->element[0]->str, NULL, 10) * 1000000ull +
              strtoull(reply->element[1]->str, NULL, 10);
        rc = 0;
    } else {
        set_error("%s: unexpected reply to TIME", r->algo);
    }
    freeReplyObject(reply);
    return rc;
}
