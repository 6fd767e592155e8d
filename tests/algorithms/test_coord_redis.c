/* test_coord_redis.c — the coordination stores on a real redis-server
 * (algorithms/coord/coord_redis.c and lua/): for every strategy with a
 * store, a seeded random run of messages from several nodes on several
 * keys, served by the strategy's serve in C and by its Lua script through
 * two handles of one run prefix (two node processes), gets the same answer,
 * the same time and the same grant ids; time stays monotone per key; every
 * key expires; a dead server is -1 with an error line, never an answer.
 * The same identity on a Redis Cluster: test_coord_redis_cluster_slow.c. */
#include "algorithms/coord/coord_redis.h"
#include "harness/sys/redis_server.h"
#include "tests/support/coord_store.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull

/* Every strategy with a store, three seeds, times since the Unix epoch (past
 * Lua's 2^53) and since a run's own epoch. */
static void test_every_store_answers_as_c(void)
{
    const char *address = rl_test_redis_address();
    for (size_t c = 0; rl_test_coord_stores[c]; c++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            rl_test_coord_same_as_c(rl_test_coord_stores[c], address, seed * 0x9E3779B97F4A7C15ull,
                                    1500, seed == 3 ? 5 * MS : 1764000000123456789ull + seed);
}

/* Every key the stores write has an expiry, no longer than the handle's
 * (60 s here: the strategy's own needs are shorter). */
static void test_keys_expire(void)
{
    const char *address = rl_test_redis_address();
    for (size_t c = 0; rl_test_coord_stores[c]; c++) {
        const struct rl_coord *coord;
        struct rl_coord_params p = rl_test_coord_params(rl_test_coord_stores[c], &coord);
        char prefix[64], err[320] = "", command[160];
        rl_test_coord_prefix(prefix, sizeof prefix);
        struct rl_coord_redis *r = rl_coord_redis_open(coord, &p, address, prefix, err, sizeof err);
        EXPECT_FATAL(r != NULL, "%s", err);
        struct rl_coord_msg m = {.op = strcmp(coord->name, "central") == 0 ? RL_COORD_DECIDE
                                       : strcmp(coord->name, "lease") == 0 ? RL_COORD_TAKE
                                                                           : RL_COORD_SYNC,
                                 .key = 2,
                                 .value = 1};
        EXPECT(rl_coord_redis_serve(r, &m, 1764000000000000000ull) == 0, "%s",
               rl_coord_redis_last_error());
        const char *script = strcmp(coord->name, "gtb") == 0 ? "gtb"
                             : strcmp(coord->name, "grd") == 0 || strcmp(coord->name, "fps") == 0
                                 ? "drl"
                                 : "window";
        snprintf(command, sizeof command, "PTTL {rlc:%s:%s:2}", prefix, script);
        long long pttl = rl_test_redis_command(address, command);
        EXPECT(pttl > 50000 && pttl <= 60000, "%s: %s is %lld ms", rl_test_coord_stores[c], command,
               pttl);
        rl_coord_redis_close(r);
    }
}

/* A node whose clock is behind is served at the key's newest time; another
 * key keeps its own. */
static void test_time_monotone_per_key(void)
{
    const struct rl_coord *coord;
    struct rl_coord_params p = rl_test_coord_params("report", &coord);
    char prefix[64], err[320] = "";
    rl_test_coord_prefix(prefix, sizeof prefix);
    struct rl_coord_redis *r =
        rl_coord_redis_open(coord, &p, rl_test_redis_address(), prefix, err, sizeof err);
    EXPECT_FATAL(r != NULL, "%s", err);
    const uint64_t t = 1764000000999999999ull; /* ns just below a second */
    struct rl_coord_msg m = {.op = RL_COORD_SYNC, .key = 0, .value = 2};
    CU_ASSERT_EQUAL(rl_coord_redis_serve(r, &m, t), 0);
    EXPECT_EQ(m.at_ns, t);
    m.value = 3;
    CU_ASSERT_EQUAL(rl_coord_redis_serve(r, &m, t - 5 * MS), 0);
    EXPECT_EQ(m.at_ns, t);
    EXPECT_EQ(m.answer, 5);
    m = (struct rl_coord_msg){.op = RL_COORD_SYNC, .key = 1, .value = 1};
    CU_ASSERT_EQUAL(rl_coord_redis_serve(r, &m, t - 5 * MS), 0);
    EXPECT_EQ(m.at_ns, t - 5 * MS);
    m = (struct rl_coord_msg){.op = RL_COORD_SYNC, .key = 0};
    CU_ASSERT_EQUAL(rl_coord_redis_serve(r, &m, t + 100 * MS), 0);
    EXPECT_EQ(m.answer, 0); /* both reports, stamped at t, left the window at t + I */
    rl_coord_redis_close(r);
}

struct racer {
    struct rl_coord_redis *r;
    unsigned admits, errors;
};

static void *decide_100(void *arg)
{
    struct racer *w = arg;
    for (int i = 0; i < 100; i++) {
        struct rl_coord_msg m = {.op = RL_COORD_DECIDE, .node = (uint32_t)i % 4, .value = 1};
        if (rl_coord_redis_serve(w->r, &m, 1764000000000000000ull + (uint64_t)i) != 0)
            w->errors++;
        else
            w->admits += (unsigned)m.answer;
    }
    return NULL;
}

/* Four threads on one handle, each on its own connection, deciding on one
 * key within one window: L admits in all, every call counted. */
static void test_threads_share_one_handle(void)
{
    const struct rl_coord *coord;
    struct rl_coord_params p = rl_test_coord_params("central", &coord);
    char prefix[64], err[320] = "";
    rl_test_coord_prefix(prefix, sizeof prefix);
    struct rl_coord_redis *r =
        rl_coord_redis_open(coord, &p, rl_test_redis_address(), prefix, err, sizeof err);
    EXPECT_FATAL(r != NULL, "%s", err);
    struct racer w[4] = {{.r = r}, {.r = r}, {.r = r}, {.r = r}};
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, decide_100, &w[i]), 0);
    unsigned admits = 0, errors = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        admits += w[i].admits;
        errors += w[i].errors;
    }
    EXPECT_EQ(errors, 0);
    EXPECT_EQ(admits, p.limit);
    EXPECT_EQ(rl_coord_redis_calls(r), 400);
    rl_coord_redis_close(r);
}

/* A server that dies: -1 and a line saying so, the message as it was. */
static void test_dead_server_is_an_error(void)
{
    struct rl_redis_server server = {0};
    char err[320] = "", prefix[64];
    EXPECT_FATAL(rl_redis_server_start(&server, err, sizeof err) == 0, "%s", err);
    const struct rl_coord *coord;
    struct rl_coord_params p = rl_test_coord_params("central", &coord);
    rl_test_coord_prefix(prefix, sizeof prefix);
    struct rl_coord_redis *r =
        rl_coord_redis_open(coord, &p, server.address, prefix, err, sizeof err);
    EXPECT_FATAL(r != NULL, "%s", err);
    struct rl_coord_msg m = {.op = RL_COORD_DECIDE, .key = 1, .value = 1};
    CU_ASSERT_EQUAL(rl_coord_redis_serve(r, &m, 1000), 0);
    EXPECT_EQ(m.answer, 1);
    rl_redis_server_stop(&server);
    struct rl_coord_msg before = {.op = RL_COORD_DECIDE, .key = 1, .value = 1, .answer = 77};
    m = before;
    EXPECT(rl_coord_redis_serve(r, &m, 2000) == -1, "served on a stopped server: answer %llu",
           (unsigned long long)m.answer);
    EXPECT(memcmp(&m, &before, sizeof m) == 0, "the message changed");
    EXPECT(strstr(rl_coord_redis_last_error(), "redis") != NULL, "error line '%s'",
           rl_coord_redis_last_error());
    EXPECT_EQ(rl_coord_redis_calls(r), 2);
    rl_coord_redis_close(r);
    /* and one that was never there: no handle, one line */
    err[0] = '\0';
    EXPECT(rl_coord_redis_open(coord, &p, "unix:/nonexistent/rl.sock", prefix, err, sizeof err) ==
                   NULL &&
               strstr(err, "cannot connect") != NULL && strchr(err, '\n') == NULL,
           "open on no server: '%s'", err);
}

/* What open refuses, and split and local, which keep no store. */
static void test_open_refuses_and_storeless(void)
{
    const char *address = rl_test_redis_address();
    const struct rl_coord *coord;
    struct rl_coord_params p = rl_test_coord_params("central", &coord);
    const char *bad[] = {"", "a{b", "a}b", "a b",
                         "0123456789012345678901234567890123456789"
                         "0123456789012345678901234567890"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[320] = "";
        EXPECT(rl_coord_redis_open(coord, &p, address, bad[i], err, sizeof err) == NULL &&
                   strstr(err, "run prefix") != NULL,
               "prefix '%s': '%s'", bad[i], err);
    }
    char err[320] = "";
    p.limit = 1ull << 53;
    EXPECT(rl_coord_redis_open(coord, &p, address, "x", err, sizeof err) == NULL &&
               strstr(err, "2^53") != NULL,
           "L = 2^53: '%s'", err);
    p = rl_test_coord_params("central", &coord);
    struct rl_coord_redis *r = rl_coord_redis_open(coord, &p, address, "x", err, sizeof err);
    EXPECT_FATAL(r != NULL, "%s", err);
    struct rl_coord_msg m = {.op = RL_COORD_DECIDE, .key = RL_TEST_COORD_KEYS, .value = 1};
    EXPECT(rl_coord_redis_serve(r, &m, 1) == -1 &&
               strstr(rl_coord_redis_last_error(), "out of range") != NULL,
           "key beyond keys: '%s'", rl_coord_redis_last_error());
    m = (struct rl_coord_msg){.op = RL_COORD_DECIDE, .value = 1ull << 53};
    EXPECT(rl_coord_redis_serve(r, &m, 1) == -1, "value 2^53 served");
    EXPECT_EQ(rl_coord_redis_calls(r), 0);
    rl_coord_redis_close(r);
    for (const char *const *name = (const char *const[]){"split", "local", NULL}; *name; name++) {
        p = rl_test_coord_params(*name, &coord);
        r = rl_coord_redis_open(coord, &p, "unix:/nonexistent/rl.sock", "x", err, sizeof err);
        EXPECT_FATAL(r != NULL, "%s: %s", *name, err);
        m = (struct rl_coord_msg){.op = RL_COORD_SYNC, .value = 1};
        EXPECT(rl_coord_redis_serve(r, &m, 1) == -1 &&
                   strstr(rl_coord_redis_last_error(), "no store") != NULL,
               "%s: '%s'", *name, rl_coord_redis_last_error());
        rl_coord_redis_close(r);
    }
}

RL_TEST_SUITE("coord_redis", {"every store answers as C", test_every_store_answers_as_c},
              {"keys expire", test_keys_expire},
              {"time monotone per key", test_time_monotone_per_key},
              {"threads share one handle", test_threads_share_one_handle},
              {"dead server is an error", test_dead_server_is_an_error},
              {"open refuses, storeless strategies", test_open_refuses_and_storeless})
