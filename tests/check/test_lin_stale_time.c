/* test_lin_stale_time.c — the stale-timestamp class of golang/go #71360
 * and #65508 (x/time/rate: the time is read before the limiter's lock is
 * taken, and the readings are applied in lock order, so a reading older
 * than the last one moves the bucket's `last` back and the interval between
 * them is credited twice) as a linearizability violation.
 *
 * The model here is ours, written from that description: a token bucket
 * under a lock whose caller passes a time it read before locking; advance
 * takes last = min(last, now), credits now − last, caps at B, and stores
 * last = now. Two callers race exactly as the issues describe (the later
 * reader locks first), and a third caller afterwards finds a bucket fuller
 * than any sequential order allows. The recorded history (call, return and
 * the time each call read: its witness) goes to the checker against tb_mutex,
 * ratelab's sequential token bucket of the same L, I and B; the same race
 * with the time read under the lock is linearizable. ratelab's bucket
 * promise (at most B + L in any window of I) holds on the same admits:
 * the bound alone misses what the checker names. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "harness/check/linearizable.h"
#include "harness/run/lin_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0    5000000000ull /* the run's clock at its epoch */
#define MS    1000000ull
#define BURST 2ull /* B; L = 1 per ms */

/* The bucket of the model: credit in ns (1 token = 1 ms of credit). */
struct stale_bucket {
    uint64_t credit_ns, last_ns;
};

/* x/time/rate's step as the issues describe it, with the time `now` the
 * caller read (before locking, in the broken caller). */
static bool stale_reserve(struct stale_bucket *b, uint64_t now)
{
    uint64_t last = b->last_ns < now ? b->last_ns : now; /* a stale now moves last back */
    uint64_t credit = b->credit_ns + (now - last);
    if (credit > BURST * MS)
        credit = BURST * MS;
    b->last_ns = now;
    if (credit < MS) {
        b->credit_ns = credit;
        return false;
    }
    b->credit_ns = credit - MS;
    return true;
}

static void push(struct rl_history *h, uint32_t thread, uint64_t call, uint64_t ret, uint64_t read,
                 bool admitted)
{
    struct rl_hist_op op = {.call_ns = T0 + call,
                            .return_ns = T0 + ret,
                            .witness_ns = T0 + read,
                            .cost = 1,
                            .thread = thread,
                            .key = 0,
                            .has_witness = true,
                            .admitted = admitted};
    CU_ASSERT_FATAL(rl_history_push(h, &op) == 0);
}

/* The race, times in µs after the epoch. stale: thread 1 read the time at
 * 20 µs, before the lock, and gets the lock after thread 2, which read
 * 1500 µs; fixed: thread 1 reads the time once it holds the lock (1550). */
static enum rl_lin_verdict race(bool stale, uint64_t *overshoot, uint64_t *admits)
{
    const uint64_t us = 1000;
    struct stale_bucket b = {.credit_ns = BURST * MS, .last_ns = 0}; /* full at the epoch */
    struct rl_history h = {.key_count = 1, .epoch_ns = T0, .has_epoch = true};
    /* thread 0 drains the bucket */
    push(&h, 0, 0, 5 * us, 1 * us, stale_reserve(&b, 1 * us));
    push(&h, 0, 6 * us, 10 * us, 8 * us, stale_reserve(&b, 8 * us));
    /* thread 2 reads 1500 and locks first; thread 1 then applies its time */
    push(&h, 2, 1490 * us, 1510 * us, 1500 * us, stale_reserve(&b, 1500 * us));
    uint64_t t1 = stale ? 20 * us : 1550 * us;
    push(&h, 1, 15 * us, 1560 * us, t1, stale_reserve(&b, t1));
    /* thread 0 again, after both returned */
    push(&h, 0, 2000 * us, 2005 * us, 2001 * us, stale_reserve(&b, 2001 * us));
    push(&h, 0, 2010 * us, 2015 * us, 2011 * us, stale_reserve(&b, 2011 * us));
    *admits = 0;
    for (size_t i = 0; i < h.len; i++)
        *admits += h.ops[i].admitted;

    struct rl_config cfg = {.limit = 1, .interval_ns = MS, .burst = BURST, .epoch_ns = T0};
    struct rl_lin_algo ctx;
    struct rl_lin_model m;
    char err[256];
    CU_ASSERT_FATAL(
        rl_lin_model_of(rl_registry_find("tb_mutex"), &cfg, &ctx, &m, err, sizeof err) == 0);
    struct rl_lin_options o = {.budget = 100000};
    struct rl_lin_result r;
    CU_ASSERT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0);
    enum rl_lin_verdict v = r.verdict;
    *overshoot = r.overshoot_known ? r.overshoot : UINT64_MAX;
    rl_lin_result_free(&r);
    rl_history_free(&h);
    return v;
}

static void test_stale_time_caught(void)
{
    uint64_t overshoot, admits;
    enum rl_lin_verdict v = race(true, &overshoot, &admits);
    EXPECT(v == RL_LIN_NO, "stale time: %s", rl_lin_verdict_name(v));
    EXPECT(overshoot >= 1 && overshoot != UINT64_MAX, "overshoot %llu",
           (unsigned long long)overshoot);
    CU_ASSERT(admits == 5);
    v = race(false, &overshoot, &admits);
    EXPECT(v == RL_LIN_YES, "time read under the lock: %s", rl_lin_verdict_name(v));
    CU_ASSERT(overshoot == 0);
}

/* The same attempts as a decision log: check --promise bucket (B + L in
 * any window of I) holds. */
static void test_bucket_promise_misses_it(void)
{
    char dir[] = "/tmp/ratelab-stale-XXXXXX", path[64], cmd[256];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/d.csv", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n,admitted,thread\n1000,k,1,1,0\n8000,k,1,1,0\n1500000,k,1,1,2\n"
          "1560000,k,1,0,1\n2001000,k,1,1,0\n2011000,k,1,1,0\n",
          f);
    fclose(f);
    static struct rl_cli_outcome o;
    snprintf(cmd, sizeof cmd,
             "check --events %s --limit 1 --interval 1ms --burst 2 --promise bucket", path);
    rl_cli_run(&o, cmd);
    EXPECT(o.status == 0 && strstr(o.out, "held                            yes"), "exit %d:\n%s%s",
           o.status, o.out, o.err);
    unlink(path);
    rmdir(dir);
}

RL_TEST_SUITE("lin_stale_time",
              {"x/time/rate's stale time in lock order is caught", test_stale_time_caught},
              {"the bucket promise holds on the same admits", test_bucket_promise_misses_it})
