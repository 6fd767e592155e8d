/* fps.c — DRL's flow-proportional share, with demand standing for flows
 * (ratelab's attempts carry no flows): each node enforces, on its own exact
 * sliding window, the share L·e / D of the limit, e its own demand estimate
 * and D the global one (L/N before any estimate). Every share is ≤ L, so
 * the global window keeps ≤ N·L whatever the estimates; when they agree the
 * shares add up to L (docs/nodes.md). Parameter: ewma=W (default 0.1). */
#include "drl_demand.h"

#include <stdlib.h>

struct fps_key {
    struct drl_demand demand;
    struct rl_coord_window window;
};

struct fps_node {
    struct rl_coord_params p;
    uint32_t node;
    struct fps_key *keys;
};

static int fps_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    return rl_coord_parse_ewma("fps", text, p, err, err_len);
}

static uint64_t fps_bound(const struct rl_coord_params *p, uint64_t h)
{
    (void)h;
    return (uint64_t)p->nodes * p->limit;
}

static uint64_t fps_span(const struct rl_coord_params *p)
{
    (void)p;
    return 0;
}

static void *fps_node_new(const struct rl_coord_params *p, uint32_t node)
{
    struct fps_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->p = *p;
    s->node = node;
    s->keys = calloc(p->keys, sizeof *s->keys);
    if (s->keys == NULL) {
        free(s);
        return NULL;
    }
    for (uint32_t k = 0; k < p->keys; k++)
        rl_coord_window_init(&s->keys[k].window, p->interval_ns);
    return s;
}

static void fps_node_free(void *node)
{
    struct fps_node *s = node;
    for (uint32_t k = 0; k < s->p.keys; k++)
        rl_coord_window_free(&s->keys[k].window);
    free(s->keys);
    free(s);
}

/* The node's share now: L·e/D, at least 1 so that a node whose estimate is
 * still 0 can let demand in and be counted. */
static uint64_t local_limit(const struct fps_node *s, const struct drl_demand *d)
{
    double global = drl_demand_global(d);
    if (!d->started || global <= 0)
        return rl_coord_share(s->p.limit, s->p.nodes, s->node);
    double share = (double)s->p.limit * d->estimate / global;
    uint64_t l = share >= (double)s->p.limit ? s->p.limit : (uint64_t)share;
    return l ? l : 1;
}

static enum rl_coord_step fps_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                      struct rl_coord_msg *msg, bool *send)
{
    (void)msg;
    struct fps_node *s = node;
    struct fps_key *k = &s->keys[key];
    *send = false;
    k->demand.arrived += n;
    rl_coord_window_expire(&k->window, t_ns);
    return k->window.sum + n <= local_limit(s, &k->demand) &&
                   rl_coord_window_add(&k->window, t_ns, n) != UINT64_MAX
               ? RL_COORD_ADMIT
               : RL_COORD_REJECT;
}

static bool fps_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)t_ns;
    struct fps_node *s = node;
    double e = drl_demand_tick(&s->keys[key].demand, &s->p);
    *msg = (struct rl_coord_msg){.op = RL_COORD_SYNC,
                                 .node = s->node,
                                 .key = key,
                                 .value = (uint64_t)(e * DRL_DEMAND_SCALE + 0.5)};
    return true;
}

static void fps_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)t_ns;
    struct fps_node *s = node;
    drl_demand_reply(&s->keys[msg->key].demand, msg);
}

const struct rl_coord rl_coord_fps = {
    .name = "fps",
    .summary = "DRL flow-proportional share: local limit L*e/D",
    .bound = "<= N*L",
    .parse = fps_parse,
    .bound_of = fps_bound,
    .bound_span = fps_span,
    .store_new = drl_store_new,
    .store_free = drl_store_free,
    .serve = drl_store_serve,
    .node_new = fps_node_new,
    .node_free = fps_node_free,
    .attempt = fps_attempt,
    .tick = fps_tick,
    .reply = fps_reply,
};
