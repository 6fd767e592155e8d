/* coord_window.c — an exact sliding sum of stamped amounts (coord.h): the
 * global window a store keeps, and a node's own window. A ring that grows. */
#include "coord.h"

#include <stdlib.h>
#include <string.h>

void rl_coord_window_init(struct rl_coord_window *w, uint64_t interval_ns)
{
    memset(w, 0, sizeof *w);
    w->interval_ns = interval_ns;
}

void rl_coord_window_expire(struct rl_coord_window *w, uint64_t t_ns)
{
    while (w->len > 0 && w->t_ns[w->head] + w->interval_ns <= t_ns) {
        w->sum -= w->amount[w->head];
        w->head = (w->head + 1) % w->cap;
        w->len--;
        w->first_id++;
    }
}

static int grow(struct rl_coord_window *w)
{
    size_t cap = w->cap ? 2 * w->cap : 16;
    uint64_t *t = malloc(cap * sizeof *t), *a = malloc(cap * sizeof *a);
    if (t == NULL || a == NULL) {
        free(t);
        free(a);
        return -1;
    }
    for (size_t i = 0; i < w->len; i++) {
        t[i] = w->t_ns[(w->head + i) % w->cap];
        a[i] = w->amount[(w->head + i) % w->cap];
    }
    free(w->t_ns);
    free(w->amount);
    w->t_ns = t;
    w->amount = a;
    w->head = 0;
    w->cap = cap;
    return 0;
}

uint64_t rl_coord_window_add(struct rl_coord_window *w, uint64_t t_ns, uint64_t amount)
{
    rl_coord_window_expire(w, t_ns);
    if (w->len == w->cap && grow(w) != 0)
        return UINT64_MAX;
    size_t at = (w->head + w->len) % w->cap;
    w->t_ns[at] = t_ns;
    w->amount[at] = amount;
    w->len++;
    w->sum += amount;
    return w->first_id + w->len - 1;
}

void rl_coord_window_take_back(struct rl_coord_window *w, uint64_t id, uint64_t amount)
{
    if (id < w->first_id || id >= w->first_id + w->len)
        return; /* already out of the window: it no longer counts anyway */
    uint64_t *held = &w->amount[(w->head + (id - w->first_id)) % w->cap];
    uint64_t back = amount < *held ? amount : *held;
    *held -= back;
    w->sum -= back;
}

void rl_coord_window_free(struct rl_coord_window *w)
{
    free(w->t_ns);
    free(w->amount);
    memset(w, 0, sizeof *w);
}

void *rl_coord_window_store_new(const struct rl_coord_params *p)
{
    struct rl_coord_window_store *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->p = *p;
    s->keys = malloc(p->keys * sizeof *s->keys);
    if (s->keys == NULL) {
        free(s);
        return NULL;
    }
    for (uint32_t k = 0; k < p->keys; k++)
        rl_coord_window_init(&s->keys[k], p->interval_ns);
    return s;
}

void rl_coord_window_store_free(void *store)
{
    struct rl_coord_window_store *s = store;
    for (uint32_t k = 0; k < s->p.keys; k++)
        rl_coord_window_free(&s->keys[k]);
    free(s->keys);
    free(s);
}

struct alone_node {
    uint64_t limit;
    uint32_t keys;
    struct rl_coord_window *windows; /* one per key */
};

void *rl_coord_alone_node_new(const struct rl_coord_params *p, uint64_t limit)
{
    struct alone_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->limit = limit;
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

void rl_coord_alone_node_free(void *node)
{
    struct alone_node *s = node;
    for (uint32_t k = 0; k < s->keys; k++)
        rl_coord_window_free(&s->windows[k]);
    free(s->windows);
    free(s);
}

enum rl_coord_step rl_coord_alone_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                          struct rl_coord_msg *msg, bool *send)
{
    (void)msg;
    struct alone_node *s = node;
    struct rl_coord_window *w = &s->windows[key];
    *send = false;
    rl_coord_window_expire(w, t_ns);
    return w->sum + n <= s->limit && rl_coord_window_add(w, t_ns, n) != UINT64_MAX
               ? RL_COORD_ADMIT
               : RL_COORD_REJECT;
}

bool rl_coord_alone_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    (void)node, (void)key, (void)t_ns, (void)msg;
    return false;
}

void rl_coord_alone_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    (void)node, (void)msg, (void)t_ns;
}
