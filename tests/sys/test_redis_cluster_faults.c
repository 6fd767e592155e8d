/* test_redis_cluster_faults.c — each fault primitive on a real private 3x1
 * cluster of its own: a stalled replica is stopped and resumed while the
 * cluster serves, a manual failover hands slot 0 to the replica, a reshard
 * moves half a primary's slots with their keys, and after a primary is
 * killed its replica serves within the node timeout plus a few seconds,
 * but not when it has none (waiting for ok fails); then nothing is left. */
#include "tests/support/cluster_fixture.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "harness/sys/redis_cluster.h"

#include <errno.h>
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
static void key_in_slots(unsigned port, unsigned lo, unsigned hi, char *key, size_t len)
{
    for (int i = 0; i < 100000; i++) {
        snprintf(key, len, "k%d", i);
        redisReply *r = command(port, "CLUSTER KEYSLOT %s", key);
        long long slot = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
        if (r)
            freeReplyObject(r);
        if (slot >= lo && slot <= hi)
            return;
    }
    key[0] = '\0';
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
    int promoted = rl_redis_cluster_failover(&c, -1, err, sizeof err);
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
    key_in_slots(c.nodes[from].port, 5000, 5460, key, sizeof key);
    EXPECT_FATAL(key[0], "no key found in slots 5000-5460");
    redisReply *r = command(c.nodes[from].port, "SET %s moved", key);
    EXPECT(r && r->type == REDIS_REPLY_STATUS, "SET %s on its primary: %s", key,
           r && r->str ? r->str : "no answer");
    if (r)
        freeReplyObject(r);
    int moved = rl_redis_cluster_reshard(&c, -1, -1, 0.5, err, sizeof err);
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
