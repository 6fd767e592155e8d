/* prefetch.h — asking for a cache line before it is written, for code that
 * knows its next addresses ahead (the keyed container's look-ahead, the
 * perf suite's floor run the same way). */
#ifndef RL_PREFETCH_H
#define RL_PREFETCH_H

/* Asks for the line holding p in a state it can be written in. GCC turns
 * __builtin_prefetch(p, 1) into PREFETCHW only when -march allows it; with
 * the default x86-64 target it emits PREFETCHT0, which brings the line
 * shared, so a later CAS pays a second trip for ownership (perf annotate
 * put most of the keyed decision's time on that CAS). PREFETCHW is in
 * every x86-64 CPU that reports 3dnowprefetch (AMD since K8, Intel since
 * Broadwell) and a no-op on older Intel ones. A prefetch never faults,
 * whatever the address (Intel SDM and AMD APM, PREFETCHh/PREFETCHW; GCC's
 * manual for __builtin_prefetch): a stale address costs a useless line,
 * nothing else. */
static inline void rl_prefetch_for_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1);
#endif
}

#endif
