/* build_info.h — the context every result row carries: where, with what
 * and from which revision it was measured. */
#ifndef RL_BUILD_INFO_H
#define RL_BUILD_INFO_H

struct rl_context {
    char host[64];
    char cpu_model[128];
    unsigned cores; /* online CPUs */
    const char *compiler;
    const char *cflags;
    const char *allocator; /* rl_allocator_name(): "glibc", "jemalloc 5.3.0-…", … */
    const char *git_rev;
    const char *build; /* "teach" for the race-widened teaching build (make teach), else "normal" */
    char date[32];     /* UTC, ISO 8601 */
};

/* Fills every field; never fails (unknown parts read "unknown"). */
void rl_context_init(struct rl_context *ctx);

#endif
