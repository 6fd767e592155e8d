/* kshim.h — the few kernel definitions lib/ratelimit.c and
 * include/linux/ratelimit{,_types}.h need, for a single-threaded user-space
 * build. Every shim under linux/ includes only this file. Nothing here may
 * change a decision:
 *   - jiffies is a global the driver sets before each call;
 *   - time_after / time_is_before_jiffies are the kernel's (v6.1,
 *     include/linux/jiffies.h) without typecheck(): signed difference of
 *     unsigned longs; build.sh checks the extracted jiffies.h still says so;
 *   - raw_spin_trylock_irqsave is a real (non-atomic) trylock, so it
 *     succeeds whenever the lock is free, i.e. always in one thread, and the
 *     driver checks the lock is released after every call;
 *   - printk_deferred / pr_warn count their calls and print nothing.
 * HZ is the driver's --hz (only DEFAULT_RATELIMIT_INTERVAL uses it). */
#ifndef RL_KSHIM_H
#define RL_KSHIM_H

#include <string.h> /* memset, in ratelimit_state_init */

#define BIT(nr) (1UL << (nr))

extern unsigned int rl_kshim_hz;
#define HZ rl_kshim_hz

extern volatile unsigned long jiffies;
#define time_after(a, b)          ((long)((b) - (a)) < 0)
#define time_before(a, b)         time_after(b, a)
#define time_is_before_jiffies(a) time_after(jiffies, a)

#define READ_ONCE(x)       (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val) (*(volatile __typeof__(x) *)&(x) = (val))

typedef struct {
    int locked;
} raw_spinlock_t;
#define __RAW_SPIN_LOCK_UNLOCKED(lockname)                                                         \
    {                                                                                              \
        0                                                                                          \
    }
#define raw_spin_lock_init(l) ((l)->locked = 0)
static inline int rl_kshim_trylock(raw_spinlock_t *l)
{
    if (l->locked)
        return 0;
    l->locked = 1;
    return 1;
}
#define raw_spin_trylock_irqsave(l, flags)   ((flags) = 0, rl_kshim_trylock(l))
#define raw_spin_unlock_irqrestore(l, flags) ((void)(flags), (l)->locked = 0)

#define KERN_WARNING                                                                               \
    "\001"                                                                                         \
    "4"
extern unsigned long rl_kshim_printk_calls;
__attribute__((format(printf, 1, 2))) int printk_deferred(const char *fmt, ...);
#define pr_warn(...) printk_deferred(KERN_WARNING __VA_ARGS__)

#define EXPORT_SYMBOL(sym)

struct task_struct {
    char comm[16];
};
extern struct task_struct rl_kshim_task;
#define current (&rl_kshim_task)

#endif
