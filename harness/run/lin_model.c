/* lin_model.c — a registry algorithm as a sequential model for the
 * linearizability checker (lin_model.h). */
#include "lin_model.h"

#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A limiter and, for algorithms whose state cannot be copied byte for byte,
 * the steps that made it (replayed into a fresh limiter to copy it), kept
 * as a chain shared by every copy so that memory grows with the states the
 * search visits, not with their depth. */
struct step {
    struct step *parent; /* the step before; NULL: the first */
    uint64_t refs;       /* states and later steps pointing here */
    uint64_t t, cost;
    uint32_t key;
};

struct model_state {
    void *limiter;
    uint64_t extra;
    struct step *tail; /* the latest step; NULL: none yet */
    size_t depth;
};

static void step_release(struct step *s)
{
    while (s && --s->refs == 0) {
        struct step *parent = s->parent;
        free(s);
        s = parent;
    }
}

/* A recorded start state into a fresh limiter: 0, or -1 when refused. */
static int start_from(const struct rl_algo *algo, void *limiter, const void *state, size_t len)
{
    if (algo->snapshot && algo->restore)
        return algo->restore(limiter, state, len);
    if (algo->one_word_state < sizeof(uint64_t) || len != sizeof(uint64_t))
        return -1;
    memcpy(limiter, state, sizeof(uint64_t)); /* the word; the rest is create's (rl.h) */
    return 0;
}

static void *limiter_create(struct rl_lin_algo *a, uint64_t extra)
{
    struct rl_config cfg = a->cfg;
    cfg.limit += extra;
    if (cfg.burst)
        cfg.burst += extra;
    char err[256];
    void *limiter = a->algo->create(&cfg, err, sizeof err);
    if (limiter && a->start_state && start_from(a->algo, limiter, a->start_state, a->start_len)) {
        a->algo->destroy(limiter);
        return NULL;
    }
    return limiter;
}

int rl_lin_model_start_from(struct rl_lin_algo *ctx, const void *state, size_t len, char *err,
                            size_t err_len)
{
    const struct rl_algo *algo = ctx->algo;
    if (!(algo->snapshot && algo->restore) && algo->one_word_state < sizeof(uint64_t)) {
        snprintf(err, err_len,
                 "%s has neither snapshot nor a one-word state: a window cannot start from a "
                 "recorded state",
                 algo->name);
        return -1;
    }
    char why[256];
    void *probe = algo->create(&ctx->cfg, why, sizeof why);
    if (probe == NULL) {
        snprintf(err, err_len, "%s", why);
        return -1;
    }
    int rc = start_from(algo, probe, state, len);
    algo->destroy(probe);
    if (rc != 0) {
        snprintf(err, err_len, "%s cannot start from a state of %zu bytes (not one it took)",
                 algo->name, len);
        return -1;
    }
    ctx->start_state = state;
    ctx->start_len = len;
    return 0;
}

static void *model_create(void *ctx, uint64_t extra)
{
    struct model_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->extra = extra;
    s->limiter = limiter_create(ctx, extra);
    if (s->limiter == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static bool decide(struct rl_lin_algo *a, void *limiter, uint64_t t, uint32_t key, uint64_t cost)
{
    rl_clock_set_virtual(&a->clock, t);
    enum rl_decision d = a->algo->acquire(limiter, &a->clock, key, cost);
    if (d == RL_ADMIT && (a->algo->flags & RL_NEEDS_RELEASE))
        a->algo->release(limiter, &a->clock, key, cost); /* served at once, as in sim */
    return d == RL_ADMIT;
}

static bool model_step(void *ctx, void *state, uint64_t t, uint32_t key, uint64_t cost)
{
    struct rl_lin_algo *a = ctx;
    struct model_state *s = state;
    if (a->algo->one_word_state == 0 && a->algo->snapshot == NULL && !a->never_cloned) {
        struct step *st = malloc(sizeof *st);
        if (st == NULL)
            abort(); /* step has no way to say it: out of memory */
        *st = (struct step){.parent = s->tail, .refs = 1, .t = t, .cost = cost, .key = key};
        s->tail = st; /* takes over the state's reference to the parent */
        s->depth++;
    }
    return decide(a, s->limiter, t, key, cost);
}

static void model_destroy(void *ctx, void *state)
{
    struct rl_lin_algo *a = ctx;
    struct model_state *s = state;
    a->algo->destroy(s->limiter);
    step_release(s->tail);
    free(s);
}

/* A fresh limiter with the steps up to tail replayed into it; NULL on
 * ENOMEM. */
static void *replay(struct rl_lin_algo *a, uint64_t extra, struct step *tail, size_t depth)
{
    void *limiter = limiter_create(a, extra);
    struct step **path = malloc((depth ? depth : 1) * sizeof *path);
    if (limiter == NULL || path == NULL) {
        if (limiter)
            a->algo->destroy(limiter);
        free(path);
        return NULL;
    }
    size_t n = 0;
    for (struct step *st = tail; st; st = st->parent)
        path[n++] = st;
    while (n > 0) {
        const struct step *st = path[--n];
        decide(a, limiter, st->t, st->key, st->cost);
    }
    free(path);
    return limiter;
}

/* A mark: what made a state, without its limiter. */
struct mark {
    struct step *tail;
    uint64_t extra;
    size_t depth;
};

static void *model_mark(void *ctx, const void *state)
{
    (void)ctx;
    const struct model_state *s = state;
    struct mark *m = malloc(sizeof *m);
    if (m == NULL)
        return NULL;
    *m = (struct mark){s->tail, s->extra, s->depth};
    if (m->tail)
        m->tail->refs++;
    return m;
}

static void *model_rebuild(void *ctx, const void *mark)
{
    const struct mark *m = mark;
    struct model_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->limiter = replay(ctx, m->extra, m->tail, m->depth);
    if (s->limiter == NULL) {
        free(s);
        return NULL;
    }
    s->extra = m->extra;
    s->tail = m->tail;
    if (s->tail)
        s->tail->refs++;
    s->depth = m->depth;
    return s;
}

static void model_release(void *ctx, void *mark)
{
    (void)ctx;
    struct mark *m = mark;
    step_release(m->tail);
    free(m);
}

/* algo's snapshot of state in ctx's scratch slot i; its length, 0 on ENOMEM */
static size_t snap_of(struct rl_lin_algo *a, int i, const void *limiter)
{
    for (;;) {
        size_t len = a->algo->snapshot(limiter, a->snap[i], a->snap_cap[i]);
        if (len <= a->snap_cap[i])
            return len;
        unsigned char *b = realloc(a->snap[i], 2 * len);
        if (b == NULL)
            return 0;
        a->snap[i] = b;
        a->snap_cap[i] = 2 * len;
    }
}

static void *model_clone(void *ctx, const void *state)
{
    struct rl_lin_algo *a = ctx;
    const struct model_state *from = state;
    struct model_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->extra = from->extra;
    size_t size = a->algo->one_word_state;
    if (size == 0 && a->algo->snapshot) {
        size_t len = snap_of(a, 0, from->limiter);
        s->limiter = len ? limiter_create(a, from->extra) : NULL;
        if (s->limiter && a->algo->restore(s->limiter, a->snap[0], len) != 0) {
            a->algo->destroy(s->limiter);
            s->limiter = NULL;
        }
    } else if (size) {
        char err[256];
        s->limiter = rl_state_alloc(size, err, sizeof err);
        if (s->limiter)
            memcpy(s->limiter, from->limiter, size);
    } else {
        s->limiter = limiter_create(a, from->extra);
        struct step **path = malloc((from->depth ? from->depth : 1) * sizeof *path);
        if (path == NULL && s->limiter) {
            a->algo->destroy(s->limiter);
            s->limiter = NULL;
        }
        if (s->limiter) {
            size_t n = 0;
            for (struct step *st = from->tail; st; st = st->parent)
                path[n++] = st;
            while (n > 0) {
                const struct step *st = path[--n];
                decide(a, s->limiter, st->t, st->key, st->cost);
            }
            s->tail = from->tail;
            if (s->tail)
                s->tail->refs++;
            s->depth = from->depth;
        }
        free(path);
    }
    if (s->limiter == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static uint64_t model_hash(void *ctx, const void *state)
{
    struct rl_lin_algo *a = ctx;
    const unsigned char *b = ((const struct model_state *)state)->limiter;
    size_t len = a->algo->one_word_state;
    if (len == 0) {
        len = snap_of(a, 0, b);
        b = a->snap[0];
    }
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

/* Out of memory for a snapshot compares unequal: the state is searched
 * again, never wrongly skipped. */
static bool model_equal(void *ctx, const void *x, const void *y)
{
    struct rl_lin_algo *a = ctx;
    const void *lx = ((const struct model_state *)x)->limiter;
    const void *ly = ((const struct model_state *)y)->limiter;
    if (a->algo->one_word_state)
        return memcmp(lx, ly, a->algo->one_word_state) == 0;
    size_t nx = snap_of(a, 0, lx), ny = snap_of(a, 1, ly);
    return nx != 0 && nx == ny && memcmp(a->snap[0], a->snap[1], nx) == 0;
}

/* The answer to (key, cost) at t from a copy of state; -1 when no copy. */
static int answer_at(struct rl_lin_algo *a, const void *state, uint32_t key, uint64_t cost,
                     uint64_t t)
{
    struct model_state *c = model_clone(a, state);
    if (c == NULL)
        return -1;
    bool admit = decide(a, c->limiter, t, key, cost);
    model_destroy(a, c);
    return admit;
}

/* When from does not answer want, the first time in (from, to] that does,
 * by bisection (lin_model.h: one flip at most); UINT64_MAX when from
 * answers want or to does not. One copy when from already answers want. */
static uint64_t model_next_flip(void *ctx, const void *state, uint32_t key, uint64_t cost,
                                bool want, uint64_t from, uint64_t to)
{
    int first = answer_at(ctx, state, key, cost, from);
    if (first < 0 || first == want || to <= from || answer_at(ctx, state, key, cost, to) == first)
        return UINT64_MAX;
    uint64_t lo = from, hi = to; /* lo answers as from, hi otherwise */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        int v = answer_at(ctx, state, key, cost, mid);
        if (v < 0)
            return UINT64_MAX;
        if (v == first)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

void rl_lin_model_free(struct rl_lin_algo *ctx)
{
    for (int i = 0; i < 2; i++) {
        free(ctx->snap[i]);
        ctx->snap[i] = NULL;
        ctx->snap_cap[i] = 0;
    }
}

int rl_lin_model_of(const struct rl_algo *algo, const struct rl_config *cfg,
                    struct rl_lin_algo *ctx, struct rl_lin_model *model, char *err, size_t err_len)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->algo = algo;
    ctx->cfg = *cfg;
    ctx->cfg.virtual_time = true;
    if (rl_clock_init(&ctx->clock, "virtual", err, err_len) != 0)
        return -1;
    void *probe = algo->create(&ctx->cfg, err, err_len);
    if (probe == NULL)
        return -1;
    algo->destroy(probe);
    bool flat = algo->one_word_state != 0 || (algo->snapshot && algo->restore);
    *model = (struct rl_lin_model){.ctx = ctx,
                                   .create = model_create,
                                   .step = model_step,
                                   .clone = model_clone,
                                   .destroy = model_destroy,
                                   .hash = flat ? model_hash : NULL,
                                   .equal = flat ? model_equal : NULL,
                                   .clone_replays = !flat,
                                   .mark = flat ? NULL : model_mark,
                                   .rebuild = flat ? NULL : model_rebuild,
                                   .release = flat ? NULL : model_release,
                                   .next_flip = flat ? model_next_flip : NULL};
    return 0;
}
