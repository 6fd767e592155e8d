/* split.c — `split`: each node enforces its share of L alone (L/N, the
 * remainder to the first nodes), no messages at all. Keeps ≤ L exactly:
 * the shares add up to L; a node with more demand than its share is
 * rejected while others idle (the cost of never talking). */
#include "coord.h"

#include <stdlib.h>

struct split_node {
    uint64_t share;
    uint32_t keys;
    struct rl_coord_window *windows; /* one per key */
};

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

static void *split_node_new(const struct rl_coord_params *p, uint32_t node)
{
    struct split_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->share = rl_coord_share(p->limit, p->nodes, node);
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

static void split_node_free(void *node)
{
    struct split_node *s = node;
    for (uint32_t k = 0; k < s->keys; k++)
        rl_coord_window_free(&s->windows[k]);
    free(s->windows);
    free(s);
}

static enum rl_coord_step split_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                        struct rl_coord_msg *msg, bool *send)
{
    (void)msg;
    struct split_node *s = node;
    struct rl_coord_window *w = &s->windows[key];
    *send = false;
    rl_coord_window_expire(w, t_ns);
    return w->sum + n <= s->share && rl_coord_window_add(w, t_ns, n) != UINT64_MAX
               ? RL_COORD_ADMIT
               : RL_COORD_REJECT;
}

static bool split_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)node, (void)key, (void)t_ns, (void)msg;
    return false;
}

static void split_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)node, (void)msg, (void)t_ns;
}

const struct rl_coord rl_coord_split = {
    .name = "split",
    .summary = "each node enforces L/N alone, no messages",
    .bound = "<= L",
    .parse = split_parse,
    .bound_of = split_bound,
    .bound_span = split_span,
    .node_new = split_node_new,
    .node_free = split_node_free,
    .attempt = split_attempt,
    .tick = split_tick,
    .reply = split_reply,
};
