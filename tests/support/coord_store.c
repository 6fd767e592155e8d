/* coord_store.c — see coord_store.h. */
#include "coord_store.h"

#include "random_trace.h"
#include "test_util.h"
#include "algorithms/coord/coord_redis.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull

const char *const rl_test_coord_stores[] = {"central", "lease", "lease:k=3", "report",
                                            "gtb",     "grd",   "fps",       NULL};

struct rl_coord_params rl_test_coord_params(const char *spec, const struct rl_coord **coord)
{
    struct rl_coord_params p = {.limit = 20,
                                .interval_ns = 100 * MS,
                                .nodes = RL_TEST_COORD_NODES,
                                .keys = RL_TEST_COORD_KEYS,
                                .sync_ns = 10 * MS,
                                .delay_ns = 2 * MS};
    char err[256];
    EXPECT_FATAL(rl_coord_parse(spec, coord, &p, err, sizeof err) == 0, "%s: %s", spec, err);
    return p;
}

/* A run prefix no other test or run shares. */
void rl_test_coord_prefix(char *buf, size_t len)
{
    static unsigned runs;
    snprintf(buf, len, "test.%ld.%u", (long)getpid(), ++runs);
}

/* A grant the C store made, for a later RETURN to name. */
struct grant {
    uint32_t key;
    uint64_t ref, amount;
};

/* The next message for strategy coord: its op and numbers as the nodes
 * would send them, pushed to the edges (more than was granted back, ids
 * already out of the window, ids never given). */
static struct rl_coord_msg next_message(const struct rl_coord *coord,
                                        const struct rl_coord_params *p, uint64_t *rng,
                                        const struct grant *grants, size_t granted)
{
    uint64_t r = rl_test_xorshift64(rng);
    struct rl_coord_msg m = {.node = (uint32_t)(r % RL_TEST_COORD_NODES),
                             .key = (uint32_t)(r / 7 % RL_TEST_COORD_KEYS)};
    uint64_t x = rl_test_xorshift64(rng);
    if (strcmp(coord->name, "central") == 0) {
        m.op = RL_COORD_DECIDE;
        m.value = x % 5; /* 0 too: a free attempt is still stamped */
    } else if (strcmp(coord->name, "lease") == 0) {
        if (granted > 0 && x % 3 == 0) {
            const struct grant *g = &grants[x / 3 % granted];
            m.op = RL_COORD_RETURN;
            m.key = g->key;
            m.ref = g->ref;
            m.value = x / 7 % (g->amount + 2);
            if (x % 11 == 0)
                m.ref = x % 2 ? UINT64_MAX : g->ref + 1000; /* none, or never given */
        } else {
            m.op = RL_COORD_TAKE;
            m.value = x % 4 == 0 ? p->lease_k : x / 4 % (p->limit / 2) + 1;
        }
    } else {
        m.op = RL_COORD_SYNC;
        m.ref = x % 1000;
        bool demand = strcmp(coord->name, "grd") == 0 || strcmp(coord->name, "fps") == 0;
        m.value = demand ? x % 5000000 : x % 4 == 0 ? 0 : x % 6;
    }
    return m;
}

/* count messages from t0 on: each served by coord's C serve and through
 * one of two handles of one prefix on remote; every reply the same. The C
 * store sees the time each key's store uses (the newest so far, when a
 * node's clock steps back), which is what the script must answer. */
void rl_test_coord_same_as_c(const char *spec, const char *remote, uint64_t seed, size_t count,
                             uint64_t t0)
{
    const struct rl_coord *coord;
    struct rl_coord_params p = rl_test_coord_params(spec, &coord);
    void *store = coord->store_new(&p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(store);
    char prefix[64], err[320] = "";
    rl_test_coord_prefix(prefix, sizeof prefix);
    struct rl_coord_redis *r[2];
    for (int i = 0; i < 2; i++) {
        r[i] = rl_coord_redis_open(coord, &p, remote, prefix, err, sizeof err);
        EXPECT_FATAL(r[i] != NULL, "%s: open: %s", spec, err);
    }
    struct grant grants[64];
    size_t granted = 0;
    uint64_t rng = seed, t = t0, key_time[RL_TEST_COORD_KEYS] = {0};
    bool same = true;
    size_t served = 0;
    for (size_t i = 0; i < count && same; i++, served++) {
        /* on a grid of I/20 mostly, so that entries leave the window at
         * the very time of a later message, where an off-by-one shows */
        uint64_t step = rl_test_xorshift64(&rng) % 100, x = rl_test_xorshift64(&rng);
        uint64_t grid = p.interval_ns / 20;
        if (step < 25)
            ; /* the same time again */
        else if (step < 30)
            t -= (x % 5 + 1) * grid; /* a clock behind */
        else if (step < 33)
            t += p.interval_ns + x % 20 * grid; /* a quiet spell */
        else if (step < 38)
            t += x % grid; /* off the grid */
        else
            t += (x % 3 + 1) * grid;
        struct rl_coord_msg m = next_message(coord, &p, &rng, grants, granted);
        struct rl_coord_msg want = m, got = m;
        uint64_t used = t > key_time[m.key] ? t : key_time[m.key];
        key_time[m.key] = used;
        coord->serve(store, &want, used);
        int rc = rl_coord_redis_serve(r[rng % 2], &got, t);
        EXPECT(rc == 0, "%s, message %zu: %s", spec, i, rl_coord_redis_last_error());
        same =
            rc == 0 && got.answer == want.answer && got.at_ns == want.at_ns && got.ref == want.ref;
        EXPECT(same,
               "%s seed %llu, message %zu (op %u node %u key %u value %llu ref %llu): "
               "redis answered %llu at %llu ref %llu, C %llu at %llu ref %llu",
               spec, (unsigned long long)seed, i, m.op, m.node, m.key, (unsigned long long)m.value,
               (unsigned long long)m.ref, (unsigned long long)got.answer,
               (unsigned long long)got.at_ns, (unsigned long long)got.ref,
               (unsigned long long)want.answer, (unsigned long long)want.at_ns,
               (unsigned long long)want.ref);
        if (m.op == RL_COORD_TAKE && want.answer > 0)
            grants[granted < 64 ? granted++ : rng % 64] =
                (struct grant){.key = m.key, .ref = want.ref, .amount = want.answer};
    }
    EXPECT_EQ(rl_coord_redis_calls(r[0]) + rl_coord_redis_calls(r[1]), served);
    for (int i = 0; i < 2; i++)
        rl_coord_redis_close(r[i]);
    coord->store_free(store);
}
