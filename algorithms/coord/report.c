/* report.c — `report` (gubernator's GLOBAL behaviour, Databricks' 2025
 * limiter): a node decides alone from its view of the global count, sends
 * its hits to the store every T, and the reply carries the global count
 * (the store's exact sliding window of reported hits, stamped on arrival).
 * The view is that count plus the node's own hits not yet in it (unsent,
 * or sent and unanswered). What the view misses is other nodes' hits of
 * the last S = 2T + 3D (D: the most one message takes), so the global
 * window keeps ≤ L + (N − 1)·h, h the most one node admits in a span S;
 * with lost messages nothing (docs/nodes.md). */
#include "coord.h"

#include <stdlib.h>

struct sent {
    uint64_t seq, hits, at_ns;
};

struct report_key {
    uint64_t global;    /* the newest count the store answered */
    uint64_t global_at; /* when the store answered it */
    uint64_t unsent;    /* own hits since the last send */
    uint64_t in_flight; /* own hits sent, no answer yet */
    struct sent *ring;  /* the unanswered sends, oldest first */
    uint32_t head, len;
    uint64_t seq;
};

struct report_node {
    struct rl_coord_params p;
    uint32_t node, slots;
    struct report_key *keys;
};

static int report_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    (void)p;
    return rl_coord_parse_none("report", text, err, err_len);
}

static uint64_t report_span(const struct rl_coord_params *p)
{
    return 2 * p->sync_ns + 3 * p->delay_ns;
}

/* A node's own admits in any window are ≤ L (its view holds all of them),
 * so h counts at most L when the span fits in one window. */
static uint64_t report_bound(const struct rl_coord_params *p, uint64_t h)
{
    if (p->lossy)
        return 0;
    if (report_span(p) <= p->interval_ns && h > p->limit)
        h = p->limit;
    return p->limit + (uint64_t)(p->nodes - 1) * h;
}

/* Hits stamped on arrival (no earlier than they were admitted, so they
 * stay in the window at least as long as they should); the answer is the
 * window's sum. Out of memory: the hits are not counted, as if lost. */
static void report_serve(void *store, struct rl_coord_msg *m, uint64_t t_ns)
{
    struct rl_coord_window_store *s = store;
    struct rl_coord_window *w = &s->keys[m->key];
    if (m->value > 0)
        rl_coord_window_add(w, t_ns, m->value);
    else
        rl_coord_window_expire(w, t_ns);
    m->answer = w->sum;
    m->at_ns = t_ns;
}

static void *report_node_new(const struct rl_coord_params *p, uint32_t node)
{
    struct report_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->p = *p;
    s->node = node;
    /* sends a reply may still come for: one a tick over a round trip */
    s->slots = (uint32_t)(rl_coord_reply_timeout(p) / p->sync_ns + 2);
    s->keys = calloc(p->keys, sizeof *s->keys);
    struct sent *rings = calloc((size_t)p->keys * s->slots, sizeof *rings);
    if (s->keys == NULL || rings == NULL) {
        free(s->keys);
        free(rings);
        free(s);
        return NULL;
    }
    for (uint32_t k = 0; k < p->keys; k++)
        s->keys[k].ring = rings + (size_t)k * s->slots;
    return s;
}

static void report_node_free(void *node)
{
    struct report_node *s = node;
    if (s->p.keys)
        free(s->keys[0].ring);
    free(s->keys);
    free(s);
}

static enum rl_coord_step report_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                         struct rl_coord_msg *msg, bool *send)
{
    (void)t_ns, (void)msg;
    struct report_node *s = node;
    struct report_key *k = &s->keys[key];
    *send = false;
    if (k->global + k->in_flight + k->unsent + n > s->p.limit)
        return RL_COORD_REJECT;
    k->unsent += n;
    return RL_COORD_ADMIT;
}

/* Drops the oldest unanswered send: answered, or lost (no reply can come). */
static void drop_oldest(struct report_node *s, struct report_key *k)
{
    k->in_flight -= k->ring[k->head].hits;
    k->head = (k->head + 1) % s->slots;
    k->len--;
}

static bool report_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    struct report_node *s = node;
    struct report_key *k = &s->keys[key];
    uint64_t timeout = rl_coord_reply_timeout(&s->p);
    while (k->len > 0 && (t_ns - k->ring[k->head].at_ns > timeout || k->len == s->slots))
        drop_oldest(s, k);
    struct sent *slot = &k->ring[(k->head + k->len) % s->slots];
    *slot = (struct sent){.seq = ++k->seq, .hits = k->unsent, .at_ns = t_ns};
    k->len++;
    k->in_flight += k->unsent;
    *msg = (struct rl_coord_msg){
        .op = RL_COORD_SYNC, .node = s->node, .key = key, .value = k->unsent, .ref = k->seq};
    k->unsent = 0;
    return true;
}

/* Each link keeps its order (harness/run/nodes_sim.c), so the answer to
 * send seq counts every earlier send of this node: they leave the view's
 * in-flight part with it. */
static void report_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)t_ns;
    struct report_node *s = node;
    struct report_key *k = &s->keys[msg->key];
    if (msg->at_ns >= k->global_at) {
        k->global = msg->answer;
        k->global_at = msg->at_ns;
    }
    while (k->len > 0 && k->ring[k->head].seq <= msg->ref)
        drop_oldest(s, k);
}

const struct rl_coord rl_coord_report = {
    .name = "report",
    .summary = "local decisions; hits out, global count back every T",
    .bound = "<= L + (N-1)*h; none with loss",
    .parse = report_parse,
    .bound_of = report_bound,
    .bound_span = report_span,
    .store_new = rl_coord_window_store_new,
    .store_free = rl_coord_window_store_free,
    .serve = report_serve,
    .node_new = report_node_new,
    .node_free = report_node_free,
    .attempt = report_attempt,
    .tick = report_tick,
    .reply = report_reply,
};
