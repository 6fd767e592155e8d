/* allocator.h — which malloc this process runs on, found at run time, and
 * how to hand its free memory back to the system before measuring RSS.
 *
 * Found at run time rather than taken from the build, so that a malloc put
 * in with LD_PRELOAD is reported as correctly as one linked with
 * `MALLOC=jemalloc make`. */
#ifndef RL_ALLOCATOR_H
#define RL_ALLOCATOR_H

/* The malloc that this process's malloc() calls reach: "glibc",
 * "jemalloc <version>" (from mallctl("version")), or for any other the file
 * name of the library that defines malloc ("libtcmalloc_minimal.so.4",
 * "libasan.so.8" under AddressSanitizer); "unknown" when it cannot be told.
 * Never NULL, never empty; computed once, safe from any thread. */
const char *rl_allocator_name(void);

/* Returns the allocator's free memory to the system, so that an RSS reading
 * taken next counts what is live: malloc_trim(0) under glibc; under jemalloc,
 * this thread's cache flushed and every arena's unused pages purged. Does
 * nothing under any other malloc. Never fails. */
void rl_allocator_release(void);

#endif
