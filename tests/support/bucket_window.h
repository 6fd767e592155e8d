/* bucket_window.h — the token-bucket bound checked on a decision log:
 * the largest admitted cost of one key in any window of a given length. */
#ifndef RL_TEST_BUCKET_WINDOW_H
#define RL_TEST_BUCKET_WINDOW_H

#include "harness/check/event_log.h"

#include <stdint.h>

/* Largest admitted cost of `key` in any half-open window [s, s + w_ns) of
 * the log, which must be sorted by time (sim logs are; sort a stress log
 * first). O(n): two pointers over the key's admits, the window's right end
 * placed on each admit in turn (a maximal window can always be slid until
 * its last admit sits at its right end). */
uint64_t rl_max_window_cost(const struct rl_event_log *log, uint32_t key, uint64_t w_ns);

#endif
