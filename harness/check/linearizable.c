/* linearizable.c — the linearizability checker (linearizable.h): witness
 * replay, then Wing & Gong's search as Lowe refined it, per key, with the
 * states it has seen remembered; the overshoot score; counterexamples
 * shrunk by delta debugging. */
#include "linearizable.h"

#include "harness/io/errmsg.h"
#include "harness/io/grow_array.h"

#include <stdlib.h>
#include <string.h>

const char *rl_lin_verdict_name(enum rl_lin_verdict verdict)
{
    return verdict == RL_LIN_YES  ? "linearizable"
           : verdict == RL_LIN_NO ? "not linearizable"
                                  : "unknown";
}

void rl_lin_result_free(struct rl_lin_result *result)
{
    free(result->counter);
    result->counter = NULL;
    result->counter_len = 0;
}

/* ---- the remembered states ---------------------------------------------- */

/* One state the search has reached: which operations are placed (all before
 * p, and the ones in extra after it), the time reached, and the model's
 * state there. Reached again by another order, it is not searched again. */
struct seen {
    uint64_t hash, time, dropped;
    size_t p;
    size_t *extra;
    uint32_t nextra;
    void *state; /* owned by the table */
};

struct memo {
    struct seen *slots;
    size_t mask, used;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 33);
}

static void memo_free(struct memo *m, const struct rl_lin_model *model)
{
    for (size_t i = 0; m->slots && i <= m->mask; i++)
        if (m->slots[i].state) {
            model->destroy(model->ctx, m->slots[i].state);
            free(m->slots[i].extra);
        }
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static bool seen_equal(const struct seen *a, const struct seen *b, const struct rl_lin_model *model)
{
    return a->hash == b->hash && a->time == b->time && a->p == b->p && a->nextra == b->nextra &&
           memcmp(a->extra, b->extra, a->nextra * sizeof *a->extra) == 0 &&
           model->equal(model->ctx, a->state, b->state);
}

/* 1 when s was seen with as few rejects dropped or fewer (what can follow
 * it was searched with at least as many drops to spare), 0 when it is now
 * remembered (the table owns its state and extra then; a copy seen with
 * more drops is replaced: no frame holds it, since a placed set is only
 * ever at one depth and that depth's earlier frame is gone), -1 on ENOMEM. */
static int memo_visit(struct memo *m, const struct rl_lin_model *model, struct seen *s)
{
    if (m->used * 2 >= (m->slots ? m->mask + 1 : 0)) {
        size_t cap = m->slots ? 2 * (m->mask + 1) : 1024;
        struct seen *slots = calloc(cap, sizeof *slots);
        if (slots == NULL)
            return -1;
        for (size_t i = 0; m->slots && i <= m->mask; i++)
            if (m->slots[i].state) {
                size_t j = m->slots[i].hash & (cap - 1);
                while (slots[j].state)
                    j = (j + 1) & (cap - 1);
                slots[j] = m->slots[i];
            }
        free(m->slots);
        m->slots = slots;
        m->mask = cap - 1;
    }
    size_t j = s->hash & m->mask;
    for (; m->slots[j].state; j = (j + 1) & m->mask)
        if (seen_equal(&m->slots[j], s, model)) {
            if (m->slots[j].dropped <= s->dropped)
                return 1;
            model->destroy(model->ctx, m->slots[j].state);
            free(m->slots[j].extra);
            m->slots[j] = *s;
            return 0;
        }
    m->slots[j] = *s;
    m->used++;
    return 0;
}

/* ---- the search, one key ------------------------------------------------- */

struct choice {
    size_t j; /* the operation placed next (its place in the key's list) */
    uint64_t t;
    bool witness; /* t is the operation's witness */
};

struct frame {
    size_t p, depth;
    size_t *extra; /* placed operations from p on, ascending */
    uint32_t nextra;
    uint64_t time, dropped;
    void *state; /* NULL once lent to a child (in place): rebuilt from mark */
    void *mark;
    struct choice *choices;
    uint32_t nchoices, next;
};

/* One key's search: its operations by call, what counts as an answer. */
struct search {
    const struct rl_lin_model *model;
    const struct rl_hist_op *ops; /* the history's */
    const size_t *idx;            /* this key's, by call */
    size_t n;
    uint64_t extra_limit;
    uint64_t max_dropped; /* recorded rejects the model would admit that may be dropped */
    uint64_t *budget;     /* states left, shared */
    uint64_t *states;
    /* out */
    size_t deepest, fail_depth, culprit; /* culprit: place in idx */
    uint64_t dropped;
    bool oom;
};

static const struct rl_hist_op *op_at(const struct search *s, size_t j)
{
    return &s->ops[s->idx[j]];
}

/* The moves from frame f: each unplaced operation that may go next and its
 * candidate times (linearizable.h). */
static int frame_choices(const struct search *s, struct frame *f)
{
    uint64_t min1 = UINT64_MAX, min2 = UINT64_MAX;
    size_t arg1 = SIZE_MAX, e = 0, first = f->p, last = f->p;
    for (size_t i = f->p; i < s->n; i++) {
        const struct rl_hist_op *o = op_at(s, i);
        if (o->call_ns > min2)
            break;
        last = i + 1;
        while (e < f->nextra && f->extra[e] < i)
            e++;
        if (e < f->nextra && f->extra[e] == i)
            continue;
        if (o->return_ns < min1) {
            min2 = min1;
            min1 = o->return_ns;
            arg1 = i;
        } else if (o->return_ns < min2) {
            min2 = o->return_ns;
        }
    }
    f->choices = malloc(4 * (last - first + 1) * sizeof *f->choices);
    if (f->choices == NULL)
        return -1;
    f->nchoices = f->next = 0;
    e = 0;
    for (size_t i = first; i < last; i++) {
        while (e < f->nextra && f->extra[e] < i)
            e++;
        if (e < f->nextra && f->extra[e] == i)
            continue;
        const struct rl_hist_op *o = op_at(s, i);
        uint64_t bound = i == arg1 ? min2 : min1;
        if (o->return_ns < bound)
            bound = o->return_ns;
        uint64_t from = o->call_ns > f->time ? o->call_ns : f->time;
        uint64_t cand[4] = {o->has_witness ? o->witness_ns : UINT64_MAX, from, o->return_ns,
                            UINT64_MAX};
        if (s->model->next_flip && from < bound)
            cand[3] = s->model->next_flip(s->model->ctx, f->state, o->key, o->cost, o->admitted,
                                          from, bound);
        for (int c = 0; c < 4; c++) {
            uint64_t t = cand[c];
            if (t < f->time || t < o->call_ns || t > bound || (c == 0 && !o->has_witness))
                continue;
            bool dup = false;
            for (int d = 0; d < c; d++)
                dup |= cand[d] == t && (d != 0 || o->has_witness);
            if (!dup) {
                /* witnesses first, then the earliest time: the likeliest
                 * order is tried first */
                uint32_t at = f->nchoices++;
                bool w = c == 0;
                while (at > 0 && (f->choices[at - 1].witness < w ||
                                  (f->choices[at - 1].witness == w && f->choices[at - 1].t > t))) {
                    f->choices[at] = f->choices[at - 1];
                    at--;
                }
                f->choices[at] = (struct choice){i, t, w};
            }
        }
    }
    return 0;
}

/* The placed set of f with j added, as (p, extra). */
static int place(const struct frame *f, size_t j, struct frame *child)
{
    child->extra = malloc((f->nextra + 1) * sizeof *child->extra);
    if (child->extra == NULL)
        return -1;
    uint32_t n = 0;
    bool put = false;
    for (uint32_t e = 0; e < f->nextra; e++) {
        if (!put && j < f->extra[e]) {
            child->extra[n++] = j;
            put = true;
        }
        child->extra[n++] = f->extra[e];
    }
    if (!put)
        child->extra[n++] = j;
    size_t p = f->p, skip = 0;
    while (skip < n && child->extra[skip] == p) {
        skip++;
        p++;
    }
    memmove(child->extra, child->extra + skip, (n - skip) * sizeof *child->extra);
    child->p = p;
    child->nextra = n - (uint32_t)skip;
    return 0;
}

static enum rl_lin_verdict search_key(struct search *s)
{
    const struct rl_lin_model *m = s->model;
    s->deepest = s->fail_depth = 0;
    s->culprit = 0;
    s->dropped = 0;
    s->oom = false;
    if (s->n == 0)
        return RL_LIN_YES;
    bool remember = m->hash != NULL && m->equal != NULL;
    /* in place: the path's one state is stepped forward, and rebuilt from a
     * frame's mark only when the search comes back to that frame */
    bool in_place = !remember && m->mark && m->rebuild && m->release;
    struct memo memo = {0};
    struct frame *stack = malloc((s->n + 1) * sizeof *stack);
    void *root = m->create(m->ctx, s->extra_limit);
    if (stack == NULL || root == NULL) {
        free(stack);
        if (root)
            m->destroy(m->ctx, root);
        s->oom = true;
        return RL_LIN_UNKNOWN;
    }
    size_t top = 0;
    bool failed_once = false;
    stack[0] = (struct frame){.state = root, .mark = in_place ? m->mark(m->ctx, root) : NULL};
    enum rl_lin_verdict verdict = RL_LIN_NO;
    if ((in_place && stack[0].mark == NULL) || frame_choices(s, &stack[0]) != 0) {
        s->oom = true;
        verdict = RL_LIN_UNKNOWN;
        top = 1;
        goto out;
    }
    top = 1;
    while (top > 0) {
        struct frame *f = &stack[top - 1];
        if (f->depth == s->n) {
            s->dropped = f->dropped;
            verdict = RL_LIN_YES;
            break;
        }
        if (f->next == f->nchoices) {
            free(f->choices);
            if (!remember) {
                if (f->state)
                    m->destroy(m->ctx, f->state);
                if (f->mark)
                    m->release(m->ctx, f->mark);
                free(f->extra);
            }
            top--;
            continue;
        }
        struct choice c = f->choices[f->next++];
        if (*s->budget == 0) {
            verdict = RL_LIN_UNKNOWN;
            break;
        }
        const struct rl_hist_op *o = op_at(s, c.j);
        void *state;
        if (in_place && f->state) {
            state = f->state; /* lent to the child */
            f->state = NULL;
        } else {
            if (m->clone_replays) { /* the copy replays f->depth steps */
                uint64_t cost = f->depth < *s->budget ? f->depth : *s->budget;
                *s->budget -= cost;
                if (*s->budget == 0) {
                    verdict = RL_LIN_UNKNOWN;
                    break;
                }
            }
            state = in_place ? m->rebuild(m->ctx, f->mark) : m->clone(m->ctx, f->state);
        }
        if (state == NULL) {
            s->oom = true;
            verdict = RL_LIN_UNKNOWN;
            break;
        }
        struct frame child = {.depth = f->depth + 1, .time = c.t, .dropped = f->dropped};
        bool admit = m->step(m->ctx, state, c.t, o->key, o->cost);
        if (admit != o->admitted) {
            if (!failed_once || f->depth > s->fail_depth) {
                s->culprit = c.j; /* the first failure at the deepest point */
                s->fail_depth = f->depth;
                failed_once = true;
            }
            m->destroy(m->ctx, state);
            if (o->admitted || f->dropped >= s->max_dropped)
                continue;
            /* the reject dropped: nothing changed */
            state = in_place ? m->rebuild(m->ctx, f->mark) : m->clone(m->ctx, f->state);
            child.dropped++;
            if (state == NULL) {
                s->oom = true;
                verdict = RL_LIN_UNKNOWN;
                break;
            }
        }
        if (place(f, c.j, &child) != 0) {
            m->destroy(m->ctx, state);
            s->oom = true;
            verdict = RL_LIN_UNKNOWN;
            break;
        }
        child.state = state;
        if (in_place && (child.mark = m->mark(m->ctx, state)) == NULL) {
            m->destroy(m->ctx, state);
            free(child.extra);
            s->oom = true;
            verdict = RL_LIN_UNKNOWN;
            break;
        }
        if (remember) {
            uint64_t h = mix(mix(child.p, child.time), m->hash(m->ctx, state));
            for (uint32_t e = 0; e < child.nextra; e++)
                h = mix(h, child.extra[e]);
            struct seen seen = {h,           child.time,   child.dropped, child.p,
                                child.extra, child.nextra, state};
            int rc = memo_visit(&memo, m, &seen);
            if (rc != 0) {
                m->destroy(m->ctx, state);
                free(child.extra);
                if (rc < 0) {
                    s->oom = true;
                    verdict = RL_LIN_UNKNOWN;
                    break;
                }
                continue;
            }
        }
        (*s->budget)--;
        (*s->states)++;
        if (frame_choices(s, &child) != 0) {
            if (!remember) {
                m->destroy(m->ctx, state);
                if (child.mark)
                    m->release(m->ctx, child.mark);
                free(child.extra);
            }
            s->oom = true;
            verdict = RL_LIN_UNKNOWN;
            break;
        }
        if (child.depth > s->deepest)
            s->deepest = child.depth;
        stack[top++] = child;
    }
out:
    for (size_t i = 0; i < top; i++)
        free(stack[i].choices);
    if (!remember) {
        for (size_t i = 0; i < top; i++) {
            if (stack[i].state)
                m->destroy(m->ctx, stack[i].state);
            if (stack[i].mark)
                m->release(m->ctx, stack[i].mark);
            free(stack[i].extra);
        }
    } else {
        m->destroy(m->ctx, root); /* the root was never in the table */
        memo_free(&memo, m);
    }
    free(stack);
    return verdict;
}

/* ---- witness replay, one key --------------------------------------------- */

static const struct rl_hist_op *sort_ops; /* qsort's context */

static int by_witness(const void *a, const void *b)
{
    const struct rl_hist_op *x = &sort_ops[*(const size_t *)a], *y = &sort_ops[*(const size_t *)b];
    if (x->witness_ns != y->witness_ns)
        return x->witness_ns < y->witness_ns ? -1 : 1;
    if (x->call_ns != y->call_ns)
        return x->call_ns < y->call_ns ? -1 : 1;
    if (x->return_ns != y->return_ns)
        return x->return_ns < y->return_ns ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int by_call(const void *a, const void *b)
{
    const struct rl_hist_op *x = &sort_ops[*(const size_t *)a], *y = &sort_ops[*(const size_t *)b];
    if (x->call_ns != y->call_ns)
        return x->call_ns < y->call_ns ? -1 : 1;
    if (x->return_ns != y->return_ns)
        return x->return_ns < y->return_ns ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static void sort_indices(const struct rl_hist_op *ops, size_t *idx, size_t n,
                         int (*cmp)(const void *, const void *))
{
    sort_ops = ops;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = cmp(&idx[i - 1], &idx[i]) <= 0;
    if (!sorted)
        qsort(idx, n, sizeof *idx, cmp);
}

/* YES when replaying the key's operations at their witnesses, in witness
 * order, gives every answer; NO when it does not (the search decides then);
 * UNKNOWN when an operation has no witness or memory ran out. */
static enum rl_lin_verdict witness_key(const struct rl_lin_model *m, const struct rl_hist_op *ops,
                                       const size_t *by_call_idx, size_t n, size_t *scratch)
{
    for (size_t i = 0; i < n; i++)
        if (!ops[by_call_idx[i]].has_witness)
            return RL_LIN_UNKNOWN;
    memcpy(scratch, by_call_idx, n * sizeof *scratch);
    sort_indices(ops, scratch, n, by_witness);
    void *state = m->create(m->ctx, 0);
    if (state == NULL)
        return RL_LIN_UNKNOWN;
    enum rl_lin_verdict v = RL_LIN_YES;
    for (size_t i = 0; i < n && v == RL_LIN_YES; i++) {
        const struct rl_hist_op *o = &ops[scratch[i]];
        if (m->step(m->ctx, state, o->witness_ns, o->key, o->cost) != o->admitted)
            v = RL_LIN_NO;
    }
    m->destroy(m->ctx, state);
    return v;
}

/* ---- shrinking ----------------------------------------------------------- */

/* NO for the operations idx[0..n) (by call) alone, within *budget. */
static enum rl_lin_verdict judge_subset(const struct rl_lin_model *m, const struct rl_hist_op *ops,
                                        const size_t *idx, size_t n, uint64_t *budget,
                                        uint64_t *states, size_t *culprit)
{
    struct search s = {
        .model = m, .ops = ops, .idx = idx, .n = n, .budget = budget, .states = states};
    enum rl_lin_verdict v = search_key(&s);
    if (culprit)
        *culprit = idx[s.culprit < n ? s.culprit : 0];
    return v;
}

/* Shrinks the failing operations idx[0..*n) in place: the shortest failing
 * prefix by call, then delta debugging (Zeller's ddmin) until dropping any
 * one operation makes the rest linearizable, or the budget is spent. */
static void shrink(const struct rl_lin_model *m, const struct rl_hist_op *ops, size_t *idx,
                   size_t *n, uint64_t *budget, uint64_t *states)
{
    size_t lo = 0, hi = *n;
    while (hi - lo > 1 && *budget > 0) {
        size_t mid = lo + (hi - lo) / 2;
        if (judge_subset(m, ops, idx, mid, budget, states, NULL) == RL_LIN_NO)
            hi = mid;
        else
            lo = mid;
    }
    *n = hi;
    size_t *trial = malloc((*n ? *n : 1) * sizeof *trial);
    if (trial == NULL)
        return;
    size_t parts = 2;
    while (*n >= 2 && *budget > 0) {
        bool reduced = false;
        size_t chunk = (*n + parts - 1) / parts;
        for (size_t start = 0; start<*n && * budget> 0; start += chunk) {
            size_t end = start + chunk < *n ? start + chunk : *n, k = 0;
            for (size_t i = 0; i < *n; i++)
                if (i < start || i >= end)
                    trial[k++] = idx[i];
            if (k > 0 && judge_subset(m, ops, trial, k, budget, states, NULL) == RL_LIN_NO) {
                memcpy(idx, trial, k * sizeof *idx);
                *n = k;
                parts = parts > 2 ? parts - 1 : 2;
                reduced = true;
                break;
            }
        }
        if (!reduced) {
            if (chunk == 1)
                break;
            parts = 2 * parts < *n ? 2 * parts : *n;
        }
    }
    free(trial);
}

/* ---- the fewest forgiven rejects ------------------------------------------ */

/* A move waiting to be made: from an expanded state (its model state and
 * placed set belong to the table, which keeps them to the end), place
 * operation j at time t, stepping the model or, forgiven, not. A move, not
 * the state it leads to, so that what waits costs no model state. */
struct pending {
    const void *from;
    const size_t *extra;
    uint32_t nextra;
    bool forgiven;
    size_t p, depth, j;
    uint64_t time, t;
};

struct pending_list {
    struct pending *items;
    size_t len, cap;
};

static int pending_push(struct pending_list *l, const struct pending *x)
{
    struct pending *items = rl_grow_array(l->items, &l->cap, l->len, sizeof *items, 256);
    if (items == NULL)
        return -1;
    l->items = items;
    l->items[l->len++] = *x;
    return 0;
}

/* The fewest recorded rejects that must be forgiven for s's operations to
 * be linearizable against s->extra_limit, in one pass: search_key's moves
 * as a graph whose edges cost 0 (the step gives the recorded answer) or 1
 * (a reject forgiven), searched level by level (a 0-1 breadth-first search,
 * Dijkstra's order for weights 0 and 1). Every state is expanded once, at
 * the fewest forgiven rejects that reach it, so the first full order found
 * is the least: no bisection, whose searches below the least must each
 * exhaust every order. Needs remembered states (hash and equal). 1 with
 * *fewest set; 0 when the budget ran out or memory did; -1 when no order
 * explains the admits. */
static int fewest_dropped(const struct search *proto, uint64_t *fewest)
{
    struct search s = *proto;
    const struct rl_lin_model *m = s.model;
    struct memo memo = {0};
    struct pending_list level = {0}, next = {0};
    int rc = 0;
    void *root = m->create(m->ctx, s.extra_limit);
    if (root == NULL)
        return 0;
    bool have_root = true; /* the root is made, not moved to */
    for (uint64_t d = 0;;) {
        struct frame f = {0};
        if (have_root) {
            f.state = root;
            have_root = false;
        } else if (level.len > 0) {
            const struct pending mv = level.items[--level.len];
            struct frame from = {.p = mv.p, .extra = (size_t *)mv.extra, .nextra = mv.nextra};
            f.state = m->clone(m->ctx, mv.from);
            if (f.state == NULL)
                break;
            if (place(&from, mv.j, &f) != 0) {
                m->destroy(m->ctx, f.state);
                break;
            }
            f.depth = mv.depth + 1;
            f.time = mv.t;
            if (!mv.forgiven) { /* its answer was checked when the move was found */
                const struct rl_hist_op *o = op_at(&s, mv.j);
                m->step(m->ctx, f.state, mv.t, o->key, o->cost);
            }
        } else if (next.len > 0) {
            struct pending_list swap = level;
            level = next;
            next = swap;
            d++;
            continue;
        } else {
            rc = -1;
            break;
        }
        if (f.depth == s.n) {
            m->destroy(m->ctx, f.state);
            free(f.extra);
            *fewest = d;
            rc = 1;
            break;
        }
        uint64_t h = mix(mix(f.p, f.time), m->hash(m->ctx, f.state));
        for (uint32_t e = 0; e < f.nextra; e++)
            h = mix(h, f.extra[e]);
        struct seen seen = {h, f.time, d, f.p, f.extra, f.nextra, f.state};
        int visited = *s.budget == 0 ? -1 : memo_visit(&memo, m, &seen);
        if (visited != 0) { /* seen at this level or below; or out of budget or memory */
            m->destroy(m->ctx, f.state);
            free(f.extra);
            if (visited < 0)
                break;
            continue;
        }
        (*s.budget)--; /* the table owns f's state and extra now */
        (*s.states)++;
        if (frame_choices(&s, &f) != 0)
            break;
        bool failed = false;
        for (uint32_t c = 0; c < f.nchoices && !failed; c++) {
            const struct choice ch = f.choices[c];
            const struct rl_hist_op *o = op_at(&s, ch.j);
            void *probe = m->clone(m->ctx, f.state);
            if ((failed = probe == NULL))
                break;
            bool given = m->step(m->ctx, probe, ch.t, o->key, o->cost) == o->admitted;
            m->destroy(m->ctx, probe);
            if (!given && o->admitted)
                continue; /* an admit is never forgiven */
            struct pending mv = {f.state, f.extra, f.nextra, !given, f.p,
                                 f.depth, ch.j,    f.time,   ch.t};
            failed = pending_push(given ? &level : &next, &mv) != 0;
        }
        free(f.choices);
        if (failed)
            break;
    }
    if (have_root)
        m->destroy(m->ctx, root);
    free(level.items);
    free(next.items);
    memo_free(&memo, m);
    return rc;
}

/* ---- overshoot ----------------------------------------------------------- */

/* The least k for which the key's operations are linearizable against
 * L + k with every unexplained reject forgiven; false when the budget ran
 * out or no k up to cap explains them. Larger limits are assumed to admit
 * no less (true of every limiter in the registry), so k is found by
 * doubling and bisection. When k is 0, *dropped_out is the fewest rejects
 * that must be forgiven (bisection again); else it is left at 0, since a
 * larger limit makes the recorded rejects look false. */
static bool key_overshoot(const struct rl_lin_model *m, const struct rl_hist_op *ops,
                          const size_t *idx, size_t n, uint64_t cap, uint64_t *budget,
                          uint64_t *states, uint64_t *k_out, uint64_t *dropped_out,
                          bool *dropped_exact)
{
    struct search s = {.model = m,
                       .ops = ops,
                       .idx = idx,
                       .n = n,
                       .max_dropped = UINT64_MAX,
                       .budget = budget,
                       .states = states};
    *k_out = *dropped_out = 0;
    *dropped_exact = true;
    enum rl_lin_verdict v = search_key(&s);
    if (v == RL_LIN_UNKNOWN)
        return false;
    if (v == RL_LIN_YES) {
        /* 1 is the fewest when the search found 1 (0 is ruled out: the key
         * is not linearizable); else in one pass where states are
         * remembered; bisection otherwise, or when that pass ran out (then
         * bisection narrows what it can) */
        uint64_t fewest;
        if (s.dropped > 1 && m->hash && m->equal && fewest_dropped(&s, &fewest) == 1) {
            *dropped_out = fewest;
            return true;
        }
        uint64_t lo = 0, hi = s.dropped; /* 0 drops: not linearizable (the caller knows) */
        while (hi - lo > 1) {
            s.max_dropped = lo + (hi - lo) / 2;
            v = search_key(&s);
            if (v == RL_LIN_UNKNOWN) { /* k = 0 stands; hi drops are enough */
                *dropped_exact = false;
                break;
            }
            if (v == RL_LIN_YES)
                hi = s.max_dropped;
            else
                lo = s.max_dropped;
        }
        *dropped_out = hi;
        return true;
    }
    uint64_t lo = 0, hi = 1; /* lo: known not enough */
    for (;;) {
        s.extra_limit = hi;
        v = search_key(&s);
        if (v == RL_LIN_UNKNOWN)
            return false;
        if (v == RL_LIN_YES)
            break;
        if (hi >= cap)
            return false;
        lo = hi;
        hi = hi > cap / 2 ? cap : 2 * hi;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        s.extra_limit = mid;
        v = search_key(&s);
        if (v == RL_LIN_UNKNOWN)
            return false;
        if (v == RL_LIN_YES)
            hi = mid;
        else
            lo = mid;
    }
    *k_out = hi;
    return true;
}

/* ---- the whole history --------------------------------------------------- */

int rl_lin_check(const struct rl_history *h, const struct rl_lin_model *model,
                 const struct rl_lin_options *options, struct rl_lin_result *r, char *err,
                 size_t err_len)
{
    memset(r, 0, sizeof *r);
    r->overshoot_known = true;
    r->false_rejects_exact = true;
    size_t n = h->len;
    uint32_t keys = h->key_count;
    for (size_t i = 0; i < n; i++)
        if (h->ops[i].key >= keys)
            keys = h->ops[i].key + 1;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), *scratch = malloc((n ? n : 1) * sizeof *idx);
    size_t *start = calloc((size_t)keys + 1, sizeof *start);
    enum rl_lin_verdict *verdicts = calloc(keys ? keys : 1, sizeof *verdicts);
    if (idx == NULL || scratch == NULL || start == NULL || verdicts == NULL) {
        free(idx);
        free(scratch);
        free(start);
        free(verdicts);
        rl_set_err(err, err_len, "out of memory for %zu operations", n);
        return -1;
    }
    /* each key's operations together (counting sort), then by call */
    for (size_t i = 0; i < n; i++)
        start[h->ops[i].key + 1]++;
    for (uint32_t k = 0; k < keys; k++)
        start[k + 1] += start[k];
    for (size_t i = 0; i < n; i++)
        scratch[start[h->ops[i].key]++] = i;
    for (uint32_t k = keys; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;
    memcpy(idx, scratch, n * sizeof *idx);
    for (uint32_t k = 0; k < keys; k++)
        sort_indices(h->ops, idx + start[k], start[k + 1] - start[k], by_call);

    uint64_t budget = options->budget;
    bool searched = false, failed = false, unknown = false;
    for (uint32_t k = 0; k < keys; k++) {
        size_t b = start[k], len = start[k + 1] - b;
        enum rl_lin_verdict v = RL_LIN_NO;
        if (!options->no_witness)
            v = witness_key(model, h->ops, idx + b, len, scratch);
        if (v == RL_LIN_YES) {
            r->keys_witnessed++;
        } else {
            searched = true;
            struct search s = {.model = model,
                               .ops = h->ops,
                               .idx = idx + b,
                               .n = len,
                               .budget = &budget,
                               .states = &r->states};
            v = search_key(&s);
            if (s.oom) {
                rl_set_err(err, err_len, "out of memory in the search of key %u", k);
                free(idx);
                free(scratch);
                free(start);
                free(verdicts);
                return -1;
            }
            if (v == RL_LIN_UNKNOWN && !unknown) {
                unknown = true;
                r->unknown_key = k;
                r->unknown_ops = len;
                r->unknown_deepest = s.deepest;
            }
            if (v == RL_LIN_NO && !failed) {
                failed = true;
                r->failed_key = k;
            }
        }
        verdicts[k] = v;
        if (v == RL_LIN_UNKNOWN)
            break; /* the budget is spent */
        r->keys_checked++;
    }
    r->verdict = failed ? RL_LIN_NO : unknown ? RL_LIN_UNKNOWN : RL_LIN_YES;
    r->mode = !searched ? "witness" : r->keys_witnessed ? "witness+search" : "search";

    if (failed) {
        size_t b = start[r->failed_key], len = start[r->failed_key + 1] - b;
        r->counter = malloc(len * sizeof *r->counter);
        if (r->counter) {
            memcpy(r->counter, idx + b, len * sizeof *r->counter);
            r->counter_len = len;
            uint64_t shrink_budget = options->budget;
            if (!options->no_shrink)
                shrink(model, h->ops, r->counter, &r->counter_len, &shrink_budget, &r->states);
            uint64_t once = options->budget;
            judge_subset(model, h->ops, r->counter, r->counter_len, &once, &r->states, &r->culprit);
        }
    }
    if (options->no_overshoot || unknown) {
        r->overshoot_known = false;
    } else {
        uint64_t over_budget = options->budget;
        for (uint32_t k = 0; k < keys && r->overshoot_known; k++) {
            size_t b = start[k], len = start[k + 1] - b;
            if (verdicts[k] == RL_LIN_YES)
                continue;
            uint64_t cap = 0, kk = 0, dropped = 0;
            bool exact = true;
            for (size_t i = 0; i < len; i++)
                cap += h->ops[idx[b + i]].cost;
            if (!key_overshoot(model, h->ops, idx + b, len, cap, &over_budget, &r->states, &kk,
                               &dropped, &exact)) {
                r->overshoot_known = false;
                break;
            }
            if (kk > r->overshoot)
                r->overshoot = kk;
            r->false_rejects += dropped;
            r->false_rejects_exact &= exact;
        }
    }
    r->only_false_rejects =
        failed && r->overshoot_known && r->overshoot == 0 && r->false_rejects > 0;
    free(idx);
    free(scratch);
    free(start);
    free(verdicts);
    return 0;
}
