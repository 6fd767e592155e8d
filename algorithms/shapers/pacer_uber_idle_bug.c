/* pacer_uber_idle_bug.c — pacer_uber as it was before v0.3.1: after an idle
 * gap the slack is re-applied on every Take, so the pacer stops limiting
 * (uber-go/ratelimit #119; the same failure reported as #106 and, with
 * WithSlack(2), as #122). Kept to reproduce the bug, as fw_atomic_naive
 * keeps the C++ article's.
 *
 * Promise: bucket, as pacer_uber claims it, and broken (as fw_atomic_naive
 * keeps the window it breaks): once a gap longer than slack·I/L has passed,
 * each Take that comes later than the one before is released at once.
 *
 * State: pacer_uber's word (pacer_uber.h).
 *
 * Decision: pacer_uber.h's rule with the pre-fix condition: the slack is
 * re-applied when now is more than maxSlack past the next issue (v0.3.1
 * added per to that distance). The new word now − maxSlack is exactly
 * maxSlack behind, so any later Take finds it more than maxSlack behind
 * again.
 *
 * Memory orders: seq_cst, as pacer_uber.
 *
 * Races accepted: the bug is not a race; one thread shows it.
 *
 * Sources: uber-go/ratelimit #119 and PR #120 ("Fix immediate slack
 * re-apply issue"), #106, #122 (docs/references.md).
 */
#include "pacer_uber.h"

#include <stdlib.h>

static enum rl_decision pacer_uber_idle_bug_shape(void *state, struct rl_clock *clock, uint64_t key,
                                                  uint64_t n, uint64_t max_wait_ns,
                                                  struct rl_reservation *reservation)
{
    (void)key;
    (void)max_wait_ns; /* RL_BLOCKING */
    return pacer_uber_take(state, clock, n, false, PACER_UBER_IDLE_BUG, reservation);
}

static enum rl_decision pacer_uber_idle_bug_acquire(void *state, struct rl_clock *clock,
                                                    uint64_t key, uint64_t n)
{
    (void)key;
    struct rl_reservation reservation;
    return pacer_uber_take(state, clock, n, true, PACER_UBER_IDLE_BUG, &reservation);
}

const struct rl_algo rl_pacer_uber_idle_bug_algo = {
    .name = "pacer_uber_idle_bug",
    .family = "shaper",
    .summary = "pacer_uber before v0.3.1: slack re-applied after idle, stops limiting (#119)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_BLOCKING,
    .orders = "seq_cst",
    .create = pacer_uber_create,
    .destroy = free,
    .acquire = pacer_uber_idle_bug_acquire,
    .bucket_excess = pacer_uber_excess,
    .shape = pacer_uber_idle_bug_shape,
};
