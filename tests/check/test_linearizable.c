/* test_linearizable.c — the linearizability checker checked: a brute-force
 * oracle (every order, every candidate time, no partitioning, no pruning,
 * no memory) agrees with witness replay and with the search on thousands of
 * tiny random histories; sequential sim runs of registry algorithms are
 * linearizable; hand-broken ones are not, with a 1-minimal counterexample;
 * the overshoot score; the budget; and the history reader's refusals. */
#include "tests/support/cli_run.h"
#include "tests/support/random_trace.h"
#include "tests/support/test_util.h"
#include "harness/check/history.h"
#include "harness/check/linearizable.h"
#include "harness/run/lin_model.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- two small sequential models, written here from their definitions --- */

#define MAX_KEYS 2

/* kind 0: a fixed window aligned at 0 (count per window of length I);
 * kind 1: GCRA (theoretical arrival time, burst L); kind 2: a registry
 * limiter through lin_model (the oracle test). */
struct toy_ctx {
    int kind;
    uint64_t limit, interval;
};

struct toy_state {
    uint64_t a[MAX_KEYS], b[MAX_KEYS]; /* window start and count, or tat */
    uint64_t limit;
};

static void *toy_create(void *ctx, uint64_t extra)
{
    struct toy_state *s = calloc(1, sizeof *s);
    if (s)
        s->limit = ((struct toy_ctx *)ctx)->limit + extra;
    return s;
}

static bool toy_step(void *ctx, void *state, uint64_t t, uint32_t key, uint64_t cost)
{
    const struct toy_ctx *c = ctx;
    struct toy_state *s = state;
    if (c->kind == 0) {
        uint64_t w = t / c->interval * c->interval;
        if (w != s->a[key]) {
            s->a[key] = w;
            s->b[key] = 0;
        }
        if (s->b[key] + cost > s->limit)
            return false;
        s->b[key] += cost;
        return true;
    }
    uint64_t e = c->interval / s->limit, tat = s->a[key] > t ? s->a[key] : t;
    if (tat + cost * e - t > s->limit * e)
        return false;
    s->a[key] = tat + cost * e;
    return true;
}

static void *toy_clone(void *ctx, const void *state)
{
    (void)ctx;
    struct toy_state *s = malloc(sizeof *s);
    if (s)
        memcpy(s, state, sizeof *s);
    return s;
}

static void toy_destroy(void *ctx, void *state)
{
    (void)ctx;
    free(state);
}

static uint64_t toy_hash(void *ctx, const void *state)
{
    (void)ctx;
    const struct toy_state *s = state;
    uint64_t h = s->limit;
    for (int k = 0; k < MAX_KEYS; k++)
        h = h * 31 + s->a[k] * 7 + s->b[k];
    return h;
}

static bool toy_equal(void *ctx, const void *x, const void *y)
{
    (void)ctx;
    return memcmp(x, y, sizeof(struct toy_state)) == 0;
}

/* Where the answer flips to want, from the definitions: the next window's
 * start (a fresh window admits cost <= L), or when GCRA's theoretical
 * arrival time has come close enough. */
static uint64_t toy_next_flip(void *ctx, const void *state, uint32_t key, uint64_t cost, bool want,
                              uint64_t from, uint64_t to)
{
    const struct toy_ctx *c = ctx;
    const struct toy_state *s = state;
    uint64_t flip = UINT64_MAX;
    if (c->kind == 0) {
        uint64_t w = from / c->interval * c->interval, next = w + c->interval;
        bool now = w != s->a[key] ? cost <= s->limit : s->b[key] + cost <= s->limit;
        if (now != want && want == (cost <= s->limit))
            flip = next;
    } else {
        uint64_t e = c->interval / s->limit, reach = s->a[key] + cost * e;
        if (want && cost <= s->limit && reach > s->limit * e && from < reach - s->limit * e)
            flip = reach - s->limit * e; /* rejected before, admitted from here */
    }
    return flip > from && flip <= to ? flip : UINT64_MAX;
}

static struct rl_lin_model toy_model(struct toy_ctx *ctx, bool remember)
{
    return (struct rl_lin_model){.ctx = ctx,
                                 .create = toy_create,
                                 .step = toy_step,
                                 .clone = toy_clone,
                                 .destroy = toy_destroy,
                                 .hash = remember ? toy_hash : NULL,
                                 .equal = remember ? toy_equal : NULL,
                                 .next_flip = toy_next_flip};
}

/* ---- the oracle ----------------------------------------------------------- */

/* True when the operations not in `placed` can follow, from the times
 * now[key] each key has reached and state, in some order at some candidate
 * times (linearizable.h), every answer given. The whole history at once:
 * keys are not split, one order holds them all. */
static bool oracle_from(const struct rl_history *h, const struct rl_lin_model *m, unsigned placed,
                        const uint64_t *now_of, const void *state)
{
    if (placed == (1u << h->len) - 1)
        return true;
    for (size_t j = 0; j < h->len; j++) {
        if (placed & (1u << j))
            continue;
        const struct rl_hist_op *o = &h->ops[j];
        uint64_t now = now_of[o->key];
        uint64_t from = o->call_ns > now ? o->call_ns : now;
        uint64_t cand[4] = {
            from, o->return_ns, o->has_witness ? o->witness_ns : o->return_ns,
            m->next_flip && from < o->return_ns
                ? m->next_flip(m->ctx, state, o->key, o->cost, o->admitted, from, o->return_ns)
                : UINT64_MAX};
        for (int c = 0; c < 4; c++) {
            uint64_t t = cand[c];
            if (t < now || t < o->call_ns || t > o->return_ns)
                continue;
            void *s = m->clone(m->ctx, state);
            uint64_t next[MAX_KEYS];
            memcpy(next, now_of, sizeof next);
            next[o->key] = t;
            bool ok = m->step(m->ctx, s, t, o->key, o->cost) == o->admitted &&
                      oracle_from(h, m, placed | 1u << j, next, s);
            m->destroy(m->ctx, s);
            if (ok)
                return true;
        }
    }
    return false;
}

static bool oracle(const struct rl_history *h, const struct rl_lin_model *m)
{
    void *s = m->create(m->ctx, 0);
    const uint64_t start[MAX_KEYS] = {0};
    bool ok = oracle_from(h, m, 0, start, s);
    m->destroy(m->ctx, s);
    return ok;
}

/* A random tiny history: 2–3 threads, up to 6 operations, 1 to max_keys keys. Its
 * answers come from a random sequential run at times inside the calls
 * (linearizable by construction) and then, half the time, one is flipped.
 * Witnesses: the run's times, random times in the call, or none. */
static void random_history(uint64_t *rng, const struct rl_lin_model *m, uint32_t max_keys,
                           struct rl_history *h)
{
    memset(h, 0, sizeof *h);
    unsigned threads = 2 + rl_test_xorshift64(rng) % 2;
    size_t n = 1 + rl_test_xorshift64(rng) % 6;
    uint32_t keys = 1 + rl_test_xorshift64(rng) % max_keys;
    int witnesses = (int)(rl_test_xorshift64(rng) % 3);
    uint64_t free_at[3] = {0, 0, 0};
    uint64_t at[6];
    for (size_t i = 0; i < n; i++) {
        unsigned t = rl_test_xorshift64(rng) % threads;
        uint64_t call = free_at[t] + rl_test_xorshift64(rng) % 8;
        uint64_t ret = call + rl_test_xorshift64(rng) % 12;
        free_at[t] = ret + rl_test_xorshift64(rng) % 2;
        at[i] = call + rl_test_xorshift64(rng) % (ret - call + 1);
        struct rl_hist_op op = {.thread = t,
                                .key = (uint32_t)(rl_test_xorshift64(rng) % keys),
                                .cost = 1 + rl_test_xorshift64(rng) % 2,
                                .call_ns = call,
                                .return_ns = ret,
                                .has_witness = witnesses == 1 ||
                                               (witnesses == 2 && rl_test_xorshift64(rng) % 2),
                                .line = (uint32_t)i + 1};
        op.witness_ns = witnesses == 1 ? at[i] : call + rl_test_xorshift64(rng) % (ret - call + 1);
        rl_history_push(h, &op);
    }
    h->key_count = keys;
    /* the sequential run: operations by their chosen time */
    size_t order[6];
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && at[order[j]] < at[order[j - 1]]; j--) {
            size_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    void *s = m->create(m->ctx, 0);
    for (size_t i = 0; i < n; i++) {
        struct rl_hist_op *o = &h->ops[order[i]];
        o->admitted = m->step(m->ctx, s, at[order[i]], o->key, o->cost);
    }
    m->destroy(m->ctx, s);
    if (rl_test_xorshift64(rng) % 2) {
        struct rl_hist_op *o = &h->ops[rl_test_xorshift64(rng) % n];
        o->admitted = !o->admitted;
    }
}

/* ---- the property --------------------------------------------------------- */

static void test_agrees_with_oracle(void)
{
    uint64_t rng = 0x1D2C3B4A59687ull;
    unsigned agree_yes = 0, agree_no = 0, by_witness = 0;
    /* registry limiters whose state is not one word: copied through their
     * snapshot, their flips found by bisection (lin_model.h); one key, since
     * one instance is one key's limiter */
    static const char *const registry[] = {"fw_cas",     "fw_expiry",    "sliding_log_sweeper",
                                           "fw_trylock", "fw_mutex",     "sliding_log",
                                           "freq_ctr",   "wheel_atomic", "tb_sharded"};
    unsigned registry_rounds = 0;
    for (int round = 0; round < 8000; round++) {
        struct toy_ctx ctx = {.kind = round % 4 < 2 ? round % 2 : 2,
                              .limit = 1 + rl_test_xorshift64(&rng) % 3,
                              .interval = 10 + 10 * (rl_test_xorshift64(&rng) % 2)};
        struct rl_lin_model m = toy_model(&ctx, round % 3 != 0);
        struct rl_lin_algo actx = {0};
        if (ctx.kind == 2) {
            const struct rl_algo *algo = rl_registry_find(registry[(round / 4) % 9]);
            struct rl_config cfg = {.limit = ctx.limit, .interval_ns = ctx.interval};
            if (strcmp(registry[(round / 4) % 9], "wheel_atomic") == 0)
                cfg.slots = 5; /* slots of 2 or 4 ns: boundaries inside the calls */
            if (strcmp(registry[(round / 4) % 9], "tb_sharded") == 0)
                cfg.slots = 2; /* a batch of 2 where L >= 2: tokens cached in the state */
            char err[256];
            EXPECT_FATAL(algo && algo->snapshot &&
                             rl_lin_model_of(algo, &cfg, &actx, &m, err, sizeof err) == 0,
                         "%s", registry[(round / 4) % 9]);
            EXPECT_FATAL(m.hash && m.next_flip && !m.clone_replays,
                         "%s: copied by replaying, not by its snapshot", algo->name);
            if (round % 3 == 0)
                m.hash = NULL, m.equal = NULL;
            registry_rounds++;
        }
        struct rl_history h;
        random_history(&rng, &m, ctx.kind == 2 ? 1 : MAX_KEYS, &h);
        bool want = oracle(&h, &m);
        for (int mode = 0; mode < 2; mode++) {
            struct rl_lin_options o = {.budget = 100000, .no_witness = mode == 1};
            struct rl_lin_result r;
            char err[256];
            EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
            EXPECT(r.verdict == (want ? RL_LIN_YES : RL_LIN_NO),
                   "round %d (%s, L=%llu, I=%llu, %zu ops, %s): oracle says %s, checker %s", round,
                   ctx.kind == 2   ? registry[(round / 4) % 9]
                   : ctx.kind == 1 ? "gcra"
                                   : "window",
                   (unsigned long long)ctx.limit, (unsigned long long)ctx.interval, h.len,
                   mode ? "search" : "witness first", want ? "yes" : "no",
                   rl_lin_verdict_name(r.verdict));
            by_witness += mode == 0 && strcmp(r.mode, "witness") == 0;
            if (r.verdict == RL_LIN_NO) {
                /* the counterexample fails on its own, and is 1-minimal */
                struct rl_history sub = {.key_count = h.key_count};
                for (size_t i = 0; i < r.counter_len; i++)
                    rl_history_push(&sub, &h.ops[r.counter[i]]);
                EXPECT(!oracle(&sub, &m), "round %d: the counterexample is linearizable", round);
                for (size_t drop = 0; drop < sub.len; drop++) {
                    struct rl_history less = {.key_count = h.key_count};
                    for (size_t i = 0; i < sub.len; i++)
                        if (i != drop)
                            rl_history_push(&less, &sub.ops[i]);
                    EXPECT(oracle(&less, &m),
                           "round %d: the counterexample still fails without op %zu", round, drop);
                    rl_history_free(&less);
                }
                rl_history_free(&sub);
            }
            rl_lin_result_free(&r);
        }
        agree_yes += want;
        agree_no += !want;
        rl_history_free(&h);
        rl_lin_model_free(&actx);
    }
    /* the random histories reach both answers and the witness path, often */
    EXPECT(agree_yes > 1000 && agree_no > 1000 && by_witness > 500 && registry_rounds == 4000,
           "%u linearizable, %u not, %u by witness, %u registry rounds: the generator lost its "
           "spread",
           agree_yes, agree_no, by_witness, registry_rounds);
}

/* The flip lin_model finds by bisection is, when from does not give the
 * wanted answer, the first time in (from, to] at which a copy of the state
 * does, found by trying every time (the oracle test above trusts it for
 * registry models), over random states of each registry model with a
 * snapshot. */
static void test_bisected_flips_are_first(void)
{
    static const char *const names[] = {"fw_cas",     "fw_expiry",    "sliding_log_sweeper",
                                        "fw_trylock", "fw_mutex",     "sliding_log",
                                        "freq_ctr",   "wheel_atomic", "tb_cas",
                                        "gcra_cas",   "tb_sharded"};
    uint64_t rng = 0xF11Bull;
    unsigned flips = 0;
    for (size_t a = 0; a < sizeof names / sizeof *names; a++) {
        for (int round = 0; round < 300; round++) {
            struct rl_config cfg = {.limit = 1 + rl_test_xorshift64(&rng) % 3,
                                    .interval_ns = 10 + 10 * (rl_test_xorshift64(&rng) % 2)};
            if (strcmp(names[a], "wheel_atomic") == 0)
                cfg.slots = 5;
            if (strcmp(names[a], "tb_sharded") == 0)
                cfg.slots = 2;
            struct rl_lin_algo actx;
            struct rl_lin_model m;
            char err[256];
            EXPECT_FATAL(rl_lin_model_of(rl_registry_find(names[a]), &cfg, &actx, &m, err,
                                         sizeof err) == 0 &&
                             m.next_flip,
                         "%s: %s", names[a], err);
            void *state = m.create(m.ctx, 0);
            uint64_t t = rl_test_xorshift64(&rng) % 20;
            for (int i = rl_test_xorshift64(&rng) % 6; i > 0; i--) {
                t += rl_test_xorshift64(&rng) % 8;
                m.step(m.ctx, state, t, 0, 1 + rl_test_xorshift64(&rng) % 2);
            }
            uint64_t cost = 1 + rl_test_xorshift64(&rng) % 2;
            uint64_t from = t + rl_test_xorshift64(&rng) % 5;
            uint64_t to = from + rl_test_xorshift64(&rng) % 40;
            bool answer = rl_test_xorshift64(&rng) % 2;
            uint64_t want = UINT64_MAX;
            for (uint64_t u = from; u <= to && want == UINT64_MAX; u++) {
                void *c = m.clone(m.ctx, state);
                bool v = m.step(m.ctx, c, u, 0, cost);
                m.destroy(m.ctx, c);
                if (v == answer && u == from)
                    break; /* no flip wanted */
                if (v == answer)
                    want = u;
            }
            uint64_t got = m.next_flip(m.ctx, state, 0, cost, answer, from, to);
            EXPECT(got == want,
                   "%s L=%llu I=%llu: flip in (%llu, %llu] at %llu, bisection says %llu", names[a],
                   (unsigned long long)cfg.limit, (unsigned long long)cfg.interval_ns,
                   (unsigned long long)from, (unsigned long long)to, (unsigned long long)want,
                   (unsigned long long)got);
            flips += want != UINT64_MAX;
            m.destroy(m.ctx, state);
            rl_lin_model_free(&actx);
        }
    }
    EXPECT(flips > 200, "only %u states had a flip in range", flips);
}

/* ---- hand-made histories --------------------------------------------------- */

static struct rl_hist_op op(uint32_t thread, uint64_t call, uint64_t ret, bool admitted)
{
    return (struct rl_hist_op){
        .thread = thread, .call_ns = call, .return_ns = ret, .cost = 1, .admitted = admitted};
}

/* A fixed window of L = 2: three admits inside one window are one too many
 * in any order (overshoot 1); two concurrent calls where the reject came
 * first in real time are explained by ordering the reject after. */
static void test_overshoot_and_order(void)
{
    struct toy_ctx ctx = {.kind = 0, .limit = 2, .interval = 100};
    struct rl_lin_model m = toy_model(&ctx, true);
    struct rl_history h = {.key_count = 1};
    struct rl_hist_op ops[] = {op(0, 10, 20, true), op(1, 15, 30, true), op(0, 25, 40, true),
                               op(1, 50, 60, false)};
    for (size_t i = 0; i < 4; i++)
        rl_history_push(&h, &ops[i]);
    struct rl_lin_options o = {.budget = 1000};
    struct rl_lin_result r;
    char err[256];
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_NO);
    EXPECT_EQ(r.overshoot_known, 1);
    EXPECT_EQ(r.overshoot, 1);
    EXPECT_EQ(r.counter_len, 3); /* the reject is not needed to show it */
    EXPECT(h.ops[r.culprit].admitted, "the marked answer is an admit");
    rl_lin_result_free(&r);
    rl_history_free(&h);

    /* the reject returned (at 30) before the second admit's call ended, and
     * the reject's call began first: it can still be placed last */
    struct rl_hist_op ops2[] = {op(0, 10, 20, true), op(1, 12, 30, false), op(0, 21, 25, true)};
    h = (struct rl_history){.key_count = 1};
    for (size_t i = 0; i < 3; i++)
        rl_history_push(&h, &ops2[i]);
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_YES);
    rl_lin_result_free(&r);
    /* ... but not when it returned before the second admit was called: a
     * reject no order explains, overshoot 0, counted as a false reject */
    h.ops[1].return_ns = 20;
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_NO);
    EXPECT_EQ(r.overshoot, 0);
    EXPECT_EQ(r.false_rejects, 1);
    EXPECT(!h.ops[r.culprit].admitted, "the marked answer is the reject");
    rl_lin_result_free(&r);
    rl_history_free(&h);

    /* one admit, then 19 rejects each alone in a fresh window: 19 false
     * rejects; a budget too small to rule out fewer keeps 19 as an upper
     * bound, overshoot 0 still known */
    h = (struct rl_history){.key_count = 1};
    for (uint64_t i = 0; i < 20; i++) {
        struct rl_hist_op x = op(0, 100 * i, 100 * i + 1, i == 0);
        rl_history_push(&h, &x);
    }
    for (int small = 0; small < 2; small++) {
        o.budget = small ? 25 : 1000;
        EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
        EXPECT(r.verdict == RL_LIN_NO && r.overshoot_known && r.overshoot == 0 &&
                   r.false_rejects == 19 && r.false_rejects_exact == !small && r.only_false_rejects,
               "budget %llu: overshoot %d/%llu, false rejects %llu (exact %d)",
               (unsigned long long)o.budget, r.overshoot_known, (unsigned long long)r.overshoot,
               (unsigned long long)r.false_rejects, r.false_rejects_exact);
        rl_lin_result_free(&r);
    }
    rl_history_free(&h);
}

/* A time that neither call, witness nor return gives: L = 1 per 10, one
 * admit in [0, 10); the admit spanning [5, 15] fits only in [10, 12] (the
 * reject returned at 12 must come after it), which only the window's
 * start, where the answer flips, offers. */
static void test_flip_times_explain(void)
{
    struct toy_ctx ctx = {.kind = 0, .limit = 1, .interval = 10};
    struct rl_lin_model m = toy_model(&ctx, true);
    struct rl_history h = {.key_count = 1};
    struct rl_hist_op ops[] = {op(0, 1, 2, true), op(1, 5, 15, true), op(0, 11, 12, false)};
    for (size_t i = 0; i < 3; i++)
        rl_history_push(&h, &ops[i]);
    struct rl_lin_options o = {.budget = 1000};
    struct rl_lin_result r;
    char err[256];
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_YES);
    rl_lin_result_free(&r);
    EXPECT(oracle(&h, &m), "the oracle, with flip times, finds the order");
    m.next_flip = NULL; /* call, witness and return alone cannot */
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_NO);
    rl_lin_result_free(&r);
    rl_history_free(&h);
}

/* fw_cas's accepted race, by hand (L = 2 per 20): the window of 100 is
 * full; at 130 thread 0 restarts it (admit) while thread 1, whose call
 * spans the restart, lost the CAS (reject). In any order thread 1 comes
 * after the window of 100 ended, finds room (or restarts it itself) and
 * admits: a reject no order explains. Every admit is explained, so the
 * verdict is not linearizable with overshoot 0 and one false reject. */
static void test_fw_cas_false_reject(void)
{
    struct rl_config cfg = {.limit = 2, .interval_ns = 20};
    struct rl_lin_algo actx;
    struct rl_lin_model m;
    char err[256];
    EXPECT_FATAL(rl_lin_model_of(rl_registry_find("fw_cas"), &cfg, &actx, &m, err, sizeof err) == 0,
                 "%s", err);
    struct rl_history h = {.key_count = 1};
    struct rl_hist_op ops[] = {op(0, 100, 101, true), op(0, 102, 103, true), op(0, 104, 105, false),
                               op(0, 130, 140, true), op(1, 131, 139, false)};
    for (size_t i = 0; i < 5; i++)
        rl_history_push(&h, &ops[i]);
    struct rl_lin_options o = {.budget = 100000};
    struct rl_lin_result r;
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_NO);
    EXPECT_EQ(r.overshoot_known, 1);
    EXPECT_EQ(r.overshoot, 0);
    EXPECT_EQ(r.false_rejects, 1);
    EXPECT_EQ(r.only_false_rejects, 1);
    EXPECT_EQ(h.ops[r.culprit].thread, 1); /* the reject that lost the CAS */
    rl_lin_result_free(&r);
    /* the same reject turned into the admit it should have been: linearizable */
    h.ops[4].admitted = true;
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_YES);
    rl_lin_result_free(&r);
    /* and an extra admit in the full window is an overshoot, not a false reject */
    h.ops[2].admitted = true;
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_NO);
    EXPECT_EQ(r.overshoot, 1);
    EXPECT_EQ(r.only_false_rejects, 0);
    rl_lin_result_free(&r);
    rl_history_free(&h);
    rl_lin_model_free(&actx);
}

/* The fewest forgiven rejects, found in one pass (0-1 breadth-first, where
 * states are remembered), agree with bisection over searches that remember
 * nothing, on random tiny histories of both toy models with up to three
 * admits turned into rejects. */
static void test_fewest_false_rejects_agree(void)
{
    uint64_t rng = 0xFE3E57ull;
    unsigned compared = 0, several = 0;
    for (int round = 0; round < 4000; round++) {
        struct toy_ctx ctx = {.kind = round % 2,
                              .limit = 1 + rl_test_xorshift64(&rng) % 3,
                              .interval = 10 + 10 * (rl_test_xorshift64(&rng) % 2)};
        struct rl_lin_model m = toy_model(&ctx, true);
        struct rl_history h;
        random_history(&rng, &m, MAX_KEYS, &h);
        for (int k = (int)(rl_test_xorshift64(&rng) % 4); k > 0; k--) {
            struct rl_hist_op *o = &h.ops[rl_test_xorshift64(&rng) % h.len];
            o->admitted = false;
        }
        struct rl_lin_options o = {.budget = 1000000, .no_shrink = true};
        struct rl_lin_result one_pass, bisected;
        char err[256];
        EXPECT_FATAL(rl_lin_check(&h, &m, &o, &one_pass, err, sizeof err) == 0, "%s", err);
        m.hash = NULL, m.equal = NULL;
        EXPECT_FATAL(rl_lin_check(&h, &m, &o, &bisected, err, sizeof err) == 0, "%s", err);
        if (one_pass.overshoot_known && bisected.overshoot_known && one_pass.overshoot == 0 &&
            bisected.overshoot == 0) {
            EXPECT(one_pass.false_rejects_exact && bisected.false_rejects_exact &&
                       one_pass.false_rejects == bisected.false_rejects,
                   "round %d: one pass %llu (exact %d), bisection %llu (exact %d)", round,
                   (unsigned long long)one_pass.false_rejects, one_pass.false_rejects_exact,
                   (unsigned long long)bisected.false_rejects, bisected.false_rejects_exact);
            compared++;
            several += bisected.false_rejects >= 2;
        }
        rl_lin_result_free(&one_pass);
        rl_lin_result_free(&bisected);
        rl_history_free(&h);
    }
    EXPECT(compared > 1000 && several > 100, "%u compared, %u with 2 or more", compared, several);
}

/* A recorded 2-thread sliding_log_sweeper history
 * (tests/check/sweeper_late.history.csv: `stress --algo sliding_log_sweeper
 * --threads 2 --duration 30ms --limit 2 --interval 20us --history-max
 * 1500` on a loaded machine, whose sweeper thread woke late): false
 * rejects only, and their fewest number, 416, exact within 200,000 states.
 * Bisection, each of whose searches below 416 must exhaust every order,
 * ran out of that budget at "at most 417" (it reached 416 with 293,805
 * states: check --budget 1000000). */
static void test_recorded_sweeper_false_rejects_exact(void)
{
    struct rl_history h;
    char err[256];
    EXPECT_FATAL(rl_history_read("tests/check/sweeper_late.history.csv", &h, err, sizeof err) == 0,
                 "%s", err);
    struct rl_config cfg = {.limit = 2, .interval_ns = 20000u, .epoch_ns = h.epoch_ns};
    struct rl_lin_algo actx;
    struct rl_lin_model m;
    EXPECT_FATAL(rl_lin_model_of(rl_registry_find("sliding_log_sweeper"), &cfg, &actx, &m, err,
                                 sizeof err) == 0,
                 "%s", err);
    struct rl_lin_options o = {.budget = 200000, .no_shrink = true};
    struct rl_lin_result r;
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT(r.verdict == RL_LIN_NO && r.only_false_rejects && r.overshoot_known && r.overshoot == 0,
           "verdict %s, only false rejects %d, overshoot %llu", rl_lin_verdict_name(r.verdict),
           r.only_false_rejects, (unsigned long long)r.overshoot);
    EXPECT(r.false_rejects_exact && r.false_rejects == 416, "false rejects %s%llu",
           r.false_rejects_exact ? "" : "at most ", (unsigned long long)r.false_rejects);
    rl_lin_result_free(&r);
    rl_history_free(&h);
    rl_lin_model_free(&actx);
}

/* A recorded 2-thread fw_cas history (tests/check/fw_cas_race.history.csv:
 * `stress --algo fw_cas --threads 2 --duration 10ms --limit 2 --interval
 * 20us --history-max 2500`, kept because its lost restart CAS showed):
 * decided within `check`'s default budget of 10^6 states, as a false reject
 * only, and the verdict alone in states linear in its length. Copied by
 * replaying steps, its search spent that budget after placing 387 of its
 * 4753 operations. */
static void test_recorded_fw_cas_decided(void)
{
    struct rl_history h;
    char err[256];
    EXPECT_FATAL(rl_history_read("tests/check/fw_cas_race.history.csv", &h, err, sizeof err) == 0,
                 "%s", err);
    struct rl_config cfg = {.limit = 2, .interval_ns = 20000u, .epoch_ns = h.epoch_ns};
    struct rl_lin_algo actx;
    struct rl_lin_model m;
    EXPECT_FATAL(rl_lin_model_of(rl_registry_find("fw_cas"), &cfg, &actx, &m, err, sizeof err) == 0,
                 "%s", err);
    struct rl_lin_options o = {.budget = 1000000, .no_shrink = true, .no_overshoot = true};
    struct rl_lin_result r;
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT(h.len > 4000 && r.verdict == RL_LIN_NO && r.states <= 20 * (uint64_t)h.len,
           "%zu operations: %s after %llu states", h.len, rl_lin_verdict_name(r.verdict),
           (unsigned long long)r.states);
    rl_lin_result_free(&r);
    o = (struct rl_lin_options){.budget = 1000000};
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_NO);
    EXPECT(r.overshoot_known && r.overshoot == 0 && r.false_rejects == 1 && r.only_false_rejects,
           "overshoot %s %llu, false rejects %llu", r.overshoot_known ? "known" : "unknown",
           (unsigned long long)r.overshoot, (unsigned long long)r.false_rejects);
    rl_lin_result_free(&r);
    rl_lin_model_free(&actx);
    rl_history_free(&h);
}

/* Overlapping operations that need 40 states to place: a budget of 5 says
 * unknown, never a verdict, with how far it got. */
static void test_budget_gives_unknown(void)
{
    struct toy_ctx ctx = {.kind = 0, .limit = 100, .interval = 1000};
    struct rl_lin_model m = toy_model(&ctx, true);
    struct rl_history h = {.key_count = 1};
    for (uint32_t i = 0; i < 40; i++) {
        struct rl_hist_op o = op(i % 2, 10 * i + i % 2, 10 * i + 15, true);
        rl_history_push(&h, &o);
    }
    struct rl_lin_options o = {.budget = 5};
    struct rl_lin_result r;
    char err[256];
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_UNKNOWN);
    EXPECT(r.states <= 5, "%llu states past a budget of 5", (unsigned long long)r.states);
    EXPECT(r.unknown_ops == 40 && r.unknown_deepest == 5, "ops %zu, deepest %zu", r.unknown_ops,
           r.unknown_deepest);
    rl_lin_result_free(&r);
    o.budget = 40; /* exactly enough */
    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(r.verdict, RL_LIN_YES);
    rl_lin_result_free(&r);
    rl_history_free(&h);
}

/* ---- registry algorithms, sequential runs from sim ------------------------- */

static void sim_history(const struct rl_algo *a, const struct rl_config *cfg,
                        const struct rl_trace *trace, int shape, struct rl_history *h)
{
    struct rl_event_log log;
    struct rl_sim_outcome out;
    char err[256];
    memset(h, 0, sizeof *h);
    EXPECT_FATAL(rl_sim_run(a, cfg, trace, &log, &out, err, sizeof err) == 0, "%s", err);
    h->key_count = log.key_count;
    /* overlapping calls: the first 100 operations (algorithms whose state is
     * not one flat word are searched without memory, lin_model.h) */
    size_t len = shape == 2 && log.len > 100 ? 100 : log.len;
    for (size_t i = 0; i < len; i++) {
        const struct rl_event *e = &log.events[i];
        uint64_t t = RL_VIRTUAL_ORIGIN_NS + e->t_ns;
        struct rl_hist_op o = {.thread = 0,
                               .key = e->key,
                               .cost = e->n,
                               .call_ns = t,
                               .return_ns = t,
                               .witness_ns = t,
                               .has_witness = shape != 1,
                               .admitted = e->admitted};
        if (shape == 2) { /* alternate threads; each call stretched back over the gap */
            o.thread = (uint32_t)(i % 2);
            uint64_t prev = i >= 2 ? RL_VIRTUAL_ORIGIN_NS + log.events[i - 2].t_ns : 0;
            o.call_ns = prev + 1 < t && i >= 2 ? prev + 1 : t;
            o.has_witness = i % 3 != 0;
        }
        rl_history_push(h, &o);
    }
    rl_event_log_free(&log);
}

static void test_sim_runs_are_linearizable(void)
{
    static const char *const names[] = {"fw_mutex", "fw_cas",     "tb_mutex",    "tb_cas",
                                        "gcra_cas", "fw_aligned", "sliding_log", "wheel"};
    static const struct rl_test_trace_shape shape = {.salt = 0x11AE, .intervals = 4, .overload = 3};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct rl_config cfg;
        struct rl_trace trace;
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        for (size_t a = 0; a < sizeof names / sizeof names[0]; a++) {
            const struct rl_algo *algo = rl_registry_find(names[a]);
            EXPECT_FATAL(algo != NULL, "%s is not in the registry", names[a]);
            for (int form = 0; form < 3; form++) {
                struct rl_history h;
                sim_history(algo, &cfg, &trace, form, &h);
                struct rl_config mcfg = cfg;
                mcfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
                struct rl_lin_algo ctx;
                struct rl_lin_model m;
                char err[256];
                EXPECT_FATAL(rl_lin_model_of(algo, &mcfg, &ctx, &m, err, sizeof err) == 0, "%s",
                             err);
                struct rl_lin_options o = {.budget = 200000, .no_shrink = true};
                struct rl_lin_result r;
                EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
                /* a state the search cannot remember (not one flat word) may
                 * run out of budget on overlapping calls (wheel, seed 5):
                 * unknown, never no */
                bool remembered = algo->one_word_state != 0;
                EXPECT(r.verdict == RL_LIN_YES ||
                           (form == 2 && !remembered && r.verdict == RL_LIN_UNKNOWN),
                       "seed %llu %s form %d (%zu ops): %s (%s)", (unsigned long long)seed,
                       names[a], form, h.len, rl_lin_verdict_name(r.verdict), r.mode);
                if (form == 0)
                    EXPECT(strcmp(r.mode, "witness") == 0, "%s: mode %s", names[a], r.mode);
                rl_lin_result_free(&r);

                /* one reject turned into an admit the algorithm never gives:
                 * caught, with an admit marked */
                size_t flip = SIZE_MAX;
                for (size_t i = 0; i < h.len && flip == SIZE_MAX; i++)
                    if (!h.ops[i].admitted && h.ops[i].cost <= cfg.limit)
                        flip = i;
                if (flip != SIZE_MAX && form != 2) {
                    h.ops[flip].admitted = true;
                    o.no_shrink = false;
                    EXPECT_FATAL(rl_lin_check(&h, &m, &o, &r, err, sizeof err) == 0, "%s", err);
                    EXPECT(r.verdict == RL_LIN_NO && r.counter_len >= 1 &&
                               h.ops[r.culprit].admitted,
                           "seed %llu %s form %d: a false admit gives %s", (unsigned long long)seed,
                           names[a], form, rl_lin_verdict_name(r.verdict));
                    EXPECT(r.overshoot_known && r.overshoot >= 1, "%s: overshoot %llu", names[a],
                           (unsigned long long)r.overshoot);
                    rl_lin_result_free(&r);
                }
                rl_history_free(&h);
                rl_lin_model_free(&ctx);
            }
        }
        rl_trace_free(&trace);
    }
}

/* ---- the reader's refusals ------------------------------------------------- */

static void expect_refused(const char *text, const char *needle)
{
    struct rl_history h;
    char err[512] = "";
    EXPECT(rl_history_parse(text, strlen(text), "h.csv", &h, err, sizeof err) == -1 &&
               strstr(err, needle) != NULL,
           "'%s': wanted an error with '%s', got '%s'", text, needle, err);
    EXPECT(h.ops == NULL && h.len == 0, "a refused history leaves operations behind");
}

static void test_reader(void)
{
    const char *head = "thread,key,cost,call_ns,return_ns,answer,witness_ns\n";
    char text[512];
    struct rl_history h;
    char err[512];
    snprintf(text, sizeof text,
             "# ratelab history algo=tb_cas epoch_ns=7\n%s0,a,1,5,9,1,6\n"
             "1,b,2,6,8,0,\n",
             head);
    EXPECT_FATAL(rl_history_parse(text, strlen(text), "h.csv", &h, err, sizeof err) == 0, "%s",
                 err);
    EXPECT(strcmp(h.algo, "tb_cas") == 0 && h.has_epoch && h.epoch_ns == 7, "header: '%s' %llu",
           h.algo, (unsigned long long)h.epoch_ns);
    EXPECT(h.len == 2 && h.key_count == 2 && h.ops[0].has_witness && !h.ops[1].has_witness &&
               h.ops[1].cost == 2 && !h.ops[1].admitted,
           "fields read wrong");
    rl_history_free(&h);

    expect_refused("t_ns,key,n,admitted\n1,a,1,1\n", "call and return");
    expect_refused("", "empty");
    snprintf(text, sizeof text, "%s0,a,1,9,5,1,\n", head);
    expect_refused(text, "before its call");
    snprintf(text, sizeof text, "%s0,a,1,5,9,1,\n0,a,1,8,12,1,\n", head);
    expect_refused(text, "in flight at once");
    snprintf(text, sizeof text, "%s0,a,1,5,9,1,12\n", head);
    expect_refused(text, "outside its call");
    snprintf(text, sizeof text, "%s0,a,0,5,9,1,\n", head);
    expect_refused(text, "cost");
    snprintf(text, sizeof text, "%s0,a,1,5,9,2,\n", head);
    expect_refused(text, "answer");
    snprintf(text, sizeof text, "%s0,a,1,5,9\n", head);
    expect_refused(text, "fields");
}

/* ---- the command ----------------------------------------------------------- */

static void test_command(void)
{
    char dir[] = "/tmp/ratelab-lin-XXXXXX", path[64], svg[64], cmd[512];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/h.csv", dir);
    snprintf(svg, sizeof svg, "%s/c.svg", dir);
    FILE *f = fopen(path, "w");
    EXPECT_FATAL(f != NULL, "cannot write %s", path);
    /* fw_mutex, L = 2: three admits in one window, the third one too many
     * (the article's window treats the first interval after t = 0 as
     * closed, so the run's clock is well past it, as sim's is) */
    fprintf(f, "# ratelab history algo=fw_mutex epoch_ns=0\n"
               "thread,key,cost,call_ns,return_ns,answer,witness_ns\n"
               "0,k,1,5000000010,5000000020,1,5000000015\n"
               "1,k,1,5000000012,5000000030,1,5000000025\n"
               "0,k,1,5000000025,5000000040,1,5000000030\n");
    fclose(f);
    struct rl_cli_outcome *o = malloc(sizeof *o);
    EXPECT_FATAL(o != NULL, "out of memory");
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo fw_mutex --limit 2 --interval 1s --events %s --svg %s",
             path, svg);
    rl_cli_run(o, cmd);
    EXPECT(o->status == 1 && strstr(o->out, "not linearizable") && strstr(o->out, "3A!") &&
               strstr(o->out, "overshoot        1"),
           "exit %d:\n%s%s", o->status, o->out, o->err);
    EXPECT(access(svg, F_OK) == 0, "no SVG at %s", svg);
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo fw_mutex --limit 3 --interval 1s --events %s", path);
    rl_cli_run(o, cmd);
    EXPECT(o->status == 0 && strstr(o->out, "verdict          linearizable"), "exit %d:\n%s%s",
           o->status, o->out, o->err);

    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 3 --interval 1s --events %s", path);
    rl_cli_expect_usage_error(cmd, "recorded with fw_mutex");
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 3 --interval 1s --events %s --force",
             path);
    rl_cli_run(o, cmd);
    EXPECT(o->status == 0 || o->status == 1, "--force: exit %d %s", o->status, o->err);
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo fw_mutex --limit 3 --interval 1s --events %s "
             "--budget 0",
             path);
    rl_cli_expect_usage_error(cmd, "--budget");
    snprintf(cmd, sizeof cmd, "check --linearizable --limit 3 --interval 1s --events %s", path);
    rl_cli_expect_usage_error(cmd, "--algo");
    free(o);
    unlink(svg);
    unlink(path);
    rmdir(dir);
}

/* The budget's advice: a key decided by search needs at least one state
 * per operation, which --help says and an unknown verdict counts for its
 * key. 40 short operations with no witnesses (search mode) are unknown at
 * a budget of 20 and decided in exactly 40 states. */
static void test_budget_advice(void)
{
    char dir[] = "/tmp/ratelab-lin-XXXXXX", path[64], cmd[512];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/h.csv", dir);
    FILE *f = fopen(path, "w");
    EXPECT_FATAL(f != NULL, "cannot write %s", path);
    fprintf(f, "# ratelab history algo=tb_cas epoch_ns=0\n"
               "thread,key,cost,call_ns,return_ns,answer,witness_ns\n");
    for (int i = 0; i < 40; i++)
        fprintf(f, "%d,k,1,%d,%d,1,\n", i % 2, 1000000 + 1000 * i, 1000000 + 1000 * i + 10);
    fclose(f);
    struct rl_cli_outcome *o = malloc(sizeof *o);
    EXPECT_FATAL(o != NULL, "out of memory");
    rl_cli_run(o, "check --linearizable --help");
    EXPECT(o->status == 0 && strstr(o->out, "needs at least one state per") &&
               strstr(o->out, "raise --budget above its operations"),
           "--help does not say what to raise:\n%s", o->out);
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 1000 --interval 1s --events %s "
             "--budget 20",
             path);
    rl_cli_run(o, cmd);
    EXPECT(o->status == 3 && strstr(o->out, "verdict          unknown") &&
               strstr(o->out, "at least one state per operation: 40 for this"),
           "budget 20: exit %d:\n%s%s", o->status, o->out, o->err);
    snprintf(cmd, sizeof cmd,
             "check --linearizable --algo tb_cas --limit 1000 --interval 1s --events %s "
             "--budget 40",
             path);
    rl_cli_run(o, cmd);
    EXPECT(o->status == 0 && strstr(o->out, "states           40 (budget 40)"),
           "budget 40: exit %d:\n%s%s", o->status, o->out, o->err);
    free(o);
    unlink(path);
    rmdir(dir);
}

RL_TEST_SUITE("linearizable", {"agrees with a brute-force oracle", test_agrees_with_oracle},
              {"overshoot, false rejects and real-time order", test_overshoot_and_order},
              {"flip times explain what call and return cannot", test_flip_times_explain},
              {"bisected flips are the first change", test_bisected_flips_are_first},
              {"fw_cas's lost restart CAS: false rejects only", test_fw_cas_false_reject},
              {"a recorded fw_cas history is decided", test_recorded_fw_cas_decided},
              {"fewest false rejects: one pass agrees with bisection",
               test_fewest_false_rejects_agree},
              {"a recorded sweeper's false rejects, exact",
               test_recorded_sweeper_false_rejects_exact},
              {"a spent budget says unknown", test_budget_gives_unknown},
              {"sim runs are linearizable, broken ones caught", test_sim_runs_are_linearizable},
              {"history reader refusals", test_reader}, {"the command", test_command},
              {"the budget's advice: a state per operation", test_budget_advice})
