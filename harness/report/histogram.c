/* histogram.c — log-linear buckets, merge and percentiles (histogram.h).
 * The bucket layout follows HdrHistogram's idea (a fixed number of linear
 * sub-buckets per power of two); the code is ratelab's own. */
#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rl_histogram_init(struct rl_histogram *h)
{
    memset(h, 0, sizeof *h);
    h->counts = calloc(RL_HISTOGRAM_BUCKETS, sizeof *h->counts);
    if (h->counts == NULL)
        return -1;
    h->min = UINT64_MAX;
    return 0;
}

void rl_histogram_free(struct rl_histogram *h)
{
    free(h->counts);
    memset(h, 0, sizeof *h);
}

void rl_histogram_reset(struct rl_histogram *h)
{
    memset(h->counts, 0, RL_HISTOGRAM_BUCKETS * sizeof *h->counts);
    h->total = h->saturated = h->max = 0;
    h->sum = 0;
    h->min = UINT64_MAX;
}

void rl_histogram_merge(struct rl_histogram *dst, const struct rl_histogram *src)
{
    for (size_t i = 0; i < RL_HISTOGRAM_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->saturated += src->saturated;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t rl_histogram_bucket_low(size_t index)
{
    const size_t sub_count = (size_t)1 << RL_HISTOGRAM_SUB_BITS;
    if (index < sub_count)
        return index;
    unsigned shift = (unsigned)(index >> RL_HISTOGRAM_SUB_BITS) - 1;
    uint64_t sub = index & (sub_count - 1);
    return (sub_count + sub) << shift;
}

uint64_t rl_histogram_bucket_high(size_t index)
{
    const size_t sub_count = (size_t)1 << RL_HISTOGRAM_SUB_BITS;
    if (index < sub_count)
        return index;
    unsigned shift = (unsigned)(index >> RL_HISTOGRAM_SUB_BITS) - 1;
    return rl_histogram_bucket_low(index) + ((uint64_t)1 << shift) - 1;
}

uint64_t rl_histogram_percentile(const struct rl_histogram *h, double percentile)
{
    if (h->total == 0)
        return 0;
    if (!(percentile > 0)) /* also NaN */
        return h->min;
    if (percentile >= 100)
        return h->max;
    /* Nearest rank ⌈p·total/100⌉ in integers: p in millionths of a percent
     * point, so 99.9 of 1000 is rank 999, not 1000 by a rounding error. */
    unsigned __int128 micro = (unsigned __int128)llround(percentile * 1e6);
    unsigned __int128 scaled = micro * h->total;
    const unsigned __int128 whole = 100000000u; /* 100 % in millionths */
    uint64_t rank = (uint64_t)((scaled + whole - 1) / whole);
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < RL_HISTOGRAM_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t value = rl_histogram_bucket_high(i);
            if (value > h->max)
                value = h->max;
            return value < h->min ? h->min : value;
        }
    }
    return h->max; /* not reached: the counts add up to total */
}

double rl_histogram_mean(const struct rl_histogram *h)
{
    return h->total ? h->sum / (double)h->total : 0;
}
