/* histogram.h — a latency histogram with bounded relative error, in the
 * manner of Gil Tene's HdrHistogram: log-linear buckets, O(1) record, one
 * histogram per thread merged after the run.
 *
 * Values (ns) below 2^RL_HISTOGRAM_SUB_BITS each have a bucket of their own.
 * Above, every power-of-two range [2^k, 2^(k+1)) is split into
 * 2^RL_HISTOGRAM_SUB_BITS equal buckets of width 2^(k − SUB_BITS), so a
 * bucket is never wider than 1/128 of its lowest value. A percentile is
 * reported as the highest value of its bucket, capped at the exact maximum:
 * for a true value v the answer r satisfies v ≤ r < v·(1 + 1/128), an
 * error below 0.79%. The minimum and maximum are kept exactly.
 *
 * Values up to RL_HISTOGRAM_MAX_VALUE (2^43 − 1 ns, about 2.4 hours) are
 * bucketed; larger ones are counted in `saturated`, go into the top bucket
 * and still set `max` exactly.
 */
#ifndef RL_HISTOGRAM_H
#define RL_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define RL_HISTOGRAM_SUB_BITS  7u
#define RL_HISTOGRAM_TOP_BITS  43u /* values below 2^43 are bucketed */
#define RL_HISTOGRAM_MAX_VALUE ((1ull << RL_HISTOGRAM_TOP_BITS) - 1)
/* (TOP − SUB + 1) ranges of 2^SUB buckets, the first of them exact */
#define RL_HISTOGRAM_BUCKETS                                                                       \
    ((size_t)(RL_HISTOGRAM_TOP_BITS - RL_HISTOGRAM_SUB_BITS + 1) << RL_HISTOGRAM_SUB_BITS)
/* The bound on (reported − true) ÷ true for any percentile. */
#define RL_HISTOGRAM_RELATIVE_ERROR (1.0 / (double)(1u << RL_HISTOGRAM_SUB_BITS))

struct rl_histogram {
    uint64_t *counts;   /* RL_HISTOGRAM_BUCKETS of them */
    uint64_t total;     /* values recorded */
    uint64_t min, max;  /* exact; min is UINT64_MAX while empty */
    uint64_t saturated; /* values above RL_HISTOGRAM_MAX_VALUE */
    double sum;         /* for the mean */
};

/* Allocates an empty histogram (about 37 KB). -1 on ENOMEM, h zeroed. */
int rl_histogram_init(struct rl_histogram *h);

/* Frees the buckets; safe on a zeroed histogram. */
void rl_histogram_free(struct rl_histogram *h);

/* Empties it, keeping the buckets. */
void rl_histogram_reset(struct rl_histogram *h);

/* The bucket a value falls in: O(1), one count-leading-zeros. */
static inline size_t rl_histogram_index(uint64_t value_ns)
{
    if (value_ns > RL_HISTOGRAM_MAX_VALUE)
        value_ns = RL_HISTOGRAM_MAX_VALUE;
    if (value_ns < (1u << RL_HISTOGRAM_SUB_BITS))
        return (size_t)value_ns;
    unsigned k = 63u - (unsigned)__builtin_clzll(value_ns); /* 2^k ≤ value < 2^(k+1) */
    unsigned shift = k - RL_HISTOGRAM_SUB_BITS;
    return ((size_t)(shift + 1) << RL_HISTOGRAM_SUB_BITS) +
           (size_t)((value_ns >> shift) - (1u << RL_HISTOGRAM_SUB_BITS));
}

/* Adds one value. Not thread-safe: each thread records into its own. */
static inline void rl_histogram_record(struct rl_histogram *h, uint64_t value_ns)
{
    h->counts[rl_histogram_index(value_ns)]++;
    h->total++;
    h->sum += (double)value_ns;
    if (value_ns < h->min)
        h->min = value_ns;
    if (value_ns > h->max)
        h->max = value_ns;
    if (value_ns > RL_HISTOGRAM_MAX_VALUE)
        h->saturated++;
}

/* Adds every value of src into dst (both initialised). */
void rl_histogram_merge(struct rl_histogram *dst, const struct rl_histogram *src);

/* The lowest and highest value that share bucket `index`. */
uint64_t rl_histogram_bucket_low(size_t index);
uint64_t rl_histogram_bucket_high(size_t index);

/* The value at `percentile` (0..100) by nearest rank: the smallest value
 * with at least ⌈percentile·total/100⌉ values at or below it (rank 1 at
 * least), reported as its bucket's highest value capped at max, within
 * the relative error above. 100 gives max exactly; 0 gives min exactly.
 * 0 for an empty histogram. */
uint64_t rl_histogram_percentile(const struct rl_histogram *h, double percentile);

/* Mean of the values recorded; 0 when empty. */
double rl_histogram_mean(const struct rl_histogram *h);

#endif
