/* stats.h — the median and spread of repeated measurements: the one place
 * every table, perf goal, claim and plan takes them from. */
#ifndef RL_STATS_H
#define RL_STATS_H

#include <stddef.h>

struct rl_spread {
    double median, min, max; /* NAN when count is 0 */
    size_t count;
};

/* The median of values[0..n) (the mean of the middle two when n is even),
 * NAN when n is 0. Sorts values in place. */
double rl_median(double *values, size_t n);

/* The median, minimum and maximum of values[0..n). Sorts values in place. */
struct rl_spread rl_spread_of(double *values, size_t n);

#endif
