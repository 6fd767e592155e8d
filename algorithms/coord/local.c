/* local.c — `local`: each node enforces the whole of L alone, as a limiter
 * that was never told about the others does: no messages, and up to N·L
 * in a window (the "disconnected system" of DRL, SIGCOMM 2007). The
 * baseline every coordinating strategy improves on. */
#include "coord.h"

#include <stdlib.h>

static int local_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    (void)p;
    return rl_coord_parse_none("local", text, err, err_len);
}

static uint64_t local_bound(const struct rl_coord_params *p, uint64_t h)
{
    (void)h;
    return (uint64_t)p->nodes * p->limit;
}

static uint64_t local_span(const struct rl_coord_params *p)
{
    (void)p;
    return 0;
}

/* Its node decides alone against the whole of L. */
static void *local_node_new(const struct rl_coord_params *p, uint32_t node)
{
    (void)node;
    return rl_coord_alone_node_new(p, p->limit);
}

const struct rl_coord rl_coord_local = {
    .name = "local",
    .summary = "each node enforces all of L alone (no coordination)",
    .bound = "<= N*L",
    .parse = local_parse,
    .bound_of = local_bound,
    .bound_span = local_span,
    .node_new = local_node_new,
    .node_free = rl_coord_alone_node_free,
    .attempt = rl_coord_alone_attempt,
    .tick = rl_coord_alone_tick,
    .reply = rl_coord_alone_reply,
};
