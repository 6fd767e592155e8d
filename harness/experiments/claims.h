/* claims.h — published claims about rate limiters, each turned into a
 * measurement: who said what (a source with its title, author or
 * organisation, year and URL), which ratelab runs test it (sim, stress,
 * replay, the conformance results), the exact command line that repeats
 * them, the figure they give and a verdict. `ratelab claims` runs them and
 * `ratelab bench --suite claims` writes their rows (docs/design.md,
 * Outputs).
 *
 * Verdicts: holds, fails, depends (the condition says on what), and n/a
 * when the claim could not be measured here (no redis-server, no
 * conformance results, or a run failed: the condition or err says which).
 * A claim marked deterministic gives the same figure and verdict on every
 * machine (sim in virtual time, committed files); the others depend on
 * timing, and their figures vary from run to run.
 */
#ifndef RL_CLAIMS_H
#define RL_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

enum rl_claim_verdict { RL_CLAIM_HOLDS, RL_CLAIM_FAILS, RL_CLAIM_DEPENDS, RL_CLAIM_NA };

/* "holds", "fails", "depends", "n/a". */
const char *rl_claim_verdict_name(enum rl_claim_verdict verdict);

/* Where a claim's runs look for what they do not make themselves. */
struct rl_claim_env {
    /* A Redis server ("unix:PATH" or "HOST:PORT") for the claims that need
     * one (needs_redis); NULL: those claims answer n/a. */
    const char *remote;
    /* The repository checkout: results/conformance.csv and
     * build/conformance/go/bin/driver are looked for under it; NULL = ".". */
    const char *root;
};

#define RL_CLAIM_TEXT 1024

/* What one run of a claim found. */
struct rl_claim_outcome {
    enum rl_claim_verdict verdict;
    char figure[RL_CLAIM_TEXT];    /* the measured figure, with units */
    char condition[RL_CLAIM_TEXT]; /* for depends: on what; otherwise the scope, or "" */
    double seconds;                /* how long the claim's runs took (wall clock) */
    bool failed;                   /* a run could not be made: verdict n/a, err says why */
    char err[512];
};

struct rl_claim {
    const char *id; /* snake_case, short, stable: a value in CSV rows */
    /* The source: never invented; what could not be found says so
     * ("URL not found", "not found"). */
    const char *source_title, *source_org, *year, *url;
    const char *claim;      /* one sentence, paraphrased as its author made it */
    const char *experiment; /* the ratelab runs it takes: sim, stress, replay, conformance,
                               cluster (clients of its own on a private Redis Cluster) */
    const char *command;    /* a command line that repeats the runs */
    bool deterministic;     /* same figure and verdict on every machine */
    bool needs_redis;       /* answers n/a without env->remote */
    void (*run)(const struct rl_claim_env *env, struct rl_claim_outcome *out);
};

/* Every claim, in the order `ratelab claims` shows them; ends with an
 * entry whose id is NULL. */
extern const struct rl_claim rl_claims[];

/* The claim named id, or NULL. */
const struct rl_claim *rl_claim_find(const char *id);

/* Runs one claim into *out (zeroed first) and times it. Never fails as a
 * function: a run that could not be made is out->failed with a reason. An
 * interrupt (SIGINT, SIGTERM) stops a stress or replay run early and shows
 * as failed ("interrupted"). */
void rl_claim_run(const struct rl_claim *claim, const struct rl_claim_env *env,
                  struct rl_claim_outcome *out);

#endif
