/* coord.h — the contract of a coordination strategy: how N nodes, each a
 * limiter that sees a share of one key's traffic, share one global limit L
 * per I (docs/nodes.md).
 *
 * A strategy has two halves. The node half decides attempts locally, or asks
 * the shared store, and sends the store a message at each sync tick. The
 * store half answers those messages (serve): it is the only shared state.
 * The simulator (harness/run/nodes_sim.c) carries the messages with a delay,
 * jitter and loss in virtual time; a real run implements serve once per
 * strategy as a script on the store (Redis), with the same messages. Every
 * strategy states the bound it keeps on the global sliding-window maximum
 * and derives it in docs/nodes.md; the checker judges a run against it.
 */
#ifndef RL_COORD_H
#define RL_COORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a strategy is configured with. Times in ns. */
struct rl_coord_params {
    uint64_t limit;       /* L, over all nodes together */
    uint64_t interval_ns; /* I */
    uint32_t nodes;       /* N ≥ 1 */
    uint32_t keys;        /* key ids 0 .. keys − 1 */
    uint64_t sync_ns;     /* T: each node's tick */
    uint64_t delay_ns;    /* the most one message can take: RTT/2 + jitter */
    bool lossy;           /* messages may be lost: bounds that need every message are void */
    /* the strategy's own parameters (NAME:k=V,...), defaults set by parse */
    uint64_t lease_k;   /* lease: tokens taken in one store call */
    uint64_t lease_ttl; /* lease: how long a grant may be spent, from the store's grant */
    double ewma;        /* gtb, grd, fps: weight of the newest demand sample */
};

/* The store operations a node may ask for: one store call each. */
enum rl_coord_op {
    RL_COORD_DECIDE, /* central: decide an attempt of cost value on the global window */
    RL_COORD_TAKE,   /* lease: grant up to value tokens; answer = granted, ref = grant id */
    RL_COORD_RETURN, /* lease: value unspent tokens of grant ref go back */
    RL_COORD_SYNC,   /* report, gtb, grd, fps: the node's number (hits, demand);
                        answer = the aggregate over the nodes */
};

/* One message: a request as the node sends it, then the store's reply. */
struct rl_coord_msg {
    uint32_t op; /* enum rl_coord_op */
    uint32_t node, key;
    uint64_t value;  /* the request's number (op above) */
    uint64_t ref;    /* lease: the grant's id; sync: the node's sequence number */
    uint64_t answer; /* filled by serve */
    uint64_t at_ns;  /* serve: when the store answered */
};

/* What a node does with an attempt. */
enum rl_coord_step {
    RL_COORD_REJECT = 0,
    RL_COORD_ADMIT = 1,
    RL_COORD_ASK = 2, /* the store decides (the message is RL_COORD_DECIDE) */
};

struct rl_coord {
    const char *name;    /* the --coord name */
    const char *summary; /* one line */
    const char *bound;   /* the bound kept, in words, as docs/nodes.md derives it */
    /* Parses "k=V,..." (NULL or "" for none) into p, after setting this
     * strategy's defaults. -1 with one line in err on an unknown or bad
     * parameter. */
    int (*parse)(const char *text, struct rl_coord_params *p, char *err, size_t err_len);
    /* The bound on the global max_sliding for p; h is the most cost one node
     * is offered in any span of bound_span(p) (the traffic's share the bound
     * depends on). 0 when nothing is promised. */
    uint64_t (*bound_of)(const struct rl_coord_params *p, uint64_t h);
    /* The span h is measured over (0 when the bound does not use h). */
    uint64_t (*bound_span)(const struct rl_coord_params *p);

    /* The store half: NULL on ENOMEM. serve fills m->answer. */
    void *(*store_new)(const struct rl_coord_params *p);
    void (*store_free)(void *store);
    void (*serve)(void *store, struct rl_coord_msg *m, uint64_t t_ns);

    /* The node half. node_new: NULL on ENOMEM. */
    void *(*node_new)(const struct rl_coord_params *p, uint32_t node);
    void (*node_free)(void *node);
    /* An attempt of cost n for key at t. *send is set when the node sends
     * msg now (an RL_COORD_ASK's DECIDE, or a lease's TAKE). */
    enum rl_coord_step (*attempt)(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                  struct rl_coord_msg *msg, bool *send);
    /* The node's tick for key, every T; true when it sends msg. */
    bool (*tick)(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg);
    /* The store's reply to one of this node's messages arrives. */
    void (*reply)(void *node, const struct rl_coord_msg *msg, uint64_t t_ns);
    /* Optional (NULL: the node holds nothing of the store's): tokens the
     * store counts as granted that the node holds unspent for key, and in
     * *granted_ns when the store granted them. What a node that dies now
     * takes with it (docs/nodes.md, A node dies). */
    uint64_t (*held)(const void *node, uint32_t key, uint64_t *granted_ns);
};

/* Every strategy in coord.def order, NULL-terminated. */
extern const struct rl_coord *const rl_coord_registry[];

/* The strategy named (without its ":PARAMS"), or NULL. */
const struct rl_coord *rl_coord_find(const char *name, size_t len);

/* Parses "NAME[:PARAMS]" into *coord and p's strategy fields (p's other
 * fields as given). -1 with one line in err. */
int rl_coord_parse(const char *spec, const struct rl_coord **coord, struct rl_coord_params *p,
                   char *err, size_t err_len);

/* Reads the next "key=value" of a parameter list at *text, advancing it;
 * false at the end. For strategies' parse. */
bool rl_coord_next_param(const char **text, char *key, size_t key_len, char *value,
                         size_t value_len);

/* parse for a strategy without parameters: -1 with err when text has any. */
int rl_coord_parse_none(const char *name, const char *text, char *err, size_t err_len);

/* parse for ewma=W (0 < W ≤ 1, default 0.1): gtb, grd and fps. */
int rl_coord_parse_ewma(const char *name, const char *text, struct rl_coord_params *p, char *err,
                        size_t err_len);

/* How long a node waits for a reply before it counts the message lost: a
 * round trip at the most delay each way, so no reply comes after it. */
static inline uint64_t rl_coord_reply_timeout(const struct rl_coord_params *p)
{
    return 2 * p->delay_ns + 1;
}

/* ---- an exact sliding sum, shared by stores and nodes --------------------
 * Amounts stamped with times; sum() is the total stamped in (t − I, t].
 * Each entry has an id (its sequence number) by which part of it may be
 * taken back while it is still inside the window. */
struct rl_coord_window {
    uint64_t *t_ns, *amount;
    size_t head, len, cap; /* a ring */
    uint64_t first_id;     /* id of the entry at head */
    uint64_t sum, interval_ns;
};

void rl_coord_window_init(struct rl_coord_window *w, uint64_t interval_ns);
/* Forgets entries stamped at or before t − I. */
void rl_coord_window_expire(struct rl_coord_window *w, uint64_t t_ns);
/* Adds amount at t (t never earlier than the last add); returns its id, or
 * UINT64_MAX on ENOMEM (nothing added). */
uint64_t rl_coord_window_add(struct rl_coord_window *w, uint64_t t_ns, uint64_t amount);
/* Takes up to amount back from entry id if it is still held. */
void rl_coord_window_take_back(struct rl_coord_window *w, uint64_t id, uint64_t amount);
void rl_coord_window_free(struct rl_coord_window *w);

/* A store that keeps one sliding sum per key (central, lease and report
 * share it): the run's parameters and the keys' windows. */
struct rl_coord_window_store {
    struct rl_coord_params p;
    struct rl_coord_window *keys;
};
/* NULL when memory runs out. */
void *rl_coord_window_store_new(const struct rl_coord_params *p);
void rl_coord_window_store_free(void *store);

/* The node half of a strategy whose nodes never talk (split, local): each
 * key an exact sliding sum against the node's own limit; no messages. */
void *rl_coord_alone_node_new(const struct rl_coord_params *p, uint64_t limit);
void rl_coord_alone_node_free(void *node);
enum rl_coord_step rl_coord_alone_attempt(void *node, uint32_t key, uint32_t n, uint64_t t_ns,
                                          struct rl_coord_msg *msg, bool *send);
bool rl_coord_alone_tick(void *node, uint32_t key, uint64_t t_ns, struct rl_coord_msg *msg);
void rl_coord_alone_reply(void *node, const struct rl_coord_msg *msg, uint64_t t_ns);

/* Splits L over N nodes: node i's share, the remainder to the first ones,
 * so the shares add up to L exactly. */
static inline uint64_t rl_coord_share(uint64_t limit, uint32_t nodes, uint32_t node)
{
    return limit / nodes + (node < limit % nodes ? 1 : 0);
}

#endif
