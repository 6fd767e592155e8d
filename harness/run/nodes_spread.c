/* nodes_spread.c — the rule that spreads a trace over nodes
 * (nodes_sim.h): its spelling on the command line and in rows. */
#include "nodes_sim.h"

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
