/* claims_shaping.c — the claims about limiters that delay (shapers), each
 * measured in virtual time: the shaper driven through its shape call (and
 * cancel), the output judged by the shaping checker (shape_check.h) or
 * counted directly. Deterministic: the same figure on every machine
 * (claims_data.c names them; docs/references.md cites the sources). */
#include "claims_kit.h"
#include "claims_runners.h"

#include "suite_shaping.h"

#include "harness/check/shape_check.h"
#include "harness/run/sim.h"
#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------ */

/* A shaper on a virtual clock, driven call by call. */
struct shaper_run {
    const struct rl_algo *algo;
    void *state;
    struct rl_clock clock;
};

static int shaper_open(struct shaper_run *s, const char *name, uint64_t limit, uint64_t interval_ns,
                       uint64_t burst, struct rl_claim_outcome *o)
{
    char err[256];
    struct rl_config cfg = {.limit = limit,
                            .interval_ns = interval_ns,
                            .burst = burst,
                            .epoch_ns = RL_VIRTUAL_ORIGIN_NS,
                            .virtual_time = true};
    s->algo = rl_registry_find(name);
    if (s->algo == NULL || s->algo->shape == NULL) {
        rl_claim_failed(o, "no shaper %s", name);
        return -1;
    }
    if (rl_clock_init(&s->clock, "virtual", err, sizeof err) != 0 ||
        (s->state = s->algo->create(&cfg, err, sizeof err)) == NULL) {
        rl_claim_failed(o, "%s: %s", name, err);
        return -1;
    }
    return 0;
}

/* One shape call at trace time t (ns after the origin); the release as
 * trace time, or UINT64_MAX for a reject. */
static uint64_t shaper_take(struct shaper_run *s, uint64_t t, uint64_t n, uint64_t max_wait_ns,
                            struct rl_reservation *r)
{
    rl_clock_set_virtual(&s->clock, RL_VIRTUAL_ORIGIN_NS + t);
    if (s->algo->shape(s->state, &s->clock, 0, n, max_wait_ns, r) != RL_ADMIT)
        return UINT64_MAX;
    return r->release_ns - RL_VIRTUAL_ORIGIN_NS;
}

/* uber-go/ratelimit #122's test, generalized: New(L per I, WithSlack(slack)),
 * one Take, an idle gap of idle_ns, then `takes` Takes 1 ms apart. How many
 * of them are released within the first I after the gap. */
static int uber_after_idle(const char *name, uint64_t limit, uint64_t interval_ns, uint64_t slack,
                           uint64_t idle_ns, unsigned takes, struct rl_claim_outcome *o)
{
    struct shaper_run s;
    if (shaper_open(&s, name, limit, interval_ns, slack + 1, o) != 0)
        return -1;
    struct rl_reservation r;
    uint64_t start = 100 * SEC, after = start + idle_ns;
    shaper_take(&s, start, 1, UINT64_MAX, &r);
    int at_once = 0;
    for (unsigned i = 0; i < takes; i++)
        at_once += shaper_take(&s, after + i * MS, 1, UINT64_MAX, &r) < after + interval_ns;
    s.algo->destroy(s.state);
    return at_once;
}

/* A sim run of a shaper on trace, judged by the shaping checker at (L, I,
 * B): suite_shaping.h's, the claim marked failed on an error. */
static int shaped_judge(const char *name, const struct rl_config *cfg, const struct rl_trace *trace,
                        uint64_t judge_burst, struct rl_shape_result *res,
                        struct rl_claim_outcome *o)
{
    char err[512];
    const struct rl_algo *algo = rl_registry_find(name);
    if (algo == NULL) {
        rl_claim_failed(o, "no algorithm %s", name);
        return -1;
    }
    if (rl_shaping_judge_sim(algo, cfg, trace, judge_burst, res, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s: %s", name, err);
        return -1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The most cost released in any window [t, t + I) (one key): the strong
 * statement applied to release times. */
static uint64_t max_released_in_window(const uint64_t *release, const uint32_t *cost, size_t len,
                                       uint64_t interval_ns)
{
    uint64_t(*pairs)[2] = calloc(len ? len : 1, sizeof *pairs);
    if (pairs == NULL)
        return 0;
    for (size_t i = 0; i < len; i++) {
        pairs[i][0] = release[i];
        pairs[i][1] = cost[i];
    }
    qsort(pairs, len, sizeof *pairs, cmp_u64);
    uint64_t best = 0, sum = 0;
    for (size_t i = 0, j = 0; i < len; i++) {
        sum += pairs[i][1];
        while (pairs[j][0] + interval_ns <= pairs[i][0])
            sum -= pairs[j++][1];
        if (sum > best)
            best = sum;
    }
    free(pairs);
    return best;
}

/* ---- uber-go/ratelimit #119 (and #106): after an idle gap, no limit ----------- */

void rl_claim_uber_idle(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* #106's shape: New(1) (slack 10), Takes back to back after 30 s idle */
    int fixed = uber_after_idle("pacer_uber", 1, SEC, 10, 30 * SEC, 100, o);
    int bug = uber_after_idle("pacer_uber_idle_bug", 1, SEC, 10, 30 * SEC, 100, o);
    if (fixed < 0 || bug < 0)
        return;
    /* and on a trace: onoff at 2 L for 1 s, 2 s off, judged at B = slack + 1 */
    const struct rl_claim_sim s = {.workload = "onoff",
                                   .limit = 100,
                                   .interval_ns = SEC,
                                   .rate = 200,
                                   .on_ns = SEC,
                                   .off_ns = 2 * SEC,
                                   .duration_ns = 9 * SEC};
    struct rl_trace trace = {0};
    char err[256];
    if (rl_claim_sim_trace(&s, &trace, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s", err);
        return;
    }
    struct rl_config cfg = {.limit = 100, .interval_ns = SEC, .burst = 11, .virtual_time = true};
    struct rl_shape_result rf, rb;
    int rc = shaped_judge("pacer_uber", &cfg, &trace, 11, &rf, o);
    if (rc == 0)
        rc = shaped_judge("pacer_uber_idle_bug", &cfg, &trace, 11, &rb, o);
    rl_trace_free(&trace);
    if (rc != 0)
        return;
    FIGURE(o,
           "New(1) (slack 10), 30 s idle, then 100 Takes 1 ms apart: pacer_uber_idle_bug (the "
           "rule before v0.3.1) releases %d of them within 1 s, pacer_uber (v0.3.1) %d = slack + "
           "1; onoff at 2 L (L = 100 per 1 s, slack 10, 1 s on, 2 s off, 9 s) judged by check "
           "--promise shape at B = 11: the bug variant %llu releases over the curve (worst "
           "excess %.0f), pacer_uber %llu",
           bug, fixed, (unsigned long long)rb.curve_violations, rb.worst_excess,
           (unsigned long long)rf.curve_violations);
    rl_claim_verdict(o,
                     bug == 100 && fixed == 11 && rb.curve_violations > 0 &&
                             rf.curve_violations == 0
                         ? RL_CLAIM_HOLDS
                         : RL_CLAIM_FAILS,
                     "for the atomic int64 limiter before v0.3.1 (ratelab's "
                     "pacer_uber_idle_bug); fixed by PR #120 in v0.3.1 (pacer_uber)");
}

/* ---- uber-go/ratelimit #90: WithoutSlack does not block ------------------------ */

/* #90's Example: New(limit per I, WithoutSlack), one Take, then `takes`
 * Takes in a loop, each work_ns after the previous one returned. Their
 * mean wait in ns (the first Take never waits). */
static int64_t uber_loop_wait(const char *name, uint64_t limit, uint64_t interval_ns,
                              uint64_t work_ns, unsigned takes, struct rl_claim_outcome *o)
{
    struct shaper_run s;
    if (shaper_open(&s, name, limit, interval_ns, 1, o) != 0)
        return -1;
    struct rl_reservation r;
    uint64_t t = shaper_take(&s, 100 * SEC, 1, UINT64_MAX, &r) + work_ns, waited = 0;
    for (unsigned i = 0; i < takes; i++) {
        uint64_t release = shaper_take(&s, t, 1, UINT64_MAX, &r);
        waited += release - t;
        t = release + work_ns;
    }
    s.algo->destroy(s.state);
    return (int64_t)(waited / takes);
}

void rl_claim_uber_noslack(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* the issue's Example: New(100, WithoutSlack), Takes in a loop (2 us of work) */
    int64_t bug = uber_loop_wait("pacer_uber_noslack_bug", 100, SEC, 2000, 10, o);
    int64_t fixed = uber_loop_wait("pacer_uber", 100, SEC, 2000, 10, o);
    if (bug < 0 || fixed < 0)
        return;
    /* and on a trace: uniform at 10 L for 2 s, judged by the checker at B = 1 */
    const struct rl_claim_sim sim = {.workload = "uniform",
                                     .limit = 100,
                                     .interval_ns = SEC,
                                     .rate = 1000,
                                     .duration_ns = 2 * SEC};
    struct rl_trace trace = {0};
    char err[256];
    if (rl_claim_sim_trace(&sim, &trace, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s", err);
        return;
    }
    struct rl_config cfg = {.limit = 100, .interval_ns = SEC, .burst = 1, .virtual_time = true};
    struct rl_shape_result rf, rb;
    int rc = shaped_judge("pacer_uber", &cfg, &trace, 1, &rf, o);
    if (rc == 0)
        rc = shaped_judge("pacer_uber_noslack_bug", &cfg, &trace, 1, &rb, o);
    rl_trace_free(&trace);
    if (rc != 0)
        return;
    FIGURE(o,
           "#90's Example (New(100, WithoutSlack), one Take, then 10 in a loop, 2 us of work "
           "between): "
           "mean wait %lld ns with PR #85's rule (pacer_uber_noslack_bug), %lld ns in v0.3.1 "
           "(pacer_uber); uniform at 10 L (L = 100 per 1 s, 2 s) judged by check --promise "
           "shape at B = 1: the bug variant %llu releases over the curve (worst excess %.0f), "
           "pacer_uber %llu",
           (long long)bug, (long long)fixed, (unsigned long long)rb.curve_violations,
           rb.worst_excess, (unsigned long long)rf.curve_violations);
    rl_claim_verdict(o,
                     bug == 0 && fixed == 10 * (int64_t)MS - 2000 && rb.curve_violations > 0 &&
                             rf.curve_violations == 0
                         ? RL_CLAIM_HOLDS
                         : RL_CLAIM_FAILS,
                     "for the atomic int64 limiter of PR #85 before PR #95 (ratelab's "
                     "pacer_uber_noslack_bug): WithoutSlack, every Take after the word goes at "
                     "once; PR #95 added the no-slack case (pacer_uber)");
}

/* ---- uber-go/ratelimit #122: the slack option has no effect -------------------- */

void rl_claim_uber_slack(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* the issue's own case: New(1, WithSlack(2)), 4 s idle, 20 Takes */
    int issue_bug = uber_after_idle("pacer_uber_idle_bug", 1, SEC, 2, 4 * SEC, 20, o);
    int issue_fixed = uber_after_idle("pacer_uber", 1, SEC, 2, 4 * SEC, 20, o);
    if (issue_bug < 0 || issue_fixed < 0)
        return;
    FIGURE(o,
           "#122's test (New(1, WithSlack(2)), one Take, 4 s idle, then 20 Takes 1 ms apart): "
           "%d released within 1 s of the gap before v0.3.1, %d in v0.3.1; after 30 s idle "
           "(every slack saved in full), with slack",
           issue_bug, issue_fixed);
    /* a sweep with an idle gap long enough to fill any of these slacks */
    static const uint64_t slacks[] = {2, 5, 10};
    bool no_effect = issue_bug == 20, fixed_bounded = issue_fixed == 3;
    for (size_t i = 0; i < 3; i++) {
        int fixed = uber_after_idle("pacer_uber", 1, SEC, slacks[i], 30 * SEC, 20, o);
        int bug = uber_after_idle("pacer_uber_idle_bug", 1, SEC, slacks[i], 30 * SEC, 20, o);
        if (fixed < 0 || bug < 0)
            return;
        FIGURE(o, "%s %llu: %d before, %d in v0.3.1", i ? ";" : "", (unsigned long long)slacks[i],
               bug, fixed);
        no_effect &= bug == 20;
        fixed_bounded &= fixed == (int)slacks[i] + 1;
    }
    rl_claim_verdict(o, no_effect && fixed_bounded ? RL_CLAIM_HOLDS : RL_CLAIM_FAILS,
                     "before v0.3.1 (pacer_uber_idle_bug): whatever the slack, all 20 go at once "
                     "(the bug of #119); v0.3.1 (pacer_uber) releases slack + 1, so slack has "
                     "its effect there");
}

/* ---- uber-go/ratelimit #4: slack's effect cannot be observed ------------------- */

void rl_claim_uber_slack_observable(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* 100 per 1 s: without slack, slack 10 (the default) and slack 20 after 2 s idle */
    int none = uber_after_idle("pacer_uber", 100, SEC, 0, 2 * SEC, 1000, o);
    int ten = uber_after_idle("pacer_uber", 100, SEC, 10, 2 * SEC, 1000, o);
    int twenty = uber_after_idle("pacer_uber", 100, SEC, 20, 2 * SEC, 1000, o);
    struct shaper_run s[2];
    if (none < 0 || ten < 0 || twenty < 0 || shaper_open(&s[0], "pacer_uber", 100, SEC, 1, o) != 0)
        return;
    if (shaper_open(&s[1], "pacer_uber", 100, SEC, 11, o) != 0) {
        s[0].algo->destroy(s[0].state);
        return;
    }
    /* the first releases after a 2 s gap: at once with slack, paced without */
    struct rl_reservation r;
    uint64_t at[2][3];
    for (int k = 0; k < 2; k++) {
        shaper_take(&s[k], 0, 1, UINT64_MAX, &r);
        for (int i = 0; i < 3; i++)
            at[k][i] = shaper_take(&s[k], 2 * SEC, 1, UINT64_MAX, &r) - 2 * SEC;
        s[k].algo->destroy(s[k].state);
    }
    FIGURE(o,
           "pacer_uber at 100 per 1 s, one Take, 2 s idle, then 1000 Takes 1 ms apart: released "
           "within 1 s of the gap %d without slack, %d with slack 10, %d with slack 20 (100 + "
           "slack); three Takes at the gap's end released at +%llu, +%llu, +%llu ms without "
           "slack and +%llu, +%llu, +%llu ms with slack 10",
           none, ten, twenty, (unsigned long long)(at[0][0] / MS),
           (unsigned long long)(at[0][1] / MS), (unsigned long long)(at[0][2] / MS),
           (unsigned long long)(at[1][0] / MS), (unsigned long long)(at[1][1] / MS),
           (unsigned long long)(at[1][2] / MS));
    rl_claim_verdict(o,
                     none == 100 && ten == 110 && twenty == 120 ? RL_CLAIM_FAILS : RL_CLAIM_HOLDS,
                     "the difference is observable once the pacer has been idle longer than "
                     "slack·I/L and then meets a burst: the idle-then-burst case, in virtual "
                     "time");
}

/* ---- golang/go #56924 and #69419: CancelAt restores too few tokens ----------- */

void rl_claim_go_cancelat(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* L = 10 per 1 s, B = 1: three reservations at 0 (released 0, 100,
     * 200 ms), the second and third cancelled at 10 ms in that order, a
     * fourth attempt at 20 ms. Without the two cancelled it would go at
     * 100 ms. */
    struct rl_trace trace = {0};
    static const uint64_t cancel[] = {RL_TRACE_NO_CANCEL, 10 * MS, 10 * MS, RL_TRACE_NO_CANCEL};
    static const uint64_t times[] = {0, 0, 0, 20 * MS};
    int rc = rl_trace_reserve(&trace, 4);
    for (size_t i = 0; i < 4 && rc == 0; i++)
        rc = rl_trace_push(&trace, times[i], 0, 1);
    if (rc == 0)
        rc = rl_trace_name_keys(&trace, 1);
    trace.max_wait_ns = malloc(4 * sizeof *trace.max_wait_ns);
    trace.cancel_ns = malloc(4 * sizeof *trace.cancel_ns);
    if (rc != 0 || trace.max_wait_ns == NULL || trace.cancel_ns == NULL) {
        rl_trace_free(&trace);
        rl_claim_failed(o, "out of memory");
        return;
    }
    for (size_t i = 0; i < 4; i++) {
        trace.max_wait_ns[i] = RL_TRACE_WAIT_DEFAULT;
        trace.cancel_ns[i] = cancel[i];
    }
    struct rl_config cfg = {.limit = 10, .interval_ns = SEC, .burst = 1, .virtual_time = true};
    struct rl_shape_result x, g, rev;
    rc = shaped_judge("xrate_wait", &cfg, &trace, 1, &x, o);
    if (rc == 0)
        rc = shaped_judge("gcra_spacer", &cfg, &trace, 1, &g, o);
    /* the latest first: the third at 10 ms, the second at 11 ms */
    trace.cancel_ns[1] = 11 * MS;
    if (rc == 0)
        rc = shaped_judge("xrate_wait", &cfg, &trace, 1, &rev, o);
    rl_trace_free(&trace);
    if (rc != 0)
        return;
    FIGURE(o,
           "L = 10 per 1 s, B = 1: three reservations at 0, the 2nd and 3rd cancelled at 10 ms "
           "(in that order), one more at 20 ms; against the schedule recomputed without the "
           "cancelled (check --promise shape): xrate_wait (0.3.0's CancelAt) %.0f token(s) lost, "
           "the next release %llu ms late; gcra_spacer's cancel (what no later reservation "
           "took) the same, %.0f lost, %llu ms late; cancelled latest first (the 3rd at 10 ms, the "
           "2nd at 11 ms) xrate_wait loses %.0f, %llu ms late",
           x.cancel_tokens_lost, (unsigned long long)(x.late_max_ns / MS), g.cancel_tokens_lost,
           (unsigned long long)(g.late_max_ns / MS), rev.cancel_tokens_lost,
           (unsigned long long)(rev.late_max_ns / MS));
    rl_claim_verdict(o,
                     x.cancel_tokens_lost >= 1 && rev.cancel_tokens_lost == 0 ? RL_CLAIM_HOLDS
                                                                              : RL_CLAIM_FAILS,
                     "in golang.org/x/time 0.3.0 (Debian's; ratelab's xrate_wait, checked "
                     "against the real package's CancelAt table by conformance go_wait): a "
                     "reservation cancelled while a later one still counted restores nothing, "
                     "and that later one's cancellation does not give it back");
}

/* ---- x/time SetLimitAt and Guava setRate: a rate change mid-run -------------- */

void rl_claim_go_setlimit_pending(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* L = 10 per 1 s, B = 1: three reservations at 0 (released 0, 100,
     * 200 ms), the rate dropped to 1 per 1 s at 50 ms, one more then. The
     * two released after the change were reserved at the old rate. */
    struct rl_trace trace = {0};
    static const uint64_t times[] = {0, 0, 0, 50 * MS};
    int rc = rl_trace_reserve(&trace, 4);
    for (size_t i = 0; i < 4 && rc == 0; i++)
        rc = rl_trace_push(&trace, times[i], 0, 1);
    if (rc == 0)
        rc = rl_trace_name_keys(&trace, 1);
    if (rc != 0) {
        rl_trace_free(&trace);
        rl_claim_failed(o, "out of memory");
        return;
    }
    static const struct rl_rate_change drop[] = {{50 * MS, 1, SEC}};
    struct rl_config cfg = {.limit = 10, .interval_ns = SEC, .burst = 1, .virtual_time = true};
    struct rl_config guava = {.limit = 10, .interval_ns = SEC, .virtual_time = true};
    struct rl_shape_result x, g, gb;
    char err[512];
    const char *failed = NULL;
    if (rl_shaping_judge_sim_rates(rl_registry_find("xrate_wait"), &cfg, &trace, 1, drop, 1, &x,
                                   err, sizeof err) != 0)
        failed = "xrate_wait";
    else if (rl_shaping_judge_sim_rates(rl_registry_find("gcra_spacer"), &cfg, &trace, 1, drop, 1,
                                        &g, err, sizeof err) != 0)
        failed = "gcra_spacer";
    else if (rl_shaping_judge_sim_rates(rl_registry_find("guava_bursty"), &guava, &trace, 10, drop,
                                        1, &gb, err, sizeof err) != 0)
        failed = "guava_bursty";
    rl_trace_free(&trace);
    if (failed) {
        rl_claim_failed(o, "%s: %s", failed, err);
        return;
    }
    FIGURE(o,
           "L = 10 per 1 s, B = 1: three reservations at 0, SetLimitAt(1 per s) at 50 ms, one "
           "more then; judged at each side's rate (check --promise shape --set-rate): "
           "xrate_wait (0.3.0's SetLimitAt) %llu release(s) over the curve, %llu of them "
           "reserved at the old rate and released after the change at its spacing, the next "
           "waiting %llu ms; gcra_spacer (the same rule) %llu over, %llu old-rate; "
           "guava_bursty (setRate, B = L) %llu over, its first request after the change "
           "released at the moment the old rate set (next pays), %llu ms late on the ideal "
           "that knows the change",
           (unsigned long long)x.curve_violations, (unsigned long long)x.old_rate_releases,
           (unsigned long long)(x.delay_max_ns / MS), (unsigned long long)g.curve_violations,
           (unsigned long long)g.old_rate_releases, (unsigned long long)gb.curve_violations,
           (unsigned long long)(gb.late_max_ns / MS));
    rl_claim_verdict(o, x.old_rate_releases > 0 ? RL_CLAIM_HOLDS : RL_CLAIM_FAILS,
                     "as the package documents: a rate change does not move reservations "
                     "already made, so after a drop they go at the old spacing and the new "
                     "limit is exceeded until they have gone");
}

/* ---- golang/go #52584: a failed reservation changed the limiter's state ------- */

void rl_claim_go_failed_reserve(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* L = 10 per 1 s, B = 1: a reservation at 0, one refused at 10 ms
     * (max wait 50 ms, its release would be 100 ms), then one at 20 ms
     * with no max wait: it goes at 100 ms when the refusal wrote nothing. */
    struct shaper_run s;
    if (shaper_open(&s, "xrate_wait", 10, SEC, 1, o) != 0)
        return;
    struct rl_reservation r;
    uint64_t first = shaper_take(&s, 0, 1, UINT64_MAX, &r);
    uint64_t refused = shaper_take(&s, 10 * MS, 1, 50 * MS, &r);
    uint64_t big = shaper_take(&s, 15 * MS, 2, UINT64_MAX, &r); /* n > B: OK() false */
    uint64_t next = shaper_take(&s, 20 * MS, 1, UINT64_MAX, &r);
    s.algo->destroy(s.state);
    FIGURE(o,
           "xrate_wait (x/time 0.3.0), L = 10 per 1 s, B = 1: a reservation at 0 (released at "
           "%llu ms), one at 10 ms with a 50 ms deadline (%s), one of n = 2 > B at 15 ms (%s), "
           "then one at 20 ms released at %llu ms (100 ms when the refusals wrote nothing)",
           (unsigned long long)(first / MS), refused == UINT64_MAX ? "refused" : "admitted",
           big == UINT64_MAX ? "refused" : "admitted", (unsigned long long)(next / MS));
    rl_claim_verdict(o,
                     refused == UINT64_MAX && big == UINT64_MAX && next == 100 * MS
                         ? RL_CLAIM_FAILS
                         : RL_CLAIM_HOLDS,
                     "for the version Debian packages (golang.org/x/time 0.3.0): its reserveN "
                     "writes nothing when a reservation fails, so the bug is fixed there; it "
                     "held for the versions the issue reports");
}

/* ---- Guava #5372: "absolutely no more than N in T" from SmoothBursty ---------- */

void rl_claim_guava_no_more_than(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    /* N = 10 per 1 s: onoff at 2 N, 1 s on, 2 s off (the idle stores N
     * permits, then N more come paced within the same second) */
    const struct rl_claim_sim s = {.workload = "onoff",
                                   .limit = 10,
                                   .interval_ns = SEC,
                                   .rate = 20,
                                   .on_ns = SEC,
                                   .off_ns = 2 * SEC,
                                   .duration_ns = 9 * SEC};
    struct rl_trace trace = {0};
    char err[512];
    if (rl_claim_sim_trace(&s, &trace, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s", err);
        return;
    }
    static const char *const names[] = {"guava_bursty", "gcra_spacer"};
    uint64_t most[2] = {0, 0};
    struct rl_config cfg = {.limit = 10, .interval_ns = SEC, .burst = 10, .virtual_time = true};
    static const struct rl_sim_options options = {.expiry = RL_EXPIRE_NEVER};
    for (int k = 0; k < 2; k++) {
        struct rl_event_log log = {0};
        struct rl_sim_outcome out;
        if (rl_sim_run_keyed(rl_registry_find(names[k]), &cfg, &options, &trace, &log, &out, err,
                             sizeof err) != 0) {
            rl_claim_failed(o, "sim %s: %s", names[k], err);
            rl_trace_free(&trace);
            return;
        }
        uint64_t *rel = calloc(log.len ? log.len : 1, sizeof *rel);
        uint32_t *cost = calloc(log.len ? log.len : 1, sizeof *cost);
        size_t m = 0;
        for (size_t i = 0; rel && cost && i < log.len; i++)
            if (log.events[i].admitted) {
                rel[m] = log.release_ns[i];
                cost[m++] = log.events[i].n;
            }
        most[k] = rel && cost ? max_released_in_window(rel, cost, m, SEC) : 0;
        free(rel);
        free(cost);
        rl_event_log_free(&log);
    }
    rl_trace_free(&trace);
    FIGURE(o,
           "N = 10 per 1 s, onoff at 2 N (1 s on, 2 s off, 9 s), every attempt waiting as "
           "acquire() does: guava_bursty releases up to %llu in one second (its releases as a "
           "log, check --promise strong), gcra_spacer at B = N %llu",
           (unsigned long long)most[0], (unsigned long long)most[1]);
    rl_claim_verdict(o, most[0] > 10 ? RL_CLAIM_FAILS : RL_CLAIM_HOLDS,
                     "as the strong statement (at most N released in any window of T): "
                     "SmoothBursty stores up to one second of permits while idle and spends them "
                     "at once, then paces the rest, so a second after idle holds up to 2 N; no "
                     "bucket with B > 0 can keep it (a sliding log or a pacer with B = 1 does)");
}

/* ---- Guava #3552: SmoothWarmingUp polled below the rate stays cold ------------ */

/* Admits per second over the last 10 s of 30 s of warm_poll (tryAcquire()
 * every 1/rate s) on guava_warmup at L = 10 per 1 s, B = 5 (a 500 ms
 * warm-up). -1 on error. */
static double warm_poll_rate(double rate, struct rl_claim_outcome *o)
{
    const struct rl_claim_sim s = {.workload = "warm_poll",
                                   .limit = 10,
                                   .interval_ns = SEC,
                                   .rate = rate,
                                   .duration_ns = 30 * SEC};
    struct rl_trace trace = {0};
    char err[512];
    if (rl_claim_sim_trace(&s, &trace, err, sizeof err) != 0) {
        rl_claim_failed(o, "%s", err);
        return -1;
    }
    struct rl_config cfg = {.limit = 10, .interval_ns = SEC, .burst = 5, .virtual_time = true};
    static const struct rl_sim_options options = {.expiry = RL_EXPIRE_NEVER};
    struct rl_event_log log = {0};
    struct rl_sim_outcome out;
    int rc = rl_sim_run_keyed(rl_registry_find("guava_warmup"), &cfg, &options, &trace, &log, &out,
                              err, sizeof err);
    rl_trace_free(&trace);
    if (rc != 0) {
        rl_claim_failed(o, "sim guava_warmup: %s", err);
        return -1;
    }
    uint64_t late = 0;
    for (size_t i = 0; i < log.len; i++)
        late += log.events[i].admitted && log.events[i].t_ns >= 20 * SEC;
    rl_event_log_free(&log);
    return (double)late / 10.0;
}

void rl_claim_guava_warmup_cold(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    (void)env;
    double below = warm_poll_rate(1e9 / 120e6, o); /* every 120 ms */
    double above = warm_poll_rate(20, o);          /* every 50 ms */
    if (below < 0 || above < 0)
        return;
    FIGURE(o,
           "guava_warmup (SmoothWarmingUp, coldFactor 3) at 10/s with a 500 ms warm-up, "
           "tryAcquire() polls, admits per second over seconds 20-30: %.1f when polled every "
           "120 ms (8.3 polls/s, below the rate), %.1f when polled every 50 ms (above it)",
           below, above);
    rl_claim_verdict(o, below < 10 * 0.5 && above >= 9.9 ? RL_CLAIM_HOLDS : RL_CLAIM_FAILS,
                     "polled below its rate the limiter stores more permits per gap than an "
                     "admit spends, so it stays cold and admits a third of the polls; polled "
                     "above the rate it warms up to 10/s; Guava 31.1 itself admits the same "
                     "polls (conformance guava_wait, trace t000)");
}
