/* pacer_uber.h — uber-go/ratelimit's atomic int64 pacer, shared by
 * pacer_uber (the rule as fixed in v0.3.1) and pacer_uber_idle_bug (the
 * rule before the fix, uber-go/ratelimit #119). create is in pacer_uber.c.
 *
 * The state is one signed 64-bit word: the time of the next permission
 * issue, in ns on the clock's timeline, 0 before the first Take. With
 * per = ⌊I/L⌋ ns (uber-go divides the period by the rate in whole ns) and
 * maxSlack = slack·per, one Take at `now` moves it to
 *   now             on the first Take, or without slack once now is more
 *                   than per past it;
 *   now − maxSlack  with slack, once now is more than maxSlack + per past
 *                   it (the bug: more than maxSlack past it);
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

/* One Take's new word from the old one at now. */
static inline int64_t pacer_uber_step(const struct pacer_uber_state *s, int64_t next, int64_t now,
                                      bool idle_bug)
{
    int64_t idle_after = idle_bug ? s->max_slack_ns : s->max_slack_ns + s->per_ns;
    if (next == 0 || (s->max_slack_ns == 0 && now - next > s->per_ns))
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
                bool idle_bug, struct rl_reservation *reservation)
{
    uint64_t read = rl_clock_now(clock);
    if (read > (uint64_t)INT64_MAX / 2 || n > (uint64_t)INT32_MAX)
        return RL_ERROR;
    int64_t now = (int64_t)read;
    int64_t seen = atomic_load_explicit(&s->next, memory_order_seq_cst);
    for (;;) {
        int64_t next = seen;
        for (uint64_t i = 0; i < n; i++)
            next = pacer_uber_step(s, next, now, idle_bug);
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
