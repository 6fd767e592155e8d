/* test_histogram.c — the latency histogram against known distributions:
 * every percentile lies in [true, true·(1 + 1/128)) of the exact nearest-
 * rank answer, min and max are exact, and merging equals recording all. */
#include "tests/support/test_util.h"
#include "harness/report/histogram.h"
#include "harness/report/latency_cdf.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const double percentiles[] = {0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99};

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The exact nearest-rank percentile of sorted values: rank ⌈p·n/100⌉,
 * computed in integers as the histogram does (p in millionths). */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
    unsigned long long micro = (unsigned long long)(p * 1e6 + 0.5);
    uint64_t rank = (uint64_t)(((unsigned __int128)micro * n + 99999999u) / 100000000u);
    return sorted[(rank ? rank : 1) - 1];
}

/* Records values (any order) and checks every percentile against the
 * exact answer and the stated bound. */
static void check_against_exact(uint64_t *values, size_t n, const char *what)
{
    struct rl_histogram h;
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&h), 0);
    for (size_t i = 0; i < n; i++)
        rl_histogram_record(&h, values[i]);
    qsort(values, n, sizeof *values, compare_u64);
    CU_ASSERT_EQUAL(h.total, n);
    CU_ASSERT_EQUAL(h.min, values[0]);
    CU_ASSERT_EQUAL(h.max, values[n - 1]);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 100), values[n - 1]);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 0), values[0]);
    for (size_t i = 0; i < sizeof percentiles / sizeof *percentiles; i++) {
        uint64_t truth = exact_percentile(values, n, percentiles[i]);
        uint64_t got = rl_histogram_percentile(&h, percentiles[i]);
        bool ok =
            got >= truth && (double)(got - truth) < (double)truth * RL_HISTOGRAM_RELATIVE_ERROR;
        EXPECT(ok || got == truth, "%s: p%g is %llu, exact %llu", what, percentiles[i],
               (unsigned long long)got, (unsigned long long)truth);
    }
    rl_histogram_free(&h);
}

/* Below 2^7 every value has its own bucket: answers are exact. */
static void test_small_values_exact(void)
{
    struct rl_histogram h;
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&h), 0);
    for (uint64_t v = 0; v < 128; v++)
        rl_histogram_record(&h, v);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 50), 63);  /* rank 64 of 0..127 */
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 99), 126); /* rank ⌈126.72⌉ = 127 */
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 100), 127);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 0.5), 0);
    rl_histogram_free(&h);
}

/* Uniform 1..10^6, each once: p is exactly p·10^4. */
static void test_uniform_within_bound(void)
{
    size_t n = 1000000;
    uint64_t *values = malloc(n * sizeof *values);
    CU_ASSERT_PTR_NOT_NULL_FATAL(values);
    for (size_t i = 0; i < n; i++)
        values[n - 1 - i] = i + 1; /* recorded in descending order */
    check_against_exact(values, n, "uniform 1..1e6");
    struct rl_histogram h;
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&h), 0);
    for (size_t i = 0; i < n; i++)
        rl_histogram_record(&h, values[i]);
    uint64_t p50 = rl_histogram_percentile(&h, 50), p999 = rl_histogram_percentile(&h, 99.9);
    CU_ASSERT(p50 >= 500000 && p50 < 500000 + 500000 / 128);
    CU_ASSERT(p999 >= 999000 && p999 <= 1000000);
    CU_ASSERT_DOUBLE_EQUAL(rl_histogram_mean(&h), 500000.5, 1e-3);
    rl_histogram_free(&h);
    free(values);
}

/* Log-uniform from 1 ns to 100 s (a seeded LCG), and a bimodal mix of a
 * fast path and rare slow outliers: the shapes latency takes. */
static void test_wide_distributions_within_bound(void)
{
    size_t n = 200000;
    uint64_t *values = malloc(n * sizeof *values);
    CU_ASSERT_PTR_NOT_NULL_FATAL(values);
    uint64_t state = 42;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(state >> 11) / 9007199254740992.0; /* [0, 1) */
        values[i] = (uint64_t)exp(u * log(1e11));              /* 1 .. 1e11 ns */
    }
    check_against_exact(values, n, "log-uniform 1ns..100s");
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        values[i] = (state >> 33) % 1000 < 995 ? 80 + (state >> 40) % 40            /* 80..119 ns */
                                               : 2000000 + (state >> 20) % 3000000; /* 2..5 ms */
    }
    check_against_exact(values, n, "bimodal 100ns / 3ms");
    free(values);
}

/* Every bucket's range: contiguous, containing what maps to it, and never
 * wider than 1/128 of its lowest value above the exact range. */
static void test_bucket_layout(void)
{
    CU_ASSERT_EQUAL(rl_histogram_index(RL_HISTOGRAM_MAX_VALUE), RL_HISTOGRAM_BUCKETS - 1);
    CU_ASSERT_EQUAL(rl_histogram_bucket_high(RL_HISTOGRAM_BUCKETS - 1), RL_HISTOGRAM_MAX_VALUE);
    CU_ASSERT(RL_HISTOGRAM_MAX_VALUE >= 100ull * 1000000000ull); /* 100 s fits */
    CU_ASSERT(RL_HISTOGRAM_RELATIVE_ERROR <= 0.01);
    for (size_t i = 0; i < RL_HISTOGRAM_BUCKETS; i++) {
        uint64_t low = rl_histogram_bucket_low(i), high = rl_histogram_bucket_high(i);
        CU_ASSERT_FATAL(low <= high);
        CU_ASSERT_EQUAL(rl_histogram_index(low), i);
        CU_ASSERT_EQUAL(rl_histogram_index(high), i);
        if (i + 1 < RL_HISTOGRAM_BUCKETS)
            CU_ASSERT_EQUAL(rl_histogram_bucket_low(i + 1), high + 1);
        if (low >= 128)
            CU_ASSERT((double)(high - low + 1) <= (double)low * RL_HISTOGRAM_RELATIVE_ERROR);
    }
}

/* Per-thread histograms merged equal one histogram of everything. */
static void test_merge_equals_single(void)
{
    struct rl_histogram parts[4], merged, single;
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&parts[i]), 0);
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&merged), 0);
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&single), 0);
    uint64_t state = 7;
    for (int i = 0; i < 100000; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = (state >> 20) % 50000000u;
        rl_histogram_record(&parts[i % 4], v);
        rl_histogram_record(&single, v);
    }
    for (int i = 0; i < 4; i++)
        rl_histogram_merge(&merged, &parts[i]);
    CU_ASSERT_EQUAL(merged.total, single.total);
    CU_ASSERT_EQUAL(merged.min, single.min);
    CU_ASSERT_EQUAL(merged.max, single.max);
    CU_ASSERT(memcmp(merged.counts, single.counts, RL_HISTOGRAM_BUCKETS * sizeof *merged.counts) ==
              0);
    for (size_t i = 0; i < sizeof percentiles / sizeof *percentiles; i++)
        CU_ASSERT_EQUAL(rl_histogram_percentile(&merged, percentiles[i]),
                        rl_histogram_percentile(&single, percentiles[i]));
    for (int i = 0; i < 4; i++)
        rl_histogram_free(&parts[i]);
    rl_histogram_free(&merged);
    rl_histogram_free(&single);
}

/* Empty, one value, 100 s, and beyond the bucketed range. */
static void test_edges(void)
{
    struct rl_histogram h;
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&h), 0);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 50), 0);
    CU_ASSERT_EQUAL(rl_histogram_mean(&h), 0);
    uint64_t hundred_s = 100ull * 1000000000ull;
    rl_histogram_record(&h, hundred_s);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 50), hundred_s); /* capped at the exact max */
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 99.9), hundred_s);
    CU_ASSERT_EQUAL(h.saturated, 0);
    rl_histogram_record(&h, UINT64_MAX);
    CU_ASSERT_EQUAL(h.saturated, 1);
    CU_ASSERT_EQUAL(h.max, UINT64_MAX);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 100), UINT64_MAX);
    rl_histogram_reset(&h);
    CU_ASSERT_EQUAL(h.total, 0);
    rl_histogram_record(&h, 1000);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 0), 1000);
    CU_ASSERT_EQUAL(rl_histogram_percentile(&h, 50), 1000);
    rl_histogram_free(&h);
}

/* The CDF points of 1..1000: from the exact min to the exact max, rising,
 * five to every halving of the tail, each the histogram's own percentile,
 * and no point past the last whole value of the tail. */
static void test_cdf_points(void)
{
    struct rl_histogram h;
    CU_ASSERT_EQUAL_FATAL(rl_histogram_init(&h), 0);
    for (uint64_t v = 1; v <= 1000; v++)
        rl_histogram_record(&h, v * 1000);
    static struct rl_latency_cdf cdf;
    rl_latency_cdf_from(&cdf, &h);
    CU_ASSERT_EQUAL(cdf.total, 1000);
    /* tails 2^-h·(1 − i/10) ≥ 1/1000: h ≤ 9 all five ticks, none at h = 10 */
    CU_ASSERT_EQUAL_FATAL(cdf.count, 10 * RL_CDF_TICKS + 1);
    CU_ASSERT_EQUAL(cdf.points[0].percentile, 0);
    CU_ASSERT_EQUAL(cdf.points[0].value_ns, 1000);
    CU_ASSERT_EQUAL(cdf.points[RL_CDF_TICKS].percentile, 50);
    CU_ASSERT_EQUAL(cdf.points[2 * RL_CDF_TICKS].percentile, 75);
    CU_ASSERT_EQUAL(cdf.points[cdf.count - 1].percentile, 100);
    CU_ASSERT_EQUAL(cdf.points[cdf.count - 1].value_ns, 1000000);
    for (size_t i = 1; i < cdf.count; i++) {
        CU_ASSERT(cdf.points[i].percentile > cdf.points[i - 1].percentile);
        CU_ASSERT(cdf.points[i].value_ns >= cdf.points[i - 1].value_ns);
        CU_ASSERT_EQUAL(cdf.points[i].value_ns,
                        rl_histogram_percentile(&h, cdf.points[i].percentile));
    }
    rl_histogram_reset(&h);
    rl_latency_cdf_from(&cdf, &h);
    CU_ASSERT_EQUAL(cdf.count, 0);
    rl_histogram_free(&h);

    char path[64];
    CU_ASSERT_EQUAL(rl_latency_cdf_path("results/accuracy-vm.csv", path, sizeof path), 0);
    CU_ASSERT_STRING_EQUAL(path, "results/latency-accuracy-vm.csv");
    CU_ASSERT_EQUAL(rl_latency_cdf_path("a.csv", path, sizeof path), 0);
    CU_ASSERT_STRING_EQUAL(path, "latency-a.csv");
    CU_ASSERT_EQUAL(rl_latency_cdf_path("results/accuracy-vm.csv", path, 8), -1);
}

RL_TEST_SUITE("histogram", {"values below 128 are exact", test_small_values_exact},
              {"uniform 1..10^6: every percentile within 1/128 above the exact one",
               test_uniform_within_bound},
              {"log-uniform 1ns..100s and bimodal: within the bound",
               test_wide_distributions_within_bound},
              {"bucket layout: contiguous, width ≤ 1/128 of the value", test_bucket_layout},
              {"merging per-thread histograms equals recording all", test_merge_equals_single},
              {"empty, 100 s, saturation, reset", test_edges},
              {"CDF points: min to max, five a halving of the tail", test_cdf_points})
