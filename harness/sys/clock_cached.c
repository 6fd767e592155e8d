/* clock_cached.c — the cached clock: a publisher thread stores
 * CLOCK_MONOTONIC into one word every period T, a read is one relaxed load
 * of that word, and every CHECK_EVERY-th read of a handle also reads the
 * real clock and, when the word is older than T, stores the time itself
 * (docs/design.md, Clocks).
 *
 * Why readers refresh. A publisher woken by a timer is late by hundreds of
 * µs on a loaded VM (every CPU busy, or its vCPU not running): readers
 * then saw values several T old. A reader that is running is proof that
 * time is passing and that someone can read the clock, so it does: the
 * word is at most T old at each check of a running reader, whatever the
 * publisher's lag. The check costs a test of the handle's own read count
 * (rl_clock_now counts every read) on the reads that do not check; the
 * clock read is paid once every CHECK_EVERY reads.
 *
 * Why relaxed is enough. The word is one aligned 64-bit atomic, so a load
 * never sees half a store. Every store to it is in one modification order,
 * and read-read coherence forbids a thread's later load from returning a
 * value earlier in that order than its previous load returned. Every
 * writer, publisher or reader, stores only by a compare-and-swap that
 * raises the word (publish_max), so the values in that order increase and
 * each reader sees time never go back. Nothing else is published through
 * the word, so there is no other data an acquire would have to make
 * visible; and acquire would not make a load fresher: ordering is not
 * recency. A stale read is a value from before the latest store, plus the
 * time a store takes to reach another core (nanoseconds, which the C
 * standard leaves to "a reasonable amount of time"). Two readers may see
 * different values at the same instant, as two threads reading any clock
 * at slightly different moments do.
 *
 * The bound. A read at time t returns a value in [t − T − lag, t], lag the
 * smaller of the publisher's lateness and the time since the reading
 * handle's last check (the span of its last CHECK_EVERY − 1 reads, plus any
 * preemption inside it; rl_clock_init counts as a check, since attaching
 * stores the time): a handle that keeps reading stays within 2 T with
 * every CPU busy.
 *
 * Lifetime. A publisher starts on the first rl_clock_init of its period,
 * runs until rl_clock_cached_stop or exit (an atexit handler joins it), and
 * starts again on the next init; its word is static, so a handle never
 * dangles. A forked child has no publisher thread: the child's next init
 * starts one (until then its handles read the time of the fork). A stopped
 * clock is frozen: readers refresh only the word of a running publisher. */
#include "clock_cached.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define MAX_PERIODS   8
#define MIN_PERIOD_NS 10000u /* shorter, and the publisher is never asleep */
#define MAX_PERIOD_NS 1000000000u
/* A reader checks the real clock on every CHECK_EVERY-th read of its
 * handle (a power of two): ~20 ns of clock_gettime over 64 reads of ~1 ns. */
#define CHECK_EVERY RL_CACHED_CHECK_EVERY
_Static_assert((CHECK_EVERY & (CHECK_EVERY - 1)) == 0, "a power of two: the test is a mask");

struct publisher {
    /* The published time, alone on its cache line: readers' lines are
     * invalidated once a period by this store, and by nothing else. */
    _Alignas(64) _Atomic uint64_t now_ns;
    _Alignas(64) uint64_t period_ns; /* 0: a free slot; set once, before any handle points here */
    _Atomic bool live;               /* a publisher runs: readers may refresh the word */
    /* The rest is guarded by `lock`. */
    bool running, stop, realtime;
    pthread_t thread;
    pthread_cond_t wake; /* signalled by stop; timed on CLOCK_MONOTONIC */
    uint64_t publishes, max_gap_ns, max_late_ns, cpu_ns_at_stop;
    clockid_t cpu_clock;
};

/* `lifecycle` serializes starting and stopping (a stop holds it across the
 * join, so no start can race a publisher still on its way out); `lock`
 * guards the publishers' fields, and each publisher holds it while it
 * publishes. Always taken in that order. */
static pthread_mutex_t lifecycle = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct publisher publishers[MAX_PERIODS];
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Raises *word to value unless it already holds as much; returns what it
 * holds after. The only way the word is written, so it never goes back. */
static uint64_t publish_max(_Atomic uint64_t *word, uint64_t value)
{
    uint64_t seen = atomic_load_explicit(word, memory_order_relaxed);
    while (seen < value && !atomic_compare_exchange_weak_explicit(
                               word, &seen, value, memory_order_relaxed, memory_order_relaxed))
        ;
    return seen < value ? value : seen;
}

/* A reader's check, the read that `seen` began: the real time, stored when
 * the word is older than T; returns the read's value, skew applied. Out of
 * line (a tail call), so the reads that do not check save no register. */
__attribute__((noinline)) static uint64_t check(const struct rl_clock_state *st, uint64_t seen)
{
    _Atomic uint64_t *word = st->cached_value;
    const struct publisher *p =
        (const struct publisher *)((const char *)word - offsetof(struct publisher, now_ns));
    /* stopped: the clock stays frozen */
    if (atomic_load_explicit(&p->live, memory_order_relaxed)) {
        uint64_t now = monotonic_ns();
        if (now - seen > p->period_ns)
            seen = publish_max(word, now);
    }
    return seen + (uint64_t)st->skew_ns;
}

uint64_t rl_clock_cached_read(struct rl_clock *self)
{
    const struct rl_clock_state *st = rl_clock_state(self);
    uint64_t now = atomic_load_explicit((_Atomic uint64_t *)st->cached_value, memory_order_relaxed);
    if (__builtin_expect((self->reads & (CHECK_EVERY - 1)) == 0, 0))
        return check(st, now);
    return now + (uint64_t)st->skew_ns;
}

static void init_wake(struct publisher *p)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
}

/* Stores the time now; the gap is measured after the store, so a publisher
 * preempted between its clock read and its store is charged for it too.
 * Called with lock held. */
static void publish(struct publisher *p)
{
    uint64_t previous = atomic_load_explicit(&p->now_ns, memory_order_relaxed);
    publish_max(&p->now_ns, monotonic_ns());
    uint64_t gap = monotonic_ns() - previous;
    if (gap > p->max_gap_ns)
        p->max_gap_ns = gap;
    p->publishes++;
}

static void *publisher_main(void *arg)
{
    struct publisher *p = arg;
    /* The default timer slack (50 us) would lengthen every period. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    pthread_mutex_lock(&lock);
    uint64_t due = monotonic_ns() + p->period_ns;
    while (!p->stop) {
        struct timespec until = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
        if (pthread_cond_timedwait(&p->wake, &lock, &until) != ETIMEDOUT)
            continue; /* stopped, or woken early: look again */
        uint64_t woke = monotonic_ns();
        if (woke > due && woke - due > p->max_late_ns)
            p->max_late_ns = woke - due;
        publish(p);
        /* Absolute deadlines keep the mean period T; after a long
         * preemption the missed periods are skipped, not caught up. */
        uint64_t now = monotonic_ns();
        due = due + p->period_ns > now ? due + p->period_ns : now + p->period_ns;
    }
    p->cpu_ns_at_stop = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* A forked child has the parent's words but none of its threads: mark the
 * publishers stopped so the child's next init starts its own. */
static void before_fork(void)
{
    pthread_mutex_lock(&lifecycle);
    pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&lifecycle);
}

static void after_fork_child(void)
{
    for (size_t i = 0; i < MAX_PERIODS; i++)
        if (publishers[i].running) {
            publishers[i].running = false;
            atomic_store_explicit(&publishers[i].live, false, memory_order_relaxed);
            init_wake(&publishers[i]);
        }
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&lifecycle);
}

static void install_hooks(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    atexit(rl_clock_cached_stop);
}

/* Starts p's thread with every signal blocked, so SIGINT and the like keep
 * going to the threads that handle them. Called with lock held. */
static int start(struct publisher *p, char *err, size_t err_len)
{
    if (!p->running) {
        p->stop = false;
        p->publishes = p->max_gap_ns = p->max_late_ns = p->cpu_ns_at_stop = 0;
        publish(p); /* a first value before anyone can read */
        p->max_gap_ns = 0;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int e = pthread_create(&p->thread, NULL, publisher_main, p);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e != 0) {
            snprintf(err, err_len, "clock 'cached': cannot start its publisher thread: %s",
                     strerror(e));
            return -1;
        }
        /* The lowest real-time priority, where allowed: a busy CPU would
         * otherwise keep the publisher waiting up to a scheduler tick. */
        struct sched_param fifo = {.sched_priority = 1};
        p->realtime = pthread_setschedparam(p->thread, SCHED_FIFO, &fifo) == 0;
        if (pthread_getcpuclockid(p->thread, &p->cpu_clock) != 0)
            p->cpu_clock = (clockid_t)-1;
        p->running = true;
        atomic_store_explicit(&p->live, true, memory_order_relaxed);
    }
    /* A handle starts on a fresh word, as if its first read had checked:
     * until its 64th read only the publisher refreshes it, and starting a
     * thread can take longer than T. */
    publish_max(&p->now_ns, monotonic_ns());
    return 0;
}

/* spec is "" (the default period) or ":T", T a whole number of ns, us, ms
 * or s. 0 with *period_ns, or -1 with err. */
static int parse_period(const char *spec, uint64_t *period_ns, char *err, size_t err_len)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"µs", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    if (*spec == '\0') {
        *period_ns = RL_CACHED_DEFAULT_PERIOD_NS;
        return 0;
    }
    const char *digits = spec + 1, *p = digits;
    uint64_t value = 0;
    while (*p >= '0' && *p <= '9' && value <= MAX_PERIOD_NS)
        value = value * 10 + (uint64_t)(*p++ - '0');
    for (size_t i = 0; spec[0] == ':' && p > digits && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(p, units[i].unit) == 0) {
            if (value > MAX_PERIOD_NS || value * units[i].ns < MIN_PERIOD_NS ||
                value * units[i].ns > MAX_PERIOD_NS)
                break;
            *period_ns = value * units[i].ns;
            return 0;
        }
    snprintf(err, err_len,
             "clock 'cached%s': expected cached or cached:T, T a whole number of ns, us, ms or "
             "s from 10us to 1s (e.g. cached:50us)",
             spec);
    return -1;
}

int rl_clock_cached_attach(struct rl_clock *clock, const char *spec, char *err, size_t err_len)
{
    uint64_t period_ns;
    if (parse_period(spec, &period_ns, err, err_len) != 0)
        return -1;
    pthread_once(&hooks_once, install_hooks);
    pthread_mutex_lock(&lifecycle);
    pthread_mutex_lock(&lock);
    struct publisher *p = NULL;
    for (size_t i = 0; i < MAX_PERIODS && p == NULL; i++)
        if (publishers[i].period_ns == period_ns)
            p = &publishers[i];
    for (size_t i = 0; i < MAX_PERIODS && p == NULL; i++)
        if (publishers[i].period_ns == 0) {
            p = &publishers[i];
            p->period_ns = period_ns;
            init_wake(p);
        }
    int status = -1;
    if (p == NULL)
        snprintf(err, err_len, "clock 'cached%s': at most %d cached periods in one process", spec,
                 MAX_PERIODS);
    else
        status = start(p, err, err_len);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&lifecycle);
    if (status == 0)
        rl_clock_state(clock)->cached_value = (void *)&p->now_ns;
    return status;
}

int rl_clock_cached_stats(const struct rl_clock *clock, struct rl_clock_cached_stats *out)
{
    if (clock->read != rl_clock_cached_read)
        return -1;
    const void *value = rl_clock_state((struct rl_clock *)clock)->cached_value;
    struct publisher *p =
        (struct publisher *)((const char *)value - offsetof(struct publisher, now_ns));
    pthread_mutex_lock(&lock);
    *out = (struct rl_clock_cached_stats){.period_ns = p->period_ns,
                                          .publishes = p->publishes,
                                          .max_gap_ns = p->max_gap_ns,
                                          .max_late_ns = p->max_late_ns,
                                          .running = p->running,
                                          .realtime = p->realtime};
    out->cpu_ns = p->running && !p->stop && p->cpu_clock != (clockid_t)-1 ? cpu_ns(p->cpu_clock)
                                                                          : p->cpu_ns_at_stop;
    pthread_mutex_unlock(&lock);
    return 0;
}

void rl_clock_cached_stop(void)
{
    pthread_t joining[MAX_PERIODS];
    size_t n = 0;
    pthread_mutex_lock(&lifecycle);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < MAX_PERIODS; i++)
        if (publishers[i].running) {
            publishers[i].stop = true;
            atomic_store_explicit(&publishers[i].live, false, memory_order_relaxed);
            pthread_cond_signal(&publishers[i].wake);
            joining[n++] = publishers[i].thread;
        }
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < n; i++)
        pthread_join(joining[i], NULL);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < MAX_PERIODS; i++)
        publishers[i].running = false;
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&lifecycle);
}
