/* clock.h — the clock sources behind struct rl_clock (docs/design.md, Clocks).
 *
 * The clock is an experimental variable: chosen by name once per run,
 * recorded in every result row, its cost and resolution measured.
 */
#ifndef RL_CLOCK_H
#define RL_CLOCK_H

#include "algorithms/rl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Virtual time starts here rather than at 0, as a machine's monotonic clock
 * does (this one booted an hour ago), so that no algorithm can lean on
 * t = 0 being special. Trace time t is virtual time RL_VIRTUAL_ORIGIN_NS + t. */
#define RL_VIRTUAL_ORIGIN_NS (3600ull * 1000000000ull)

/* NULL-terminated: monotonic, coarse, tsc, cached, virtual. */
extern const char *const rl_clock_names[];

/* The cached clock's period when its name gives none ("cached"); "cached:T"
 * names another, T a whole number of ns, us, ms or s in [10us, 1s]. */
#define RL_CACHED_DEFAULT_PERIOD_NS 100000u
/* A cached handle's every RL_CACHED_CHECK_EVERY-th read (a power of two, by
 * its read count) checks the real clock and refreshes a word older than T. */
#define RL_CACHED_CHECK_EVERY 64u

/* Sets up a clock handle by name; the tsc clock is calibrated once per
 * process (about 20 ms) on first use, and a cached clock's publisher thread
 * is started on first use (and again after rl_clock_cached_stop). -1 with one
 * line in err for an unknown name, a cached period out of range, a publisher
 * that cannot start, or a tsc clock on a machine without an invariant TSC;
 * *clock is then left as it was. */
int rl_clock_init(struct rl_clock *clock, const char *name, char *err, size_t err_len);

/* The harness's own time, for deadlines, progress and elapsed seconds:
 * CLOCK_MONOTONIC in ns, whatever clock the run's limiter reads. */
static inline uint64_t rl_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a source keeps in its handle's `source` bytes (algorithms/rl.h):
 * the harness's alone, so an algorithm can use only read, reads and name. */
struct rl_clock_state {
    uint64_t virtual_ns; /* virtual: the current time, set by the simulator */
    union {
        uint64_t tsc_base;  /* tsc: counter at calibration */
        void *cached_value; /* cached: the word its publisher stores the time in */
    };
    uint64_t ns_base;  /* tsc: monotonic ns at calibration */
    uint64_t tsc_mult; /* tsc: ns per tick in 32.32 fixed point */
    int64_t skew_ns;   /* this client's clock error (--client-skew), in every read */
};

#ifdef __cplusplus /* the Google Benchmark shim includes this header */
static_assert(sizeof(rl_clock_state) <= sizeof(rl_clock::source), "the source words hold it");
#else
_Static_assert(sizeof(struct rl_clock_state) <= sizeof(((struct rl_clock *)0)->source),
               "struct rl_clock's source words hold struct rl_clock_state");
#endif

static inline struct rl_clock_state *rl_clock_state(struct rl_clock *clock)
{
    return (struct rl_clock_state *)(void *)clock->source;
}

static inline void rl_clock_set_virtual(struct rl_clock *clock, uint64_t now_ns)
{
    rl_clock_state(clock)->virtual_ns = now_ns;
}

/* A client whose clock runs skew_ns ahead (negative: behind) of the true one. */
static inline void rl_clock_set_skew(struct rl_clock *clock, int64_t skew_ns)
{
    rl_clock_state(clock)->skew_ns = skew_ns;
}

struct rl_clock_report {
    const char *name;
    double cost_ns;            /* mean cost of one read through the handle */
    uint64_t resolution_ns;    /* what the source claims (clock_getres, tick length) */
    uint64_t smallest_step_ns; /* smallest nonzero difference seen between reads */
};

/* Measures a clock (about 50 ms). -1 with one line in err as for init. */
int rl_clock_measure(const char *name, struct rl_clock_report *out, char *err, size_t err_len);

/* The same on a clock already started (a run's, so that measuring it does
 * not start it again). */
void rl_clock_measure_started(const struct rl_clock *clock, struct rl_clock_report *out);

/* The cached clock: one thread a period T publishes CLOCK_MONOTONIC into
 * one word, and a read is one relaxed load of it (plus the handle's skew);
 * every 64th read of a handle checks the real clock and refreshes a word
 * older than T itself. A read at true time t returns a value in
 * [t − T − lag, t], where lag is the smaller of how late the publisher woke
 * and stored and the time since the handle's last check. Each reader sees
 * it never go back (docs/design.md, Clocks). */
struct rl_clock_cached_stats {
    uint64_t period_ns;
    uint64_t publishes;   /* stores since the publisher (re)started */
    uint64_t max_gap_ns;  /* the longest time from the word's value (the
                             publisher's or a reader's) to the publisher's next store */
    uint64_t max_late_ns; /* the longest the publisher woke after its deadline: its own
                             lag, which readers' refreshes hide from max_gap_ns */
    uint64_t cpu_ns;      /* the publisher thread's CPU time since it (re)started */
    bool running;
    bool realtime; /* it runs at SCHED_FIFO priority 1 (where the process may) */
};

/* The publisher behind a cached handle. -1 when clock is not a cached one. */
int rl_clock_cached_stats(const struct rl_clock *clock, struct rl_clock_cached_stats *out);

/* Stops and joins every publisher (at exit, by itself; tests and the perf
 * goal call it to leave no thread behind). Handles read a frozen time until
 * the next rl_clock_init of a cached clock starts their publisher again:
 * call it only when no run is reading a cached clock. */
void rl_clock_cached_stop(void);

#endif
