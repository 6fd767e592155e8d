/* tb_ticks.h — exact integer time for the bucket family (tb_*, gcra_cas).
 *
 * A bucket refills L tokens per I ns, so one token takes T = I/L ns, which
 * is rarely a whole number of nanoseconds. Rounding T (as many libraries
 * do, e.g. 1e9 / rate) makes the limiter drift: over a long run it admits a
 * little more or less than L per I. Instead every bucket here counts time
 * in ticks of 1/L' ns, where g = gcd(L, I), L' = L/g and I' = I/g:
 *
 *   one nanosecond = L' ticks, one token = I' ticks (= T, exactly),
 *   a cost of n    = n·I' ticks, a capacity of B tokens = B·I' ticks.
 *
 * Token amounts are measured in the same unit (a tick of tokens is 1/I' of
 * a token, what one tick of time refills), so refill, cost and capacity are
 * all integers and every decision is exact. Dividing by g keeps the numbers
 * small: with I a multiple of L (100 per second, 1000 per second), L' = 1
 * and a tick is a plain nanosecond.
 *
 * `unsigned __int128` (a GCC and Clang extension on 64-bit targets) is used
 * where a product of two 64-bit numbers must be exact: the mutex buckets
 * keep their state in it, so they accept any configuration an rl_config can
 * hold; the lock-free ones keep one 64-bit word and state their bound.
 */
#ifndef RL_TB_TICKS_H
#define RL_TB_TICKS_H

#include "algorithms/rl.h"

#include <stdbool.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 rl_u128;

struct tb_ticks {
    uint64_t per_ns;    /* L' = L / gcd(L, I) */
    uint64_t per_token; /* I' = I / gcd(L, I): the emission interval T in ticks */
};

/* Greatest common divisor; gcd(a, 0) = a. */
static inline uint64_t tb_gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The tick units for limit L per interval I (both > 0). */
static inline struct tb_ticks tb_ticks_of(uint64_t limit, uint64_t interval_ns)
{
    uint64_t g = tb_gcd(limit, interval_ns);
    return (struct tb_ticks){.per_ns = limit / g, .per_token = interval_ns / g};
}

/* A tick count v in units of 1/from moved to units of 1/to (a rate change:
 * from and to are the old and new per_ns for a time, per_token for an
 * amount of tokens), rounded up when up (a time never earlier, a debt never
 * smaller) else down (stored tokens never more); exact when v·to/from is
 * whole. false when the result passes 128 bits. */
static inline bool tb_ticks_rescale(rl_u128 v, uint64_t from, uint64_t to, bool up, rl_u128 *out)
{
    rl_u128 whole = v / from, part = v % from * to; /* part < from·to < 2^128 */
    if (whole > ((rl_u128)0 - 1 - to) / to)
        return false;
    *out = whole * to + part / from + (up && part % from != 0);
    return true;
}

/* Nanoseconds since the epoch. A read before the epoch (the harness takes
 * the epoch before any thread starts, so only a broken clock gives one)
 * counts as the epoch itself: no bucket has a state before it. */
static inline uint64_t tb_since_epoch(uint64_t now_ns, uint64_t epoch_ns)
{
    return now_ns > epoch_ns ? now_ns - epoch_ns : 0;
}

#endif
