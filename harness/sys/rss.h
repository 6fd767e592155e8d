/* rss.h — the process's resident set size, for memory per key and peak RSS. */
#ifndef RL_RSS_H
#define RL_RSS_H

#include <stdint.h>

/* Resident set size of this process in bytes, from /proc/self/statm; 0 if
 * it cannot be read. */
uint64_t rl_rss_bytes(void);

#endif
