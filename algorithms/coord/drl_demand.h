/* drl_demand.h — the demand estimate DRL's limiters exchange (Raghavan et
 * al., SIGCOMM 2007): the cost that arrived at a node in each tick of T,
 * scaled to one interval I and smoothed by an exponentially weighted moving
 * average; gtb, grd and fps keep one per key. The store keeps each node's
 * newest estimate and answers their sum: the global demand. */
#ifndef RL_DRL_DEMAND_H
#define RL_DRL_DEMAND_H

#include "coord.h"

#include <stdlib.h>

struct drl_demand {
    uint64_t arrived; /* cost offered since the last tick, admitted or not */
    double estimate;  /* demand per I, smoothed */
    double reported;  /* the estimate this node last sent */
    double global;    /* the newest sum of every node's estimate the store answered */
    uint64_t global_at;
    bool started;
};

/* The tick: the newest sample folded in; returns the estimate to send. */
static inline double drl_demand_tick(struct drl_demand *d, const struct rl_coord_params *p)
{
    double sample = (double)d->arrived * (double)p->interval_ns / (double)p->sync_ns;
    d->estimate = d->started ? p->ewma * sample + (1 - p->ewma) * d->estimate : sample;
    d->started = true;
    d->arrived = 0;
    d->reported = d->estimate;
    return d->estimate;
}

/* The global demand as this node sees it: the store's sum with this node's
 * own part as it is now rather than as it was when last reported. */
static inline double drl_demand_global(const struct drl_demand *d)
{
    double g = d->global - d->reported + d->estimate;
    return g > 0 ? g : 0;
}

/* Estimates travel as thousandths of a unit of cost per I. */
#define DRL_DEMAND_SCALE 1000.0

/* The store half every DRL strategy shares: each node's newest estimate
 * per key, and their sum. */
struct drl_store {
    struct rl_coord_params p;
    uint64_t *latest; /* keys × nodes */
    uint64_t *sum;    /* keys */
};

static inline void *drl_store_new(const struct rl_coord_params *p)
{
    struct drl_store *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->p = *p;
    s->latest = calloc((size_t)p->keys * p->nodes, sizeof *s->latest);
    s->sum = calloc(p->keys, sizeof *s->sum);
    if (s->latest == NULL || s->sum == NULL) {
        free(s->latest);
        free(s->sum);
        free(s);
        return NULL;
    }
    return s;
}

static inline void drl_store_free(void *store)
{
    struct drl_store *s = store;
    free(s->latest);
    free(s->sum);
    free(s);
}

static inline void drl_store_serve(void *store, struct rl_coord_msg *m, uint64_t t_ns)
{
    struct drl_store *s = store;
    uint64_t *mine = &s->latest[(size_t)m->key * s->p.nodes + m->node];
    s->sum[m->key] = s->sum[m->key] - *mine + m->value;
    *mine = m->value;
    m->answer = s->sum[m->key];
    m->at_ns = t_ns;
}

/* The node's side of an answer: newer answers only. */
static inline void drl_demand_reply(struct drl_demand *d, const struct rl_coord_msg *m)
{
    if (m->at_ns >= d->global_at) {
        d->global = (double)m->answer / DRL_DEMAND_SCALE;
        d->global_at = m->at_ns;
    }
}

#endif
