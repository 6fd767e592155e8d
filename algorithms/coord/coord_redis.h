/* coord_redis.h — a coordination strategy's store half (coord.h, serve) on
 * a real Redis, one server or a Redis Cluster, for runs of several node
 * processes: each store operation is one Lua script call that answers
 * exactly as the strategy's serve in C (algorithms/coord/lua/, a test holds
 * them to the same answers; docs/nodes.md, "The store on Redis").
 *
 * - Stores: central, lease and report share window.lua (an exact sliding
 *   sum per key), gtb has gtb.lua, grd and fps share drl.lua. split and
 *   local have no store: open succeeds without connecting, and serve is -1.
 * - Keys: "{rlc:<run prefix>:<store>:<key id>}", one hash tag per key, so a
 *   key's whole state is one Redis key in one cluster slot. Every node
 *   process of one run opens with the same run prefix and so shares the
 *   state; different prefixes never meet. Every write sets an expiry: the
 *   state outlives its last write by what the strategy needs (I, a lease's
 *   ttl, two ticks and two round trips) and at least 60 s, then is gone.
 * - Time: t_ns is the node's clock, ns since the epoch (CLOCK_REALTIME, or a
 *   run's own epoch: any uint64). The store uses max(t_ns, the newest time
 *   used on that key), so a key's time never goes back, and answers the
 *   time it used in m->at_ns. Lua is exact to 2^53 only: a key alive more
 *   than 104 days after its first call answers -1, never a rounded time.
 * - Threads: each thread has its own connection (redis_common.h); serve may
 *   be called from any number of threads at once.
 */
#ifndef RL_COORD_REDIS_H
#define RL_COORD_REDIS_H

#include "coord.h"

#include <stddef.h>
#include <stdint.h>

struct rl_coord_redis;

/* Connects to remote ("unix:PATH", "HOST:PORT" or "cluster:HOST:PORT,...")
 * and loads coord's store script. p as the strategy was parsed with (L, I,
 * nodes, keys, T, the delay, lease's k and ttl); run_prefix: 1 to 64
 * characters, none of them '{', '}', a space or a control character. NULL
 * with one line in err: a bad prefix, L or I zero or past 2^53, a strategy
 * with no Redis store script, a server that does not answer, or ENOMEM. */
struct rl_coord_redis *rl_coord_redis_open(const struct rl_coord *coord,
                                           const struct rl_coord_params *p, const char *remote,
                                           const char *run_prefix, char *err, size_t err_len);

/* One store call: m as the node sent it (op, node, key, value, ref); fills
 * m->answer and m->at_ns, and for a lease's TAKE m->ref (the grant's id,
 * UINT64_MAX when nothing is granted), as coord->serve would. 0; or -1,
 * m untouched, with one line in rl_coord_redis_last_error(): the store
 * failed or is down (never a made-up answer), key ≥ keys, node ≥ nodes,
 * value past 2^53, or a strategy without a store. Thread-safe. */
int rl_coord_redis_serve(struct rl_coord_redis *s, struct rl_coord_msg *m, uint64_t t_ns);

/* Store calls made through this handle by all threads, answered or not. */
uint64_t rl_coord_redis_calls(const struct rl_coord_redis *s);

/* The calling thread's last failure, one line ("" if none). */
const char *rl_coord_redis_last_error(void);

/* Closes every thread's connection; no serve may be in flight. The keys
 * are left to their expiry. NULL is ignored. */
void rl_coord_redis_close(struct rl_coord_redis *s);

#endif
