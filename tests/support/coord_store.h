/* coord_store.h — what the coordination store tests share: one set of
 * parameters, run prefixes no two runs share, and the identity check of a
 * strategy's Lua store against its serve in C on a random run. */
#ifndef RL_TEST_COORD_STORE_H
#define RL_TEST_COORD_STORE_H

#include "algorithms/coord/coord.h"

#include <stddef.h>
#include <stdint.h>

#define RL_TEST_COORD_KEYS  3
#define RL_TEST_COORD_NODES 4

/* L=20 per 100 ms, the nodes and keys above, T=10 ms, a 2 ms delay; spec
 * ("NAME[:PARAMS]") parsed into *coord (a fatal assertion if it fails). */
struct rl_coord_params rl_test_coord_params(const char *spec, const struct rl_coord **coord);

/* Every strategy with a store, as --coord spells it, NULL-terminated. */
extern const char *const rl_test_coord_stores[];

/* A run prefix no other test or run shares, into buf. */
void rl_test_coord_prefix(char *buf, size_t len);

/* count seeded random messages from time t0 on (equal times, a clock
 * stepping back, quiet spells), each served by spec's C serve and through
 * one of two handles of one run prefix on remote: asserts the same answer,
 * at_ns and ref for every one, and that the handles counted count calls. */
void rl_test_coord_same_as_c(const char *spec, const char *remote, uint64_t seed, size_t count,
                             uint64_t t0);

#endif
