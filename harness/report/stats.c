/* stats.c — the median and spread of repeated measurements (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rl_median(double *values, size_t n)
{
    return rl_spread_of(values, n).median;
}

struct rl_spread rl_spread_of(double *values, size_t n)
{
    struct rl_spread s = {NAN, NAN, NAN, n};
    if (n == 0)
        return s;
    qsort(values, n, sizeof *values, compare_double);
    s.min = values[0];
    s.max = values[n - 1];
    s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    return s;
}
