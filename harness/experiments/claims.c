/* claims.c — the catalogue's driver (claims.h): names a verdict, finds a
 * claim by its id and runs one, timed, answering n/a for a claim that needs
 * a Redis server when there is none. The claims themselves are data
 * (claims_data.c); their runners are claims_sim.c, claims_stress.c and
 * claims_peers.c, on the helpers of claims_kit.c.
 *
 * Figures name their units; a timing figure is one run's, and the claims
 * that rest on timing are marked not deterministic. */
#include "claims.h"
#include "claims_kit.h"

#include "harness/sys/interrupt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const char *rl_claim_verdict_name(enum rl_claim_verdict verdict)
{
    switch (verdict) {
    case RL_CLAIM_HOLDS:
        return "holds";
    case RL_CLAIM_FAILS:
        return "fails";
    case RL_CLAIM_DEPENDS:
        return "depends";
    case RL_CLAIM_NA:
        return "n/a";
    }
    return "n/a";
}

const struct rl_claim *rl_claim_find(const char *id)
{
    for (const struct rl_claim *c = rl_claims; c->id; c++)
        if (strcmp(c->id, id) == 0)
            return c;
    return NULL;
}

void rl_claim_run(const struct rl_claim *claim, const struct rl_claim_env *env,
                  struct rl_claim_outcome *out)
{
    static const struct rl_claim_env none = {0};
    memset(out, 0, sizeof *out);
    out->verdict = RL_CLAIM_NA;
    if (env == NULL)
        env = &none;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (rl_interrupted) {
        rl_claim_failed(out, "interrupted");
    } else if (claim->needs_redis && env->remote == NULL) {
        snprintf(out->condition, sizeof out->condition,
                 "needs a Redis server: no redis-server was found (make deps installs it; or "
                 "give --redis ADDR)");
    } else {
        claim->run(env, out);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    out->seconds =
        (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
}
