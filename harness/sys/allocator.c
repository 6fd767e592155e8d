/* allocator.c — the malloc in use, told from where the dynamic linker bound
 * malloc, and its free memory handed back on request. */
#include "allocator.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* jemalloc's control interface (jemalloc.h); only called through the
 * pointer found at run time, so no build needs jemalloc's headers. */
typedef int (*mallctl_fn)(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

/* jemalloc.h's MALLCTL_ARENAS_ALL: "arena.<i>.purge" with this i purges
 * every arena (jemalloc 5). */
#define JEMALLOC_ARENAS_ALL 4096

enum allocator_kind { ALLOCATOR_UNKNOWN, ALLOCATOR_GLIBC, ALLOCATOR_JEMALLOC, ALLOCATOR_OTHER };

static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static enum allocator_kind kind;
static mallctl_fn mallctl;
static char name[128];

/* The loaded object that defines the code at `symbol`; false when there is
 * no such symbol or the linker cannot say. */
static bool object_of(void *symbol, Dl_info *info)
{
    return symbol != NULL && dladdr(symbol, info) != 0 && info->dli_fname != NULL;
}

static void detect(void)
{
    snprintf(name, sizeof name, "unknown");
    /* RTLD_DEFAULT searches the global scope in the order the program's own
     * calls were bound: the executable, LD_PRELOAD libraries, then the
     * libraries it was linked with, glibc last. So this is the malloc that
     * every malloc() call in the process reaches. */
    Dl_info malloc_obj, mallctl_obj;
    if (!object_of(dlsym(RTLD_DEFAULT, "malloc"), &malloc_obj))
        return;
    /* jemalloc only when the object defining mallctl also defines that
     * malloc: a library may carry a jemalloc that is not the process's. */
    void *ctl = dlsym(RTLD_DEFAULT, "mallctl");
    if (object_of(ctl, &mallctl_obj) && mallctl_obj.dli_fbase == malloc_obj.dli_fbase) {
        kind = ALLOCATOR_JEMALLOC;
        mallctl = (mallctl_fn)ctl;
        const char *version = NULL;
        size_t len = sizeof version;
        if (mallctl("version", &version, &len, NULL, 0) == 0 && version != NULL)
            snprintf(name, sizeof name, "jemalloc %s", version);
        else
            snprintf(name, sizeof name, "jemalloc");
        return;
    }
    const char *file = strrchr(malloc_obj.dli_fname, '/');
    file = file ? file + 1 : malloc_obj.dli_fname;
    if (strncmp(file, "libc.so", 7) == 0) {
        kind = ALLOCATOR_GLIBC;
        snprintf(name, sizeof name, "glibc");
    } else if (file[0] != '\0') {
        kind = ALLOCATOR_OTHER;
        snprintf(name, sizeof name, "%s", file);
    }
}

const char *rl_allocator_name(void)
{
    pthread_once(&detect_once, detect);
    return name;
}

void rl_allocator_release(void)
{
    pthread_once(&detect_once, detect);
    if (kind == ALLOCATOR_GLIBC) {
        malloc_trim(0);
    } else if (kind == ALLOCATOR_JEMALLOC) {
        /* Freed blocks in this thread's cache are not yet free to the
         * arenas; both calls fail harmlessly (tcache off, no arenas). */
        char purge[32];
        snprintf(purge, sizeof purge, "arena.%d.purge", JEMALLOC_ARENAS_ALL);
        mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
        mallctl(purge, NULL, NULL, NULL, 0);
    }
}
