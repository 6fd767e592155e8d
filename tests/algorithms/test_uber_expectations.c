/* test_uber_expectations.c — pacer_uber against the expectations
 * uber-go/ratelimit's own tests state. The package is not in Debian, so
 * there is no conformance run: its tests' figures are transcribed here as
 * data, with their source, and replayed on pacer_uber in virtual time.
 *
 * Source: uber-go/ratelimit, ratelimit_test.go,
 * https://github.com/uber-go/ratelimit/blob/main/ratelimit_test.go (read
 * at commit 0ea5a0fcc039c4f1f0517a56ebd8afba6ac11cfc). Its tests run
 * goroutines that Take in a loop on a mock clock and count the loops
 * completed by a time (assertCountAt); here each goroutine is a caller
 * whose next Take comes at its previous release, callers in turn by time
 * (equal times: the earlier-started first), and a count at d is the loops
 * whose last release came before d. New(rate, Per(p), WithSlack(s)) is
 * pacer_uber with L = rate, I = p, B = s + 1 (WithoutSlack: B = 1; no
 * option: slack 10). */
#include "tests/support/test_util.h"
#include "algorithms/shapers/pacer_uber.h"
#include "harness/sys/clock.h"

#include <string.h>

#define MS 1000000ull
#define S  1000000000ull

/* A limiter as the test builds it: New(rate, Per(per_ns)) with a slack. */
struct uber_limiter {
    uint64_t rate, per_ns;
    int slack; /* -1: no option (the default, 10); 0: WithoutSlack */
};

#define DEFAULT_SLACK (-1)

/* A goroutine of startTaking: from start_ns, Take on each limiter of its
 * list in turn, forever; one loop counted per pass. */
struct uber_goroutine {
    uint64_t start_ns;
    unsigned limiters[2]; /* indexes into the case's limiters */
    unsigned count;       /* how many of them */
};

struct uber_count {
    uint64_t at_ns;
    unsigned want;
};

/* One of ratelimit_test.go's cases, its assertCountAt figures as data. */
struct uber_case {
    const char *test; /* the Go test and subtest it comes from */
    struct uber_limiter limiters[2];
    unsigned n_limiters;
    struct uber_goroutine goroutines[6];
    unsigned n_goroutines;
    struct uber_count counts[3];
    unsigned n_counts;
};

static const struct uber_case cases[] = {
    {"TestRateLimiter: New(100, WithoutSlack), 4 goroutines",
     {{100, S, 0}},
     1,
     {{0, {0}, 1}, {0, {0}, 1}, {0, {0}, 1}, {0, {0}, 1}},
     4,
     {{1 * S, 100}, {2 * S, 200}, {3 * S, 300}},
     3},
    {"TestDelayedRateLimiter: slow 10 and fast 100 WithoutSlack, 4 more on fast at 20 s",
     {{10, S, 0}, {100, S, 0}},
     2,
     {{0, {0, 1}, 2}, {20 * S, {1}, 1}, {20 * S, {1}, 1}, {20 * S, {1}, 1}, {20 * S, {1}, 1}},
     5,
     {{30 * S, 1200}},
     1},
    {"TestPer: New(7, WithoutSlack, Per(time.Minute)), 2 goroutines",
     {{7, 60 * S, 0}},
     1,
     {{0, {0}, 1}, {0, {0}, 1}},
     2,
     {{1 * S, 1}, {60 * S, 8}, {120 * S, 15}},
     3},
#define SLACK_CASE(name, slack, per, want)                                                         \
    {                                                                                              \
        "TestSlack: " name, {{10, S, 0}, {100, per, slack}}, 2,                                    \
            {{0, {0, 1}, 2}, {2 * S, {1}, 1}, {2 * S, {1}, 1}}, 3, {{1 * S, 10}, {3 * S, want}}, 2 \
    }
    SLACK_CASE("no option, defaults to 10", DEFAULT_SLACK, S, 130),
    SLACK_CASE("slack of 10, like default", 10, S, 130),
    SLACK_CASE("slack of 20", 20, S, 140),
    SLACK_CASE("slack of 150", 150, S, 270),
    SLACK_CASE("no option, defaults to 10, with per", DEFAULT_SLACK, 500 * MS, 230),
    SLACK_CASE("slack of 10, like default, with per", 10, 500 * MS, 230),
    SLACK_CASE("slack of 20, with per", 20, 500 * MS, 240),
    SLACK_CASE("slack of 150, with per", 150, 500 * MS, 370),
#undef SLACK_CASE
};

struct pacer {
    const struct rl_algo *algo;
    void *state;
};

static void pacer_open_algo(struct pacer *p, const char *name, const struct uber_limiter *l)
{
    p->algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->algo);
    struct rl_config cfg = {.limit = l->rate,
                            .interval_ns = l->per_ns,
                            .burst = l->slack < 0 ? 0 : (uint64_t)l->slack + 1,
                            .epoch_ns = RL_VIRTUAL_ORIGIN_NS};
    char err[256];
    p->state = p->algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->state);
}

static void pacer_open(struct pacer *p, const struct uber_limiter *l)
{
    pacer_open_algo(p, "pacer_uber", l);
}

/* Take at t (trace time): the release (trace time). */
static uint64_t pacer_take(struct pacer *p, struct rl_clock *clock, uint64_t t)
{
    struct rl_reservation r;
    rl_clock_set_virtual(clock, RL_VIRTUAL_ORIGIN_NS + t);
    CU_ASSERT_EQUAL(p->algo->shape(p->state, clock, 0, 1, UINT64_MAX, &r), RL_ADMIT);
    return r.release_ns - RL_VIRTUAL_ORIGIN_NS;
}

/* Runs the case's goroutines up to its last count; got[i] = the loops
 * completed before counts[i].at_ns. */
static void run_case(const struct uber_case *c, unsigned got[3])
{
    struct pacer pacers[2];
    for (unsigned i = 0; i < c->n_limiters; i++)
        pacer_open(&pacers[i], &c->limiters[i]);
    struct rl_clock clock;
    char err[256];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    uint64_t now[6], end = c->counts[c->n_counts - 1].at_ns;
    unsigned step[6] = {0};
    for (unsigned g = 0; g < c->n_goroutines; g++)
        now[g] = c->goroutines[g].start_ns;
    memset(got, 0, 3 * sizeof *got);
    for (;;) {
        unsigned g = 0;
        for (unsigned k = 1; k < c->n_goroutines; k++)
            if (now[k] < now[g])
                g = k;
        if (now[g] >= end)
            break;
        const struct uber_goroutine *go = &c->goroutines[g];
        now[g] = pacer_take(&pacers[go->limiters[step[g]]], &clock, now[g]);
        if (++step[g] == go->count) {
            step[g] = 0;
            for (unsigned i = 0; i < c->n_counts; i++)
                got[i] += now[g] < c->counts[i].at_ns;
        }
    }
    for (unsigned i = 0; i < c->n_limiters; i++)
        pacers[i].algo->destroy(pacers[i].state);
}

static void test_uber_counts(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct uber_case *c = &cases[k];
        unsigned got[3];
        run_case(c, got);
        for (unsigned i = 0; i < c->n_counts; i++)
            EXPECT(got[i] == c->counts[i].want,
                   "%s: count at %llu ms: ratelimit_test.go says %u, "
                   "pacer_uber gives %u",
                   c->test, (unsigned long long)(c->counts[i].at_ns / MS), c->counts[i].want,
                   got[i]);
    }
}

/* TestInitial: three Takes at once on New(10) with and without slack go
 * 0, 100 ms, 100 ms apart. */
static void test_uber_initial(void)
{
    static const int slacks[] = {DEFAULT_SLACK, 0};
    for (size_t k = 0; k < 2; k++) {
        struct pacer p;
        const struct uber_limiter l = {10, S, slacks[k]};
        pacer_open(&p, &l);
        struct rl_clock clock;
        char err[256];
        rl_clock_init(&clock, "virtual", err, sizeof err);
        uint64_t prev = 0, gaps[3];
        for (int i = 0; i < 3; i++) {
            uint64_t r = pacer_take(&p, &clock, 0);
            gaps[i] = r - prev;
            prev = r;
        }
        EXPECT(gaps[0] == 0 && gaps[1] == 100 * MS && gaps[2] == 100 * MS,
               "TestInitial (slack %d): gaps %llu, %llu, %llu ns, want 0, 100 ms, 100 ms",
               slacks[k], (unsigned long long)gaps[0], (unsigned long long)gaps[1],
               (unsigned long long)gaps[2]);
        p.algo->destroy(p.state);
    }
}

/* TestImmediateSlackReapply (the test of #119's fix): New(1, WithSlack(1)),
 * one Take, 2 s of sleep, then 5 Takes 1 ns apart take more than 3 s. */
static void test_uber_immediate_slack_reapply(void)
{
    struct pacer p;
    const struct uber_limiter l = {1, S, 1};
    pacer_open(&p, &l);
    struct rl_clock clock;
    char err[256];
    rl_clock_init(&clock, "virtual", err, sizeof err);
    pacer_take(&p, &clock, 0);
    uint64_t start = 2 * S, t = start;
    for (int i = 0; i < 5; i++)
        t = pacer_take(&p, &clock, t) + 1;
    EXPECT(t - start > 3 * S, "TestImmediateSlackReapply: 5 Takes in %llu ns, want > 3 s",
           (unsigned long long)(t - start));
    p.algo->destroy(p.state);
}

/* The step's regimes at their boundaries (docs/teaching.md, the pacer's
 * CAS loop): with per T = 10 ms and slack 3 (maxSlack 30 ms), a word d
 * behind now moves by T up to d = maxSlack + T, and to now − maxSlack
 * beyond; the rule before v0.3.1 already beyond maxSlack. At maxSlack + T
 * both regimes give now − maxSlack (the step is continuous there, so a
 * boundary a ns off is invisible); one moved inside the interval fails. */
static void test_uber_step_boundaries(void)
{
    const struct pacer_uber_state s = {.per_ns = 10 * (int64_t)MS,
                                       .max_slack_ns = 30 * (int64_t)MS};
    const int64_t now = 1000 * (int64_t)MS, T = 10 * (int64_t)MS, slack = 30 * (int64_t)MS;
    static const int64_t behind[] = {0, 29, 30, 31, 39, 40, 41}; /* ms, then ±1 ns below */
    for (size_t i = 0; i < sizeof behind / sizeof behind[0]; i++)
        for (int64_t eps = -1; eps <= 1; eps++) {
            int64_t d = behind[i] * (int64_t)MS + eps, next = now - d;
            int64_t fixed = pacer_uber_step(&s, next, now, PACER_UBER_FIXED);
            int64_t bug = pacer_uber_step(&s, next, now, PACER_UBER_IDLE_BUG);
            int64_t want_fixed = d > slack + T ? now - slack : next + T;
            int64_t want_bug = d > slack ? now - slack : next + T;
            EXPECT(fixed == want_fixed && bug == want_bug,
                   "word %lld ns behind: step %lld (want %lld), before v0.3.1 %lld (want %lld)",
                   (long long)d, (long long)(fixed - now), (long long)(want_fixed - now),
                   (long long)(bug - now), (long long)(want_bug - now));
        }
    /* without slack: more than T behind jumps to now */
    const struct pacer_uber_state none = {.per_ns = T};
    CU_ASSERT_EQUAL(pacer_uber_step(&none, now - T, now, PACER_UBER_FIXED),
                    now); /* next + T = now */
    CU_ASSERT_EQUAL(pacer_uber_step(&none, now - T - 1, now, PACER_UBER_FIXED),
                    now); /* jumps to now */
    CU_ASSERT_EQUAL(pacer_uber_step(&none, now - T + 1, now, PACER_UBER_FIXED), now + 1);
    CU_ASSERT_EQUAL(pacer_uber_step(&none, 0, now, PACER_UBER_FIXED), now); /* the first Take */
}

/* uber-go/ratelimit #90 (the rule of PR #85 before PR #95), as a decision
 * table in virtual time: Takes at the given times (us) on New(100) and the
 * releases each variant gives (us). */
struct uber_table {
    const char *algo;
    int slack;
    uint64_t at_us[5], want_us[5];
};

static const struct uber_table noslack_table[] = {
    /* WithoutSlack, Takes 2 us apart: the fix paces them 10 ms apart */
    {"pacer_uber", 0, {0, 2, 4, 6, 8}, {0, 10000, 20000, 30000, 40000}},
    /* #90: each finds now past the word by more than maxSlack = 0: at once */
    {"pacer_uber_noslack_bug", 0, {0, 2, 4, 6, 8}, {0, 2, 4, 6, 8}},
    /* Takes at the word or before it are still paced (so TestInitial
     * passes); the first later than the word escapes */
    {"pacer_uber_noslack_bug", 0, {0, 0, 0, 25000, 25001}, {0, 10000, 20000, 25000, 25001}},
    {"pacer_uber", 0, {0, 0, 0, 25000, 25001}, {0, 10000, 20000, 30000, 40000}},
};

static void test_uber_noslack_bug_90(void)
{
    for (size_t k = 0; k < sizeof noslack_table / sizeof noslack_table[0]; k++) {
        const struct uber_table *c = &noslack_table[k];
        struct pacer p;
        const struct uber_limiter l = {100, S, c->slack};
        pacer_open_algo(&p, c->algo, &l);
        struct rl_clock clock;
        char err[256];
        rl_clock_init(&clock, "virtual", err, sizeof err);
        for (int i = 0; i < 5; i++) {
            uint64_t got = pacer_take(&p, &clock, c->at_us[i] * 1000);
            EXPECT(got == c->want_us[i] * 1000,
                   "%s, slack %d, row %zu: Take %d at %llu us released at %llu ns, want %llu us",
                   c->algo, c->slack, k, i, (unsigned long long)c->at_us[i],
                   (unsigned long long)got, (unsigned long long)c->want_us[i]);
        }
        p.algo->destroy(p.state);
    }
}

/* With slack, #90's rule is #119's: the same step on a word behind, at, or
 * ahead of now around maxSlack and maxSlack + per (slack 10, per 10 ms),
 * where v0.3.1's differs. */
static void test_uber_noslack_bug_with_slack(void)
{
    const int64_t T = 10 * (int64_t)MS, now = 1000 * (int64_t)MS;
    const struct pacer_uber_state s = {.per_ns = T, .max_slack_ns = 10 * T};
    static const int64_t behind[] = {-20, 0, 5, 100, 105, 110, 200}; /* ms, then ±1 ns */
    for (size_t i = 0; i < sizeof behind / sizeof behind[0]; i++)
        for (int64_t eps = -1; eps <= 1; eps++) {
            int64_t next = now - (behind[i] * (int64_t)MS + eps);
            int64_t bug90 = pacer_uber_step(&s, next, now, PACER_UBER_NOSLACK_BUG);
            int64_t bug119 = pacer_uber_step(&s, next, now, PACER_UBER_IDLE_BUG);
            EXPECT(bug90 == bug119, "word %lld ns behind, slack 10: #90's rule %lld, #119's %lld",
                   (long long)(now - next), (long long)(bug90 - now), (long long)(bug119 - now));
        }
    /* and through the variants: a Take, 2 s idle, then 3 Takes 1 ms apart */
    static const char *const algos[] = {"pacer_uber_noslack_bug", "pacer_uber_idle_bug"};
    uint64_t got[2][4];
    for (int a = 0; a < 2; a++) {
        struct pacer p;
        const struct uber_limiter l = {100, S, 10};
        pacer_open_algo(&p, algos[a], &l);
        struct rl_clock clock;
        char err[256];
        rl_clock_init(&clock, "virtual", err, sizeof err);
        got[a][0] = pacer_take(&p, &clock, 0);
        for (int i = 1; i < 4; i++)
            got[a][i] = pacer_take(&p, &clock, 2 * S + (uint64_t)i * MS);
        p.algo->destroy(p.state);
    }
    EXPECT(memcmp(got[0], got[1], sizeof got[0]) == 0,
           "slack 10: #90's variant released at %llu, %llu, %llu ns; #119's at %llu, %llu, %llu",
           (unsigned long long)got[0][1], (unsigned long long)got[0][2],
           (unsigned long long)got[0][3], (unsigned long long)got[1][1],
           (unsigned long long)got[1][2], (unsigned long long)got[1][3]);
}

RL_TEST_SUITE(
    "uber_expectations",
    {"pacer_uber: ratelimit_test.go's counts (TestRateLimiter, TestDelayedRateLimiter, "
     "TestPer, TestSlack)",
     test_uber_counts},
    {"pacer_uber: TestInitial's first three Takes", test_uber_initial},
    {"pacer_uber: TestImmediateSlackReapply (#119's fix)", test_uber_immediate_slack_reapply},
    {"pacer_uber: the step's regimes at their boundaries", test_uber_step_boundaries},
    {"pacer_uber_noslack_bug: #90's decision table, WithoutSlack", test_uber_noslack_bug_90},
    {"pacer_uber_noslack_bug: with slack, #119's rule", test_uber_noslack_bug_with_slack});
