/* shaping_workloads.c — workloads that expose what a shaper does with its
 * slack, its warm-up and cancellations (docs/design.md, Modes):
 *
 *   idle_burst  cycles of one opening attempt, off_ns of silence, then
 *               burst_size attempts 1 µs apart (a caller's loop; less when
 *               they would not fit in on_ns), the cycle off_ns + on_ns long
 *               (on: time for the burst to drain). The clock moves between
 *               a burst's attempts: uber-go #119's bug needs that (its fix's
 *               test sleeps 1 ns between Takes). A pacer with
 *               slack s releases at most s + 1 of a burst at once (uber-go
 *               #119 is the bug where it released all); a bucket B.
 *               With cancel_share F > 0, a share F of each burst's second
 *               half (drawn from the seed's own stream) is cancelled at its
 *               arrival, as x/time/rate's caller does with Reserve then
 *               CancelAt(now) when the delay is more than it accepts: a
 *               shaper whose B is at most half the burst holds them waiting
 *               then, so there is something to cancel.
 *   warm_poll   uniform polling at rate_per_s, each attempt with max wait 0
 *               (tryAcquire(), answered now): Guava #3552's case, a
 *               SmoothWarmingUp limiter at 10/s polled every 120 ms, whose
 *               warm-up never ends when polled below the rate.
 */
#include "shaping_workloads.h"

#include "rng.h"

#include <stdlib.h>

/* The seed's stream for the cancellations: after generators.c's three. */
enum { STREAM_CANCELS = 3 };

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t cycle_ns(const struct rl_workload_params *p)
{
    return add_sat(p->off_ns, p->on_ns);
}

long double rl_idle_burst_count(const struct rl_workload_params *p)
{
    uint64_t period = cycle_ns(p);
    long double cycles = (long double)(p->duration_ns / period);
    long double count = cycles * (1.0L + (long double)p->burst_size);
    uint64_t rest = p->duration_ns % period;
    if (rest > 0)
        count += 1.0L + (rest > p->off_ns ? (long double)p->burst_size : 0.0L);
    return count;
}

/* The gap between a burst's attempts: 1 µs (a caller's loop), less when
 * the burst would not fit in on_ns. */
static uint64_t burst_gap_ns(const struct rl_workload_params *p)
{
    uint64_t gap = 1000;
    return p->burst_size > p->on_ns / gap ? p->on_ns / (p->burst_size + 1) : gap;
}

int rl_gen_idle_burst(const struct rl_workload_params *p, int (*emit)(void *ctx, uint64_t t_ns),
                      void *ctx)
{
    uint64_t period = cycle_ns(p), gap = burst_gap_ns(p);
    for (uint64_t start = 0; start < p->duration_ns;) {
        if (emit(ctx, start) != 0)
            return -1;
        uint64_t burst_at = add_sat(start, p->off_ns);
        for (uint64_t j = 0; j < p->burst_size && burst_at + j * gap < p->duration_ns; j++)
            if (emit(ctx, burst_at + j * gap) != 0)
                return -1;
        if (period >= p->duration_ns - start)
            return 0;
        start += period;
    }
    return 0;
}

int rl_shaping_columns(const struct rl_workload_params *p, bool warm_poll, bool idle_burst,
                       struct rl_trace *out)
{
    bool cancels = idle_burst && p->cancel_share > 0;
    if (!warm_poll && !cancels)
        return 0;
    size_t len = out->len ? out->len : 1;
    out->max_wait_ns = malloc(len * sizeof *out->max_wait_ns);
    if (out->max_wait_ns == NULL)
        return -1;
    for (size_t i = 0; i < out->len; i++)
        out->max_wait_ns[i] = warm_poll ? 0 : RL_TRACE_WAIT_DEFAULT;
    if (!cancels)
        return 0;
    out->cancel_ns = malloc(len * sizeof *out->cancel_ns);
    if (out->cancel_ns == NULL)
        return -1;
    struct rl_rng rng;
    rl_rng_seed(&rng, p->seed, STREAM_CANCELS);
    /* openers lie on the cycle's grid (k·period), a burst off_ns (> 0, < period) after */
    uint64_t period = cycle_ns(p), j = 0;
    for (size_t i = 0; i < out->len; i++) {
        out->cancel_ns[i] = RL_TRACE_NO_CANCEL;
        if (out->attempts[i].t_ns % period == 0) {
            j = 0; /* the opener */
            continue;
        }
        bool second_half = 2 * j++ >= p->burst_size;
        if (rl_rng_uniform(&rng) < p->cancel_share && second_half)
            out->cancel_ns[i] = out->attempts[i].t_ns;
    }
    return 0;
}
