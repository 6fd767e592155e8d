/* lease.c — `lease` (YouTube's Doorman, in miniature): a node takes k
 * tokens at a time from the store in one call, spends them locally until
 * they are gone or the lease expires (ttl after the store granted it), and
 * gives back what is left of an expired lease. The store grants from one
 * exact sliding window of granted tokens, so it never grants more than L in
 * any window; a node holds at most one grant (it asks only when its tokens
 * are spent or dead), in flight or in hand. Hence ≤ L + N·k (docs/nodes.md).
 * Parameters: k=TOKENS (default max(1, L/(4N))), ttl=DURATION (default I). */
#include "coord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lease_key {
    uint64_t tokens, expires_ns, grant_id;
    uint64_t asked_ns;     /* when the pending TAKE left */
    uint64_t no_ask_until; /* after an empty grant: wait one tick before asking again */
    bool pending;
};

struct lease_node {
    struct rl_coord_params p;
    uint32_t node;
    struct lease_key *keys;
};

/* "1s", "250ms", "100us", "5000ns" or plain ns: the parameter's own small
 * reader, since algorithms/ cannot reach the command line's. */
static int parse_ns(const char *text, uint64_t *out)
{
    char *end;
    double v = strtod(text, &end);
    double unit = strcmp(end, "s") == 0                      ? 1e9
                  : strcmp(end, "ms") == 0                   ? 1e6
                  : strcmp(end, "us") == 0                   ? 1e3
                  : (strcmp(end, "ns") == 0 || *end == '\0') ? 1
                                                             : 0;
    if (end == text || unit == 0 || !(v > 0) || v * unit > 1e18)
        return -1;
    *out = (uint64_t)(v * unit + 0.5);
    return *out > 0 ? 0 : -1;
}

static int lease_parse(const char *text, struct rl_coord_params *p, char *err, size_t err_len)
{
    uint64_t k = p->limit / (4ull * p->nodes);
    p->lease_k = k ? k : 1;
    p->lease_ttl = p->interval_ns;
    char key[32], value[64];
    while (rl_coord_next_param(&text, key, sizeof key, value, sizeof value)) {
        if (strcmp(key, "k") == 0) {
            char *end;
            unsigned long long v = strtoull(value, &end, 10);
            if (value[0] < '1' || value[0] > '9' || *end != '\0' || v > p->limit) {
                snprintf(err, err_len, "lease: k must be a whole number in [1, L=%llu], not '%s'",
                         (unsigned long long)p->limit, value);
                return -1;
            }
            p->lease_k = v;
        } else if (strcmp(key, "ttl") == 0) {
            if (parse_ns(value, &p->lease_ttl) != 0) {
                snprintf(err, err_len, "lease: ttl must be a duration > 0 (1s, 250ms), not '%s'",
                         value);
                return -1;
            }
        } else {
            snprintf(err, err_len,
                     "lease: unknown parameter '%s' (it takes k=TOKENS, ttl=DURATION)", key);
            return -1;
        }
    }
    return 0;
}

static uint64_t lease_bound(const struct rl_coord_params *p, uint64_t h)
{
    (void)h;
    return p->limit + (uint64_t)p->nodes * p->lease_k;
}

static uint64_t lease_span(const struct rl_coord_params *p)
{
    (void)p;
    return 0;
}

/* The store's window per key holds the tokens granted, stamped when granted. */
static void lease_serve(void *store, struct rl_coord_msg *m, uint64_t t_ns)
{
    struct rl_coord_window_store *s = store;
    struct rl_coord_window *w = &s->keys[m->key];
    m->at_ns = t_ns;
    if (m->op == RL_COORD_RETURN) {
        rl_coord_window_take_back(w, m->ref, m->value);
        m->answer = 0;
        return;
    }
    rl_coord_window_expire(w, t_ns);
    uint64_t room = w->sum < s->p.limit ? s->p.limit - w->sum : 0;
    uint64_t granted = m->value < room ? m->value : room;
    uint64_t id = granted ? rl_coord_window_add(w, t_ns, granted) : UINT64_MAX;
    m->answer = id == UINT64_MAX ? 0 : granted;
    m->ref = id;
}

static void *lease_node_new(const struct rl_coord_params *p, uint32_t node)
{
    struct lease_node *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    s->p = *p;
    s->node = node;
    s->keys = calloc(p->keys, sizeof *s->keys);
    if (s->keys == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static void lease_node_free(void *node)
{
    struct lease_node *s = node;
    free(s->keys);
    free(s);
}

static enum rl_coord_step lease_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                        struct rl_coord_msg *msg, bool *send)
{
    struct lease_node *s = node;
    struct lease_key *k = &s->keys[key];
    *send = false;
    bool live = k->tokens > 0 && t_ns < k->expires_ns;
    if (live && n <= k->tokens) {
        k->tokens -= n;
        return RL_COORD_ADMIT;
    }
    /* Spent or dead: ask for a new lease, one at a time; a request with no
     * reply after a round trip is lost, and asked again. */
    bool lost = k->pending && t_ns - k->asked_ns > rl_coord_reply_timeout(&s->p);
    if ((!k->pending || lost) && t_ns >= k->no_ask_until && !live) {
        k->pending = true;
        k->asked_ns = t_ns;
        *msg = (struct rl_coord_msg){
            .op = RL_COORD_TAKE, .node = s->node, .key = key, .value = s->p.lease_k};
        *send = true;
    }
    return RL_COORD_REJECT;
}

/* Gives back what is left of an expired lease, so the store may grant it
 * again while the grant is still in its window. */
static bool lease_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg)
{
    struct lease_node *s = node;
    struct lease_key *k = &s->keys[key];
    if (k->tokens == 0 || t_ns < k->expires_ns)
        return false;
    *msg = (struct rl_coord_msg){
        .op = RL_COORD_RETURN, .node = s->node, .key = key, .value = k->tokens, .ref = k->grant_id};
    k->tokens = 0;
    return true;
}

static void lease_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns)
{
    struct lease_node *s = node;
    struct lease_key *k = &s->keys[msg->key];
    if (msg->op != RL_COORD_TAKE || !k->pending || msg->at_ns < k->asked_ns)
        return; /* a return's answer, or a reply to a request already counted lost */
    k->pending = false;
    if (msg->answer == 0) {
        k->no_ask_until = t_ns + s->p.sync_ns;
        return;
    }
    k->tokens = msg->answer; /* what was left had expired: the tick gives it back */
    k->expires_ns = msg->at_ns + s->p.lease_ttl;
    k->grant_id = msg->ref;
}

/* The tokens in hand, live or expired: until the tick gives them back the
 * store's window counts them, from the grant on. */
static uint64_t lease_held(const void *node, uint32_t key, uint64_t *granted_ns)
{
    const struct lease_node *s = node;
    const struct lease_key *k = &s->keys[key];
    *granted_ns = k->expires_ns - s->p.lease_ttl;
    return k->tokens;
}

const struct rl_coord rl_coord_lease = {
    .name = "lease",
    .summary = "k tokens a store call, spent until gone or expired",
    .bound = "<= L + N*k",
    .parse = lease_parse,
    .bound_of = lease_bound,
    .bound_span = lease_span,
    .store_new = rl_coord_window_store_new,
    .store_free = rl_coord_window_store_free,
    .serve = lease_serve,
    .node_new = lease_node_new,
    .node_free = lease_node_free,
    .attempt = lease_attempt,
    .tick = lease_tick,
    .reply = lease_reply,
    .held = lease_held,
};
