/* test_lin_stream.c — streamed witness mode (check/lin_stream.h): on
 * histories in witness order whose answers the algorithm gives, it says
 * linearizable without reading them whole; a flipped answer, a key out of
 * order, a missing witness or a line the reader refuses fall back, and
 * whenever it says linearizable the whole-history check agrees. */
#include "tests/support/test_util.h"
#include "harness/check/lin_stream.h"
#include "harness/run/lin_model.h"
#include "workloads/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPS  400
#define KEYS 3

/* A history of algo at L = 3 per 1 ms: OPS operations on KEYS keys, 2
 * threads, witnesses rising, answers the sequential algorithm gives; then
 * `damage` (0 none, 1 an answer flipped, 2
 * two adjacent lines of one key swapped, 3 a witness left out, 4 a cost of 0). Written to path. */
static void write_history(const char *algo_name, const char *path, int damage, uint64_t seed)
{
    const struct rl_algo *algo = rl_registry_find(algo_name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_config cfg = {.limit = 3, .interval_ns = 1000000};
    struct rl_lin_algo ctx;
    struct rl_lin_model m;
    char err[256];
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &m, err, sizeof err) == 0);
    void *state[KEYS];
    for (int k = 0; k < KEYS; k++)
        state[k] = m.create(m.ctx, 0);
    struct rl_rng rng;
    rl_rng_seed(&rng, seed, 7);
    static char lines[OPS][96];
    uint32_t keys[OPS];
    uint64_t times[OPS];
    uint64_t t = 5000000000u, last_return[2] = {0, 0};
    for (int i = 0; i < OPS; i++) {
        t += rl_rng_next(&rng) % 20000;
        uint32_t key = (uint32_t)(rl_rng_next(&rng) % KEYS), thread = (uint32_t)(i % 2);
        uint64_t call = t - (t - last_return[thread] > 100 ? 100 : 0), ret = t + 50;
        last_return[thread] = ret;
        bool admit = m.step(m.ctx, state[key], t, key, 1);
        keys[i] = key;
        times[i] = t;
        snprintf(lines[i], sizeof lines[i], "%u,k%u,1,%llu,%llu,%d,%llu\n", thread, key,
                 (unsigned long long)call, (unsigned long long)ret, admit, (unsigned long long)t);
    }
    for (int k = 0; k < KEYS; k++)
        m.destroy(m.ctx, state[k]);
    int victim = OPS / 2, swap = -1;
    for (int i = 0; damage == 2 && i + 1 < OPS && swap < 0; i++)
        if (keys[i] == keys[i + 1] && times[i] < times[i + 1])
            swap = i;  /* two threads' lines: each thread stays in order, the key does not */
    if (damage == 1) { /* flip the answer of one operation */
        char *a = strrchr(lines[victim], ',') - 1;
        *a = *a == '1' ? '0' : '1';
    } else if (damage == 3) { /* leave one witness out */
        strcpy(strrchr(lines[victim], ',') + 1, "\n");
    } else if (damage == 4) {
        char *c = strchr(strchr(lines[victim], ',') + 1, ',') + 1;
        *c = '0';
    }
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "# ratelab history algo=%s epoch_ns=0\n"
            "thread,key,cost,call_ns,return_ns,answer,witness_ns\n",
            algo_name);
    for (int i = 0; i < OPS; i++) {
        int j = i == swap ? i + 1 : swap >= 0 && i == swap + 1 ? swap : i;
        fputs(lines[j], f);
    }
    fclose(f);
}

/* The streamed answer (0 linearizable, 1 fall back) and the whole check's
 * verdict (-1 when the reader refuses the file). */
static void judge(const char *algo_name, const char *path, int *streamed, int *whole)
{
    const struct rl_algo *algo = rl_registry_find(algo_name);
    struct rl_config cfg = {.limit = 3, .interval_ns = 1000000};
    struct rl_lin_algo ctx;
    struct rl_lin_model m;
    char err[256];
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &m, err, sizeof err) == 0);
    ctx.never_cloned = true;
    struct rl_lin_stream s;
    *streamed = rl_lin_stream_open(&s, path);
    if (*streamed == 0) {
        struct rl_lin_stream_result r;
        *streamed = rl_lin_stream_run(&s, &m, &r);
        rl_lin_stream_close(&s);
        if (*streamed == 0)
            CU_ASSERT(r.ops == OPS && r.keys == KEYS && r.threads == 2);
    }
    struct rl_history h;
    if (rl_history_read(path, &h, err, sizeof err) != 0) {
        *whole = -1;
        return;
    }
    struct rl_lin_model full;
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &full, err, sizeof err) == 0);
    struct rl_lin_options o = {.budget = 1000000, .no_overshoot = true};
    struct rl_lin_result r;
    CU_ASSERT_FATAL(rl_lin_check(&h, &full, &o, &r, err, sizeof err) == 0);
    *whole = (int)r.verdict;
    rl_lin_result_free(&r);
    rl_history_free(&h);
    rl_lin_model_free(&ctx);
}

static void test_streams_or_falls_back(void)
{
    char dir[] = "/tmp/ratelab-linstream-XXXXXX", path[64];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/h.csv", dir);
    static const char *const algos[] = {"tb_cas", "fw_mutex", "sliding_log"};
    for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
        for (uint64_t seed = 1; seed <= 20; seed++)
            for (int damage = 0; damage <= 4; damage++) {
                write_history(algos[a], path, damage, seed);
                int streamed, whole;
                judge(algos[a], path, &streamed, &whole);
                if (damage == 0)
                    EXPECT(streamed == 0 && whole == RL_LIN_YES,
                           "%s seed %llu: streamed %d, whole %d", algos[a],
                           (unsigned long long)seed, streamed, whole);
                else
                    EXPECT(streamed == 1, "%s seed %llu damage %d: streamed %d", algos[a],
                           (unsigned long long)seed, damage, streamed);
                if (streamed == 0)
                    EXPECT(whole == RL_LIN_YES, "streamed linearizable, whole %d", whole);
                if (damage == 4)
                    CU_ASSERT(whole == -1); /* the reader refuses cost 0 */
            }
    unlink(path);
    rmdir(dir);
}

/* A history of tb_cas at L = 3 per 1 ms over several read blocks (1 MiB
 * each): keys of 1 to 40 bytes (both sides of the parser's 16-byte keys),
 * some lines ending "\r\n", blank lines, numbers with leading zeros (the
 * field-by-field parser's lines among the fast parser's), and, when
 * `flip`, one answer flipped near the end. Returns the operations. */
static size_t write_big_history(const char *path, bool flip)
{
    const struct rl_algo *algo = rl_registry_find("tb_cas");
    struct rl_config cfg = {.limit = 3, .interval_ns = 1000000};
    struct rl_lin_algo ctx;
    struct rl_lin_model m;
    char err[256];
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &m, err, sizeof err) == 0);
    enum { KEYS_BIG = 40, OPS_BIG = 60000 };
    void *state[KEYS_BIG];
    char names[KEYS_BIG][48];
    for (int k = 0; k < KEYS_BIG; k++) {
        state[k] = m.create(m.ctx, 0);
        /* key k: k + 1 bytes */
        snprintf(names[k], sizeof names[k], "%0*d", k + 1, k);
    }
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "# ratelab history algo=tb_cas epoch_ns=0\n"
               "thread,key,cost,call_ns,return_ns,answer,witness_ns\n");
    struct rl_rng rng;
    rl_rng_seed(&rng, 11, 3);
    uint64_t t = 1000;
    for (int i = 0; i < OPS_BIG; i++) {
        t += 1 + rl_rng_next(&rng) % 30000;
        int k = (int)(rl_rng_next(&rng) % KEYS_BIG);
        bool admit = m.step(m.ctx, state[k], t, (uint32_t)k, 1);
        if (flip && i == OPS_BIG - 10)
            admit = !admit;
        const char *end = i % 7 == 0 ? "\r\n" : "\n";
        if (i % 11 == 0)
            fprintf(f, "%d,%s,01,%019llu,%llu,%d,%llu%s", i % 2, names[k], (unsigned long long)t,
                    (unsigned long long)t + 5, admit, (unsigned long long)t, end);
        else
            fprintf(f, "%d,%s,1,%llu,%llu,%d,%llu%s", i % 2, names[k], (unsigned long long)t,
                    (unsigned long long)t + 5, admit, (unsigned long long)t, end);
        if (i % 13 == 0)
            fputs(i % 2 ? "\n" : "\r\n", f);
    }
    CU_ASSERT(ftell(f) > 3 * (1 << 20));
    fclose(f);
    for (int k = 0; k < KEYS_BIG; k++)
        m.destroy(m.ctx, state[k]);
    return OPS_BIG;
}

/* Streamed across block ends, with long and short keys, both parsers'
 * lines and blank ones: linearizable with the full reader's counts; a
 * flipped answer falls back. */
static void test_streams_across_blocks(void)
{
    char dir[] = "/tmp/ratelab-linstream-XXXXXX", path[64];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/big.csv", dir);
    for (int flip = 0; flip <= 1; flip++) {
        size_t ops = write_big_history(path, flip);
        const struct rl_algo *algo = rl_registry_find("tb_cas");
        struct rl_config cfg = {.limit = 3, .interval_ns = 1000000};
        struct rl_lin_algo ctx;
        struct rl_lin_model m;
        char err[256];
        CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &m, err, sizeof err) == 0);
        ctx.never_cloned = true;
        struct rl_lin_stream s;
        int rc = rl_lin_stream_open(&s, path);
        struct rl_lin_stream_result r = {0};
        if (rc == 0) {
            rc = rl_lin_stream_run(&s, &m, &r);
            rl_lin_stream_close(&s);
        }
        rl_lin_model_free(&ctx);
        struct rl_history h;
        CU_ASSERT_FATAL(rl_history_read(path, &h, err, sizeof err) == 0);
        CU_ASSERT(h.len == ops && h.key_count == 40);
        if (!flip)
            EXPECT(rc == 0 && r.ops == h.len && r.keys == h.key_count && r.threads == 2,
                   "streamed %d: %llu ops, %u keys, %u threads", rc, (unsigned long long)r.ops,
                   r.keys, r.threads);
        else
            EXPECT(rc == 1, "a flipped answer streamed %d", rc);
        rl_history_free(&h);
    }
    unlink(path);
    rmdir(dir);
}

RL_TEST_SUITE("lin_stream",
              {"streams in-order histories, falls back otherwise", test_streams_or_falls_back},
              {"streams across read blocks, long keys, both parsers' lines",
               test_streams_across_blocks})
