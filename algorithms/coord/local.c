/* local.c — `local`: each node enforces the whole of L alone, as a limiter
 * that was never told about the others does: no messages, and up to N·L
 * in a window (the "disconnected system" of DRL, SIGCOMM 2007). The
 * baseline every coordinating strategy improves on. */
#include "coord.h"

#include <stdlib.h>

struct local_node {
    uint64_t limit;
    uint32_t keys;
    struct rl_coord_window *windows; /* one per key */
};

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

static void *local_node_new(const struct rl_coord_params *p, uint32_t node)
{
    (void)node;
    struct local_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->limit = p->limit;
    s->keys = p->keys;
    s->windows = malloc(p->keys * sizeof *s->windows);
    if (s->windows == NULL) {
        free(s);
        return NULL;
    }
    for (uint32_t k = 0; k < p->keys; k++)
        rl_coord_window_init(&s->windows[k], p->interval_ns);
    return s;
}

static void local_node_free(void *node)
{
    struct local_node *s = node;
    for (uint32_t k = 0; k < s->keys; k++)
        rl_coord_window_free(&s->windows[k]);
    free(s->windows);
    free(s);
}

static enum rl_coord_step local_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                        struct rl_coord_msg *msg, bool *send)
{
    (void)msg;
    struct local_node *s = node;
    struct rl_coord_window *w = &s->windows[key];
    *send = false;
    rl_coord_window_expire(w, t_ns);
    return w->sum + n <= s->limit && rl_coord_window_add(w, t_ns, n) != UINT64_MAX
               ? RL_COORD_ADMIT
               : RL_COORD_REJECT;
}

static bool local_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)node, (void)key, (void)t_ns, (void)msg;
    return false;
}

static void local_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)node, (void)msg, (void)t_ns;
}

const struct rl_coord rl_coord_local = {
    .name = "local",
    .summary = "each node enforces all of L alone (no coordination)",
    .bound = "<= N*L",
    .parse = local_parse,
    .bound_of = local_bound,
    .bound_span = local_span,
    .node_new = local_node_new,
    .node_free = local_node_free,
    .attempt = local_attempt,
    .tick = local_tick,
    .reply = local_reply,
};
