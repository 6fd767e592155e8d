/* test_nodes_sim.c — many nodes, one limit: every strategy keeps the bound
 * docs/nodes.md derives for it on seeded runs built to press it (bursts,
 * a skewed and a moving hot spread, jitter, a demand step), the checker
 * sees the overshoot the coordinating ones allow, and a run repeats
 * exactly. */
#include "harness/run/nodes_sim.h"
#include "tests/support/test_util.h"
#include "workloads/generators.h"

#include <string.h>

#define MS 1000000ull

/* A generated workload of L=200 per 100 ms. */
static void workload(struct rl_trace *trace, const char *name, double rate, uint64_t seed)
{
    struct rl_workload_params w;
    rl_workload_defaults(&w, 200, 100 * MS);
    w.name = name;
    w.duration_ns = 3000 * MS;
    w.rate_per_s = rate;
    w.seed = seed;
    w.on_ns = 150 * MS;
    w.off_ns = 350 * MS;
    w.flash_at_ns = 1500 * MS;
    w.flash_len_ns = 500 * MS;
    w.flash_factor = 10;
    char err[256];
    EXPECT_FATAL(rl_workload_generate(&w, trace, err, sizeof err) == 0, "%s", err);
}

static struct rl_nodes_outcome run(const char *coord, uint32_t nodes, uint64_t sync_ns,
                                   const struct rl_node_spread *spread,
                                   const struct rl_trace *trace, double loss)
{
    struct rl_nodes_config cfg = {
        .p = {.limit = 200, .interval_ns = 100 * MS, .nodes = nodes, .sync_ns = sync_ns},
        .rtt_ns = 4 * MS,
        .jitter_ns = 3 * MS,
        .loss = loss,
        .spread = *spread,
        .seed = 7};
    char err[256];
    EXPECT_FATAL(rl_coord_parse(coord, &cfg.coord, &cfg.p, err, sizeof err) == 0, "%s", err);
    rl_nodes_prepare(&cfg, trace->key_count);
    struct rl_nodes_outcome out;
    EXPECT_FATAL(rl_nodes_sim_run(&cfg, trace, &out, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(out.attempts, trace->len);
    return out;
}

static const char *const bounded[] = {
    "central",           "split",  "local", "lease", "lease:k=30,ttl=40ms",
    "lease:k=20,ttl=2s", "report", "gtb",   "fps"};

/* Every bounded strategy, on every traffic shape: the checker's max_sliding
 * is within the derived bound, and the verdict says so. */
static void test_bounds_held(void)
{
    const char *names[] = {"poisson", "onoff", "flash"};
    struct rl_node_spread spreads[] = {
        {RL_SPREAD_EVEN, 0, 0}, {RL_SPREAD_SKEW, 1.5, 0}, {RL_SPREAD_HOT, 0, 200 * MS}};
    for (size_t w = 0; w < 3; w++) {
        struct rl_trace trace = {0};
        workload(&trace, names[w], 8000, 3 + w);
        for (size_t s = 0; s < 3; s++)
            for (size_t c = 0; c < sizeof bounded / sizeof bounded[0]; c++)
                for (uint64_t sync = 10 * MS; sync <= 50 * MS; sync *= 5) {
                    struct rl_nodes_outcome o = run(bounded[c], 8, sync, &spreads[s], &trace, 0);
                    uint64_t bound = rl_promised_bound(&o.promised);
                    EXPECT(o.held == RL_HELD_YES && o.global.max_sliding <= bound,
                           "%s on %s, spread %zu, T=%llums: max_sliding %llu, bound %llu, held %s",
                           bounded[c], names[w], s, (unsigned long long)(sync / MS),
                           (unsigned long long)o.global.max_sliding, (unsigned long long)bound,
                           rl_held_name(o.held));
                }
        rl_trace_free(&trace);
    }
}

/* The exact ones admit what one exact limiter would: never over L, and
 * central (one window for all) wastes nothing against the strong oracle. */
static void test_exact_strategies(void)
{
    struct rl_trace trace = {0};
    workload(&trace, "poisson", 8000, 11);
    struct rl_node_spread even = {RL_SPREAD_EVEN, 0, 0};
    struct rl_nodes_outcome central = run("central", 10, 50 * MS, &even, &trace, 0);
    struct rl_nodes_outcome split = run("split", 10, 50 * MS, &even, &trace, 0);
    EXPECT(central.global.max_sliding <= 200, "central %llu",
           (unsigned long long)central.global.max_sliding);
    EXPECT(split.global.max_sliding <= 200, "split %llu",
           (unsigned long long)split.global.max_sliding);
    EXPECT_EQ(central.store_calls, central.attempts);
    EXPECT_EQ(split.store_calls, 0);
    /* split rejects where a node's share is spent while others idle */
    EXPECT(split.admits < central.admits, "split %llu admits, central %llu",
           (unsigned long long)split.admits, (unsigned long long)central.admits);
    rl_trace_free(&trace);
}

/* Coordination by reports is not exact: on a step to 10× L with a slow
 * sync, report goes over L, which the checker must see (a checker that saw
 * nothing would make every bound above pass trivially). */
static void test_report_overshoots(void)
{
    struct rl_trace trace = {0};
    workload(&trace, "flash", 1000, 5);
    struct rl_node_spread even = {RL_SPREAD_EVEN, 0, 0};
    struct rl_nodes_outcome o = run("report", 20, 50 * MS, &even, &trace, 0);
    EXPECT(o.global.max_sliding > 200, "report max_sliding %llu",
           (unsigned long long)o.global.max_sliding);
    EXPECT(o.step_max > 1.0, "step_max %g", o.step_max);
    EXPECT(o.held == RL_HELD_YES, "held %s", rl_held_name(o.held));
    rl_trace_free(&trace);
}

/* One node alone, with round trips four times T: the bounds leave nothing
 * for other nodes, so report must keep L exactly and gtb 2L, which holds
 * only if a node's own hits in flight (sent, not yet answered) stay in its
 * view. */
static void test_one_node_exact(void)
{
    struct rl_trace trace = {0};
    workload(&trace, "poisson", 8000, 17);
    struct rl_node_spread even = {RL_SPREAD_EVEN, 0, 0};
    struct rl_nodes_config cfg = {
        .p = {.limit = 200, .interval_ns = 100 * MS, .nodes = 1, .sync_ns = 5 * MS},
        .rtt_ns = 20 * MS,
        .spread = even,
        .seed = 7};
    const char *names[] = {"report", "gtb"};
    for (size_t i = 0; i < 2; i++) {
        char err[256];
        struct rl_nodes_config c = cfg;
        EXPECT_FATAL(rl_coord_parse(names[i], &c.coord, &c.p, err, sizeof err) == 0, "%s", err);
        rl_nodes_prepare(&c, trace.key_count);
        struct rl_nodes_outcome o;
        EXPECT_FATAL(rl_nodes_sim_run(&c, &trace, &o, err, sizeof err) == 0, "%s", err);
        EXPECT(o.global.max_sliding <= (i ? 400u : 200u) && o.held == RL_HELD_YES,
               "%s on one node: max_sliding %llu", names[i],
               (unsigned long long)o.global.max_sliding);
    }
    rl_trace_free(&trace);
}

/* With lost messages report's and gtb's bounds are void: nothing promised. */
static void test_loss_voids_report(void)
{
    struct rl_trace trace = {0};
    workload(&trace, "poisson", 4000, 9);
    struct rl_node_spread even = {RL_SPREAD_EVEN, 0, 0};
    struct rl_nodes_outcome o = run("report", 5, 10 * MS, &even, &trace, 0.1);
    EXPECT(o.lost > 0, "no message lost");
    EXPECT(o.promised.kind == RL_BOUND_NONE, "report promised a bound with loss");
    o = run("lease", 5, 10 * MS, &even, &trace, 0.1);
    EXPECT(o.held == RL_HELD_YES, "lease with loss: held %s", rl_held_name(o.held));
    rl_trace_free(&trace);
}

/* The same configuration twice: the same run, to the last message. */
static void test_deterministic(void)
{
    struct rl_trace trace = {0};
    workload(&trace, "poisson", 8000, 13);
    struct rl_node_spread skew = {RL_SPREAD_SKEW, 1.0, 0};
    for (const struct rl_coord *const *c = rl_coord_registry; *c; c++) {
        struct rl_nodes_outcome a = run((*c)->name, 16, 10 * MS, &skew, &trace, 0.05);
        struct rl_nodes_outcome b = run((*c)->name, 16, 10 * MS, &skew, &trace, 0.05);
        EXPECT(a.admits == b.admits && a.messages == b.messages && a.lost == b.lost &&
                   a.store_calls == b.store_calls && a.global.max_sliding == b.global.max_sliding &&
                   a.node_max_sliding == b.node_max_sliding && a.window_p99 == b.window_p99,
               "%s: two runs differ", (*c)->name);
    }
    rl_trace_free(&trace);
}

RL_TEST_SUITE("nodes_sim", {"bounds_held", test_bounds_held},
              {"exact_strategies", test_exact_strategies},
              {"report_overshoots", test_report_overshoots},
              {"one_node_exact", test_one_node_exact},
              {"loss_voids_report", test_loss_voids_report}, {"deterministic", test_deterministic});
