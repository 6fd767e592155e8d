/* latency_cdf.h — a replay run's whole decision-latency distribution, and
 * the file that keeps it beside the results CSV.
 *
 * The points are those HdrHistogram's percentile report uses: the tail is
 * halved again and again (0 %, 50 %, 75 %, 87.5 % …) and every halving is
 * split into RL_CDF_TICKS evenly spaced percentiles, until the tail left
 * holds less than one value; the exact maximum ends the list. The tail gets
 * as many points per decade of 1/(1 − p) as the body, about 5 per doubling,
 * so 10^5 decisions give about 85 points. Each value is the histogram's
 * (histogram.h): at most 1/128 above the true percentile. */
#ifndef RL_LATENCY_CDF_H
#define RL_LATENCY_CDF_H

#include "histogram.h"
#include "result.h"

#include <stddef.h>
#include <stdint.h>

#define RL_CDF_TICKS      5u
#define RL_CDF_MAX_POINTS (RL_CDF_TICKS * 64u + 1u) /* 64 halvings reach any uint64_t count */

struct rl_cdf_point {
    double percentile; /* 0..100; the last point is 100, the maximum */
    uint64_t value_ns;
};

struct rl_latency_cdf {
    uint64_t total; /* values in the histogram */
    size_t count;   /* points filled; 0 for an empty histogram */
    struct rl_cdf_point points[RL_CDF_MAX_POINTS];
};

/* Samples h at the points above. */
void rl_latency_cdf_from(struct rl_latency_cdf *cdf, const struct rl_histogram *h);

/* Where the distributions of the runs in results file PATH go: the same
 * folder, "latency-" before the name (results/accuracy-h.csv gives
 * results/latency-accuracy-h.csv). -1 when it does not fit in len. */
int rl_latency_cdf_path(const char *results_path, char *out, size_t len);

/* Writes one row per point of every run: rows[i] says which run cdfs[i]
 * is (columns in results/README.md). Written whole or not at all
 * (outfile.h). -1 with one line in err. */
int rl_latency_cdf_write(const char *path, const struct rl_result *rows,
                         const struct rl_latency_cdf *cdfs, size_t count, char *err,
                         size_t err_len);

#endif
