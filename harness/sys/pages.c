/* pages.c — fresh zeroed memory mapped on whole, aligned huge pages (see
 * pages.h). */
#include "pages.h"

#include <stdint.h>
#include <sys/mman.h>

void *rl_pages_map(size_t *bytes)
{
    if (*bytes < RL_HUGE_PAGE_BYTES) {
        void *p = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    size_t want = (*bytes + RL_HUGE_PAGE_BYTES - 1) / RL_HUGE_PAGE_BYTES * RL_HUGE_PAGE_BYTES;
    size_t over = want + RL_HUGE_PAGE_BYTES; /* room to slide to a huge-page boundary */
    char *p = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t start =
        ((uintptr_t)p + RL_HUGE_PAGE_BYTES - 1) / RL_HUGE_PAGE_BYTES * RL_HUGE_PAGE_BYTES;
    size_t head = start - (uintptr_t)p, tail = over - head - want;
    if (head)
        munmap(p, head);
    if (tail)
        munmap((char *)start + want, tail);
    madvise((void *)start, want, MADV_HUGEPAGE);
    *bytes = want;
    return (void *)start;
}
