/* cluster_client.c — see cluster_client.h. */
#include "cluster_client.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ADDRESS_LEN    64
#define WAIT_FIRST_MS  1
#define WAIT_MOST_MS   100
#define MAP_TIMEOUT_MS 1000

struct rl_cluster {
    pthread_mutex_t lock; /* guards appending nodes and reloading the map */
    char *seeds;
    rl_cluster_prepare_fn prepare;
    void *prepare_arg;
    /* node numbers are never reused: a thread's conns index by them */
    _Atomic unsigned node_count; /* released after the address is written */
    char node[RL_CLUSTER_MAX_NODES][ADDRESS_LEN];
    _Atomic uint16_t owner[RL_CLUSTER_SLOTS]; /* node number + 1; 0: unknown */
    _Atomic uint64_t redirects, reloads, waits;
};

/* Every client's MOVED and ASK, for the harness (rl_cluster_redirects_total). */
static _Atomic uint64_t redirects_total;

struct rl_cluster_conns {
    redisContext *ctx[RL_CLUSTER_MAX_NODES];
    bool mask_sigpipe;
};

static uint64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void pause_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The node number of address, appended when new; -1 when the table is full. */
static int node_number(struct rl_cluster *cl, const char *address)
{
    unsigned count = atomic_load_explicit(&cl->node_count, memory_order_acquire);
    for (unsigned i = 0; i < count; i++)
        if (strcmp(cl->node[i], address) == 0)
            return (int)i;
    pthread_mutex_lock(&cl->lock);
    count = atomic_load_explicit(&cl->node_count, memory_order_relaxed);
    int found = -1;
    for (unsigned i = 0; i < count && found < 0; i++)
        if (strcmp(cl->node[i], address) == 0)
            found = (int)i;
    if (found < 0 && count < RL_CLUSTER_MAX_NODES && strlen(address) < ADDRESS_LEN) {
        snprintf(cl->node[count], ADDRESS_LEN, "%s", address);
        atomic_store_explicit(&cl->node_count, count + 1, memory_order_release);
        found = (int)count;
    }
    pthread_mutex_unlock(&cl->lock);
    return found;
}

const char *rl_cluster_node_address(const struct rl_cluster *cl, unsigned node)
{
    return cl->node[node];
}

int rl_cluster_slot_owner(const struct rl_cluster *cl, unsigned slot)
{
    /* relaxed: a stale owner costs one MOVED, never a wrong answer */
    return (int)atomic_load_explicit(&cl->owner[slot % RL_CLUSTER_SLOTS], memory_order_relaxed) - 1;
}

/* "HOST:PORT" → a context with a command timeout of timeout_ms; NULL on a
 * bad address. */
static redisContext *connect_address(const char *address, unsigned timeout_ms)
{
    const char *colon = strrchr(address, ':');
    char host[ADDRESS_LEN];
    if (colon == NULL || (size_t)(colon - address) >= sizeof host)
        return NULL;
    const char *start = address, *end = colon;
    if (*start == '[' && end > start && end[-1] == ']')
        start++, end--;
    memcpy(host, start, (size_t)(end - start));
    host[end - start] = '\0';
    struct timeval connect_timeout = {1, 0};
    redisContext *ctx = redisConnectWithTimeout(host, atoi(colon + 1), connect_timeout);
    if (ctx && !ctx->err) {
        struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
        redisSetTimeout(ctx, timeout);
    }
    return ctx;
}

/* ---- the slot map ------------------------------------------------------ */

static bool is(const redisReply *r, const char *text)
{
    return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) &&
           strcmp(r->str, text) == 0;
}

/* The value after key `name` in a flat key/value array (RESP2 map). */
static const redisReply *field(const redisReply *map, const char *name)
{
    if (map == NULL || map->type != REDIS_REPLY_ARRAY)
        return NULL;
    for (size_t i = 0; i + 1 < map->elements; i += 2)
        if (is(map->element[i], name))
            return map->element[i + 1];
    return NULL;
}

/* Marks slots [from, to] as owned by the node at host:port in table. An
 * empty host (a node that never learnt its address: a cluster of one) is
 * the host of the node asked, `asked`. */
static int assign(struct rl_cluster *cl, uint16_t *table, long long from, long long to,
                  const char *host, long long port, const char *asked)
{
    char address[2 * ADDRESS_LEN];
    if (host[0] == '\0') { /* the asked node's host, as the seed wrote it */
        const char *colon = strrchr(asked, ':');
        snprintf(address, sizeof address, "%.*s:%lld", colon ? (int)(colon - asked) : 0, asked,
                 port);
    } else {
        snprintf(address, sizeof address, strchr(host, ':') ? "[%s]:%lld" : "%s:%lld", host, port);
    }
    int node = node_number(cl, address);
    if (node < 0 || from < 0 || to >= RL_CLUSTER_SLOTS || from > to)
        return -1;
    for (long long s = from; s <= to; s++)
        table[s] = (uint16_t)(node + 1);
    return 0;
}

/* CLUSTER SHARDS (7.0+): shards of {slots: [from, to, ...], nodes: [{ip,
 * port, role, ...}]}. */
static int read_shards(struct rl_cluster *cl, const redisReply *reply, uint16_t *table,
                       const char *asked)
{
    for (size_t i = 0; i < reply->elements; i++) {
        const redisReply *slots = field(reply->element[i], "slots");
        const redisReply *nodes = field(reply->element[i], "nodes");
        if (slots == NULL || nodes == NULL || nodes->type != REDIS_REPLY_ARRAY)
            return -1;
        /* the primary, preferring one that is online (a failed one stays
         * listed as primary until its replica is promoted) */
        const redisReply *primary = NULL;
        for (size_t n = 0; n < nodes->elements; n++)
            if (is(field(nodes->element[n], "role"), "master") &&
                (primary == NULL || is(field(nodes->element[n], "health"), "online")))
                primary = nodes->element[n];
        if (primary == NULL)
            continue; /* a shard without a primary serves nothing */
        const redisReply *ip = field(primary, "ip"), *port = field(primary, "port");
        if (ip == NULL || ip->type != REDIS_REPLY_STRING || port == NULL ||
            port->type != REDIS_REPLY_INTEGER)
            return -1;
        for (size_t k = 0; k + 1 < slots->elements; k += 2)
            if (assign(cl, table, slots->element[k]->integer, slots->element[k + 1]->integer,
                       ip->str, port->integer, asked) != 0)
                return -1;
    }
    return 0;
}

/* CLUSTER SLOTS (before 7.0): [from, to, [ip, port, id], replicas...]. */
static int read_slots(struct rl_cluster *cl, const redisReply *reply, uint16_t *table,
                      const char *asked)
{
    for (size_t i = 0; i < reply->elements; i++) {
        const redisReply *e = reply->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
            e->element[2]->type != REDIS_REPLY_ARRAY || e->element[2]->elements < 2 ||
            e->element[2]->element[0]->type != REDIS_REPLY_STRING)
            return -1;
        if (assign(cl, table, e->element[0]->integer, e->element[1]->integer,
                   e->element[2]->element[0]->str, e->element[2]->element[1]->integer, asked) != 0)
            return -1;
    }
    return 0;
}

/* Asks the node at address for the map; 0 and the map published, or -1
 * with err. */
static int load_map(struct rl_cluster *cl, const char *address, char *err, size_t err_len)
{
    /* a short wait: a stopped node accepts connections and never answers,
     * and the next node may know the map */
    redisContext *ctx = connect_address(address, MAP_TIMEOUT_MS);
    if (ctx == NULL || ctx->err) {
        snprintf(err, err_len, "cannot connect to %s: %s", address,
                 ctx ? ctx->errstr : "bad address (HOST:PORT)");
        if (ctx)
            redisFree(ctx);
        return -1;
    }
    uint16_t *table = calloc(RL_CLUSTER_SLOTS, sizeof *table);
    int rc = -1;
    redisReply *reply = table ? redisCommand(ctx, "CLUSTER SHARDS") : NULL;
    if (reply && reply->type == REDIS_REPLY_ERROR &&
        strstr(reply->str, "cluster support") == NULL) {
        freeReplyObject(reply); /* an older server: CLUSTER SLOTS */
        reply = redisCommand(ctx, "CLUSTER SLOTS");
        if (reply && reply->type == REDIS_REPLY_ARRAY)
            rc = read_slots(cl, reply, table, address);
    } else if (reply && reply->type == REDIS_REPLY_ARRAY) {
        rc = read_shards(cl, reply, table, address);
    }
    if (table == NULL)
        snprintf(err, err_len, "out of memory for the slot map");
    else if (reply == NULL)
        snprintf(err, err_len, "%s did not answer CLUSTER SHARDS: %s", address, ctx->errstr);
    else if (reply->type == REDIS_REPLY_ERROR)
        snprintf(err, err_len, "%s refused the slot map: %.120s", address, reply->str);
    else if (rc != 0)
        snprintf(err, err_len, "%s answered a slot map this client cannot read", address);
    size_t covered = 0;
    for (size_t s = 0; rc == 0 && s < RL_CLUSTER_SLOTS; s++)
        covered += table[s] != 0;
    if (rc == 0 && covered == 0) {
        snprintf(err, err_len, "%s serves no slot (a cluster not yet built?)", address);
        rc = -1;
    }
    for (size_t s = 0; rc == 0 && s < RL_CLUSTER_SLOTS; s++)
        atomic_store_explicit(&cl->owner[s], table[s], memory_order_relaxed);
    if (reply)
        freeReplyObject(reply);
    free(table);
    redisFree(ctx);
    return rc;
}

int rl_cluster_refresh(struct rl_cluster *cl, char *err, size_t err_len)
{
    /* the known nodes, seeds first (they were appended first) */
    unsigned count = atomic_load_explicit(&cl->node_count, memory_order_acquire);
    for (unsigned i = 0; i < count; i++) {
        char address[ADDRESS_LEN];
        memcpy(address, cl->node[i], ADDRESS_LEN);
        if (load_map(cl, address, err, err_len) == 0)
            return 0;
    }
    if (count == 0)
        snprintf(err, err_len, "no node known");
    return -1;
}

struct rl_cluster *rl_cluster_open(const char *seeds, rl_cluster_prepare_fn prepare, void *arg,
                                   char *err, size_t err_len)
{
    struct rl_cluster *cl = calloc(1, sizeof *cl);
    if (cl == NULL || (cl->seeds = strdup(seeds)) == NULL) {
        free(cl);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&cl->lock, NULL);
    cl->prepare = prepare;
    cl->prepare_arg = arg;
    char list[1024];
    snprintf(list, sizeof list, "%s", seeds);
    char *save = NULL;
    for (char *seed = strtok_r(list, ",", &save); seed; seed = strtok_r(NULL, ",", &save))
        if (node_number(cl, seed) < 0) {
            snprintf(err, err_len, "seed address too long: %.80s", seed);
            rl_cluster_close(cl);
            return NULL;
        }
    char why[256] = "no seed given";
    int rc = -1;
    unsigned seed_count = atomic_load(&cl->node_count);
    for (unsigned i = 0; i < seed_count && rc != 0; i++)
        rc = load_map(cl, cl->node[i], why, sizeof why);
    if (rc != 0) {
        snprintf(err, err_len, "no slot map from the cluster at %s: %s", seeds, why);
        rl_cluster_close(cl);
        return NULL;
    }
    return cl;
}

void rl_cluster_close(struct rl_cluster *cl)
{
    if (cl == NULL)
        return;
    pthread_mutex_destroy(&cl->lock);
    free(cl->seeds);
    free(cl);
}

unsigned rl_cluster_primaries(struct rl_cluster *cl, unsigned *nodes, unsigned max)
{
    bool seen[RL_CLUSTER_MAX_NODES] = {false};
    unsigned count = 0;
    for (unsigned s = 0; s < RL_CLUSTER_SLOTS; s++) {
        int node = rl_cluster_slot_owner(cl, s);
        if (node >= 0 && !seen[node]) {
            seen[node] = true;
            if (count < max)
                nodes[count] = (unsigned)node;
            count++;
        }
    }
    return count < max ? count : max;
}

int rl_cluster_slot_of_node(struct rl_cluster *cl, unsigned node)
{
    for (unsigned s = 0; s < RL_CLUSTER_SLOTS; s++)
        if (rl_cluster_slot_owner(cl, s) == (int)node)
            return (int)s;
    return -1;
}

uint64_t rl_cluster_redirects(const struct rl_cluster *cl)
{
    return atomic_load_explicit(&cl->redirects, memory_order_relaxed);
}

uint64_t rl_cluster_redirects_total(void)
{
    return atomic_load_explicit(&redirects_total, memory_order_relaxed);
}

uint64_t rl_cluster_reloads(const struct rl_cluster *cl)
{
    return atomic_load_explicit(&cl->reloads, memory_order_relaxed);
}

uint64_t rl_cluster_waits(const struct rl_cluster *cl)
{
    return atomic_load_explicit(&cl->waits, memory_order_relaxed);
}

/* ---- a thread's connections -------------------------------------------- */

/* As redis_common.c: a write to a dead node's socket raises SIGPIPE, which
 * a library must neither let kill the process nor turn off for it. */
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

struct rl_cluster_conns *rl_cluster_conns_new(void)
{
    struct rl_cluster_conns *cc = calloc(1, sizeof *cc);
    if (cc)
        cc->mask_sigpipe = sigpipe_needs_mask();
    return cc;
}

static void drop(struct rl_cluster_conns *cc, int node)
{
    if (cc->ctx[node])
        redisFree(cc->ctx[node]);
    cc->ctx[node] = NULL;
}

void rl_cluster_conns_free(struct rl_cluster_conns *cc)
{
    if (cc == NULL)
        return;
    for (int i = 0; i < RL_CLUSTER_MAX_NODES; i++)
        drop(cc, i);
    free(cc);
}

/* This thread's connection to node, opened (and prepared) if needed. */
static redisContext *node_context(struct rl_cluster *cl, struct rl_cluster_conns *cc, int node,
                                  char *why, size_t why_len)
{
    if (cc->ctx[node])
        return cc->ctx[node];
    redisContext *ctx = connect_address(cl->node[node], RL_CLUSTER_TIMEOUT_MS);
    if (ctx == NULL || ctx->err) {
        snprintf(why, why_len, "cannot connect to %s: %s", cl->node[node],
                 ctx ? ctx->errstr : "bad address");
        if (ctx)
            redisFree(ctx);
        return NULL;
    }
    if (cl->prepare && cl->prepare(cl->prepare_arg, ctx, why, why_len) != 0) {
        redisFree(ctx);
        return NULL;
    }
    return cc->ctx[node] = ctx;
}

/* "MOVED 3999 127.0.0.1:6381" / "ASK ...": the slot and the node number
 * (an empty host means the host of the node that answered). */
static int redirect_target(struct rl_cluster *cl, const char *text, int from, unsigned *slot)
{
    const char *space = strchr(text, ' ');
    char *end;
    unsigned long s = space ? strtoul(space + 1, &end, 10) : RL_CLUSTER_SLOTS;
    if (space == NULL || s >= RL_CLUSTER_SLOTS || *end != ' ')
        return -1;
    *slot = (unsigned)s;
    const char *address = end + 1;
    char full[ADDRESS_LEN];
    if (address[0] == ':') {
        const char *colon = strrchr(cl->node[from], ':');
        snprintf(full, sizeof full, "%.*s%s", (int)(colon - cl->node[from]), cl->node[from],
                 address);
        address = full;
    }
    return node_number(cl, address);
}

static redisReply *send_once(redisContext *ctx, bool asking, int argc, const char **argv,
                             const size_t *lens)
{
    if (!asking)
        return redisCommandArgv(ctx, argc, argv, lens);
    /* ASKING and the command back to back on one connection */
    if (redisAppendCommand(ctx, "ASKING") != REDIS_OK ||
        redisAppendCommandArgv(ctx, argc, argv, lens) != REDIS_OK)
        return NULL;
    void *ok = NULL, *reply = NULL;
    if (redisGetReply(ctx, &ok) != REDIS_OK)
        return NULL;
    bool accepted = is(ok, "OK");
    freeReplyObject(ok);
    if (redisGetReply(ctx, &reply) != REDIS_OK)
        return NULL;
    if (!accepted) {
        freeReplyObject(reply);
        ctx->err = REDIS_ERR_OTHER;
        snprintf(ctx->errstr, sizeof ctx->errstr, "ASKING refused");
        return NULL;
    }
    return reply;
}

static bool starts(const redisReply *r, const char *word)
{
    size_t n = strlen(word);
    return r->type == REDIS_REPLY_ERROR && strncmp(r->str, word, n) == 0 &&
           (r->str[n] == ' ' || r->str[n] == '\0');
}

static redisReply *follow(struct rl_cluster *cl, struct rl_cluster_conns *cc, int slot, int argc,
                          const char **argv, const size_t *lens, char *err, size_t err_len)
{
    char why[256] = "";
    unsigned wait_ms = WAIT_FIRST_MS;
    int node = rl_cluster_slot_owner(cl, slot < 0 ? 0 : (unsigned)slot);
    bool asking = false, reloaded = false;
    uint64_t deadline = monotonic_ms() + RL_CLUSTER_TIMEOUT_MS;
    for (int tries = 0; tries < RL_CLUSTER_MAX_TRIES; tries++) {
        if (tries > 0 && monotonic_ms() > deadline) {
            snprintf(err, err_len, "cluster: gave up after %d ms: %s", RL_CLUSTER_TIMEOUT_MS, why);
            return NULL;
        }
        if (node < 0) {
            char refresh_err[200];
            if (rl_cluster_refresh(cl, refresh_err, sizeof refresh_err) != 0)
                snprintf(why, sizeof why, "no node answers with a slot map: %s", refresh_err);
            node = rl_cluster_slot_owner(cl, slot < 0 ? 0 : (unsigned)slot);
            if (node < 0) {
                if (why[0] == '\0')
                    snprintf(why, sizeof why, "slot %d has no primary", slot);
                pause_ms(wait_ms);
                wait_ms = wait_ms * 2 < WAIT_MOST_MS ? wait_ms * 2 : WAIT_MOST_MS;
                continue;
            }
        }
        redisContext *ctx = node_context(cl, cc, node, why, sizeof why);
        redisReply *reply = ctx ? send_once(ctx, asking, argc, argv, lens) : NULL;
        if (reply == NULL) {
            if (ctx) {
                snprintf(why, sizeof why, "lost the connection to %s: %s", cl->node[node],
                         ctx->errstr);
                drop(cc, node);
            }
            /* the node died or stopped serving: ask the others who serves now */
            char refresh_err[200];
            (void)rl_cluster_refresh(cl, refresh_err, sizeof refresh_err);
            pause_ms(wait_ms);
            wait_ms = wait_ms * 2 < WAIT_MOST_MS ? wait_ms * 2 : WAIT_MOST_MS;
            node = rl_cluster_slot_owner(cl, slot < 0 ? 0 : (unsigned)slot);
            asking = false;
            continue;
        }
        unsigned to_slot;
        if (starts(reply, "MOVED") || starts(reply, "ASK")) {
            bool moved = starts(reply, "MOVED");
            int target = redirect_target(cl, reply->str, node, &to_slot);
            snprintf(why, sizeof why, "%.200s (from %s)", reply->str, cl->node[node]);
            freeReplyObject(reply);
            if (target < 0) {
                snprintf(err, err_len, "cluster: cannot follow %s", why);
                return NULL;
            }
            /* statistics: nothing is ordered by them */
            atomic_fetch_add_explicit(&cl->redirects, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&redirects_total, 1, memory_order_relaxed);
            if (moved)
                atomic_store_explicit(&cl->owner[to_slot], (uint16_t)(target + 1),
                                      memory_order_relaxed);
            node = target;
            asking = !moved;
            continue;
        }
        if (starts(reply, "TRYAGAIN") || starts(reply, "CLUSTERDOWN")) {
            snprintf(why, sizeof why, "%.200s (from %s)", reply->str, cl->node[node]);
            freeReplyObject(reply);
            atomic_fetch_add_explicit(&cl->waits, 1, memory_order_relaxed); /* a statistic */
            pause_ms(wait_ms);
            wait_ms = wait_ms * 2 < WAIT_MOST_MS ? wait_ms * 2 : WAIT_MOST_MS;
            asking = false;
            node = rl_cluster_slot_owner(cl, slot < 0 ? 0 : (unsigned)slot);
            continue;
        }
        if (starts(reply, "NOSCRIPT") && cl->prepare && !reloaded) {
            snprintf(why, sizeof why, "%.200s (from %s)", reply->str, cl->node[node]);
            freeReplyObject(reply);
            reloaded = true; /* once per command: a node that keeps forgetting is an error */
            atomic_fetch_add_explicit(&cl->reloads, 1, memory_order_relaxed); /* a statistic */
            if (cl->prepare(cl->prepare_arg, ctx, why, sizeof why) != 0) {
                drop(cc, node);
                snprintf(err, err_len, "cluster: reloading the scripts on %s: %s", cl->node[node],
                         why);
                return NULL;
            }
            continue;
        }
        return reply;
    }
    snprintf(err, err_len, "cluster: gave up after %d tries: %s", RL_CLUSTER_MAX_TRIES, why);
    return NULL;
}

redisReply *rl_cluster_command(struct rl_cluster *cl, struct rl_cluster_conns *cc, int slot,
                               int argc, const char **argv, const size_t *lens, char *err,
                               size_t err_len)
{
    sigset_t pipe_only, old;
    if (cc->mask_sigpipe) {
        sigemptyset(&pipe_only);
        sigaddset(&pipe_only, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    }
    redisReply *reply = follow(cl, cc, slot, argc, argv, lens, err, err_len);
    if (cc->mask_sigpipe) {
        sigset_t pending;
        struct timespec zero = {0, 0};
        if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
            sigtimedwait(&pipe_only, NULL, &zero);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    return reply;
}
