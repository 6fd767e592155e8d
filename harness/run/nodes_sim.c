/* nodes_sim.c — the discrete-event simulation behind `ratelab sim --nodes`
 * (nodes_sim.h): arrivals from the trace, message deliveries and sync ticks
 * taken in time order from one heap, every decision streamed into the
 * checker as it is made. */
#include "nodes_sim.h"

#include "harness/io/grow_array.h"
#include "workloads/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ev_kind { EV_TICK, EV_AT_STORE, EV_AT_NODE, EV_DIE };

struct ev {
    uint64_t t_ns, seq; /* seq: ties in the order they were made, so runs repeat */
    uint32_t kind, node;
    struct rl_coord_msg msg;
};

struct heap {
    struct ev *a;
    size_t len, cap;
    uint64_t seq;
};

static bool ev_before(const struct ev *x, const struct ev *y)
{
    return x->t_ns < y->t_ns || (x->t_ns == y->t_ns && x->seq < y->seq);
}

static int heap_push(struct heap *h, struct ev e)
{
    struct ev *a = rl_grow_array(h->a, &h->cap, h->len, sizeof *a, 1024);
    if (a == NULL)
        return -1;
    h->a = a;
    e.seq = h->seq++;
    size_t i = h->len++;
    while (i > 0 && ev_before(&e, &h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = e;
    return 0;
}

static struct ev heap_pop(struct heap *h)
{
    struct ev top = h->a[0], last = h->a[--h->len];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && ev_before(&h->a[c + 1], &h->a[c]))
            c++;
        if (!ev_before(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->len > 0)
        h->a[i] = last;
    return top;
}

/* The arrivals at one node inside the last span: the most cost it was
 * offered in any span (what the bounds of report and gtb read). */
struct offered {
    uint64_t *t_ns;
    uint32_t *n;
    size_t head, len, cap;
    uint64_t sum;
};

static int offered_add(struct offered *o, uint64_t span, uint64_t t_ns, uint32_t n, uint64_t *max)
{
    while (o->len > 0 && o->t_ns[o->head] + span <= t_ns) {
        o->sum -= o->n[o->head];
        o->head = (o->head + 1) % o->cap;
        o->len--;
    }
    if (o->len == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        uint64_t *t = malloc(cap * sizeof *t);
        uint32_t *c = malloc(cap * sizeof *c);
        if (t == NULL || c == NULL) {
            free(t);
            free(c);
            return -1;
        }
        for (size_t i = 0; i < o->len; i++) {
            t[i] = o->t_ns[(o->head + i) % o->cap];
            c[i] = o->n[(o->head + i) % o->cap];
        }
        free(o->t_ns);
        free(o->n);
        o->t_ns = t;
        o->n = c;
        o->head = 0;
        o->cap = cap;
    }
    size_t at = (o->head + o->len) % o->cap;
    o->t_ns[at] = t_ns;
    o->n[at] = n;
    o->len++;
    o->sum += n;
    if (o->sum > *max)
        *max = o->sum;
    return 0;
}

#define FLUSH_EVENTS 65536

/* Everything one run holds. */
struct sim {
    const struct rl_nodes_config *cfg;
    struct rl_nodes_outcome *out;
    void *store;
    void **nodes;
    struct heap heap;
    struct rl_rng net;
    struct rl_node_picker picker;
    uint64_t *up_free, *down_free; /* each link's last delivery: links keep their order */
    struct offered *offered;
    uint64_t span;
    struct rl_checker *global, *per_node;
    struct rl_event *buf, *node_buf;
    size_t buf_len;
    uint64_t *window_cost; /* keys × windows */
    size_t windows;
    bool *dead;             /* NULL when no node dies */
    uint32_t alive;         /* nodes not dead */
    bool watching;          /* the windows after a death (or watch_ns) are measured */
    uint64_t freed_at;      /* when the store's window lets the last stranded grant go */
    uint64_t death_cost[2]; /* admitted in [first death, + I) and the next I */
    char *err;
    size_t err_len;
};

static int flush(struct sim *s)
{
    if (s->buf_len == 0)
        return 0;
    if (rl_checker_add(s->global, s->buf, s->buf_len, s->err, s->err_len) != 0 ||
        rl_checker_add(s->per_node, s->node_buf, s->buf_len, s->err, s->err_len) != 0)
        return -1;
    s->buf_len = 0;
    return 0;
}

/* One decision, at the time it was made. */
static int decided(struct sim *s, uint64_t t_ns, uint32_t node, uint32_t key, uint32_t n,
                   bool admitted)
{
    struct rl_event e = {.t_ns = t_ns, .key = key, .n = n, .admitted = admitted};
    s->buf[s->buf_len] = e;
    e.key = node * s->cfg->p.keys + key;
    s->node_buf[s->buf_len++] = e;
    s->out->attempts++;
    s->out->admits += admitted;
    s->out->rejects += !admitted;
    s->out->node0_admits += admitted && node == 0;
    if (admitted && s->watching && t_ns >= s->out->death_ns) {
        uint64_t since = (t_ns - s->out->death_ns) / s->cfg->p.interval_ns;
        if (since < 2)
            s->death_cost[since] += n;
    }
    if (admitted) {
        size_t w = t_ns / s->cfg->p.interval_ns;
        if (w < s->windows)
            s->window_cost[(size_t)key * s->windows + w] += n;
    }
    return s->buf_len == FLUSH_EVENTS ? flush(s) : 0;
}

/* A message leaves at t: lost, or delivered after RTT/2 plus jitter, never
 * before the link's previous one. */
static int send(struct sim *s, uint64_t t_ns, enum ev_kind kind, uint32_t node,
                const struct rl_coord_msg *msg)
{
    const struct rl_nodes_config *cfg = s->cfg;
    s->out->messages++;
    if (cfg->loss > 0 && rl_rng_uniform(&s->net) < cfg->loss) {
        s->out->lost++;
        return 1;
    }
    uint64_t delay = cfg->rtt_ns / 2;
    if (cfg->jitter_ns)
        delay += rl_rng_next(&s->net) % (cfg->jitter_ns + 1);
    uint64_t *link = kind == EV_AT_STORE ? &s->up_free[node] : &s->down_free[node];
    uint64_t at = t_ns + delay > *link ? t_ns + delay : *link;
    *link = at;
    struct ev e = {.t_ns = at, .kind = kind, .node = node, .msg = *msg};
    return heap_push(&s->heap, e);
}

/* The spread rule's node; a dead one's attempt is drawn again (a few
 * times, then the next live node takes it), as a balancer would send it. */
static uint32_t pick_node(struct sim *s, uint64_t t_ns)
{
    uint32_t node = rl_node_picker_next(&s->picker, t_ns);
    if (s->dead == NULL || s->alive == 0)
        return node; /* none alive: the attempt finds no node (rejected) */
    for (int tries = 0; s->dead[node] && tries < 64; tries++)
        node = rl_node_picker_next(&s->picker, t_ns);
    while (s->dead[node])
        node = (node + 1) % s->cfg->p.nodes;
    return node;
}

/* A grant the dead node will never spend: the store's window counts it
 * until I after it granted it. */
static void stranded(struct sim *s, uint64_t tokens, uint64_t granted_ns)
{
    if (tokens == 0)
        return;
    s->out->stranded += tokens;
    uint64_t until = granted_ns + s->cfg->p.interval_ns;
    if (until > s->freed_at)
        s->freed_at = until;
}

static void die(struct sim *s, uint32_t node)
{
    if (s->dead[node])
        return;
    s->dead[node] = true;
    s->alive--;
    const struct rl_coord *coord = s->cfg->coord;
    for (uint32_t k = 0; coord->held && k < s->cfg->p.keys; k++) {
        uint64_t granted_ns = 0;
        uint64_t tokens = coord->held(s->nodes[node], k, &granted_ns);
        stranded(s, tokens, granted_ns);
    }
}

static int arrival(struct sim *s, const struct rl_attempt *a)
{
    uint32_t node = pick_node(s, a->t_ns);
    if (s->dead && s->dead[node])
        return decided(s, a->t_ns, node, a->key, a->n, false);
    if (s->span && offered_add(&s->offered[node], s->span, a->t_ns, a->n, &s->out->h) != 0)
        return -1;
    struct rl_coord_msg msg;
    bool out_msg = false;
    enum rl_coord_step step =
        s->cfg->coord->attempt(s->nodes[node], a->key, a->n, a->t_ns, &msg, &out_msg);
    int sent = out_msg ? send(s, a->t_ns, EV_AT_STORE, node, &msg) : 0;
    if (sent < 0)
        return -1;
    if (step == RL_COORD_ASK) /* decided at the store; a lost request decides nothing: rejected */
        return sent == 1 ? decided(s, a->t_ns, node, a->key, a->n, false) : 0;
    return decided(s, a->t_ns, node, a->key, a->n, step == RL_COORD_ADMIT);
}

static int event(struct sim *s, struct ev *e, uint64_t end_ns)
{
    const struct rl_coord *coord = s->cfg->coord;
    bool gone = s->dead && s->dead[e->node];
    switch (e->kind) {
    case EV_DIE:
        die(s, e->node);
        return 0;
    case EV_TICK:
        if (gone)
            return 0; /* a dead node ticks no more */
        for (uint32_t k = 0; k < s->cfg->p.keys; k++) {
            struct rl_coord_msg msg;
            if (coord->tick(s->nodes[e->node], k, e->t_ns, &msg) &&
                send(s, e->t_ns, EV_AT_STORE, e->node, &msg) < 0)
                return -1;
        }
        e->t_ns += s->cfg->p.sync_ns;
        return e->t_ns <= end_ns ? heap_push(&s->heap, *e) : 0;
    case EV_AT_STORE:
        s->out->store_calls++;
        coord->serve(s->store, &e->msg, e->t_ns);
        if (e->msg.op == RL_COORD_DECIDE) {
            /* the decision is the store's, made now; its reply changes nothing at the node */
            s->out->messages++;
            return decided(s, e->t_ns, e->node, e->msg.key, (uint32_t)e->msg.value,
                           e->msg.answer != 0);
        }
        return send(s, e->t_ns, EV_AT_NODE, e->node, &e->msg) < 0 ? -1 : 0;
    case EV_AT_NODE:
        if (gone) { /* nobody takes the reply; a grant in it is never spent */
            if (e->msg.op == RL_COORD_TAKE)
                stranded(s, e->msg.answer, e->msg.at_ns);
            return 0;
        }
        coord->reply(s->nodes[e->node], &e->msg, e->t_ns);
        return 0;
    }
    return 0;
}

void rl_nodes_prepare(struct rl_nodes_config *cfg, uint32_t keys)
{
    cfg->p.keys = keys ? keys : 1;
    cfg->p.delay_ns = cfg->rtt_ns / 2 + cfg->jitter_ns;
    cfg->p.lossy = cfg->loss > 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int rl_nodes_summarize_windows(const struct rl_coord_params *p, uint64_t step_ns,
                               const uint64_t *window_cost, size_t windows,
                               struct rl_nodes_outcome *out)
{
    size_t count = (size_t)p->keys * windows;
    double *share = malloc((count ? count : 1) * sizeof *share);
    if (share == NULL)
        return -1;
    double limit = (double)p->limit;
    uint64_t interval = p->interval_ns, last_over = 0;
    bool over = false;
    for (size_t i = 0; i < count; i++) {
        share[i] = (double)window_cost[i] / limit;
        size_t w = i % windows;
        if (share[i] > out->window_max)
            out->window_max = share[i];
        if ((w + 1) * interval > step_ns && share[i] > out->step_max)
            out->step_max = share[i];
        if (share[i] > 1.05 && (w + 1) * interval > last_over) {
            last_over = (w + 1) * interval;
            over = true;
        }
    }
    qsort(share, count, sizeof *share, cmp_double);
    out->window_p99 = count ? share[(size_t)ceil(0.99 * (double)count) - 1] : 0;
    out->converge_ns = over && last_over > step_ns ? last_over - step_ns : 0;
    free(share);
    return 0;
}

static int setup(struct sim *s, const struct rl_trace *trace)
{
    const struct rl_nodes_config *cfg = s->cfg;
    uint32_t nodes = cfg->p.nodes;
    rl_rng_seed(&s->net, cfg->seed, 101);
    s->store = cfg->coord->store_new ? cfg->coord->store_new(&cfg->p) : NULL;
    s->nodes = calloc(nodes, sizeof *s->nodes);
    s->up_free = calloc(nodes, sizeof *s->up_free);
    s->down_free = calloc(nodes, sizeof *s->down_free);
    s->span = cfg->coord->bound_span(&cfg->p);
    s->offered = s->span ? calloc(nodes, sizeof *s->offered) : NULL;
    s->buf = malloc(FLUSH_EVENTS * sizeof *s->buf);
    s->node_buf = malloc(FLUSH_EVENTS * sizeof *s->node_buf);
    s->windows = (size_t)(s->out->span_ns / cfg->p.interval_ns) + 1;
    s->window_cost = calloc((size_t)cfg->p.keys * s->windows, sizeof *s->window_cost);
    struct rl_check_params params = {.limit = cfg->p.limit, .interval_ns = cfg->p.interval_ns};
    s->global = rl_checker_new(&params, true, s->err, s->err_len);
    s->per_node = rl_checker_new(&params, true, s->err, s->err_len);
    if ((cfg->coord->store_new && s->store == NULL) || s->nodes == NULL || s->up_free == NULL ||
        s->down_free == NULL || (s->span && s->offered == NULL) || s->buf == NULL ||
        s->node_buf == NULL || s->window_cost == NULL || s->global == NULL || s->per_node == NULL)
        return -1;
    for (uint32_t i = 0; i < nodes; i++)
        if ((s->nodes[i] = cfg->coord->node_new(&cfg->p, i)) == NULL)
            return -1;
    if (rl_node_picker_init(&s->picker, &cfg->spread, nodes, cfg->seed) != 0)
        return -1;
    if (cfg->death_count) {
        if ((s->dead = calloc(nodes, sizeof *s->dead)) == NULL)
            return -1;
        s->alive = nodes;
        s->watching = true;
        s->out->death_ns = UINT64_MAX;
        for (size_t i = 0; i < cfg->death_count; i++) {
            struct ev death = {
                .t_ns = cfg->deaths[i].at_ns, .kind = EV_DIE, .node = cfg->deaths[i].node};
            if (cfg->deaths[i].at_ns < s->out->death_ns)
                s->out->death_ns = cfg->deaths[i].at_ns;
            if (heap_push(&s->heap, death) != 0)
                return -1;
        }
    }
    if (cfg->death_count == 0 && cfg->watch_ns) {
        s->watching = true;
        s->out->death_ns = cfg->watch_ns;
    }
    /* the ticks, spread over one T so that the nodes do not all talk at once */
    for (uint32_t i = 0; i < nodes; i++) {
        struct ev tick = {.t_ns = cfg->p.sync_ns * i / nodes, .kind = EV_TICK, .node = i};
        if (heap_push(&s->heap, tick) != 0)
            return -1;
    }
    (void)trace;
    return 0;
}

static void teardown(struct sim *s)
{
    const struct rl_nodes_config *cfg = s->cfg;
    if (s->nodes)
        for (uint32_t i = 0; i < cfg->p.nodes; i++)
            if (s->nodes[i])
                cfg->coord->node_free(s->nodes[i]);
    if (s->store)
        cfg->coord->store_free(s->store);
    if (s->offered)
        for (uint32_t i = 0; i < cfg->p.nodes; i++) {
            free(s->offered[i].t_ns);
            free(s->offered[i].n);
        }
    free(s->offered);
    free(s->nodes);
    free(s->up_free);
    free(s->down_free);
    rl_node_picker_free(&s->picker);
    free(s->buf);
    free(s->node_buf);
    free(s->window_cost);
    free(s->dead);
    free(s->heap.a);
    rl_checker_free(s->global);
    rl_checker_free(s->per_node);
}

static int finish(struct sim *s)
{
    const struct rl_nodes_config *cfg = s->cfg;
    struct rl_nodes_outcome *out = s->out;
    struct rl_check_result global, per_node;
    if (flush(s) != 0 ||
        rl_checker_finish(s->global, cfg->p.keys, &global, s->err, s->err_len) != 0)
        return -1;
    out->global = global.total;
    out->complete = global.complete;
    rl_check_result_free(&global);
    if (rl_checker_finish(s->per_node, (uint64_t)cfg->p.nodes * cfg->p.keys, &per_node, s->err,
                          s->err_len) != 0)
        return -1;
    out->node_max_sliding = per_node.total.max_sliding;
    rl_check_result_free(&per_node);
    if (rl_nodes_summarize_windows(&cfg->p, cfg->step_ns, s->window_cost, s->windows, out) != 0)
        return -1;
    if (s->watching) {
        double room = (double)cfg->p.limit * cfg->p.keys;
        out->death_window_ratio = (double)s->death_cost[0] / room;
        out->next_window_ratio = (double)s->death_cost[1] / room;
        out->freed_ns = s->freed_at > out->death_ns ? s->freed_at - out->death_ns : 0;
    }
    uint64_t bound = cfg->coord->bound_of(&cfg->p, out->h);
    out->promised = (struct rl_promised){.kind = bound ? RL_BOUND_GIVEN : RL_BOUND_NONE,
                                         .limit = cfg->p.limit,
                                         .excess = bound > cfg->p.limit ? bound - cfg->p.limit : 0};
    struct rl_run_facts facts = {
        .checked = true, .m = &out->global, .interval_ns = cfg->p.interval_ns};
    out->held = rl_verdict(&out->promised, &facts);
    return 0;
}

int rl_nodes_sim_run(const struct rl_nodes_config *cfg, const struct rl_trace *trace,
                     struct rl_nodes_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < trace->len; i++)
        if (trace->attempts[i].t_ns > out->span_ns)
            out->span_ns = trace->attempts[i].t_ns;
    struct sim s = {.cfg = cfg, .out = out, .err = err, .err_len = err_len};
    snprintf(err, err_len, "out of memory for %u nodes", cfg->p.nodes);
    int rc = setup(&s, trace);
    /* every event up to the last attempt: then nothing is left to decide */
    size_t next = 0;
    while (rc == 0 && next < trace->len) {
        const struct rl_attempt *a = &trace->attempts[next];
        if (s.heap.len > 0 && s.heap.a[0].t_ns <= a->t_ns) {
            struct ev e = heap_pop(&s.heap);
            rc = event(&s, &e, out->span_ns);
        } else {
            rc = arrival(&s, a);
            next++;
        }
    }
    /* decisions still at the store are made there */
    while (rc == 0 && s.heap.len > 0) {
        struct ev e = heap_pop(&s.heap);
        if (e.kind == EV_AT_STORE && e.msg.op == RL_COORD_DECIDE)
            rc = event(&s, &e, out->span_ns);
    }
    if (rc == 0)
        rc = finish(&s);
    teardown(&s);
    return rc < 0 ? -1 : 0;
}
