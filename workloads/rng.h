/* rng.h — the seeded PRNG behind every workload: xoshiro256** seeded by
 * splitmix64 (Blackman and Vigna), written out here so that a seed names the
 * same trace on every machine and libc's rand() is never involved.
 *
 * A generator draws from several independent streams of one seed (times,
 * keys, costs), so that changing the key count does not move arrival times.
 */
#ifndef RL_RNG_H
#define RL_RNG_H

#include <math.h>
#include <stdint.h>

struct rl_rng {
    uint64_t s[4];
};

/* One splitmix64 step: advances *state and returns a well-mixed value. Used
 * only to spread a seed over xoshiro's 256 bits of state, which must not be
 * all zero (splitmix64 never yields four zeros in a row). */
static inline uint64_t rl_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Seeds stream `stream` of `seed`. Different (seed, stream) pairs give
 * unrelated sequences; the same pair always gives the same one. */
static inline void rl_rng_seed(struct rl_rng *rng, uint64_t seed, uint64_t stream)
{
    /* An odd multiplier keeps (seed, stream) → state one-to-one per seed. */
    uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ull);
    for (int i = 0; i < 4; i++)
        rng->s[i] = rl_splitmix64(&state);
}

static inline uint64_t rl_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* The next 64 uniformly distributed bits (xoshiro256**). */
static inline uint64_t rl_rng_next(struct rl_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rl_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rl_rng_rotl(s[3], 45);
    return result;
}

/* A double uniform in [0, 1): the top 53 bits, so every value is a multiple
 * of 2^-53 and 1.0 itself can never come out. */
static inline double rl_rng_uniform(struct rl_rng *rng)
{
    return (double)(rl_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* An integer uniform in [lo, hi] (lo ≤ hi), without modulo bias: draws in
 * the short tail 2^64 mod span are thrown away and drawn again, so every
 * residue is equally likely. The loop runs more than once with probability
 * below span / 2^64. */
static inline uint64_t rl_rng_range(struct rl_rng *rng, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1;
    if (span == 0) /* [0, 2^64 - 1]: every draw is already fair */
        return rl_rng_next(rng);
    uint64_t reject_below = -span % span; /* 2^64 mod span */
    for (;;) {
        uint64_t x = rl_rng_next(rng);
        if (x >= reject_below)
            return lo + x % span;
    }
}

/* An exponentially distributed double with the given mean (> 0), by
 * inversion. 1 - u lies in (0, 1], so the logarithm is always finite. */
static inline double rl_rng_exponential(struct rl_rng *rng, double mean)
{
    return -mean * log1p(-rl_rng_uniform(rng));
}

#endif
