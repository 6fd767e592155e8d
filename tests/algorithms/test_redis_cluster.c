/* test_redis_cluster.c — the Redis Cluster client (algorithms/redis/cluster/)
 * and every Redis limiter on a private 3x1 cluster: key slots (CRC16 and
 * hash tags), each reply the client follows (MOVED, ASK, TRYAGAIN,
 * CLUSTERDOWN, NOSCRIPT, a redirect loop) provoked on the live cluster
 * with CLUSTER SETSLOT, and the sim identity: on the same trace, every
 * Redis limiter decides on the cluster exactly as on one server. */
#include "tests/support/random_trace.h"
#include "tests/support/cluster_commands.h"
#include "tests/support/cluster_fixture.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "algorithms/redis/cluster/cluster_client.h"
#include "algorithms/redis/redis_common.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"
#include "harness/sys/redis_cluster.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- key slots ------------------------------------------------------------ */

static unsigned slot_of(const char *key)
{
    return rl_cluster_key_slot(key, strlen(key));
}

/* The specification's vector, then slots CLUSTER KEYSLOT gave on 7.0.15. */
static void test_crc16_vectors(void)
{
    EXPECT_EQ(rl_crc16_xmodem("123456789", 9), 0x31C3);
    EXPECT_EQ(slot_of("123456789"), 12739);
    EXPECT_EQ(rl_crc16_xmodem("", 0), 0);
    EXPECT_EQ(slot_of("foo"), 12182);
    EXPECT_EQ(slot_of("bar"), 5061);
    EXPECT_EQ(slot_of("hello"), 866);
}

/* Only the bytes between the first '{' and the first '}' after it, when
 * there is at least one. */
static void test_hash_tags(void)
{
    EXPECT_EQ(slot_of("{}"), rl_crc16_xmodem("{}", 2) % 16384);     /* empty: whole key */
    EXPECT_EQ(slot_of("{a}b"), slot_of("a"));                       /* the tag */
    EXPECT_EQ(slot_of("a{}b"), rl_crc16_xmodem("a{}b", 4) % 16384); /* empty: whole key */
    EXPECT_EQ(slot_of("{a"), rl_crc16_xmodem("{a", 2) % 16384);     /* unclosed: whole */
    EXPECT_EQ(slot_of("{a}{b}"), slot_of("a"));                     /* the first tag only */
    EXPECT_EQ(slot_of("{user1000}.following"), slot_of("{user1000}.followers"));
    EXPECT_EQ(slot_of("foo{}{bar}"), rl_crc16_xmodem("foo{}{bar}", 10) % 16384);
    EXPECT_EQ(slot_of("foo{{bar}}zap"), slot_of("{bar"));
    EXPECT_EQ(slot_of("foo{bar}{zap}"), slot_of("bar"));
    CU_ASSERT(slot_of("{a}b") != slot_of("{a}b" + 1)); /* the tag changes the slot here */
}

/* The server's own CLUSTER KEYSLOT agrees on keys of every shape. */
static void test_slots_match_the_server(void)
{
    rl_test_cluster();
    uint64_t state = 12345;
    for (int i = 0; i < 300; i++) {
        char key[40];
        uint64_t x = rl_test_xorshift64(&state);
        const char *shapes[] = {"k%llu", "{rl:%llu}x", "a{}%llu", "{%llu", "x{%llu}{y}"};
        snprintf(key, sizeof key, shapes[i % 5], (unsigned long long)(x % 100000));
        char server[32];
        rl_test_node_command(rl_test_cluster()->nodes[0].port, server, sizeof server,
                             "CLUSTER KEYSLOT %s", key);
        EXPECT((unsigned)atoi(server) == slot_of(key), "%s: server %s, client %u", key, server,
               slot_of(key));
    }
}

/* ---- replies, on the live cluster ------------------------------------------ */

static int noop_prepare(void *arg, redisContext *ctx, char *err, size_t err_len)
{
    (void)ctx, (void)err, (void)err_len;
    ++*(int *)arg;
    return 0;
}

static int prepared;

static struct rl_cluster *open_client(struct rl_cluster_conns **cc)
{
    char err[256] = "";
    const char *address = rl_test_cluster()->address;
    struct rl_cluster *cl =
        rl_cluster_open(address + strlen("cluster:"), noop_prepare, &prepared, err, sizeof err);
    EXPECT_FATAL(cl != NULL, "open: %s", err);
    *cc = rl_cluster_conns_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(*cc);
    return cl;
}

static unsigned port_of(struct rl_cluster *cl, int node)
{
    const char *a = rl_cluster_node_address(cl, (unsigned)node);
    return (unsigned)atoi(strrchr(a, ':') + 1);
}

static void node_id(unsigned port, char *id, size_t len)
{
    rl_test_node_command(port, id, len, "CLUSTER MYID");
}

/* A primary other than the one on `port`. */
static unsigned other_primary(struct rl_cluster *cl, unsigned port)
{
    unsigned nodes[8];
    unsigned n = rl_cluster_primaries(cl, nodes, 8);
    for (unsigned i = 0; i < n; i++)
        if (port_of(cl, (int)nodes[i]) != port)
            return port_of(cl, (int)nodes[i]);
    CU_FAIL_FATAL("one primary only");
    return 0;
}

/* SET key through a script, as the limiters call: 0, or -1 with err. */
static long long eval_set(struct rl_cluster *cl, struct rl_cluster_conns *cc, const char *key,
                          char *err, size_t err_len)
{
    const char *argv[] = {"EVAL", "redis.call('SET', KEYS[1], 'x', 'PX', 60000) return 1", "1",
                          key};
    size_t lens[4];
    for (int i = 0; i < 4; i++)
        lens[i] = strlen(argv[i]);
    redisReply *reply = rl_cluster_command(cl, cc, (int)slot_of(key), 4, argv, lens, err, err_len);
    if (reply == NULL)
        return -1;
    long long v = reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
    if (v < 0)
        snprintf(err, err_len, "%s", reply->str ? reply->str : "not an integer");
    freeReplyObject(reply);
    return v == 1 ? 0 : -1;
}

static long long asking_calls(unsigned port)
{
    char info[8192];
    rl_test_node_command(port, info, sizeof info, "INFO commandstats");
    const char *at = strstr(info, "cmdstat_asking:calls=");
    return at ? atoll(at + strlen("cmdstat_asking:calls=")) : 0;
}

/* ASK while a slot migrates (sent with ASKING, the map untouched), then
 * MOVED once it has moved (the map updated: the next call goes straight). */
static void test_ask_then_moved(void)
{
    struct rl_cluster_conns *cc;
    struct rl_cluster *cl = open_client(&cc);
    const char *key = "{rl:ask-moved}k";
    unsigned slot = slot_of(key);
    int owner = rl_cluster_slot_owner(cl, slot);
    CU_ASSERT_FATAL(owner >= 0);
    unsigned from = port_of(cl, owner), to = other_primary(cl, from);
    char from_id[64], to_id[64], reply[256], err[256] = "";
    node_id(from, from_id, sizeof from_id);
    node_id(to, to_id, sizeof to_id);
    rl_test_node_command(to, reply, sizeof reply, "CLUSTER SETSLOT %u IMPORTING %s", slot, from_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    rl_test_node_command(from, reply, sizeof reply, "CLUSTER SETSLOT %u MIGRATING %s", slot, to_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");

    long long asked = asking_calls(to);
    uint64_t redirects = rl_cluster_redirects(cl), total = rl_remote_redirects();
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == 0, "during the migration: %s", err);
    EXPECT_EQ(rl_cluster_redirects(cl) - redirects, 1); /* one ASK */
    EXPECT_EQ(rl_remote_redirects() - total, 1);        /* seen by the harness too */
    EXPECT_EQ(asking_calls(to) - asked, 1);             /* ASKING went to the target */
    EXPECT_EQ(rl_cluster_slot_owner(cl, slot), owner);  /* the map unchanged */
    rl_test_node_command(to, reply, sizeof reply, "EXISTS %s", key);
    EXPECT(strncmp(reply, "MOVED", 5) == 0, "without ASKING: %s", reply); /* not served yet */

    /* the migration ends (the source held no key of the slot) */
    rl_test_node_command(to, reply, sizeof reply, "CLUSTER SETSLOT %u NODE %s", slot, to_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    rl_test_node_command(from, reply, sizeof reply, "CLUSTER SETSLOT %u NODE %s", slot, to_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    redirects = rl_cluster_redirects(cl);
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == 0, "after the migration: %s", err);
    EXPECT_EQ(rl_cluster_redirects(cl) - redirects, 1); /* one MOVED */
    EXPECT_EQ(port_of(cl, rl_cluster_slot_owner(cl, slot)), to);
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == 0, "again: %s", err);
    EXPECT_EQ(rl_cluster_redirects(cl) - redirects, 1); /* the map knew: no more */
    rl_test_node_command(to, reply, sizeof reply, "EXISTS %s", key);
    CU_ASSERT_STRING_EQUAL(reply, "1");
    CU_ASSERT(rl_test_cluster_ok());
    rl_cluster_conns_free(cc);
    rl_cluster_close(cl);
}

/* A slot each of two primaries says the other serves: MOVED back and
 * forth until the bound, then a failure naming MOVED. */
static void test_redirect_loop_is_bounded(void)
{
    struct rl_cluster_conns *cc;
    struct rl_cluster *cl = open_client(&cc);
    const char *key = "{rl:loop}k";
    unsigned slot = slot_of(key);
    unsigned owner = port_of(cl, rl_cluster_slot_owner(cl, slot)), other = other_primary(cl, owner);
    char owner_id[64], other_id[64], reply[256], err[256] = "";
    node_id(owner, owner_id, sizeof owner_id);
    node_id(other, other_id, sizeof other_id);
    rl_test_node_command(owner, reply, sizeof reply, "CLUSTER SETSLOT %u NODE %s", slot, other_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    uint64_t redirects = rl_cluster_redirects(cl);
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == -1, "a loop answered");
    EXPECT(strstr(err, "gave up") && strstr(err, "MOVED"), "err: %s", err);
    EXPECT_EQ(rl_cluster_redirects(cl) - redirects, RL_CLUSTER_MAX_TRIES);
    rl_test_node_command(owner, reply, sizeof reply, "CLUSTER SETSLOT %u NODE %s", slot, owner_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == 0, "restored: %s", err);
    CU_ASSERT(rl_test_cluster_ok());
    rl_cluster_conns_free(cc);
    rl_cluster_close(cl);
}

/* A script over two keys of one slot, one of them already moved away
 * while the slot migrates: TRYAGAIN, waited on, then a failure naming it. */
static void test_tryagain_backs_off_then_fails(void)
{
    struct rl_cluster_conns *cc;
    struct rl_cluster *cl = open_client(&cc);
    const char *here = "{rl:try}here", *gone = "{rl:try}gone";
    unsigned slot = slot_of(here);
    unsigned from = port_of(cl, rl_cluster_slot_owner(cl, slot)), to = other_primary(cl, from);
    char from_id[64], to_id[64], reply[256], err[256] = "";
    node_id(from, from_id, sizeof from_id);
    node_id(to, to_id, sizeof to_id);
    EXPECT(eval_set(cl, cc, here, err, sizeof err) == 0, "set: %s", err);
    rl_test_node_command(to, reply, sizeof reply, "CLUSTER SETSLOT %u IMPORTING %s", slot, from_id);
    rl_test_node_command(from, reply, sizeof reply, "CLUSTER SETSLOT %u MIGRATING %s", slot, to_id);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    const char *argv[] = {"EVAL", "return 1", "2", here, gone};
    size_t lens[5];
    for (int i = 0; i < 5; i++)
        lens[i] = strlen(argv[i]);
    uint64_t waits = rl_cluster_waits(cl);
    redisReply *r = rl_cluster_command(cl, cc, (int)slot, 5, argv, lens, err, sizeof err);
    CU_ASSERT_PTR_NULL(r);
    EXPECT(strstr(err, "gave up") && strstr(err, "TRYAGAIN"), "err: %s", err);
    EXPECT_EQ(rl_cluster_waits(cl) - waits, RL_CLUSTER_MAX_TRIES);
    if (r)
        freeReplyObject(r);
    rl_test_node_command(from, reply, sizeof reply, "CLUSTER SETSLOT %u STABLE", slot);
    rl_test_node_command(to, reply, sizeof reply, "CLUSTER SETSLOT %u STABLE", slot);
    EXPECT(eval_set(cl, cc, here, err, sizeof err) == 0, "stable again: %s", err);
    CU_ASSERT(rl_test_cluster_ok());
    rl_cluster_conns_free(cc);
    rl_cluster_close(cl);
}

/* A slot served by nobody: the cluster goes down (full coverage required),
 * CLUSTERDOWN is waited on, then a failure naming it; the slot given back,
 * calls succeed again. */
static void test_clusterdown_backs_off_then_fails(void)
{
    struct rl_cluster_conns *cc;
    struct rl_cluster *cl = open_client(&cc);
    const char *key = "{rl:down}k";
    unsigned slot = slot_of(key);
    unsigned owner = port_of(cl, rl_cluster_slot_owner(cl, slot));
    char reply[256], err[256] = "";
    for (size_t i = 0; i < rl_test_cluster()->node_count; i++)
        rl_test_node_command(rl_test_cluster()->nodes[i].port, reply, sizeof reply,
                             "CLUSTER DELSLOTS %u", slot);
    uint64_t waits = rl_cluster_waits(cl);
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == -1, "answered while down");
    EXPECT(strstr(err, "gave up") && strstr(err, "CLUSTERDOWN"), "err: %s", err);
    EXPECT_EQ(rl_cluster_waits(cl) - waits, RL_CLUSTER_MAX_TRIES);
    rl_test_node_command(owner, reply, sizeof reply, "CLUSTER ADDSLOTS %u", slot);
    CU_ASSERT_STRING_EQUAL(reply, "OK");
    CU_ASSERT_FATAL(rl_test_cluster_ok());
    EXPECT(eval_set(cl, cc, key, err, sizeof err) == 0, "up again: %s", err);
    rl_cluster_conns_free(cc);
    rl_cluster_close(cl);
}

/* A limiter's scripts flushed on every primary: the next call reloads them
 * on its node and decides. */
static void test_noscript_reloads_on_the_node(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_noop");
    struct rl_config cfg = {.limit = 10, .interval_ns = 1000000000, .virtual_time = true};
    cfg.remote = rl_test_cluster()->address;
    char err[256] = "";
    void *state = algo->create(&cfg, err, sizeof err);
    EXPECT_FATAL(state != NULL, "create: %s", err);
    struct rl_redis *redis = state;
    struct rl_clock virtual_clock;
    struct rl_clock *clock = &virtual_clock;
    CU_ASSERT_FATAL(rl_clock_init(clock, "virtual", err, sizeof err) == 0);
    CU_ASSERT_EQUAL(algo->acquire(state, clock, 1, 1), RL_ADMIT);
    char reply[64];
    for (size_t i = 0; i < rl_test_cluster()->node_count; i++)
        rl_test_node_command(rl_test_cluster()->nodes[i].port, reply, sizeof reply, "SCRIPT FLUSH");
    uint64_t reloads = rl_redis_reloads(redis);
    EXPECT(algo->acquire(state, clock, 1, 1) == RL_ADMIT, "after the flush: %s",
           rl_redis_last_error());
    EXPECT_EQ(rl_redis_reloads(redis) - reloads, 1);
    EXPECT(algo->acquire(state, clock, 1, 1) == RL_ADMIT, "%s", rl_redis_last_error());
    EXPECT_EQ(rl_redis_reloads(redis) - reloads, 1);
    algo->destroy(state);
}

/* Seeds that do not answer: the limiter's create fails with one line. */
static void test_dead_seeds_fail_open(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_gcra");
    struct rl_config cfg = {.limit = 10, .interval_ns = 1000000000, .virtual_time = true};
    cfg.remote = "cluster:127.0.0.1:1,127.0.0.1:2";
    char err[256] = "";
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NULL(state);
    EXPECT(strstr(err, "redis_gcra: no slot map from the cluster at 127.0.0.1:1,127.0.0.1:2") &&
               strstr(err, "cannot connect") && strchr(err, '\n') == NULL,
           "err: %s", err);
    if (state)
        algo->destroy(state);
}

/* ---- threads ------------------------------------------------------------------ */

struct worker {
    const struct rl_algo *algo;
    void *state;
    uint64_t admits, errors;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct rl_clock clock;
    char err[128];
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    for (uint64_t i = 0; i < 200; i++) {
        enum rl_decision d = w->algo->acquire(w->state, &clock, i % 24, 1);
        w->admits += d == RL_ADMIT;
        w->errors += d == RL_ERROR;
    }
    return NULL;
}

/* Four threads on one instance over 24 keys (every primary): each opens its
 * own connections, nothing fails, and with the map loaded at open no call
 * is redirected (the steady state costs no redirect). */
static void test_threads_share_an_instance(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_gcra");
    struct rl_config cfg = {.limit = 1000, .interval_ns = 1000000000};
    cfg.remote = rl_test_cluster()->address;
    char err[256] = "";
    void *state = algo->create(&cfg, err, sizeof err);
    EXPECT_FATAL(state != NULL, "create: %s", err);
    struct worker workers[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        workers[i] = (struct worker){.algo = algo, .state = state};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
    }
    uint64_t admits = 0, errors = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        admits += workers[i].admits;
        errors += workers[i].errors;
    }
    EXPECT(errors == 0, "%llu errors; last: %s", (unsigned long long)errors, rl_redis_last_error());
    EXPECT_EQ(admits, 800); /* 24 keys of 1000: nobody refused */
    EXPECT_EQ(rl_redis_redirects(*(struct rl_redis **)state), 0);
    algo->destroy(state);
}

/* ---- failover ------------------------------------------------------------------ */

/* A primary killed under a limiter (a cluster of its own): calls on its
 * keys fail while its replica takes over, then succeed on the promoted
 * replica (the map reloaded, the scripts loaded there) without a new
 * limiter. */
static void test_killed_primary_is_replaced(void)
{
    struct rl_redis_cluster own;
    char err[1024] = "";
    EXPECT_FATAL(rl_redis_cluster_start(&own, 3, 1, err, sizeof err) == 0, "start: %s", err);
    const struct rl_algo *algo = rl_registry_find("redis_token_bucket");
    struct rl_config cfg = {.limit = 1000000, .interval_ns = 1000000000, .remote = own.address};
    void *state = algo->create(&cfg, err, sizeof err);
    EXPECT_FATAL(state != NULL, "create: %s", err);
    struct rl_clock clock;
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    for (uint64_t key = 0; key < 24; key++) /* every primary */
        CU_ASSERT_EQUAL(algo->acquire(state, &clock, key, 1), RL_ADMIT);
    int killed = rl_redis_cluster_kill_primary(&own, -1, err, sizeof err);
    EXPECT_FATAL(killed >= 0, "kill: %s", err);
    uint64_t errors = 0, served_after = 0;
    for (int round = 0; round < 200 && served_after < 24; round++) {
        served_after = 0;
        for (uint64_t key = 0; key < 24; key++) {
            enum rl_decision d = algo->acquire(state, &clock, key, 1);
            errors += d == RL_ERROR;
            served_after += d == RL_ADMIT;
        }
    }
    EXPECT(served_after == 24, "after the failover: %llu of 24 keys served; last: %s",
           (unsigned long long)served_after, rl_redis_last_error());
    CU_ASSERT(errors > 0); /* the outage was seen, as errors */
    algo->destroy(state);
    rl_redis_cluster_stop(&own);
}

/* A cluster of one primary: its node never learnt its own address, and its
 * slot map says "" for the host: the seed's host is used. */
static void test_one_node_cluster(void)
{
    struct rl_redis_cluster own;
    char err[1024] = "";
    EXPECT_FATAL(rl_redis_cluster_start(&own, 1, 0, err, sizeof err) == 0, "start: %s", err);
    const struct rl_algo *algo = rl_registry_find("redis_noop");
    struct rl_config cfg = {.limit = 10, .interval_ns = 1000000000, .remote = own.address};
    void *state = algo->create(&cfg, err, sizeof err);
    EXPECT(state != NULL, "create: %s", err);
    struct rl_clock clock;
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    if (state) {
        EXPECT(algo->acquire(state, &clock, 1, 1) == RL_ADMIT, "%s", rl_redis_last_error());
        algo->destroy(state);
    }
    rl_redis_cluster_stop(&own);
}

/* ---- sim identity ------------------------------------------------------------ */

static const char *const redis_limiters[] = {
    "redis_fixed_window", "redis_sliding_log",     "redis_sliding_log_scan",
    "redis_tb_article",   "redis_token_bucket",    "redis_token_bucket_servertime",
    "redis_gcra",         "redis_sliding_counter", "redis_noop"};

static void sim_on(const char *name, const char *remote, const struct rl_config *base,
                   const struct rl_trace *trace, struct rl_event_log *log,
                   struct rl_sim_outcome *out)
{
    struct rl_config cfg = *base;
    cfg.remote = remote;
    cfg.virtual_time = true;
    char err[256] = "";
    int rc = rl_sim_run(rl_registry_find(name), &cfg, trace, log, out, err, sizeof err);
    EXPECT_FATAL(rc == 0, "%s on %s: %s", name, remote, err);
    EXPECT(out->errors == 0, "%s on %s: %llu errors", name, remote,
           (unsigned long long)out->errors);
}

/* Every Redis limiter, on seeded traces over 16 keys (spread over the
 * three primaries): the cluster's decisions are the single server's, event
 * for event. */
static void test_sim_identity(void)
{
    const char *cluster = rl_test_cluster()->address;
    const char *single = rl_test_redis_address();
    const struct rl_test_trace_shape shape = {
        .salt = 2323, .scramble = true, .min_limit = 2, .burst = true, .intervals = 6};
    for (size_t a = 0; a < sizeof redis_limiters / sizeof *redis_limiters; a++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            struct rl_config cfg;
            struct rl_trace random = {0}, trace = {0};
            rl_test_random_trace(seed, &shape, &cfg, &random, NULL);
            for (size_t i = 0; i < random.len; i++) /* 16 keys: every primary serves some */
                CU_ASSERT_FATAL(rl_trace_push(&trace, random.attempts[i].t_ns,
                                              (uint32_t)((random.attempts[i].key * 7 + i) % 16),
                                              random.attempts[i].n) == 0);
            CU_ASSERT_FATAL(rl_trace_name_keys(&trace, 16) == 0);
            rl_trace_free(&random);
            struct rl_event_log one, many;
            struct rl_sim_outcome out_one, out_many;
            sim_on(redis_limiters[a], single, &cfg, &trace, &one, &out_one);
            sim_on(redis_limiters[a], cluster, &cfg, &trace, &many, &out_many);
            size_t differ = 0;
            for (size_t i = 0; i < one.len && i < many.len; i++)
                differ += memcmp(&one.events[i], &many.events[i], sizeof one.events[i]) != 0;
            EXPECT(one.len == many.len && differ == 0 && out_one.admits == out_many.admits,
                   "%s seed %llu: %zu of %zu events differ", redis_limiters[a],
                   (unsigned long long)seed, differ, one.len);
            CU_ASSERT(out_one.admits > 0);
            rl_event_log_free(&one);
            rl_event_log_free(&many);
            rl_trace_free(&trace);
        }
    for (size_t i = 0; i < rl_test_cluster()->node_count; i++) { /* each primary holds some */
        char keys[32];
        unsigned port = rl_test_cluster()->nodes[i].port;
        rl_test_node_command(port, keys, sizeof keys, "DBSIZE");
        char role[4096];
        rl_test_node_command(port, role, sizeof role, "INFO replication");
        if (strstr(role, "role:master"))
            EXPECT(atoll(keys) > 0, "primary on port %u holds no key", port);
    }
}

/* Last: the cluster and the server go, and nothing of them is left. */
static void test_stop(void)
{
    unsigned port = rl_test_cluster()->nodes[0].port;
    char dir[sizeof rl_test_cluster()->dir];
    snprintf(dir, sizeof dir, "%s", rl_test_cluster()->dir);
    rl_test_cluster_stop();
    rl_test_redis_stop();
    char reply[16];
    rl_test_node_command(port, reply, sizeof reply, "PING");
    CU_ASSERT_STRING_EQUAL(reply, "");
    EXPECT(access(dir, F_OK) != 0, "%s is left", dir);
}

RL_TEST_SUITE(
    "redis_cluster_client", {"CRC16 (XMODEM) vectors and slots", test_crc16_vectors},
    {"hash tags: {}, {a}b, a{}b, {a, {a}{b}", test_hash_tags},
    {"slots agree with CLUSTER KEYSLOT", test_slots_match_the_server},
    {"ASK: ASKING sent, map kept; MOVED: map updated once", test_ask_then_moved},
    {"a MOVED loop: bounded, then an error naming it", test_redirect_loop_is_bounded},
    {"TRYAGAIN: bounded backoff, then an error", test_tryagain_backs_off_then_fails},
    {"CLUSTERDOWN: bounded backoff, then an error", test_clusterdown_backs_off_then_fails},
    {"NOSCRIPT: the scripts reloaded on the node", test_noscript_reloads_on_the_node},
    {"seeds that do not answer: create fails, one line", test_dead_seeds_fail_open},
    {"four threads, one instance: no error, no redirect", test_threads_share_an_instance},
    {"a cluster of one node (its map names no host)", test_one_node_cluster},
    {"a killed primary: errors, then its promoted replica serves", test_killed_primary_is_replaced},
    {"sim: every Redis limiter decides on the cluster as on one server", test_sim_identity},
    {"the cluster stops", test_stop})
