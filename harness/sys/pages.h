/* pages.h — fresh zeroed memory for arrays looked up at random (the keyed
 * container's tables, the perf suite's bare array of the same keys), on
 * huge pages where the kernel allows. */
#ifndef RL_PAGES_H
#define RL_PAGES_H

#include <stddef.h>

#define RL_HUGE_PAGE_BYTES (2u * 1024 * 1024)

/* *bytes of fresh zeroed pages, or NULL when the mapping fails; munmap
 * them with the *bytes it leaves. From RL_HUGE_PAGE_BYTES up the mapping is
 * placed and sized on whole huge pages and asked for them
 * (MADV_HUGEPAGE), and *bytes rounded up to a whole number of them: a
 * lookup lands anywhere, and with 4 KiB pages an array of megabytes misses
 * the TLB on nearly every access. Placed where mmap likes, a 6.5 MiB keyed
 * table had 2 or 4 MiB of huge pages out of a possible 6 (AnonHugePages in
 * /proc/PID/smaps, a 10^6-key stress run), since only the aligned 2 MiB
 * stretches inside a mapping can be huge. The hint's failure (or THP off)
 * is harmless. */
void *rl_pages_map(size_t *bytes);

#endif
