/* sb_tso_fence.pml — sb_tso.pml with an mfence after each store: each
 * thread waits for its buffer to drain before its load, so the machine
 * behaves as SC for this litmus and r1 = r2 = 0 is unreachable. */
#define FENCE
#include "sb_tso.pml"
