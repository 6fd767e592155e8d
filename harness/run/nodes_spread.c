/* nodes_spread.c — the rule that spreads a trace over nodes
 * (nodes_sim.h): its spelling on the command line and in rows, and the
 * draws that pick each attempt's node. */
#include "nodes_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_node_spread_parse(const char *text, struct rl_node_spread *out,
                         int (*parse_ns)(const char *, uint64_t *, char *, size_t), char *err,
                         size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (strcmp(text, "even") == 0)
        return 0;
    if (strncmp(text, "skew:", 5) == 0) {
        char *end;
        out->kind = RL_SPREAD_SKEW;
        out->skew = strtod(text + 5, &end);
        if (end == text + 5 || *end != '\0' || !(out->skew > 0 && out->skew <= 10)) {
            snprintf(err, err_len, "--spread skew:S needs S in (0, 10], not '%s'", text + 5);
            return -1;
        }
        return 0;
    }
    if (strncmp(text, "hot:", 4) == 0) {
        out->kind = RL_SPREAD_HOT;
        char why[256];
        if (parse_ns(text + 4, &out->move_ns, why, sizeof why) != 0 || out->move_ns == 0) {
            snprintf(err, err_len, "--spread hot:MOVE needs a duration > 0, not '%s'", text + 4);
            return -1;
        }
        return 0;
    }
    snprintf(err, err_len, "--spread must be even, skew:S or hot:MOVE, not '%s'", text);
    return -1;
}

const char *rl_node_spread_text(const struct rl_node_spread *s, char *buf, size_t len)
{
    switch (s->kind) {
    case RL_SPREAD_SKEW:
        snprintf(buf, len, "skew:%g", s->skew);
        break;
    case RL_SPREAD_HOT:
        snprintf(buf, len, "hot:%lluns", (unsigned long long)s->move_ns);
        break;
    case RL_SPREAD_EVEN:
        snprintf(buf, len, "even");
        break;
    }
    return buf;
}

int rl_node_picker_init(struct rl_node_picker *pk, const struct rl_node_spread *spread,
                        uint32_t nodes, uint64_t seed)
{
    memset(pk, 0, sizeof *pk);
    pk->spread = *spread;
    pk->nodes = nodes;
    rl_rng_seed(&pk->rng, seed, 102);
    if (spread->kind != RL_SPREAD_SKEW)
        return 0;
    if ((pk->skew_cdf = malloc(nodes * sizeof *pk->skew_cdf)) == NULL)
        return -1;
    double total = 0;
    for (uint32_t i = 0; i < nodes; i++)
        total += pk->skew_cdf[i] = pow(i + 1.0, -spread->skew);
    double run = 0;
    for (uint32_t i = 0; i < nodes; i++)
        pk->skew_cdf[i] = (run += pk->skew_cdf[i]) / total;
    return 0;
}

uint32_t rl_node_picker_next(struct rl_node_picker *pk, uint64_t t_ns)
{
    uint32_t nodes = pk->nodes;
    switch (pk->spread.kind) {
    case RL_SPREAD_SKEW: {
        double u = rl_rng_uniform(&pk->rng);
        size_t lo = 0, hi = nodes - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pk->skew_cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        return (uint32_t)lo;
    }
    case RL_SPREAD_HOT: {
        uint64_t r = rl_rng_next(&pk->rng);
        if (r & 1)
            return (uint32_t)((t_ns / pk->spread.move_ns) % nodes);
        return (uint32_t)((r >> 1) % nodes);
    }
    case RL_SPREAD_EVEN:
        break;
    }
    return (uint32_t)(rl_rng_next(&pk->rng) % nodes);
}

void rl_node_picker_free(struct rl_node_picker *pk)
{
    free(pk->skew_cdf);
    pk->skew_cdf = NULL;
}
