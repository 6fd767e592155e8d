/* keys.h — drawing each attempt's key: one key, uniform over K, or Zipf(s).
 *
 * Zipf gives key k (0-based) weight 1/(k+1)^s. Its cumulative weights are
 * computed once (K doubles) and each draw is a binary search, so a draw costs
 * O(log K) and K = 10^6 needs 8 MB and a few milliseconds to set up.
 */
#ifndef RL_KEYS_H
#define RL_KEYS_H

#include "generators.h"
#include "rng.h"

#include <stdint.h>

struct rl_key_sampler {
    enum rl_key_dist dist;
    uint32_t keys;
    double *cdf; /* Zipf only: cdf[k] = sum of the weights of keys 0..k */
};

/* Prepares a sampler over keys ≥ 1 keys; zipf_s (> 0) is used only by
 * RL_KEYS_ZIPF. -1 on ENOMEM (nothing to free then). */
int rl_key_sampler_init(struct rl_key_sampler *sampler, enum rl_key_dist dist, uint32_t keys,
                        double zipf_s);

/* A key in [0, keys); consumes no randomness when keys == 1. */
static inline uint32_t rl_key_sampler_draw(const struct rl_key_sampler *sampler, struct rl_rng *rng)
{
    if (sampler->keys == 1)
        return 0;
    if (sampler->dist == RL_KEYS_UNIFORM)
        return (uint32_t)rl_rng_range(rng, 0, sampler->keys - 1);
    double u = rl_rng_uniform(rng) * sampler->cdf[sampler->keys - 1];
    /* The first k with cdf[k] > u; u can round up to the total, so the
     * search is confined to the last key rather than running off the end. */
    uint32_t lo = 0, hi = sampler->keys - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sampler->cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void rl_key_sampler_free(struct rl_key_sampler *sampler);

#endif
