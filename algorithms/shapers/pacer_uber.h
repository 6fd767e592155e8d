/* pacer_uber.h — uber-go/ratelimit's atomic int64 pacer, shared by
 * pacer_uber (the rule as fixed in v0.3.1), pacer_uber_idle_bug (the rule
 * before that fix, uber-go/ratelimit #119) and pacer_uber_noslack_bug (the
 * rule of PR #85 before PR #95, #90). create is in pacer_uber.c.
 *
 * The state is one signed 64-bit word: the time of the next permission
 * issue, in ns on the clock's timeline, 0 before the first Take. With
 * per = ⌊I/L⌋ ns (uber-go divides the period by the rate in whole ns) and
 * maxSlack = slack·per, one Take at `now` moves it to
 *   now             on the first Take, or without slack once now is more
 *                   than per past it (#90's rule has no such case);
 *   now − maxSlack  with slack, once now is more than maxSlack + per past
 *                   it (#119's rule: more than maxSlack past it; #90's: the
 *                   same for any slack, 0 included, so without slack every
 *                   Take later than the word goes at once);
 *   next + per      otherwise;
 * and the caller sleeps until the new value when it lies ahead of now.
 * A cost n is n Takes in a row at the same now, released with the last.
 */
#ifndef RL_PACER_UBER_H
#define RL_PACER_UBER_H

#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pacer_uber_state {
    _Alignas(RL_CACHE_LINE) _Atomic int64_t next; /* the next permission issue; 0: none yet */
    int64_t per_ns;                               /* ⌊I/L⌋ */
    int64_t max_slack_ns;                         /* slack·per */
    uint64_t slack;
};

/* create() for both variants (pacer_uber.c): slack = B − 1, or uber-go's
 * default 10 when --burst is not given; --burst 1 is WithoutSlack. */
void *pacer_uber_create(const struct rl_config *cfg, char *err, size_t err_len);
/* What the pacer releases beyond B + L in a window of I (rl_algo.bucket_excess). */
uint64_t pacer_uber_excess(const struct rl_config *cfg, unsigned threads);

/* Which version of uber-go's rule a variant keeps. */
enum pacer_uber_rule {
    PACER_UBER_FIXED,       /* v0.3.1 */
    PACER_UBER_IDLE_BUG,    /* before PR #120: slack re-applied after idle (#119) */
    PACER_UBER_NOSLACK_BUG, /* PR #85 before PR #95: WithoutSlack never blocks (#90) */
};

/* One Take's new word from the old one at now. */
static inline int64_t pacer_uber_step(const struct pacer_uber_state *s, int64_t next, int64_t now,
                                      enum pacer_uber_rule rule)
{
    if (next == 0)
        return now;
    if (rule == PACER_UBER_NOSLACK_BUG) /* no WithoutSlack case: the slack case takes maxSlack 0 */
        return now - next > s->max_slack_ns ? now - s->max_slack_ns : next + s->per_ns;
    int64_t idle_after =
        rule == PACER_UBER_IDLE_BUG ? s->max_slack_ns : s->max_slack_ns + s->per_ns;
    if (s->max_slack_ns == 0 && now - next > s->per_ns)
        return now;
    if (s->max_slack_ns > 0 && now - next > idle_after)
        return now - s->max_slack_ns;
    return next + s->per_ns;
}

/* n Takes at one clock read, committed by one CAS (seq_cst, as Go's
 * atomics); the release is the last Take's, or now. With try (acquire), a
 * release later than now is a reject and nothing is written. */
__attribute__((always_inline)) static inline enum rl_decision
pacer_uber_take(struct pacer_uber_state *s, struct rl_clock *clock, uint64_t n, bool try,
                enum pacer_uber_rule rule, struct rl_reservation *reservation)
{
    uint64_t read = rl_clock_now(clock);
    if (read > (uint64_t)INT64_MAX / 2 || n > (uint64_t)INT32_MAX)
        return RL_ERROR;
    int64_t now = (int64_t)read;
    int64_t seen = atomic_load_explicit(&s->next, memory_order_seq_cst);
    for (;;) {
        int64_t next = seen;
        for (uint64_t i = 0; i < n; i++)
            next = pacer_uber_step(s, next, now, rule);
        int64_t release = next > now ? next : now;
        if (try && release > now)
            return RL_REJECT;
        if (atomic_compare_exchange_weak_explicit(&s->next, &seen, next, memory_order_seq_cst,
                                                  memory_order_seq_cst)) {
            *reservation = (struct rl_reservation){.release_ns = (uint64_t)release};
            return RL_ADMIT;
        }
    }
}

#endif
