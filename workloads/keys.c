/* keys.c — setting up the key samplers of keys.h. */
#include "keys.h"

#include <math.h>
#include <stdlib.h>

int rl_key_sampler_init(struct rl_key_sampler *sampler, enum rl_key_dist dist, uint32_t keys,
                        double zipf_s)
{
    sampler->dist = dist;
    sampler->keys = keys;
    sampler->cdf = NULL;
    if (dist != RL_KEYS_ZIPF || keys <= 1)
        return 0;
    sampler->cdf = malloc((size_t)keys * sizeof(double));
    if (sampler->cdf == NULL)
        return -1;
    /* Summed from the heaviest key down the list: the partial sums are what
     * the search needs, and the loss of the smallest weights in a large sum
     * only blurs keys that are almost never drawn. */
    double total = 0;
    for (uint32_t k = 0; k < keys; k++) {
        total += pow((double)k + 1, -zipf_s);
        sampler->cdf[k] = total;
    }
    return 0;
}

void rl_key_sampler_free(struct rl_key_sampler *sampler)
{
    free(sampler->cdf);
    sampler->cdf = NULL;
}
