/* test_verdict.c — the one verdict (harness/check/verdict.h): for every
 * kind of promise, a run just at its bound keeps it and one above breaks it;
 * errors never give yes, dropped events give n/a, tb_sharded's stated excess
 * widens its bound; and the mapping from rl.h's promises (report/result.h). */
#include "tests/support/test_util.h"
#include "algorithms/rl.h"
#include "harness/check/verdict.h"
#include "harness/report/result.h"

#include <string.h>

#define L 10

/* A checked run with metrics m, nothing dropped, no errors. */
static struct rl_run_facts run_of(const struct rl_key_metrics *m)
{
    return (struct rl_run_facts){.checked = true, .m = m};
}

/* The verdict of p on a run measuring `sliding` and `aligned` (certain). */
static enum rl_held held_at(const struct rl_promised *p, uint64_t sliding, uint64_t aligned,
                            uint64_t dropped, uint64_t errors)
{
    struct rl_key_metrics m = {.certain_max_sliding = sliding, .certain_max_aligned = aligned};
    struct rl_run_facts run = run_of(&m);
    run.dropped = dropped;
    run.errors = errors;
    return rl_verdict(p, &run);
}

static const struct {
    const char *name;
    struct rl_promised p;
    uint64_t bound;
    bool aligned; /* judged on the aligned maximum */
} kinds[] = {
    {"strong", {RL_BOUND_STRONG, L, 0, 0}, L, false},
    {"weak", {RL_BOUND_WEAK, L, 0, 0}, L, true},
    {"window", {RL_BOUND_WINDOW, L, 0, 0}, 2 * L, false},
    {"bucket", {RL_BOUND_BUCKET, L, 5, 0}, 5 + L, false},
    {"bucket with excess", {RL_BOUND_BUCKET, L, 5, 7}, 5 + L + 7, false},
    {"given (a coordination strategy's)", {RL_BOUND_GIVEN, L, 0, 9}, L + 9, false},
};

#define KINDS (sizeof kinds / sizeof *kinds)

static void test_at_and_above_the_bound(void)
{
    for (size_t i = 0; i < KINDS; i++) {
        const struct rl_promised *p = &kinds[i].p;
        uint64_t b = kinds[i].bound, other = 3 * b; /* the maximum not judged: anything */
        EXPECT(rl_promised_bound(p) == b, "%s: bound %llu", kinds[i].name,
               (unsigned long long)rl_promised_bound(p));
        uint64_t at_s = kinds[i].aligned ? other : b, at_a = kinds[i].aligned ? b : other;
        uint64_t up_s = kinds[i].aligned ? 0 : b + 1, up_a = kinds[i].aligned ? b + 1 : 0;
        EXPECT(held_at(p, at_s, at_a, 0, 0) == RL_HELD_YES, "%s at the bound", kinds[i].name);
        EXPECT(held_at(p, up_s, up_a, 0, 0) == RL_HELD_NO, "%s above", kinds[i].name);
    }
}

static void test_window_excess_breaks_a_window_promise(void)
{
    const struct rl_promised p = {RL_BOUND_WINDOW, L, 0, 0};
    struct rl_key_metrics m = {.certain_max_sliding = L, .window_excess = 1};
    struct rl_run_facts run = run_of(&m);
    EXPECT(rl_verdict(&p, &run) == RL_HELD_NO, "window_excess 1 held %s",
           rl_held_name(rl_verdict(&p, &run)));
    /* the other promises do not read it */
    const struct rl_promised strong = {RL_BOUND_STRONG, L, 0, 0};
    EXPECT(rl_verdict(&strong, &run) == RL_HELD_YES, "strong read window_excess");
}

/* The plain maxima count a late stamp; only the certain ones are judged. */
static void test_judged_on_certain_maxima(void)
{
    const struct rl_promised p = {RL_BOUND_STRONG, L, 0, 0};
    struct rl_key_metrics m = {
        .max_sliding = 4 * L, .max_aligned = 4 * L, .certain_max_sliding = L};
    struct rl_run_facts run = run_of(&m);
    EXPECT(rl_verdict(&p, &run) == RL_HELD_YES, "judged on the plain maxima");
}

static void test_errors_are_never_yes(void)
{
    for (size_t i = 0; i < KINDS; i++) {
        uint64_t b = kinds[i].bound;
        EXPECT(held_at(&kinds[i].p, b, b, 0, 1) == RL_HELD_NA, "%s with errors at the bound",
               kinds[i].name);
        EXPECT(held_at(&kinds[i].p, b + 1, b + 1, 0, 1) == RL_HELD_NO,
               "%s with errors above: a violation still shows", kinds[i].name);
    }
    const struct rl_promised c = {RL_BOUND_CONCURRENCY, L, 0, 0};
    struct rl_run_facts run = {.has_in_flight = true, .max_in_flight = L, .errors = 2};
    EXPECT(rl_verdict(&c, &run) == RL_HELD_NA, "concurrency with errors");
}

static void test_dropped_events_give_na(void)
{
    for (size_t i = 0; i < KINDS; i++) {
        uint64_t b = kinds[i].bound;
        EXPECT(held_at(&kinds[i].p, b, b, 5, 0) == RL_HELD_NA, "%s with drops at the bound",
               kinds[i].name);
        EXPECT(held_at(&kinds[i].p, b + 1, b + 1, 5, 0) == RL_HELD_NO,
               "%s with drops above: a violation among those kept shows", kinds[i].name);
    }
}

static void test_nothing_measured_or_promised(void)
{
    struct rl_key_metrics m = {0};
    struct rl_run_facts unchecked = {.checked = false, .m = &m};
    for (size_t i = 0; i < KINDS; i++)
        EXPECT(rl_verdict(&kinds[i].p, &unchecked) == RL_HELD_NA, "%s unchecked", kinds[i].name);
    const struct rl_promised none = {RL_BOUND_NONE, L, 0, 0};
    EXPECT_EQ(rl_promised_bound(&none), 0);
    EXPECT(held_at(&none, 100 * L, 100 * L, 0, 0) == RL_HELD_NA, "none judged");
    EXPECT(strcmp(rl_held_name(RL_HELD_YES), "yes") == 0 &&
               strcmp(rl_held_name(RL_HELD_NO), "no") == 0 &&
               strcmp(rl_held_name(RL_HELD_NA), "n/a") == 0,
           "names");
}

/* Concurrency is judged on max_in_flight, measured in stress only. */
static void test_concurrency(void)
{
    const struct rl_promised p = {RL_BOUND_CONCURRENCY, L, 0, 0};
    EXPECT_EQ(rl_promised_bound(&p), L);
    struct rl_run_facts run = {.has_in_flight = true, .max_in_flight = L};
    EXPECT(rl_verdict(&p, &run) == RL_HELD_YES, "at L");
    run.max_in_flight = L + 1;
    EXPECT(rl_verdict(&p, &run) == RL_HELD_NO, "above L");
    run.has_in_flight = false;
    EXPECT(rl_verdict(&p, &run) == RL_HELD_NA, "not measured");
}

/* tb_sharded states (k − 1)·min(threads, 64) beyond B + L: k = 8, 2
 * threads: 14; 100 threads: 7·64. */
static void test_tb_sharded_excess(void)
{
    const struct rl_algo *sharded = rl_registry_find("tb_sharded");
    EXPECT_FATAL(sharded != NULL, "tb_sharded not in the registry");
    struct rl_config cfg = {.limit = 1000, .interval_ns = 1000000, .slots = 8};
    struct rl_promised p = rl_algo_promised(sharded, &cfg, 2);
    EXPECT_EQ(rl_promised_bound(&p), 1000 + 1000 + 14);
    EXPECT(held_at(&p, 2014, 0, 0, 0) == RL_HELD_YES, "tb_sharded at B + L + 14");
    EXPECT(held_at(&p, 2015, 0, 0, 0) == RL_HELD_NO, "tb_sharded above");
    p = rl_algo_promised(sharded, &cfg, 100);
    EXPECT_EQ(rl_promised_bound(&p), 2000 + 7 * 64);
    /* a bucket that states nothing keeps B + L */
    p = rl_algo_promised(rl_registry_find("tb_cas"), &cfg, 100);
    EXPECT_EQ(rl_promised_bound(&p), 2000);
}

/* report/result.c's mapping: every rl.h promise onto its kind, B's default. */
static void test_mapping_from_rl_h(void)
{
    struct rl_config cfg = {.limit = L, .interval_ns = 1};
    EXPECT(rl_promised_of(RL_PROMISE_STRONG, &cfg, 0).kind == RL_BOUND_STRONG, "strong");
    EXPECT(rl_promised_of(RL_PROMISE_WEAK, &cfg, 0).kind == RL_BOUND_WEAK, "weak");
    EXPECT(rl_promised_of(RL_PROMISE_WINDOW, &cfg, 0).kind == RL_BOUND_WINDOW, "window");
    EXPECT(rl_promised_of(RL_PROMISE_CONCURRENCY, &cfg, 0).kind == RL_BOUND_CONCURRENCY, "conc");
    EXPECT(rl_promised_of(RL_PROMISE_APPROX, &cfg, 0).kind == RL_BOUND_NONE, "approx");
    EXPECT(rl_promised_of(RL_PROMISE_NONE, &cfg, 0).kind == RL_BOUND_NONE, "none");
    struct rl_promised b = rl_promised_of(RL_PROMISE_BUCKET, &cfg, 3);
    EXPECT(b.kind == RL_BOUND_BUCKET, "bucket");
    EXPECT_EQ(rl_promised_bound(&b), L + L + 3); /* B = 0 means B = L */
    cfg.burst = 4;
    b = rl_promised_of(RL_PROMISE_BUCKET, &cfg, 0);
    EXPECT_EQ(rl_promised_bound(&b), 4 + L);
    /* only a bucket reads B and the excess */
    struct rl_promised s = rl_promised_of(RL_PROMISE_STRONG, &cfg, 3);
    EXPECT_EQ(rl_promised_bound(&s), L);
}

static void expect_rule(const struct rl_promised *p, const char *want)
{
    char buf[96];
    rl_verdict_rule(p, buf, sizeof buf);
    EXPECT(strcmp(buf, want) == 0, "rule '%s', want '%s'", buf, want);
}

static void test_rule_text(void)
{
    expect_rule(&kinds[0].p, "max_sliding <= 10");
    expect_rule(&kinds[1].p, "max_aligned <= 10");
    expect_rule(&kinds[2].p, "max_sliding <= 20, window_excess = 0");
    expect_rule(&kinds[4].p, "max_sliding <= 22");
}

/* Several reps of one stress line (cli/table.c): no wins, a first n/a
 * stays, errors anywhere are never yes, unchecked n/a does not count. */
static void test_tally(void)
{
    struct rl_held_tally t = {0};
    EXPECT(strcmp(rl_held_tally_name(&t), "-") == 0, "empty");
    rl_held_tally_add(&t, RL_HELD_NA, false, 0);
    EXPECT(strcmp(rl_held_tally_name(&t), "-") == 0, "an unchecked n/a counted");
    rl_held_tally_add(&t, RL_HELD_YES, true, 0);
    rl_held_tally_add(&t, RL_HELD_NA, true, 0);
    EXPECT(strcmp(rl_held_tally_name(&t), "yes") == 0, "yes then n/a: %s", rl_held_tally_name(&t));
    rl_held_tally_add(&t, RL_HELD_NA, false, 3); /* an unrecorded rep with errors */
    EXPECT(strcmp(rl_held_tally_name(&t), "n/a") == 0, "errors gave %s", rl_held_tally_name(&t));
    rl_held_tally_add(&t, RL_HELD_NO, true, 0);
    EXPECT(strcmp(rl_held_tally_name(&t), "no") == 0, "no lost");
    struct rl_held_tally u = {0};
    rl_held_tally_add(&u, RL_HELD_NA, true, 0);
    rl_held_tally_add(&u, RL_HELD_YES, true, 0);
    EXPECT(strcmp(rl_held_tally_name(&u), "n/a") == 0, "n/a then yes: %s", rl_held_tally_name(&u));
}

/* The uncertainty rule (verdict.h, RL_UNCERTAIN_SHARE): a gap up to I/10
 * leaves a yes a yes; above it, a run within its bound is uncertain, never
 * yes; a violation among the certain admits is no whatever the gap. */
static void test_uncertainty(void)
{
    const uint64_t I = 10000000; /* 10 ms */
    for (size_t i = 0; i < KINDS; i++) {
        uint64_t b = kinds[i].bound;
        struct rl_key_metrics m = {.certain_max_sliding = b, .certain_max_aligned = b};
        struct rl_run_facts run = run_of(&m);
        run.interval_ns = I;
        run.uncertainty_ns = 5000; /* 5 us: small */
        EXPECT(rl_verdict(&kinds[i].p, &run) == RL_HELD_YES, "%s, small gap", kinds[i].name);
        run.uncertainty_ns = I / 10; /* at the line: still yes */
        EXPECT(rl_verdict(&kinds[i].p, &run) == RL_HELD_YES, "%s, gap I/10", kinds[i].name);
        run.uncertainty_ns = I / 10 + 1;
        EXPECT(rl_verdict(&kinds[i].p, &run) == RL_HELD_UNCERTAIN, "%s, gap above I/10 gave %s",
               kinds[i].name, rl_held_name(rl_verdict(&kinds[i].p, &run)));
        run.uncertainty_ns = 4 * I; /* the README's old example: four windows */
        EXPECT(rl_verdict(&kinds[i].p, &run) == RL_HELD_UNCERTAIN, "%s, gap 4I", kinds[i].name);
        m.certain_max_sliding = m.certain_max_aligned = b + 1;
        EXPECT(rl_verdict(&kinds[i].p, &run) == RL_HELD_NO, "%s, violation with gap 4I",
               kinds[i].name);
        run.errors = 1; /* with errors: never uncertain, n/a as for yes */
        m.certain_max_sliding = m.certain_max_aligned = b;
        EXPECT(rl_verdict(&kinds[i].p, &run) == RL_HELD_NA, "%s, errors", kinds[i].name);
    }
    EXPECT(strcmp(rl_held_name(RL_HELD_UNCERTAIN), "uncertain") == 0, "the word");
    /* concurrency is judged on max_in_flight, not on stamps */
    struct rl_promised c = {RL_BOUND_CONCURRENCY, L, 0, 0};
    struct rl_run_facts conc = {
        .has_in_flight = true, .max_in_flight = L, .uncertainty_ns = I, .interval_ns = I};
    EXPECT(rl_verdict(&c, &conc) == RL_HELD_YES, "concurrency with a gap");
    /* the measure a table shows beside the plain maxima */
    struct rl_key_metrics m = {
        .max_sliding = 9, .max_aligned = 8, .certain_max_sliding = 7, .certain_max_aligned = 6};
    EXPECT_EQ(rl_verdict_measure(&kinds[0].p, &m), 7);
    EXPECT_EQ(rl_verdict_measure(&kinds[1].p, &m), 6);
    /* a line of reps: uncertain beats yes, no beats uncertain */
    struct rl_held_tally t = {0};
    rl_held_tally_add(&t, RL_HELD_YES, true, 0);
    rl_held_tally_add(&t, RL_HELD_UNCERTAIN, true, 0);
    rl_held_tally_add(&t, RL_HELD_YES, true, 0);
    EXPECT(strcmp(rl_held_tally_name(&t), "uncertain") == 0, "yes, uncertain, yes: %s",
           rl_held_tally_name(&t));
    rl_held_tally_add(&t, RL_HELD_NO, true, 0);
    EXPECT(strcmp(rl_held_tally_name(&t), "no") == 0, "then no: %s", rl_held_tally_name(&t));
}

/* The excess a fault's lost writes show as: 0 at the bound, the certain
 * maximum's distance above it, window_excess for a window promise, and 0
 * where nothing is promised; the uncertain maximum never counts. */
static void test_excess_over_the_bound(void)
{
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const struct rl_promised *p = &kinds[k].p;
        uint64_t b = kinds[k].bound;
        struct rl_key_metrics at = {.certain_max_sliding = b,
                                    .certain_max_aligned = b,
                                    .max_sliding = b + 50,
                                    .max_aligned = b + 50};
        struct rl_key_metrics above = {.certain_max_sliding = b + 3, .certain_max_aligned = b + 3};
        EXPECT(rl_verdict_excess(p, &at) == 0, "%s: excess at the bound", kinds[k].name);
        EXPECT(rl_verdict_excess(p, &above) == 3, "%s: excess %llu, want 3", kinds[k].name,
               (unsigned long long)rl_verdict_excess(p, &above));
    }
    struct rl_promised window = {RL_BOUND_WINDOW, L, 0, 0};
    struct rl_key_metrics m = {.certain_max_sliding = 2 * L, .window_excess = 4};
    EXPECT_EQ(rl_verdict_excess(&window, &m), 4);
    struct rl_promised none = {RL_BOUND_NONE, L, 0, 0};
    struct rl_key_metrics big = {.certain_max_sliding = 100 * L, .certain_max_aligned = 100 * L};
    EXPECT_EQ(rl_verdict_excess(&none, &big), 0);
}

RL_TEST_SUITE("verdict",
              {"a fault's lost admits: the excess over the bound", test_excess_over_the_bound},
              {"every kind: at the bound yes, above no", test_at_and_above_the_bound},
              {"window_excess breaks a window promise", test_window_excess_breaks_a_window_promise},
              {"judged on the certain maxima", test_judged_on_certain_maxima},
              {"errors are never yes", test_errors_are_never_yes},
              {"dropped events give n/a", test_dropped_events_give_na},
              {"nothing measured or promised: n/a", test_nothing_measured_or_promised},
              {"concurrency on max_in_flight", test_concurrency},
              {"tb_sharded's stated excess", test_tb_sharded_excess},
              {"rl.h's promises mapped once", test_mapping_from_rl_h},
              {"the rule check prints", test_rule_text}, {"several reps: the tally", test_tally},
              {"uncertainty above I/10: uncertain, never yes", test_uncertainty});
