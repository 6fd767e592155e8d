/* suite_nodes.c — the runs of `bench --suite nodes` (suite_nodes.h). L = 1000
 * per second throughout, messages 1 ms a round trip; demand twice L unless
 * the experiment says otherwise. */
#include "suite_nodes.h"

#include <stdio.h>
#include <string.h>

#define MS       1000000ull
#define LIMIT    1000u
#define INTERVAL (1000 * MS)

static const uint64_t syncs[] = {10 * MS, 50 * MS, 100 * MS, 500 * MS};
static const uint32_t node_counts[] = {2, 10, 100, 1000};

/* One item of every strategy on this configuration. */
static size_t each_coord(struct rl_nodes_item *items, size_t at, size_t cap,
                         const struct rl_nodes_item *like)
{
    for (const struct rl_coord *const *c = rl_coord_registry; *c; c++, at++) {
        if (at >= cap)
            continue;
        items[at] = *like;
        items[at].run.coord = *c;
        items[at].coord = (*c)->name;
        char err[128];
        (*c)->parse(NULL, &items[at].run.p, err, sizeof err); /* the defaults: never fails */
    }
    return at;
}

static struct rl_nodes_item base(const char *experiment, uint32_t nodes, uint64_t sync_ns)
{
    struct rl_nodes_item it = {.experiment = experiment};
    it.run.p = (struct rl_coord_params){
        .limit = LIMIT, .interval_ns = INTERVAL, .nodes = nodes, .sync_ns = sync_ns};
    it.run.rtt_ns = 1 * MS;
    it.run.seed = 1;
    rl_workload_defaults(&it.workload, LIMIT, INTERVAL);
    it.workload.name = "poisson";
    it.workload.duration_ns = 10000 * MS;
    it.workload.rate_per_s = 2.0 * LIMIT;
    return it;
}

size_t rl_nodes_suite_plan(struct rl_nodes_item *items, size_t cap)
{
    size_t n = 0;
    /* the frontier: T × N × skew */
    for (size_t t = 0; t < sizeof syncs / sizeof syncs[0]; t++)
        for (size_t k = 0; k < sizeof node_counts / sizeof node_counts[0]; k++)
            for (int skewed = 0; skewed < 2; skewed++) {
                struct rl_nodes_item it = base("grid", node_counts[k], syncs[t]);
                if (skewed)
                    it.run.spread = (struct rl_node_spread){.kind = RL_SPREAD_SKEW, .skew = 1.0};
                n = each_coord(items, n, cap, &it);
            }
    /* a step from L to 10× L at 5 s, for 2 s */
    for (size_t k = 1; k < sizeof node_counts / sizeof node_counts[0]; k++) {
        struct rl_nodes_item it = base("step", node_counts[k], 100 * MS);
        it.workload.name = "flash";
        it.workload.rate_per_s = LIMIT;
        it.workload.flash_at_ns = it.run.step_ns = 5000 * MS;
        it.workload.flash_len_ns = 2000 * MS;
        it.workload.flash_factor = 10;
        n = each_coord(items, n, cap, &it);
    }
    /* DRL's two limiters, demand 7:3 (weights 1 and 2^-S, S = log2(7/3)),
     * estimates every 50 ms: how each strategy splits L */
    struct rl_nodes_item it = base("drl73", 2, 50 * MS);
    it.run.spread = (struct rl_node_spread){.kind = RL_SPREAD_SKEW, .skew = 1.2223924213364481};
    n = each_coord(items, n, cap, &it);
    /* a node dies: node 0 of 4 at 5.3 s, twice L of demand; every strategy
     * as the grid has it, and lease with Doorman-sized grants (k = L/N) */
    struct rl_nodes_item dying = base("death", 4, 100 * MS);
    dying.run.deaths[0] = (struct rl_node_death){.node = 0, .at_ns = 5300 * MS};
    dying.run.death_count = 1;
    n = each_coord(items, n, cap, &dying);
    if (n < cap) {
        items[n] = dying;
        items[n].coord = "lease:k=250";
        char err[128];
        rl_coord_parse("lease:k=250", &items[n].run.coord, &items[n].run.p, err, sizeof err);
    }
    n++;
    /* the simulator's speed: 1000 nodes, 10^7 decisions, central (two
     * messages a decision, the heaviest) and report */
    static const char *const timed[] = {"central", "report"};
    for (size_t i = 0; i < 2; i++, n++) {
        if (n >= cap)
            continue;
        struct rl_nodes_item big = base("speed", 1000, 100 * MS);
        big.run.p.limit = 100 * LIMIT;
        rl_workload_defaults(&big.workload, 100 * LIMIT, INTERVAL);
        big.workload.name = "poisson";
        big.workload.duration_ns = 10000 * MS;
        big.workload.rate_per_s = 1e6;
        big.run.coord = rl_coord_find(timed[i], strlen(timed[i]));
        big.coord = timed[i];
        char err[128];
        big.run.coord->parse(NULL, &big.run.p, err, sizeof err);
        items[n] = big;
    }
    return n;
}

int rl_nodes_suite_run(struct rl_nodes_item *item, struct rl_nodes_outcome *out, char *err,
                       size_t err_len)
{
    struct rl_trace trace = {0};
    if (rl_workload_generate(&item->workload, &trace, err, err_len) != 0)
        return -1;
    rl_nodes_prepare(&item->run, trace.key_count);
    int rc = rl_nodes_sim_run(&item->run, &trace, out, err, err_len);
    rl_trace_free(&trace);
    return rc;
}
