/* rss.c — resident set size from /proc/self/statm. */
#include "rss.h"

#include <stdio.h>
#include <unistd.h>

uint64_t rl_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, resident = 0;
    if (f == NULL)
        return 0;
    int got = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    return got == 2 ? resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}
