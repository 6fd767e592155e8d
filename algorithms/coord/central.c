/* central.c — `central`: every decision on the shared store, one exact
 * sliding window for all nodes (GitHub's, Envoy's and redis_rate's script
 * per request). Keeps ≤ L exactly; one store call per decision. */
#include "coord.h"

#include <stdlib.h>

static int central_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    (void)p;
    return rl_coord_parse_none("central", text, err, err_len);
}

static uint64_t central_bound(const struct rl_coord_params *p, uint64_t h)
{
    (void)h;
    return p->limit;
}

static uint64_t no_span(const struct rl_coord_params *p)
{
    (void)p;
    return 0;
}

/* The exact strong limiter: admit when the window keeps ≤ L with it. An
 * add that runs out of memory rejects (nothing admitted that is not counted). */
static void central_serve(void *store, struct rl_coord_msg *m, uint64_t t_ns)
{
    struct rl_coord_window_store *s = store;
    struct rl_coord_window *w = &s->keys[m->key];
    rl_coord_window_expire(w, t_ns);
    m->answer =
        w->sum + m->value <= s->p.limit && rl_coord_window_add(w, t_ns, m->value) != UINT64_MAX;
    m->at_ns = t_ns;
}

/* A node keeps nothing: its number is the whole state. */
static void *central_node_new(const struct rl_coord_params *p, uint32_t node)
{
    (void)p;
    return (void *)(uintptr_t)(node + 1u);
}

static void central_node_free(void *node)
{
    (void)node;
}

static enum rl_coord_step central_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                          struct rl_coord_msg *msg, bool *send)
{
    (void)t_ns;
    *msg = (struct rl_coord_msg){
        .op = RL_COORD_DECIDE, .node = (uint32_t)((uintptr_t)node - 1u), .key = key, .value = n};
    *send = true;
    return RL_COORD_ASK;
}

static bool central_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)node, (void)key, (void)t_ns, (void)msg;
    return false;
}

static void central_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)node, (void)msg, (void)t_ns;
}

const struct rl_coord rl_coord_central = {
    .name = "central",
    .summary = "every decision a store call on one exact window",
    .bound = "<= L",
    .parse = central_parse,
    .bound_of = central_bound,
    .bound_span = no_span,
    .store_new = rl_coord_window_store_new,
    .store_free = rl_coord_window_store_free,
    .serve = central_serve,
    .node_new = central_node_new,
    .node_free = central_node_free,
    .attempt = central_attempt,
    .tick = central_tick,
    .reply = central_reply,
};
