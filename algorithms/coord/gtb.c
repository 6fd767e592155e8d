/* gtb.c — DRL's global token bucket: every node keeps a copy of one
 * token bucket for the whole system (capacity L, refilled L per I), spends
 * its own admits from it at once, and the other nodes' admits when it
 * learns of them: each tick it sends its new hits to the store, whose reply
 * is every node's hits so far. One exact global bucket keeps ≤ 2L in a
 * sliding window (B + L); a copy misses the others' hits of the last
 * S = 2T + 3D, so ≤ 2L + (N − 1)·h, h the most one node admits in a span
 * S; with lost messages nothing (docs/nodes.md). The paper's limiters drain
 * by the others' estimated arrivals; here by their reported admits, which
 * is what a single bucket would have spent. */
#include "coord.h"

#include <stdlib.h>

struct gtb_key {
    double level;      /* tokens, ≤ L; below 0 when others spent more than it held */
    uint64_t refilled; /* when level was last refilled */
    uint64_t own_sent; /* own hits sent so far (the messages' ref) */
    uint64_t unsent;   /* own hits since the last send */
    uint64_t others;   /* the other nodes' hits already spent from level */
    uint64_t answer_at;
};

struct gtb_node {
    struct rl_coord_params p;
    uint32_t node;
    struct gtb_key *keys;
};

struct gtb_store {
    uint64_t *hits; /* per key, every node's hits so far */
};

static int gtb_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    (void)p;
    return rl_coord_parse_none("gtb", text, err, err_len);
}

static uint64_t gtb_span(const struct rl_coord_params *p)
{
    return 2 * p->sync_ns + 3 * p->delay_ns;
}

/* A node spends its own admits at once from a bucket of L refilled L per I,
 * so it admits ≤ 2L in any window: h is at most that when S fits in one. */
static uint64_t gtb_bound(const struct rl_coord_params *p, uint64_t h)
{
    if (p->lossy)
        return 0;
    if (gtb_span(p) <= p->interval_ns && h > 2 * p->limit)
        h = 2 * p->limit;
    return 2 * p->limit + (uint64_t)(p->nodes - 1) * h;
}

static void *gtb_store_new(const struct rl_coord_params *p)
{
    struct gtb_store *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->hits = calloc(p->keys, sizeof *s->hits);
    if (s->hits == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static void gtb_store_free(void *store)
{
    struct gtb_store *s = store;
    free(s->hits);
    free(s);
}

static void gtb_serve(void *store, struct rl_coord_msg *m, uint64_t t_ns)
{
    struct gtb_store *s = store;
    s->hits[m->key] += m->value;
    m->answer = s->hits[m->key];
    m->at_ns = t_ns;
}

static void *gtb_node_new(const struct rl_coord_params *p, uint32_t node)
{
    struct gtb_node *s = malloc(sizeof *s);
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
        s->keys[k].level = (double)p->limit; /* a bucket starts full */
    return s;
}

static void gtb_node_free(void *node)
{
    struct gtb_node *s = node;
    free(s->keys);
    free(s);
}

static void refill(const struct gtb_node *s, struct gtb_key *k, uint64_t t_ns)
{
    if (t_ns <= k->refilled)
        return;
    double limit = (double)s->p.limit;
    double dt = (double)(t_ns - k->refilled);
    k->level += limit * dt / (double)s->p.interval_ns;
    if (k->level > limit)
        k->level = limit;
    k->refilled = t_ns;
}

static enum rl_coord_step gtb_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                      struct rl_coord_msg *msg, bool *send)
{
    (void)msg;
    struct gtb_node *s = node;
    struct gtb_key *k = &s->keys[key];
    *send = false;
    refill(s, k, t_ns);
    if (k->level < (double)n)
        return RL_COORD_REJECT;
    k->level -= (double)n;
    k->unsent += n;
    return RL_COORD_ADMIT;
}

static bool gtb_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)t_ns;
    struct gtb_node *s = node;
    struct gtb_key *k = &s->keys[key];
    k->own_sent += k->unsent;
    *msg = (struct rl_coord_msg){
        .op = RL_COORD_SYNC, .node = s->node, .key = key, .value = k->unsent, .ref = k->own_sent};
    k->unsent = 0;
    return true;
}

/* The answer counts every node's hits the store had, this node's up to
 * this send (links keep their order): the rest are the others'. */
static void gtb_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    struct gtb_node *s = node;
    struct gtb_key *k = &s->keys[msg->key];
    if (msg->at_ns < k->answer_at || msg->answer < msg->ref)
        return;
    k->answer_at = msg->at_ns;
    uint64_t others = msg->answer - msg->ref;
    if (others > k->others) {
        refill(s, k, t_ns);
        k->level -= (double)(others - k->others);
        k->others = others;
    }
}

const struct rl_coord rl_coord_gtb = {
    .name = "gtb",
    .summary = "DRL global token bucket, drained by others' hits",
    .bound = "<= 2L + (N-1)*h; none with loss",
    .parse = gtb_parse,
    .bound_of = gtb_bound,
    .bound_span = gtb_span,
    .store_new = gtb_store_new,
    .store_free = gtb_store_free,
    .serve = gtb_serve,
    .node_new = gtb_node_new,
    .node_free = gtb_node_free,
    .attempt = gtb_attempt,
    .tick = gtb_tick,
    .reply = gtb_reply,
};
