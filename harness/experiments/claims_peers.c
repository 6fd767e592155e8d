/* claims_peers.c — the claims checked against the peers themselves: the
 * committed conformance results (results/conformance.csv) and, for
 * golang/go#71360, x/time/rate's own driver run as a child process, each
 * beside ratelab's sim of the same case (claims_data.c names them). */
#include "claims_kit.h"
#include "claims_runners.h"

#include "harness/run/measure.h"
#include "algorithms/rl.h"
#include "harness/check/checker.h"
#include "harness/sys/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- 9. golang/go#71360: a stale timestamp exceeds the rate ------------------- */

/* Long enough for the driver's five decisions on any machine; it only
 * guards against a driver that hangs. */
#define DRIVER_TIMEOUT_MS 60000

/* The case as ratelab's conformance docs give it: L = 1 per 1 s,
 * B = 2, attempts at 0, 1 s, 0, 1 s, 1 s (the third is stale). */
static const uint64_t go_times[] = {0, SEC, 0, SEC, SEC};

/* x/time/rate's admits on the case, through the conformance driver
 * when it is built; -1 when it is not (or fails). */
static int go_driver_admits(const struct rl_claim_env *env, unsigned *admits)
{
    char driver[512], dir[512], path[600], err[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ratelab-claims-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    snprintf(driver, sizeof driver, "%s/build/conformance/go/bin/driver", rl_claim_root(env));
    if (access(driver, X_OK) != 0 || mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    /* written here: the trace writer refuses times that go back */
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    if (f) {
        fputs(RL_TRACE_CSV_HEADER "\n", f);
        for (size_t i = 0; i < sizeof go_times / sizeof go_times[0]; i++)
            fprintf(f, "%llu,k,1\n", (unsigned long long)go_times[i]);
        rc = fclose(f) == 0 ? 0 : -1;
    }
    char out[4096] = "";
    if (rc == 0) {
        char *argv[] = {driver,       "--mode",  "real", "--limit", "1", "--interval-ns",
                        "1000000000", "--burst", "2",    path,      NULL};
        rc = rl_spawn_capture(argv, DRIVER_TIMEOUT_MS, out, sizeof out, NULL, err, sizeof err);
    }
    unlink(path);
    rmdir(dir);
    if (rc != 0)
        return -1;
    *admits = 0;
    for (const char *line = strchr(out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *last = line + 1 + strcspn(line + 1, "\n");
        while (last > line + 1 && last[-1] == '\r')
            last--;
        *admits += last > line + 1 && last[-1] == '1' && last[-2] == ',';
    }
    return 0;
}

/* ratelab's exact bucket (tb_mutex) on the case, as sim --unsorted
 * runs it, into *r. -1 with the claim marked failed. */
static int go_case_sim(struct rl_result *r, struct rl_claim_outcome *o)
{
    char err[512];
    struct rl_trace trace = {0};
    if (rl_trace_name_keys(&trace, 1) != 0) {
        rl_claim_failed(o, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < sizeof go_times / sizeof go_times[0]; i++)
        if (rl_trace_push(&trace, go_times[i], 0, 1) != 0) {
            rl_trace_free(&trace);
            rl_claim_failed(o, "out of memory");
            return -1;
        }
    struct rl_config cfg = {.limit = 1, .interval_ns = SEC, .burst = 2, .virtual_time = true};
    static const struct rl_sim_options independent = {.expiry = RL_EXPIRE_NEVER};
    int rc = rl_measure_sim(rl_registry_find("tb_mutex"), &cfg, &independent, &trace, "go71360", 0,
                            r, NULL, err, sizeof err);
    rl_trace_free(&trace);
    if (rc != 0)
        rl_claim_failed(o, "sim tb_mutex: %s", err);
    return rc != 0 ? -1 : 0;
}

void rl_claim_go_stale(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    char err[512];
    struct rl_result r;
    if (go_case_sim(&r, o) != 0)
        return;
    struct rl_claim_conformance c;
    bool have_csv = rl_claim_conformance_row(env, "go", "tb_mutex", &c, err, sizeof err) == 0;
    unsigned go_admits = 0;
    bool have_driver = go_driver_admits(env, &go_admits) == 0;
    if (have_csv)
        FIGURE(o,
               "%s (git %s, %s): on %llu seeded traces x/time/rate 0.3.0 admitted %lld more than "
               "ratelab's exact buckets where times go back (%llu stale-time mismatches of %llu "
               "decisions, %llu semantic)",
               c.path, c.git_rev, c.date, (unsigned long long)c.traces, c.stale_extra,
               (unsigned long long)c.stale, (unsigned long long)c.attempts,
               (unsigned long long)c.semantic);
    FIGURE(o, "%sthe issue's case (L = 1 per 1 s, B = 2; attempts at 0, 1 s, 0, 1 s, 1 s): ",
           have_csv ? "; " : "");
    if (have_driver)
        FIGURE(o, "x/time/rate admits %u within [0, 1 s], B + L = 3, ", go_admits);
    else
        FIGURE(o, "x/time/rate not run (build/conformance/go/bin/driver not built: make "
                  "conformance), ");
    FIGURE(o, "tb_mutex %llu", (unsigned long long)r.admits);
    if ((have_csv && c.stale_extra > 0) || (have_driver && go_admits > 3)) {
        o->verdict = RL_CLAIM_HOLDS;
    } else if (!have_csv && !have_driver) {
        rl_claim_verdict(
            o, RL_CLAIM_NA,
            "neither results/conformance.csv nor the go driver was found under %s: run "
            "from the repository root after make conformance",
            rl_claim_root(env));
    } else {
        o->verdict = RL_CLAIM_FAILS;
    }
}

/* ---- 10. nginx limit_req: near one request per ms -------------------------------- */

void rl_claim_nginx(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    const struct rl_claim_sim s = {.workload = "uniform", .limit = 10000, .interval_ns = SEC};
    static const char *const names[] = {"leaky_nginx", "sliding_log"};
    struct rl_result r[2];
    if (rl_claim_sim_rows(names, 2, &s, NULL, r, o) != 0)
        return;
    double per_ms = r[0].duration_ns ? (double)r[0].admits / ((double)r[0].duration_ns / 1e6) : 0;
    FIGURE(o,
           "leaky_nginx (burst= left out, so 0), L = 10000 per 1 s, %llu attempts at 40000/s over "
           "2 s: %llu admitted, %.2f a millisecond where L allows 10 (utilization %.3f of the "
           "exact sliding log's %llu)",
           (unsigned long long)r[0].attempts, (unsigned long long)r[0].admits, per_ms,
           rl_check_utilization(&r[0].m, r[0].complete), (unsigned long long)r[1].admits);
    char err[512];
    struct rl_claim_conformance c;
    bool agree = false;
    if (rl_claim_conformance_row(env, "nginx", "leaky_nginx", &c, err, sizeof err) == 0) {
        agree = c.identical == c.attempts && c.semantic == 0;
        FIGURE(o,
               "; nginx 1.22 itself decided as leaky_nginx on %llu of %llu requests of %llu "
               "traces, rates above 1000 r/s among them (%s, git %s)",
               (unsigned long long)c.identical, (unsigned long long)c.attempts,
               (unsigned long long)c.traces, c.path, c.git_rev);
    } else {
        CONDITION(o, "nginx's own decisions not read (%s)", err);
    }
    bool capped = per_ms > 0.9 && per_ms < 1.1;
    o->verdict = capped ? RL_CLAIM_HOLDS : RL_CLAIM_FAILS;
    if (capped && agree)
        CONDITION(o, "nginx counts excess in thousandths of a request on a millisecond clock: "
                     "without burst= a second request in the same millisecond is refused");
}

/* ---- 16. Guava: a burst of up to one second's permits after idling ---------------- */

void rl_claim_guava(const struct rl_claim_env *env, struct rl_claim_outcome *o)
{
    const struct rl_claim_sim s = {.workload = "onoff",
                                   .limit = 10,
                                   .interval_ns = SEC,
                                   .rate = 100,
                                   .on_ns = SEC,
                                   .off_ns = 2 * SEC,
                                   .duration_ns = 9 * SEC};
    struct rl_result r;
    if (rl_claim_sim_row("tb_debt", &s, NULL, &r, o) != 0)
        return;
    FIGURE(o,
           "tb_debt (SmoothBursty's arithmetic), 10 permits a second, bursts of 1 s at 100/s "
           "after 2 s idle: %llu = %.1f x permitsPerSecond admitted within one second",
           (unsigned long long)r.m.max_sliding, rl_claim_per_limit(r.m.max_sliding, 10));
    char err[512];
    struct rl_claim_conformance c;
    if (rl_claim_conformance_row(env, "guava", "tb_debt", &c, err, sizeof err) == 0)
        FIGURE(o,
               "; Guava 31.1 itself decided as tb_debt on %llu of %llu decisions, the rest its "
               "whole-microsecond rounding (%llu) and stale times (%llu), %llu semantic (%s)",
               (unsigned long long)c.identical, (unsigned long long)c.attempts,
               (unsigned long long)c.rounding, (unsigned long long)c.stale,
               (unsigned long long)c.semantic, c.path);
    rl_claim_verdict(
        o, r.m.max_sliding <= 2 * 10 ? RL_CLAIM_DEPENDS : RL_CLAIM_FAILS,
        "on the span: after an idle spell one second holds up to twice permitsPerSecond "
        "(the stored burst and a second's worth at the rate), which the same "
        "documentation allows; only on average over longer spans is it the rate");
}
