/* split.c — `split`: each node enforces its share of L alone (L/N, the
 * remainder to the first nodes), no messages at all. Keeps ≤ L exactly:
 * the shares add up to L; a node with more demand than its share is
 * rejected while others idle (the cost of never talking). */
#include "coord.h"

#include <stdlib.h>

static int split_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    (void)p;
    return rl_coord_parse_none("split", text, err, err_len);
}

static uint64_t split_bound(const struct rl_coord_params *p, uint64_t h)
{
    (void)h;
    return p->limit;
}

static uint64_t split_span(const struct rl_coord_params *p)
{
    (void)p;
    return 0;
}

/* Its node decides alone against its share of L. */
static void *split_node_new(const struct rl_coord_params *p, uint32_t node)
{
    return rl_coord_alone_node_new(p, rl_coord_share(p->limit, p->nodes, node));
}

const struct rl_coord rl_coord_split = {
    .name = "split",
    .summary = "each node enforces L/N alone, no messages",
    .bound = "<= L",
    .parse = split_parse,
    .bound_of = split_bound,
    .bound_span = split_span,
    .node_new = split_node_new,
    .node_free = rl_coord_alone_node_free,
    .attempt = rl_coord_alone_attempt,
    .tick = rl_coord_alone_tick,
    .reply = rl_coord_alone_reply,
};
