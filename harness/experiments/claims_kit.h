/* claims_kit.h — what the claims' runners share (claims_sim.c,
 * claims_stress.c, claims_peers.c): writing the figure and the condition,
 * marking a claim unmeasured, the sim and stress runs a claim takes as
 * rows, medians over repeated rows, and the committed conformance results.
 * Internal to harness/experiments/: the catalogue's interface is claims.h. */
#ifndef RL_EXPERIMENTS_CLAIMS_KIT_H
#define RL_EXPERIMENTS_CLAIMS_KIT_H

#include "claims.h"

#include "harness/report/result.h"
#include "harness/report/stats.h"
#include "harness/run/faults.h"
#include "workloads/trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MS  1000000ull
#define SEC 1000000000ull

/* A limit no run reaches: every call takes the admit path (as the threads
 * and memory-order suites do). */
#define NEVER_LIMIT    4000000000ull
#define NEVER_INTERVAL (10 * SEC)

/* ---- text ------------------------------------------------------------------- */

/* Appends formatted text to buf (len bytes), cutting it short if full. */
__attribute__((format(printf, 3, 4))) void rl_claim_add(char *buf, size_t len, const char *fmt,
                                                        ...);

#define FIGURE(o, ...)    rl_claim_add((o)->figure, sizeof(o)->figure, __VA_ARGS__)
#define CONDITION(o, ...) rl_claim_add((o)->condition, sizeof(o)->condition, __VA_ARGS__)

/* Sets the verdict and appends the condition it holds under: the two
 * lines that close most runners. */
__attribute__((format(printf, 3, 4))) void
rl_claim_verdict(struct rl_claim_outcome *o, enum rl_claim_verdict verdict, const char *fmt, ...);

/* Marks the claim unmeasured: a run could not be made. */
__attribute__((format(printf, 2, 3))) void rl_claim_failed(struct rl_claim_outcome *o,
                                                           const char *fmt, ...);

unsigned rl_claim_cpus(void);
const char *rl_claim_machine(void); /* "x86-64", "aarch64", "x86" or "this CPU" */
double rl_claim_per_limit(uint64_t value, uint64_t limit); /* value / limit; NAN for 0 */
const char *rl_claim_root(const struct rl_claim_env *env); /* env->root, or "." */

/* ---- sim ---------------------------------------------------------------------- */

/* A workload as the CLI's options give it: zero fields keep the defaults
 * that scale with L and I (generators.h). */
struct rl_claim_sim {
    const char *workload;
    uint64_t limit, interval_ns, burst;
    uint32_t slots;
    uint64_t duration_ns;
    double rate;
    uint32_t keys;
    uint64_t size;            /* boundary */
    uint64_t on_ns, off_ns;   /* onoff */
    uint64_t at_ns, spike_ns; /* flash */
    double factor;            /* flash */
};

/* The spec's trace, as `ratelab trace` makes it. */
int rl_claim_sim_trace(const struct rl_claim_sim *s, struct rl_trace *trace, char *err, size_t len);

/* Runs each of the count algorithms named in names on the spec's trace in
 * virtual time, one row each. -1 (the claim marked failed) on any error. */
int rl_claim_sim_rows(const char *const *names, size_t count, const struct rl_claim_sim *s,
                      const char *remote, struct rl_result *rows, struct rl_claim_outcome *o);
int rl_claim_sim_row(const char *name, const struct rl_claim_sim *s, const char *remote,
                     struct rl_result *row, struct rl_claim_outcome *o);

/* False admits plus false rejects against the exact sliding log. */
uint64_t rl_claim_wrong(const struct rl_result *r);

/* ---- stress ------------------------------------------------------------------- */

/* One stress run of the named algorithm, recorded or not. */
int rl_claim_stress_row(const char *name, const struct rl_config *cfg, unsigned threads,
                        uint64_t duration_ns, bool record, struct rl_result *row,
                        struct rl_claim_outcome *o);

#define RL_CLAIM_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* A stress plan as a claim gives it: the named algorithms × threads ×
 * reps, each run duration_ns, recorded or not, on cfg. */
struct rl_claim_stress {
    const char *const *names;
    size_t count; /* at most 16 */
    const uint64_t *threads;
    size_t thread_count;
    unsigned reps;
    uint64_t duration_ns;
    bool record;
    struct rl_config cfg;
    /* the cluster claims: a private cluster of this shape (cfg.remote is
     * then set to it) and faults, as in struct rl_stress_plan */
    struct rl_redis_cluster *cluster;
    unsigned cluster_primaries, cluster_replicas;
    const struct rl_faults *faults;
};

/* Runs the plan, repetitions interleaved (stress_plan.h). Returns the rows
 * filled (*rows, to free), or 0 with the claim marked failed. */
size_t rl_claim_stress_plan(const struct rl_claim_stress *s, struct rl_result **rows,
                            struct rl_claim_outcome *o);

/* The median of field() over the unrecorded (or, with recorded, the
 * recorded) rows of the named algorithm at threads; NAN if none. */
double rl_claim_median(const struct rl_result *rows, size_t count, const char *name,
                       unsigned threads, bool recorded, double (*field)(const struct rl_result *r));

/* The median, min and max of field() over the same rows as rl_claim_median. */
struct rl_spread rl_claim_spread(const struct rl_result *rows, size_t count, const char *name,
                                 unsigned threads, bool recorded,
                                 double (*field)(const struct rl_result *r));

/* How two timings compare: their min–max intervals overlap (within noise:
 * the runs show no difference), or one lies wholly below the other. */
enum rl_claim_order { RL_CLAIM_WITHIN_NOISE, RL_CLAIM_A_BELOW, RL_CLAIM_B_BELOW };

/* Compares a and b by their min–max over repetitions. Intervals that
 * overlap, or either timing missing, are within noise: a claim comparing
 * timings then must not say holds or fails. In that case it sets the verdict
 * to depends, with a condition that opens "within noise:" and gives both
 * intervals and the run counts (format: "%.1f" values followed by unit);
 * otherwise it changes nothing. */
enum rl_claim_order rl_claim_compare(struct rl_claim_outcome *o, const char *name_a,
                                     struct rl_spread a, const char *name_b, struct rl_spread b,
                                     const char *unit);

/* Fields for rl_claim_median. */
double rl_claim_ns_per_op(const struct rl_result *r);
double rl_claim_decisions_per_s(const struct rl_result *r);
double rl_claim_ratio_to_noop(const struct rl_result *r);
double rl_claim_reject_share(const struct rl_result *r);

/* The first row of the named algorithm at threads, recorded or not; NULL
 * if none. */
const struct rl_result *rl_claim_find_row(const struct rl_result *rows, size_t count,
                                          const char *name, unsigned threads, bool recorded);

/* ---- the conformance results ---------------------------------------------------- */

/* One row of results/conformance.csv (tests/conformance/README.md). */
struct rl_claim_conformance {
    uint64_t traces, skipped, attempts, identical, rounding, stale, semantic;
    long long stale_extra;
    char git_rev[48], date[40], path[512];
};

/* The row of results/conformance.csv (under env's root) for peer and
 * algo. -1 with the reason in err when the file or the row is not there,
 * or the file is not CSV. */
int rl_claim_conformance_row(const struct rl_claim_env *env, const char *peer, const char *algo,
                             struct rl_claim_conformance *c, char *err, size_t err_len);

#endif
