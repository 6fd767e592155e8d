/* cpus.c — the CPU count (cpus.h). */
#include "cpus.h"

#include <unistd.h>

long rl_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}
