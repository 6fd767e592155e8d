/* nodes_death.c — a node that dies mid-run (nodes_sim.h, --node-dies): its
 * spelling on the command line ("NODE@TIME") and in rows. */
#include "nodes_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_node_death_parse(const char *text, uint32_t nodes, struct rl_node_death *out,
                        int (*parse_ns)(const char *, uint64_t *, char *, size_t), char *err,
                        size_t err_len)
{
    const char *at = strchr(text, '@');
    char *end;
    unsigned long long node = strtoull(text, &end, 10);
    if (at == NULL || text[0] < '0' || text[0] > '9' || end != at) {
        snprintf(err, err_len, "--node-dies takes NODE@TIME (3@5s), not '%s'", text);
        return -1;
    }
    if (node >= nodes) {
        snprintf(err, err_len, "--node-dies %s: node %llu is out of range (nodes are 0 .. %u)",
                 text, node, nodes - 1);
        return -1;
    }
    char why[256];
    if (parse_ns(at + 1, &out->at_ns, why, sizeof why) != 0) {
        snprintf(err, err_len, "--node-dies %s: %s", text, why);
        return -1;
    }
    out->node = (uint32_t)node;
    return 0;
}

const char *rl_node_deaths_text(const struct rl_nodes_config *cfg, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0, used = 0; i < cfg->death_count && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%u@%lluns", i ? "+" : "",
                                 cfg->deaths[i].node, (unsigned long long)cfg->deaths[i].at_ns);
    return buf;
}
