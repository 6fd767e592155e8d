/* cpus.h — how many CPUs this process can run on: the one place ratelab
 * asks, for run headers, thread defaults, oversubscription notes and the
 * build facts a result row records. */
#ifndef RL_CPUS_H
#define RL_CPUS_H

/* The CPUs online, at least 1 (sysconf's answer when it has one). */
long rl_cpu_count(void);

#endif
