/* grd.c — DRL's global random drop: each node admits an attempt with
 * probability L / D when the global demand estimate D (per I) is above L,
 * and always when it is not. Its aim is the right rate on average: nothing
 * bounds a window (a run of lucky draws admits more), so it promises
 * nothing and is measured. Parameter: ewma=W (default 0.1). */
#include "drl_demand.h"

#include <stdlib.h>

struct grd_node {
    struct rl_coord_params p;
    uint32_t node;
    uint64_t rng; /* splitmix64 state: seeded by the node's number, so runs repeat */
    struct drl_demand *keys;
};

static int grd_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    return rl_coord_parse_ewma("grd", text, p, err, err_len);
}

static uint64_t grd_bound(const struct rl_coord_params *p, uint64_t h)
{
    (void)p, (void)h;
    return 0;
}

static uint64_t grd_span(const struct rl_coord_params *p)
{
    (void)p;
    return 0;
}

static void *grd_node_new(const struct rl_coord_params *p, uint32_t node)
{
    struct grd_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->p = *p;
    s->node = node;
    s->rng = 0x6A09E667F3BCC909ull ^ ((uint64_t)node * 0x9E3779B97F4A7C15ull);
    s->keys = calloc(p->keys, sizeof *s->keys);
    if (s->keys == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static void grd_node_free(void *node)
{
    struct grd_node *s = node;
    free(s->keys);
    free(s);
}

/* A uniform double in [0, 1) from splitmix64. */
static double next_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static enum rl_coord_step grd_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                      struct rl_coord_msg *msg, bool *send)
{
    (void)t_ns, (void)msg;
    struct grd_node *s = node;
    struct drl_demand *d = &s->keys[key];
    *send = false;
    d->arrived += n;
    double global = drl_demand_global(d);
    if (global <= (double)s->p.limit)
        return RL_COORD_ADMIT;
    return next_uniform(&s->rng) < (double)s->p.limit / global ? RL_COORD_ADMIT : RL_COORD_REJECT;
}

static bool grd_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)t_ns;
    struct grd_node *s = node;
    double e = drl_demand_tick(&s->keys[key], &s->p);
    *msg = (struct rl_coord_msg){.op = RL_COORD_SYNC,
                                 .node = s->node,
                                 .key = key,
                                 .value = (uint64_t)(e * DRL_DEMAND_SCALE + 0.5)};
    return true;
}

static void grd_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)t_ns;
    struct grd_node *s = node;
    drl_demand_reply(&s->keys[msg->key], msg);
}

const struct rl_coord rl_coord_grd = {
    .name = "grd",
    .summary = "DRL global random drop: admit with probability L/D",
    .bound = "none (right on average)",
    .parse = grd_parse,
    .bound_of = grd_bound,
    .bound_span = grd_span,
    .store_new = drl_store_new,
    .store_free = drl_store_free,
    .serve = drl_store_serve,
    .node_new = grd_node_new,
    .node_free = grd_node_free,
    .attempt = grd_attempt,
    .tick = grd_tick,
    .reply = grd_reply,
};
