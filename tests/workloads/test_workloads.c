/* test_workloads.c — the PRNG, each generator's exact counts and timings,
 * key and cost distributions, and every refusal of rl_workload_generate.
 * The trace CSV has its own suite, test_trace_csv.c. */
#include "tests/support/test_util.h"
#include "workloads/generators.h"
#include "workloads/keys.h"
#include "workloads/rng.h"
#include "workloads/trace.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000ull
#define MS  1000000ull

/* ---- helpers -------------------------------------------------------------- */

static struct rl_workload_params params(const char *name, double rate_per_s, uint64_t duration_ns)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, 10, SEC);
    p.name = name;
    p.rate_per_s = rate_per_s;
    p.duration_ns = duration_ns;
    return p;
}

/* Generates or fails the test; the trace is the caller's to free. */
static struct rl_trace generate(const struct rl_workload_params *p)
{
    struct rl_trace t;
    char err[256] = "";
    int rc = rl_workload_generate(p, &t, err, sizeof err);
    EXPECT_FATAL(rc == 0, "generate %s: %s", p->name, err);
    return t;
}

static bool sorted_within(const struct rl_trace *t, uint64_t duration_ns)
{
    for (size_t i = 0; i < t->len; i++) {
        if (t->attempts[i].t_ns >= duration_ns)
            return false;
        if (i > 0 && t->attempts[i].t_ns < t->attempts[i - 1].t_ns)
            return false;
    }
    return true;
}

static size_t count_in(const struct rl_trace *t, uint64_t from_ns, uint64_t to_ns)
{
    size_t n = 0;
    for (size_t i = 0; i < t->len; i++)
        n += t->attempts[i].t_ns >= from_ns && t->attempts[i].t_ns < to_ns;
    return n;
}

static bool same_attempts(const struct rl_trace *a, const struct rl_trace *b)
{
    return a->len == b->len &&
           (a->len == 0 || memcmp(a->attempts, b->attempts, a->len * sizeof *a->attempts) == 0);
}

/* ---- the PRNG ------------------------------------------------------------- */

static void test_rng(void)
{
    struct rl_rng a, b, c;
    rl_rng_seed(&a, 42, 0);
    rl_rng_seed(&b, 42, 0);
    rl_rng_seed(&c, 42, 1);
    bool same = true, differs = false;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rl_rng_next(&a), y = rl_rng_next(&b), z = rl_rng_next(&c);
        same &= x == y;
        differs |= x != z;
    }
    CU_ASSERT(same);
    CU_ASSERT(differs);

    bool in_range = true, saw_lo = false, saw_hi = false, unit = true;
    double exp_sum = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rl_rng_range(&a, 5, 11);
        in_range &= v >= 5 && v <= 11;
        saw_lo |= v == 5;
        saw_hi |= v == 11;
        double u = rl_rng_uniform(&a);
        unit &= u >= 0 && u < 1;
        exp_sum += rl_rng_exponential(&a, 250.0);
    }
    CU_ASSERT(in_range && saw_lo && saw_hi && unit);
    CU_ASSERT_EQUAL(rl_rng_range(&a, 7, 7), 7);
    (void)rl_rng_range(&a, 0, UINT64_MAX); /* the full span must not divide by zero */
    CU_ASSERT_DOUBLE_EQUAL(exp_sum / 100000, 250.0, 5.0);
}

/* ---- each generator ------------------------------------------------------- */

static void test_uniform_exact(void)
{
    struct rl_workload_params p = params("uniform", 1000, 2 * SEC);
    struct rl_trace t = generate(&p);
    CU_ASSERT_EQUAL(t.len, 2000);
    bool exact = true;
    for (size_t i = 0; i < t.len; i++)
        exact &= t.attempts[i].t_ns == i * MS && t.attempts[i].key == 0 && t.attempts[i].n == 1;
    CU_ASSERT(exact);
    CU_ASSERT_EQUAL(t.key_count, 1);
    CU_ASSERT_STRING_EQUAL(t.key_names[0], "k0");
    rl_trace_free(&t);

    /* A rate that does not divide a second: floor(i·1e9/3). */
    p = params("uniform", 3, SEC);
    t = generate(&p);
    CU_ASSERT_EQUAL_FATAL(t.len, 3);
    CU_ASSERT_EQUAL(t.attempts[0].t_ns, 0);
    CU_ASSERT_EQUAL(t.attempts[1].t_ns, 333333333);
    CU_ASSERT_EQUAL(t.attempts[2].t_ns, 666666666);
    rl_trace_free(&t);

    /* The defaults for L = 10 per second: 40 per second for 2 s. */
    rl_workload_defaults(&p, 10, SEC);
    t = generate(&p);
    CU_ASSERT_EQUAL(t.len, 80);
    rl_trace_free(&t);
}

static void test_poisson_deterministic(void)
{
    struct rl_workload_params p = params("poisson", 5000, 2 * SEC);
    struct rl_trace a = generate(&p), b = generate(&p);
    p.seed = 2;
    struct rl_trace c = generate(&p);
    CU_ASSERT(same_attempts(&a, &b));
    CU_ASSERT(!same_attempts(&a, &c));
    CU_ASSERT(sorted_within(&a, p.duration_ns));
    /* 10000 expected; five standard deviations is 500. */
    CU_ASSERT(a.len > 9500 && a.len < 10500);
    /* Gaps are exponential: their mean is 1e9/rate = 200000 ns. */
    double mean_gap = (double)a.attempts[a.len - 1].t_ns / (double)(a.len - 1);
    CU_ASSERT_DOUBLE_EQUAL(mean_gap, 200000.0, 10000.0);
    rl_trace_free(&a);
    rl_trace_free(&b);
    rl_trace_free(&c);
}

static void test_onoff_silent_when_off(void)
{
    struct rl_workload_params p = params("onoff", 1000, 2 * SEC);
    p.on_ns = 200 * MS;
    p.off_ns = 800 * MS;
    struct rl_trace t = generate(&p);
    CU_ASSERT_EQUAL(t.len, 400); /* 200 in each of two on phases */
    bool all_on = true;
    for (size_t i = 0; i < t.len; i++)
        all_on &= t.attempts[i].t_ns % SEC < 200 * MS;
    CU_ASSERT(all_on);
    CU_ASSERT_EQUAL(count_in(&t, SEC, SEC + 200 * MS), 200);
    CU_ASSERT_EQUAL(t.attempts[200].t_ns, SEC); /* each on phase restarts its spacing */
    rl_trace_free(&t);
}

static void test_boundary_bursts_at_odd_edges(void)
{
    struct rl_workload_params p = params("boundary", 1, 4 * SEC);
    p.interval_ns = SEC;
    p.burst_size = 10;
    p.spread_ns = 50 * MS;
    struct rl_trace t = generate(&p);
    CU_ASSERT_EQUAL_FATAL(t.len, 42); /* edges 1 s and 3 s: an opener, 10 each side */
    CU_ASSERT(sorted_within(&t, p.duration_ns));
    bool near_odd_edge = true;
    for (size_t i = 0; i < t.len; i++) {
        uint64_t ts = t.attempts[i].t_ns;
        if (ts % (2 * SEC) == 0)
            continue;                               /* an opener, at (k−1)·I */
        uint64_t edge = (ts + SEC / 2) / SEC * SEC; /* the nearest edge */
        near_odd_edge &=
            (edge / SEC) % 2 == 1 && ts + p.spread_ns >= edge && ts < edge + p.spread_ns;
    }
    CU_ASSERT(near_odd_edge);
    /* Every aligned window holds one burst (its quota is still unused, but
     * for the opener), and 2L land within 2·spread around the edge. */
    for (uint64_t k = 0; k < 4; k++)
        CU_ASSERT_EQUAL(count_in(&t, k * SEC, (k + 1) * SEC), k % 2 ? 10 : 11);
    CU_ASSERT_EQUAL(count_in(&t, SEC - 50 * MS, SEC + 50 * MS), 20);
    CU_ASSERT_EQUAL(t.attempts[0].t_ns, 0);
    CU_ASSERT_EQUAL(t.attempts[1].t_ns, SEC - 50 * MS);
    CU_ASSERT_EQUAL(t.attempts[11].t_ns, SEC);
    CU_ASSERT_EQUAL(t.attempts[12].t_ns, SEC + 5 * MS);
    rl_trace_free(&t);

    /* The burst after the last edge is cut at the duration: 3.000..3.015 s. */
    p.duration_ns = 3 * SEC + 20 * MS;
    t = generate(&p);
    CU_ASSERT_EQUAL(t.len, 36);
    CU_ASSERT(sorted_within(&t, p.duration_ns));
    rl_trace_free(&t);
}

static void test_flash_spike(void)
{
    struct rl_workload_params p = params("flash", 100, 2 * SEC);
    p.flash_at_ns = SEC;
    p.flash_len_ns = 100 * MS;
    p.flash_factor = 10;
    struct rl_trace t = generate(&p);
    CU_ASSERT_EQUAL(count_in(&t, 0, SEC), 100);
    CU_ASSERT_EQUAL(count_in(&t, SEC, SEC + 100 * MS), 100); /* 1000/s for 0.1 s */
    CU_ASSERT_EQUAL(count_in(&t, SEC + 100 * MS, 2 * SEC), 90);
    CU_ASSERT_EQUAL(t.len, 290);
    CU_ASSERT(sorted_within(&t, p.duration_ns));
    rl_trace_free(&t);
}

static void test_every_generator_sorted(void)
{
    int names = 0;
    for (const char *const *name = rl_workload_names; *name; name++, names++) {
        struct rl_workload_params p;
        rl_workload_defaults(&p, 100, 100 * MS);
        p.name = *name;
        p.keys = 7;
        p.cost_min = 1;
        p.cost_max = 3;
        struct rl_trace t = generate(&p);
        CU_ASSERT(t.len > 0);
        CU_ASSERT(sorted_within(&t, p.duration_ns));
        bool keys_costs = true;
        for (size_t i = 0; i < t.len; i++)
            keys_costs &= t.attempts[i].key < 7 && t.attempts[i].n >= 1 && t.attempts[i].n <= 3;
        CU_ASSERT(keys_costs);
        CU_ASSERT_EQUAL_FATAL(t.key_count, 7);
        CU_ASSERT_STRING_EQUAL(t.key_names[6], "k6");
        rl_trace_free(&t);
    }
    CU_ASSERT_EQUAL(names, 7);
}

/* ---- keys and costs ------------------------------------------------------- */

static void test_zipf_frequencies(void)
{
    struct rl_workload_params p = params("uniform", 100000, SEC);
    p.keys = 10;
    p.key_dist = RL_KEYS_ZIPF;
    p.zipf_s = 1.0;
    struct rl_trace t = generate(&p);
    size_t freq[10] = {0};
    for (size_t i = 0; i < t.len; i++)
        freq[t.attempts[i].key]++;
    for (int k = 1; k < 10; k++) {
        CU_ASSERT(freq[0] > freq[k]);
        double ratio = (double)freq[k] / (double)freq[0];
        CU_ASSERT_DOUBLE_EQUAL(ratio, 1.0 / (k + 1), 0.15 / (k + 1));
    }
    rl_trace_free(&t);

    /* A million keys: the CDF is built once and draws stay fast. */
    p = params("uniform", 200000, SEC);
    p.keys = 1000000;
    p.key_dist = RL_KEYS_ZIPF;
    p.zipf_s = 1.1;
    t = generate(&p);
    CU_ASSERT_EQUAL(t.key_count, 1000000);
    CU_ASSERT_STRING_EQUAL(t.key_names[999999], "k999999");
    size_t zero = 0, one = 0, high = 0;
    for (size_t i = 0; i < t.len; i++) {
        zero += t.attempts[i].key == 0;
        one += t.attempts[i].key == 1;
        high += t.attempts[i].key >= 1000;
    }
    CU_ASSERT(zero > one && one > 0 && high > 0);
    rl_trace_free(&t);
}

static void test_uniform_keys(void)
{
    struct rl_workload_params p = params("uniform", 80000, SEC);
    p.keys = 8;
    struct rl_trace t = generate(&p);
    size_t freq[8] = {0};
    for (size_t i = 0; i < t.len; i++)
        freq[t.attempts[i].key]++;
    for (int k = 0; k < 8; k++)
        CU_ASSERT(freq[k] > 9500 && freq[k] < 10500);
    rl_trace_free(&t);

    /* The direct sampler agrees: one key never draws randomness. */
    struct rl_key_sampler s;
    CU_ASSERT_EQUAL_FATAL(rl_key_sampler_init(&s, RL_KEYS_ZIPF, 1, 1.0), 0);
    struct rl_rng rng, before;
    rl_rng_seed(&rng, 9, 0);
    before = rng;
    CU_ASSERT_EQUAL(rl_key_sampler_draw(&s, &rng), 0);
    CU_ASSERT_EQUAL(memcmp(&rng, &before, sizeof rng), 0);
    rl_key_sampler_free(&s);
}

static void test_cost_range(void)
{
    struct rl_workload_params p = params("poisson", 10000, SEC);
    p.cost_min = 2;
    p.cost_max = 5;
    struct rl_trace t = generate(&p);
    bool seen[6] = {false}, in_range = true;
    for (size_t i = 0; i < t.len; i++) {
        uint32_t n = t.attempts[i].n;
        in_range &= n >= 2 && n <= 5;
        if (n <= 5)
            seen[n] = true;
    }
    CU_ASSERT(in_range && seen[2] && seen[3] && seen[4] && seen[5]);
    rl_trace_free(&t);

    p.cost_min = p.cost_max = 7;
    t = generate(&p);
    bool all_seven = true;
    for (size_t i = 0; i < t.len; i++)
        all_seven &= t.attempts[i].n == 7;
    CU_ASSERT(all_seven);
    rl_trace_free(&t);
}

static void test_keys_do_not_move_times(void)
{
    struct rl_workload_params p = params("poisson", 3000, SEC);
    struct rl_trace one = generate(&p);
    p.keys = 50;
    p.key_dist = RL_KEYS_ZIPF;
    p.cost_max = 9;
    struct rl_trace many = generate(&p);
    CU_ASSERT_EQUAL_FATAL(one.len, many.len);
    bool same_times = true;
    for (size_t i = 0; i < one.len; i++)
        same_times &= one.attempts[i].t_ns == many.attempts[i].t_ns;
    CU_ASSERT(same_times);
    rl_trace_free(&one);
    rl_trace_free(&many);
}

/* ---- defaults and refusals ------------------------------------------------ */

static void test_defaults(void)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, 50, 500 * MS);
    CU_ASSERT_STRING_EQUAL(p.name, "uniform");
    CU_ASSERT_EQUAL(p.seed, 1);
    CU_ASSERT_EQUAL(p.duration_ns, 2 * SEC);
    CU_ASSERT_DOUBLE_EQUAL(p.rate_per_s, 400.0, 1e-9); /* 4·50 per 0.5 s */
    CU_ASSERT_EQUAL(p.keys, 1);
    CU_ASSERT_EQUAL(p.cost_min, 1);
    CU_ASSERT_EQUAL(p.cost_max, 1);
    CU_ASSERT_EQUAL(p.on_ns, 200 * MS);
    CU_ASSERT_EQUAL(p.off_ns, 800 * MS);
    CU_ASSERT_EQUAL(p.interval_ns, 500 * MS);
    CU_ASSERT_EQUAL(p.burst_size, 50);
    CU_ASSERT_EQUAL(p.spread_ns, 25 * MS);
    CU_ASSERT_EQUAL(p.flash_at_ns, SEC);
    CU_ASSERT_EQUAL(p.flash_len_ns, 500 * MS);
    CU_ASSERT_DOUBLE_EQUAL(p.flash_factor, 10.0, 0);
}

struct bad_case {
    const char *what; /* a fragment the message must contain */
    void (*spoil)(struct rl_workload_params *p);
};

static void bad_name(struct rl_workload_params *p)
{
    p->name = "sawtooth";
}
static void bad_null_name(struct rl_workload_params *p)
{
    p->name = NULL;
}
static void bad_rate_zero(struct rl_workload_params *p)
{
    p->rate_per_s = 0;
}
static void bad_rate_negative(struct rl_workload_params *p)
{
    p->rate_per_s = -5;
}
static void bad_rate_nan(struct rl_workload_params *p)
{
    p->rate_per_s = NAN;
}
static void bad_rate_inf(struct rl_workload_params *p)
{
    p->rate_per_s = INFINITY;
}
static void bad_duration(struct rl_workload_params *p)
{
    p->duration_ns = 0;
}
static void bad_keys(struct rl_workload_params *p)
{
    p->keys = 0;
}
static void bad_zipf(struct rl_workload_params *p)
{
    p->key_dist = RL_KEYS_ZIPF;
    p->zipf_s = 0;
}
static void bad_cost_zero(struct rl_workload_params *p)
{
    p->cost_min = 0;
}
static void bad_cost_order(struct rl_workload_params *p)
{
    p->cost_min = 5;
    p->cost_max = 2;
}
static void bad_on(struct rl_workload_params *p)
{
    p->name = "onoff";
    p->on_ns = 0;
}
static void bad_interval(struct rl_workload_params *p)
{
    p->name = "boundary";
    p->interval_ns = 0;
}
static void bad_burst(struct rl_workload_params *p)
{
    p->name = "boundary";
    p->burst_size = 0;
}
static void bad_spread_zero(struct rl_workload_params *p)
{
    p->name = "boundary";
    p->spread_ns = 0;
}
static void bad_spread_wide(struct rl_workload_params *p)
{
    p->name = "boundary";
    p->spread_ns = p->interval_ns + 1;
}
static void bad_boundary_short(struct rl_workload_params *p)
{
    p->name = "boundary";
    p->duration_ns = p->interval_ns;
}
static void bad_flash(struct rl_workload_params *p)
{
    p->name = "flash";
    p->flash_factor = 0;
}
static void bad_too_many(struct rl_workload_params *p)
{
    p->rate_per_s = 1e9;
    p->duration_ns = 1000 * SEC;
}
static void bad_too_many_bursts(struct rl_workload_params *p)
{
    p->name = "boundary";
    p->burst_size = 1000000000;
}

static void test_generate_refuses(void)
{
    const struct bad_case cases[] = {
        {"valid: uniform, poisson, onoff, boundary, flash", bad_name},
        {"unknown workload", bad_null_name},
        {"rate_per_s", bad_rate_zero},
        {"rate_per_s", bad_rate_negative},
        {"rate_per_s", bad_rate_nan},
        {"rate_per_s", bad_rate_inf},
        {"duration_ns", bad_duration},
        {"keys", bad_keys},
        {"zipf_s", bad_zipf},
        {"cost_min", bad_cost_zero},
        {"cost_min <= cost_max", bad_cost_order},
        {"on_ns", bad_on},
        {"interval_ns", bad_interval},
        {"burst_size", bad_burst},
        {"spread_ns", bad_spread_zero},
        {"wider than interval_ns", bad_spread_wide},
        {"must exceed interval_ns", bad_boundary_short},
        {"flash_factor", bad_flash},
        {"1000000000000 attempts", bad_too_many},
        {"2000000001 attempts", bad_too_many_bursts},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rl_workload_params p;
        rl_workload_defaults(&p, 10, SEC);
        cases[i].spoil(&p);
        struct rl_trace t;
        char err[256] = "";
        int rc = rl_workload_generate(&p, &t, err, sizeof err);
        EXPECT(rc == -1, "case %zu: rc %d, err '%s'", i, rc, err);
        EXPECT(strstr(err, cases[i].what) != NULL, "case %zu: err '%s' does not say '%s'", i, err,
               cases[i].what);
        CU_ASSERT_PTR_NULL(strchr(err, '\n'));
        CU_ASSERT(t.len == 0 && t.attempts == NULL && t.key_names == NULL);
    }
    /* boundary ignores the rate, so a zero rate is no error there. */
    struct rl_workload_params p;
    rl_workload_defaults(&p, 10, SEC);
    p.name = "boundary";
    p.rate_per_s = 0;
    struct rl_trace t = generate(&p);
    CU_ASSERT_EQUAL(t.len, 21);
    rl_trace_free(&t);
}

RL_TEST_SUITE("workloads", {"rng", test_rng}, {"uniform_exact", test_uniform_exact},
              {"poisson_deterministic", test_poisson_deterministic},
              {"onoff_silent_when_off", test_onoff_silent_when_off},
              {"boundary_bursts_at_odd_edges", test_boundary_bursts_at_odd_edges},
              {"flash_spike", test_flash_spike},
              {"every_generator_sorted", test_every_generator_sorted},
              {"zipf_frequencies", test_zipf_frequencies}, {"uniform_keys", test_uniform_keys},
              {"cost_range", test_cost_range},
              {"keys_do_not_move_times", test_keys_do_not_move_times}, {"defaults", test_defaults},
              {"generate_refuses", test_generate_refuses})
