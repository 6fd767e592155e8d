/* test_redis_cluster_faults.c — each fault primitive on a real private 3x1
 * cluster of its own: a stalled replica is stopped and resumed while the
 * cluster serves, a manual failover hands slot 0 to the replica and a
 * reshard moves half a primary's slots with their keys, each while a client
 * writes to them (no acknowledged write lost), and after a primary is
 * killed its replica serves within the node timeout plus a few seconds,
 * but not when it has none (waiting for ok fails); then nothing is left. */
#include "tests/support/cluster_fixture.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "harness/sys/redis_cluster.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static char proc_state(pid_t pid)
{
    char path[64], state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f && fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
        state = '?';
    if (f)
        fclose(f);
    return state;
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

/* A key whose slot is in [lo, hi], asked of a node (CLUSTER KEYSLOT). */
static void key_in_slots(unsigned port, const char *prefix, unsigned lo, unsigned hi, char *key,
                         size_t len)
{
    for (int i = 0; i < 100000; i++) {
        snprintf(key, len, "%s%d", prefix, i);
        redisReply *r = command(port, "CLUSTER KEYSLOT %s", key);
        long long slot = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
        if (r)
            freeReplyObject(r);
        if (slot >= lo && slot <= hi)
            return;
    }
    key[0] = '\0';
}

/* ---- a client writing while slots move ---------------------------------- */

#define WRITER_KEYS 8

struct writer {
    unsigned port;                   /* where to start */
    char keys[WRITER_KEYS][32];      /* keys in the slots that move */
    unsigned long done[WRITER_KEYS]; /* INCRs acknowledged, per key */
    atomic_ulong redirects;          /* MOVED and ASK followed */
    char failure[256];               /* the first unexpected reply */
    atomic_bool stop;
};

/* A connection to port, cached (one per node). */
static redisContext *writer_conn(redisContext **conns, unsigned *ports, unsigned port)
{
    for (int i = 0; i < 8; i++)
        if (ports[i] == port)
            return conns[i];
    for (int i = 0; i < 8; i++)
        if (ports[i] == 0) {
            struct timeval timeout = {2, 0};
            conns[i] = redisConnectWithTimeout("127.0.0.1", (int)port, timeout);
            if (conns[i] && conns[i]->err == 0)
                redisSetTimeout(conns[i], timeout);
            ports[i] = port;
            return conns[i];
        }
    return NULL;
}

/* INCR key, following MOVED (the slot has moved) and ASK (it is moving:
 * ASKING first); the reply's integer, or -1 with w->failure set. */
static long long redirected_incr(struct writer *w, redisContext **conns, unsigned *ports,
                                 const char *key, const char *command)
{
    unsigned port = w->port;
    bool asking = false;
    for (int hop = 0; hop < 16; hop++) {
        redisContext *ctx = writer_conn(conns, ports, port);
        if (ctx == NULL || ctx->err)
            break;
        if (asking) {
            redisReply *a = redisCommand(ctx, "ASKING");
            if (a)
                freeReplyObject(a);
        }
        redisReply *r = redisCommand(ctx, "%s %s", command, key);
        if (r == NULL)
            break;
        if (r->type == REDIS_REPLY_ERROR &&
            (strncmp(r->str, "MOVED ", 6) == 0 || strncmp(r->str, "ASK ", 4) == 0)) {
            asking = r->str[0] == 'A';
            const char *colon = strrchr(r->str, ':');
            port = colon ? (unsigned)atoi(colon + 1) : 0;
            if (!asking)
                w->port = port;
            atomic_fetch_add(&w->redirects, 1);
            freeReplyObject(r);
            continue;
        }
        long long value = r->type == REDIS_REPLY_INTEGER  ? r->integer
                          : r->type == REDIS_REPLY_STRING ? atoll(r->str)
                          : r->type == REDIS_REPLY_NIL    ? 0
                                                          : -1;
        if (value < 0 && w->failure[0] == '\0')
            snprintf(w->failure, sizeof w->failure, "%s %s: %s", command, key,
                     r->str ? r->str : "unexpected reply");
        freeReplyObject(r);
        return value;
    }
    if (w->failure[0] == '\0')
        snprintf(w->failure, sizeof w->failure, "%s %s: no answer after redirects", command, key);
    return -1;
}

static void *writer_run(void *arg)
{
    struct writer *w = arg;
    redisContext *conns[8] = {0};
    unsigned ports[8] = {0};
    while (!atomic_load(&w->stop) && w->failure[0] == '\0')
        for (int k = 0; k < WRITER_KEYS; k++)
            if (redirected_incr(w, conns, ports, w->keys[k], "INCR") > 0)
                w->done[k]++;
    for (int i = 0; i < 8; i++)
        if (conns[i])
            redisFree(conns[i]);
    return NULL;
}

/* Starts a writer on WRITER_KEYS keys, key k in slots [lo + span·k,
 * lo + span·k + span - 1], asked of the node at port. */
static pthread_t writer_start(struct writer *w, unsigned port, const char *prefix, unsigned lo,
                              unsigned span)
{
    memset(w, 0, sizeof *w);
    w->port = port;
    for (unsigned k = 0; k < WRITER_KEYS; k++) {
        key_in_slots(port, prefix, lo + span * k, lo + span * k + span - 1, w->keys[k],
                     sizeof w->keys[k]);
        EXPECT_FATAL(w->keys[k][0], "no key in slots %u-%u", lo + span * k,
                     lo + span * k + span - 1);
    }
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, writer_run, w) == 0);
    rl_test_sleep_ms(50);
    return t;
}

/* Stops the writer: it was redirected (the slots moved under it), saw no
 * error, and every INCR it had acknowledged is in the key's value. */
static void writer_check(struct writer *w, pthread_t t, const char *during)
{
    /* long enough for the writer to meet the new owner, however loaded the
     * machine */
    for (int ms = 0; ms < 2000 && atomic_load(&w->redirects) == 0; ms += 10)
        rl_test_sleep_ms(10);
    atomic_store(&w->stop, true);
    pthread_join(t, NULL);
    EXPECT(w->failure[0] == '\0', "the writer during the %s: %s", during, w->failure);
    EXPECT(atomic_load(&w->redirects) > 0, "the writer was never redirected during the %s", during);
    redisContext *conns[8] = {0};
    unsigned ports[8] = {0};
    for (int k = 0; k < WRITER_KEYS; k++) {
        long long value = redirected_incr(w, conns, ports, w->keys[k], "GET");
        EXPECT(w->done[k] > 0 && value == (long long)w->done[k],
               "%s, %s: %lu INCRs acknowledged, the value is %lld", during, w->keys[k], w->done[k],
               value);
    }
    for (int i = 0; i < 8; i++)
        if (conns[i])
            redisFree(conns[i]);
}

static void test_faults(void)
{
    static struct rl_redis_cluster c;
    char err[1024];
    EXPECT_FATAL(rl_redis_cluster_start(&c, 3, 1, err, sizeof err) == 0, "start: %s", err);
    uint64_t took;

    /* stall: the replica of slot 0's primary stops (state T), the cluster
     * still serves, resume continues it */
    int stalled = rl_redis_cluster_stall_replica(&c, -1, err, sizeof err);
    EXPECT_FATAL(stalled >= 0, "stall: %s", err);
    EXPECT_EQ(c.nodes[stalled].primary_of, 0);
    EXPECT(proc_state(c.nodes[stalled].pid) == 'T', "stalled replica state %c",
           proc_state(c.nodes[stalled].pid));
    EXPECT(rl_redis_cluster_wait_ok(&c, 5000000000ull, &took, err, sizeof err) == 0,
           "serves with a stalled replica: %s", err);
    EXPECT(rl_redis_cluster_resume_replica(&c, -1, err, sizeof err) == stalled, "resume: %s", err);
    EXPECT(proc_state(c.nodes[stalled].pid) != 'T', "resumed replica still stopped");

    /* manual failover: the replica of slot 0's primary takes slot 0 */
    static struct writer fw;
    pthread_t failover_writer = writer_start(&fw, c.nodes[0].port, "f", 0, 680);
    int promoted = rl_redis_cluster_failover(&c, -1, err, sizeof err);
    writer_check(&fw, failover_writer, "manual failover");
    EXPECT_FATAL(promoted >= 0, "failover: %s", err);
    EXPECT(rl_redis_cluster_wait_ok(&c, 10000000000ull, &took, err, sizeof err) == 0,
           "after failover: %s", err);
    EXPECT_EQ(rl_redis_cluster_slot_owner(&c, 0), promoted);
    EXPECT(c.nodes[promoted].primary && !c.nodes[0].primary && c.nodes[0].primary_of == promoted,
           "roles after failover: node %d primary %d, node 0 primary %d follows %d", promoted,
           c.nodes[promoted].primary, c.nodes[0].primary, c.nodes[0].primary_of);

    /* reshard: half of slot 0's primary's slots (the high ones) move to the
     * next primary, with their keys */
    int from = rl_redis_cluster_slot_owner(&c, 0);
    char key[32];
    key_in_slots(c.nodes[from].port, "k", 5000, 5460, key, sizeof key);
    EXPECT_FATAL(key[0], "no key found in slots 5000-5460");
    redisReply *r = command(c.nodes[from].port, "SET %s moved", key);
    EXPECT(r && r->type == REDIS_REPLY_STATUS, "SET %s on its primary: %s", key,
           r && r->str ? r->str : "no answer");
    if (r)
        freeReplyObject(r);
    /* a client writes keys of the moving slots all along */
    static struct writer w;
    pthread_t writer = writer_start(&w, c.nodes[from].port, "w", 2731, 340);
    int moved = rl_redis_cluster_reshard(&c, -1, -1, 0.5, err, sizeof err);
    writer_check(&w, writer, "reshard");
    EXPECT(moved == 2731, "reshard moved %d slots, want 2731 (half of 5461): %s", moved, err);
    int to = rl_redis_cluster_slot_owner(&c, 5460);
    EXPECT(to >= 0 && to != from && c.nodes[to].primary, "slot 5460 now on %d (was %d)", to, from);
    EXPECT_EQ(rl_redis_cluster_slot_owner(&c, 0), from);
    if (to >= 0) {
        r = command(c.nodes[to].port, "GET %s", key);
        EXPECT(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, "moved") == 0,
               "GET %s on the new owner: %s", key, r && r->str ? r->str : "no answer");
        if (r)
            freeReplyObject(r);
    }
    EXPECT(rl_redis_cluster_wait_ok(&c, 10000000000ull, &took, err, sizeof err) == 0,
           "after reshard: %s", err);

    /* kill the primary of slot 0: its replica serves within the node
     * timeout plus a few seconds of election */
    int killed_replica = -1;
    int killed = rl_redis_cluster_kill_primary(&c, -1, err, sizeof err);
    EXPECT_FATAL(killed >= 0, "kill-primary: %s", err);
    for (size_t i = 0; i < c.node_count; i++)
        if (!c.nodes[i].primary && c.nodes[i].primary_of == killed)
            killed_replica = (int)i;
    uint64_t bound = (RL_REDIS_CLUSTER_NODE_TIMEOUT_MS + 8000) * 1000000ull;
    EXPECT(rl_redis_cluster_wait_ok(&c, bound, &took, err, sizeof err) == 0,
           "after kill-primary: %s", err);
    EXPECT(rl_redis_cluster_slot_owner(&c, 0) == killed_replica,
           "slot 0 is served by %d, want the killed primary's replica %d",
           rl_redis_cluster_slot_owner(&c, 0), killed_replica);
    EXPECT(rl_redis_cluster_kill_primary(&c, killed, err, sizeof err) == -1,
           "a killed node cannot be killed again");

    /* a primary without a replica killed: the cluster never serves again,
     * and waiting says so in one line */
    EXPECT(rl_redis_cluster_kill_primary(&c, -1, err, sizeof err) == killed_replica,
           "kill the promoted replica: %s", err);
    err[0] = '\0';
    EXPECT(rl_redis_cluster_wait_ok(&c, 500000000ull, &took, err, sizeof err) == -1 &&
               strstr(err, "did not reach cluster_state:ok") && !strchr(err, '\n'),
           "a cluster missing slots: '%s'", err);

    static struct rl_redis_cluster copy;
    copy = c;
    rl_redis_cluster_stop(&c);
    for (size_t i = 0; i < copy.node_count; i++)
        EXPECT((copy.nodes[i].pid == 0 || kill(copy.nodes[i].pid, 0) != 0) &&
                   rl_test_port_free(copy.nodes[i].port),
               "node %zu (pid %d, port %u) outlived stop", i, (int)copy.nodes[i].pid,
               copy.nodes[i].port);
    struct stat st;
    EXPECT(stat(copy.dir, &st) != 0, "%s is still there after stop", copy.dir);
}

RL_TEST_SUITE("redis_cluster_faults",
              {"stall, failover, reshard, kill-primary on a 3x1 cluster", test_faults})
