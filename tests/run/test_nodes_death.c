/* test_nodes_death.c — a node that dies mid-run (sim --nodes --node-dies):
 * it sends and decides nothing more, its traffic goes to the live nodes,
 * and what it held is counted stranded until the store's window lets it
 * go (docs/nodes.md, A node dies). */
#include "harness/run/nodes_sim.h"
#include "tests/support/test_util.h"
#include "workloads/generators.h"

#include <string.h>

#define MS 1000000ull

/* Poisson at twice L = 200 per 100 ms, 3 s. */
static void twice_limit(struct rl_trace *trace)
{
    struct rl_workload_params w;
    rl_workload_defaults(&w, 200, 100 * MS);
    w.name = "poisson";
    w.duration_ns = 3000 * MS;
    w.rate_per_s = 4000;
    w.seed = 3;
    char err[256];
    EXPECT_FATAL(rl_workload_generate(&w, trace, err, sizeof err) == 0, "%s", err);
}

/* coord on 4 nodes, T = 10 ms, RTT 2 ms; node `dead` dies at die_ns (none
 * when dead is 4: the windows are watched from die_ns all the same). */
static struct rl_nodes_outcome run(const char *coord, uint32_t dead, uint64_t die_ns,
                                   const struct rl_trace *trace)
{
    struct rl_nodes_config cfg = {
        .p = {.limit = 200, .interval_ns = 100 * MS, .nodes = 4, .sync_ns = 10 * MS},
        .rtt_ns = 2 * MS,
        .seed = 5};
    if (dead < 4) {
        cfg.deaths[0] = (struct rl_node_death){.node = dead, .at_ns = die_ns};
        cfg.death_count = 1;
    } else {
        cfg.watch_ns = die_ns;
    }
    char err[256];
    EXPECT_FATAL(rl_coord_parse(coord, &cfg.coord, &cfg.p, err, sizeof err) == 0, "%s", err);
    rl_nodes_prepare(&cfg, trace->key_count);
    struct rl_nodes_outcome out;
    EXPECT_FATAL(rl_nodes_sim_run(&cfg, trace, &out, err, sizeof err) == 0, "%s", err);
    EXPECT_EQ(out.attempts, trace->len); /* the dead node's traffic went elsewhere */
    return out;
}

/* split: the dead node's share L/4 is gone with it, so the live ones admit
 * at most 3/4 L in a window after the death (1 L with no death). */
static void test_split_loses_share(void)
{
    struct rl_trace trace = {0};
    twice_limit(&trace);
    struct rl_nodes_outcome dead = run("split", 0, 1000 * MS, &trace),
                            alive = run("split", 4, 1000 * MS, &trace);
    EXPECT(dead.next_window_ratio <= 0.75, "admitted %.3f L after the death",
           dead.next_window_ratio);
    EXPECT(alive.next_window_ratio > 0.95, "admitted %.3f L without it", alive.next_window_ratio);
    EXPECT(dead.held == RL_HELD_YES, "split held %s", rl_held_name(dead.held));
    EXPECT_EQ(dead.stranded, 0);
    rl_trace_free(&trace);
}

/* report: a dead node ticks no more, so fewer messages than with it alive. */
static void test_dead_node_silent(void)
{
    struct rl_trace trace = {0};
    twice_limit(&trace);
    struct rl_nodes_outcome dead = run("report", 2, 500 * MS, &trace),
                            alive = run("report", 4, 500 * MS, &trace);
    /* 2.5 s of ticks every 10 ms, a request and a reply each: 500 fewer */
    EXPECT(dead.messages + 450 <= alive.messages, "messages %llu dead, %llu alive",
           (unsigned long long)dead.messages, (unsigned long long)alive.messages);
    rl_trace_free(&trace);
}

/* lease:k=50: a node dies holding part of a grant. What it held is
 * stranded (at most its grant in hand and one in flight: 2k), the store's
 * window lets it go within I (and a reply's delay) of the death, the bound
 * still holds, and when it held half a grant or more the I after the death
 * admits less than the same run without it (what live nodes hold at a
 * window's edges moves a window by a few tokens either way). Deaths at several times, so that some
 * find tokens in hand. */
static void test_lease_strands_tokens(void)
{
    struct rl_trace trace = {0};
    twice_limit(&trace);
    int found = 0;
    for (uint64_t at = 1500 * MS; at < 1600 * MS; at += 7 * MS) {
        struct rl_nodes_outcome dead = run("lease:k=50", 1, at, &trace),
                                alive = run("lease:k=50", 4, at, &trace);
        EXPECT(dead.stranded <= 100, "stranded %llu", (unsigned long long)dead.stranded);
        EXPECT(dead.freed_ns <= 100 * MS + 2 * MS, "freed after %llu ns",
               (unsigned long long)dead.freed_ns);
        EXPECT(dead.held == RL_HELD_YES, "lease held %s", rl_held_name(dead.held));
        if (dead.stranded > 0)
            EXPECT(dead.freed_ns > 0, "stranded %llu freed at once",
                   (unsigned long long)dead.stranded);
        if (dead.stranded >= 25) { /* half a grant or more: more than the windows' noise */
            found++;
            EXPECT(dead.death_window_ratio < alive.death_window_ratio,
                   "death at %llu ms: %.3f L admitted, %.3f L without it",
                   (unsigned long long)(at / MS), dead.death_window_ratio,
                   alive.death_window_ratio);
        }
    }
    EXPECT(found >= 3, "only %d of 15 deaths found half a grant in hand", found);
    rl_trace_free(&trace);
}

/* The same death twice: the same run. */
static void test_death_deterministic(void)
{
    struct rl_trace trace = {0};
    twice_limit(&trace);
    struct rl_nodes_outcome a = run("lease:k=50", 1, 1507 * MS, &trace),
                            b = run("lease:k=50", 1, 1507 * MS, &trace);
    EXPECT(a.admits == b.admits && a.stranded == b.stranded && a.freed_ns == b.freed_ns &&
               a.death_window_ratio == b.death_window_ratio,
           "two runs differ");
    rl_trace_free(&trace);
}

RL_TEST_SUITE("nodes_death", {"split_loses_share", test_split_loses_share},
              {"dead_node_silent", test_dead_node_silent},
              {"lease_strands_tokens", test_lease_strands_tokens},
              {"death_deterministic", test_death_deterministic});
