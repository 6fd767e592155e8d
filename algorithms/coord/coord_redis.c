/* coord_redis.c — a strategy's store half as Lua script calls on Redis
 * (coord_redis.h): which script serves which strategy, the key names, the
 * numbers packed for the script, and its reply turned back into the
 * message. The connections are redis_common's. */
#include "coord_redis.h"
#include "algorithms/redis/redis_common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char rl_lua_coord_window[], rl_lua_coord_gtb[], rl_lua_coord_drl[];

/* How each strategy's serve is done on Redis: the script, and for the
 * window store the op its serve performs (window.lua's op numbers), as
 * the C serves read a message: central decides whatever the op, lease
 * gives back on RETURN and takes otherwise, report syncs. */
enum store_kind { STORE_WINDOW, STORE_GTB, STORE_DRL };
enum window_op { WINDOW_DECIDE = 0, WINDOW_TAKE = 1, WINDOW_RETURN = 2, WINDOW_SYNC = 3 };

static const struct store_of {
    const char *coord; /* the strategy's name */
    enum store_kind kind;
    const char *script; /* its file in algorithms/coord/lua/, without .lua */
    enum window_op op;  /* STORE_WINDOW: the op (lease's TAKE, RETURN when the message says) */
} stores[] = {
    {"central", STORE_WINDOW, "window", WINDOW_DECIDE},
    {"lease", STORE_WINDOW, "window", WINDOW_TAKE},
    {"report", STORE_WINDOW, "window", WINDOW_SYNC},
    {"gtb", STORE_GTB, "gtb", 0},
    {"grd", STORE_DRL, "drl", 0},
    {"fps", STORE_DRL, "drl", 0},
};

struct rl_coord_redis {
    const struct rl_coord *coord;
    const struct store_of *store; /* NULL: the strategy keeps no store */
    struct rl_coord_params p;
    struct rl_redis *redis;
    char prefix[80]; /* "rlc:<run prefix>:<script>:" */
    char ttl_ms[24]; /* PEXPIRE, decimal */
    _Atomic uint64_t calls;
};

static _Thread_local char last_error[320];

__attribute__((format(printf, 1, 2))) static void set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *rl_coord_redis_last_error(void)
{
    return last_error;
}

static bool prefix_ok(const char *prefix)
{
    size_t len = strlen(prefix);
    if (len == 0 || len > 64)
        return false;
    for (size_t i = 0; i < len; i++)
        if (prefix[i] == '{' || prefix[i] == '}' || (unsigned char)prefix[i] <= ' ' ||
            prefix[i] == 0x7f)
            return false;
    return true;
}

/* How long a key's state must outlive its last write (ns): the window's
 * entries matter for I; a lease's grant may be given back up to its ttl, a
 * tick and a round trip after it was granted; a node writes at least once
 * a tick and a round trip. Then at least 60 s of the server's time, since
 * the nodes' clocks need not be the server's (a test's are made up). */
static uint64_t ttl_ms(const struct rl_coord_params *p, enum store_kind kind)
{
    uint64_t life = 2 * p->sync_ns + 4 * p->delay_ns;
    if (kind == STORE_WINDOW)
        life += p->interval_ns + p->lease_ttl;
    uint64_t ms = life / 1000000 + 1;
    const uint64_t most = 10ull * 365 * 24 * 3600 * 1000;
    return ms < RL_REDIS_VIRTUAL_TTL_MS ? RL_REDIS_VIRTUAL_TTL_MS : ms > most ? most : ms;
}

struct rl_coord_redis *rl_coord_redis_open(const struct rl_coord *coord,
                                           const struct rl_coord_params *p, const char *remote,
                                           const char *run_prefix, char *err, size_t err_len)
{
    const struct store_of *store = NULL;
    for (size_t i = 0; i < sizeof stores / sizeof stores[0]; i++)
        if (strcmp(stores[i].coord, coord->name) == 0)
            store = &stores[i];
    if (store == NULL && coord->serve != NULL) {
        snprintf(err, err_len, "coord %s: no Redis store script for this strategy", coord->name);
        return NULL;
    }
    if (run_prefix == NULL || !prefix_ok(run_prefix)) {
        snprintf(err, err_len,
                 "coord %s: the run prefix must be 1 to 64 characters without '{', '}', spaces "
                 "or control characters",
                 coord->name);
        return NULL;
    }
    if (p->limit == 0 || p->interval_ns == 0 || p->nodes == 0 || p->keys == 0 ||
        p->limit > RL_LUA_INT_MAX || p->interval_ns > RL_LUA_INT_MAX) {
        snprintf(err, err_len,
                 "coord %s: L and I must be in [1, 2^53) and nodes and keys at least 1 for the "
                 "Redis store",
                 coord->name);
        return NULL;
    }
    struct rl_coord_redis *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, err_len, "coord %s: out of memory", coord->name);
        return NULL;
    }
    s->coord = coord;
    s->store = store;
    s->p = *p;
    atomic_init(&s->calls, 0);
    if (store == NULL)
        return s; /* split, local: the nodes never talk */
    snprintf(s->prefix, sizeof s->prefix, "rlc:%s:%s:", run_prefix, store->script);
    snprintf(s->ttl_ms, sizeof s->ttl_ms, "%" PRIu64, ttl_ms(p, store->kind));
    const char *source = store->kind == STORE_WINDOW ? rl_lua_coord_window
                         : store->kind == STORE_GTB  ? rl_lua_coord_gtb
                                                     : rl_lua_coord_drl;
    const struct rl_redis_script script = {store->script, source};
    struct rl_config cfg = {.limit = p->limit, .interval_ns = p->interval_ns, .remote = remote};
    char name[48];
    snprintf(name, sizeof name, "coord %s", coord->name);
    if ((s->redis = rl_redis_open(&cfg, name, &script, 1, err, err_len)) == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

int rl_coord_redis_serve(struct rl_coord_redis *s, struct rl_coord_msg *m, uint64_t t_ns)
{
    if (s->store == NULL) {
        set_error("coord %s: keeps no store (its nodes send no messages)", s->coord->name);
        return -1;
    }
    if (m->key >= s->p.keys || m->node >= s->p.nodes || m->value > RL_LUA_INT_MAX) {
        set_error("coord %s: message out of range (key %" PRIu32 " of %" PRIu32 ", node %" PRIu32
                  " of %" PRIu32 ", value %" PRIu64 ", at most 2^53 - 1)",
                  s->coord->name, m->key, s->p.keys, m->node, s->p.nodes, m->value);
        return -1;
    }
    /* the time as whole seconds and ns: each exact in a double */
    int64_t sec = (int64_t)(t_ns / 1000000000), ns = (int64_t)(t_ns % 1000000000);
    int64_t value = (int64_t)m->value;
    int64_t numbers[7];
    size_t count = 0;
    enum window_op op = s->store->op;
    if (s->store->kind == STORE_WINDOW) {
        if (op == WINDOW_TAKE && m->op == RL_COORD_RETURN)
            op = WINDOW_RETURN;
        int64_t ref = m->ref <= RL_LUA_INT_MAX ? (int64_t)m->ref : -1; /* no id is that large */
        int64_t w[] = {op, sec, ns, value, ref, (int64_t)s->p.limit, (int64_t)s->p.interval_ns};
        memcpy(numbers, w, sizeof w);
        count = 7;
    } else if (s->store->kind == STORE_GTB) {
        int64_t g[] = {sec, ns, value};
        memcpy(numbers, g, sizeof g);
        count = 3;
    } else {
        int64_t d[] = {sec, ns, m->node, value};
        memcpy(numbers, d, sizeof d);
        count = 4;
    }
    unsigned char packed[7 * sizeof(double)];
    rl_redis_pack_doubles(packed, numbers, count);
    struct rl_redis_args args;
    rl_redis_args_init(&args);
    rl_redis_arg_bytes(&args, packed, count * sizeof(double));
    rl_redis_arg_str(&args, s->ttl_ms);
    char key[128];
    snprintf(key, sizeof key, "{%s%" PRIu32 "}", s->prefix, m->key);
    const char *keys[] = {key};
    long long reply[4]; /* answer, id, base s, ns after base */
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed); /* a count: nothing ordered */
    if (rl_redis_eval_ints(s->redis, 0, 1, keys, &args, reply, 4) != 0) {
        set_error("%s", rl_redis_last_error());
        return -1;
    }
    if (reply[0] < 0 || reply[2] < 0 || reply[3] < 0 || reply[1] < -1) {
        set_error("coord %s: the store answered out of range (%lld, %lld, %lld, %lld)",
                  s->coord->name, reply[0], reply[1], reply[2], reply[3]);
        return -1;
    }
    m->answer = (uint64_t)reply[0];
    m->at_ns = (uint64_t)reply[2] * 1000000000 + (uint64_t)reply[3];
    if (s->store->kind == STORE_WINDOW && op == WINDOW_TAKE)
        m->ref = reply[1] < 0 ? UINT64_MAX : (uint64_t)reply[1];
    return 0;
}

uint64_t rl_coord_redis_calls(const struct rl_coord_redis *s)
{
    return atomic_load_explicit(&s->calls, memory_order_relaxed);
}

void rl_coord_redis_close(struct rl_coord_redis *s)
{
    if (s == NULL)
        return;
    rl_redis_close(s->redis);
    free(s);
}
