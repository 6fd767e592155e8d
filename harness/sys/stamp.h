/* stamp.h — the recorder's clock: the run's own clock source, without a
 * client's skew, read in program order (docs/design.md, Recorder and checker).
 *
 * What the recorder needs of a stamp read r taken on a thread: every clock
 * read that thread's limiter call made before r (in program order) returned
 * at most r, and every read it makes after r returns at least r. Stamps are
 * then bounds on the times the limiter decided on, in the limiter's own
 * timebase: no conversion, so no conversion error.
 *
 * monotonic and coarse have that property by themselves: the kernel keeps
 * CLOCK_MONOTONIC(_COARSE) non-decreasing across reads on a thread and
 * across CPUs (its vDSO orders the TSC read it scales after every earlier
 * instruction: rdtsc_ordered, lfence or rdtscp). ratelab's tsc clock reads a
 * bare rdtsc, which the CPU may execute out of program order, so a stamp on
 * it is fenced on both sides (x86 LFENCE: no later instruction starts before
 * it, and it starts only when every earlier one has completed). Any other
 * source is fenced too, being unknown. The fences are paid by stamp reads
 * only, never by the limiter's own reads.
 */
#ifndef RL_STAMP_H
#define RL_STAMP_H

#include "algorithms/rl.h"

#include <stdbool.h>
#include <stdint.h>

struct rl_stamp_clock {
    struct rl_clock clock; /* a copy of the run's clock, skew 0, reads not counted */
    bool fenced;           /* its reads are not ordered by the source itself */
};

/* Sets up stamps on the source of run_clock (any skew it has is dropped:
 * stamps are the run's true time, which a skewed client's reads are off). */
void rl_stamp_clock_init(struct rl_stamp_clock *stamp, const struct rl_clock *run_clock);

static inline uint64_t rl_stamp_now(struct rl_stamp_clock *stamp)
{
#if defined(__x86_64__)
    if (stamp->fenced) {
        __builtin_ia32_lfence();
        uint64_t now = stamp->clock.read(&stamp->clock);
        __builtin_ia32_lfence();
        return now;
    }
#endif
    return stamp->clock.read(&stamp->clock);
}

#endif
