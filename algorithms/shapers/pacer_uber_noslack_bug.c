/* pacer_uber_noslack_bug.c — pacer_uber as first squeezed into one int64
 * (uber-go/ratelimit PR #85), before PR #95: WithoutSlack does not block
 * (uber-go/ratelimit #90). Kept to reproduce the bug, as
 * pacer_uber_idle_bug keeps #119's.
 *
 * Promise: bucket, as pacer_uber claims it, and broken (as
 * pacer_uber_idle_bug keeps its own): with --burst 1 (WithoutSlack) every
 * Take that comes after the word is released at once, whatever the rate.
 *
 * State: pacer_uber's word (pacer_uber.h).
 *
 * Decision: pacer_uber.h's rule as PR #85 had it: the first Take goes at
 * now; a Take more than maxSlack past the next issue moves it to
 * now − maxSlack, for any slack; otherwise next + per. With maxSlack 0 the
 * slack case swallows every Take later than the word (it becomes now, the
 * Take goes at once), and only Takes at or before it are paced. PR #95
 * added the WithoutSlack case (more than per past it: now). With slack the
 * rule is #119's (pacer_uber_idle_bug).
 *
 * Memory orders: seq_cst, as pacer_uber.
 *
 * Races accepted: the bug is not a race; one thread shows it.
 *
 * Sources: uber-go/ratelimit #90, "atomicInt64Limiter WithoutSlack doesn't
 * block" (https://github.com/uber-go/ratelimit/issues/90); PR #85, "New
 * atomic-based implementation squeezed into int64"
 * (https://github.com/uber-go/ratelimit/pull/85), reverted by PR #91 and
 * restored by PR #94; PR #95, "Fix no slack option for int64 based option"
 * (https://github.com/uber-go/ratelimit/pull/95) (docs/references.md).
 */
#include "pacer_uber.h"

#include <stdlib.h>

static enum rl_decision pacer_uber_noslack_bug_shape(void *state, struct rl_clock *clock,
                                                     uint64_t key, uint64_t n, uint64_t max_wait_ns,
                                                     struct rl_reservation *reservation)
{
    (void)key;
    (void)max_wait_ns; /* RL_BLOCKING */
    return pacer_uber_take(state, clock, n, false, PACER_UBER_NOSLACK_BUG, reservation);
}

static enum rl_decision pacer_uber_noslack_bug_acquire(void *state, struct rl_clock *clock,
                                                       uint64_t key, uint64_t n)
{
    (void)key;
    struct rl_reservation reservation;
    return pacer_uber_take(state, clock, n, true, PACER_UBER_NOSLACK_BUG, &reservation);
}

const struct rl_algo rl_pacer_uber_noslack_bug_algo = {
    .name = "pacer_uber_noslack_bug",
    .family = "shaper",
    .summary = "pacer_uber of PR #85: WithoutSlack (--burst 1) does not block (#90)",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE | RL_BLOCKING,
    .orders = "seq_cst",
    .create = pacer_uber_create,
    .destroy = free,
    .acquire = pacer_uber_noslack_bug_acquire,
    .bucket_excess = pacer_uber_excess,
    .shape = pacer_uber_noslack_bug_shape,
};
