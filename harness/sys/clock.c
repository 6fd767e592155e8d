/* clock.c — monotonic, coarse, tsc, cached and virtual clocks, and their
 * measurement (cached's publisher: clock_cached.c). */
#include "clock.h"
#include "clock_cached.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *const rl_clock_names[] = {"monotonic", "coarse", "tsc", "cached", "virtual", NULL};

static uint64_t read_posix(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Every reader adds the handle's skew (0 unless --client-skew): a client
 * whose clock is off is off in every read. */
static uint64_t read_monotonic(struct rl_clock *self)
{
    return read_posix(CLOCK_MONOTONIC) + (uint64_t)rl_clock_state(self)->skew_ns;
}

static uint64_t read_coarse(struct rl_clock *self)
{
    return read_posix(CLOCK_MONOTONIC_COARSE) + (uint64_t)rl_clock_state(self)->skew_ns;
}

static uint64_t read_virtual(struct rl_clock *self)
{
    const struct rl_clock_state *st = rl_clock_state(self);
    return st->virtual_ns + (uint64_t)st->skew_ns;
}

#if defined(__x86_64__)
static uint64_t read_tsc(struct rl_clock *self)
{
    const struct rl_clock_state *st = rl_clock_state(self);
    uint64_t ticks = __builtin_ia32_rdtsc() - st->tsc_base;
    return st->ns_base + (uint64_t)(((unsigned __int128)ticks * st->tsc_mult) >> 32) +
           (uint64_t)st->skew_ns;
}

/* One calibration per process: every thread's handle must map ticks to
 * nanoseconds identically, or their stamps would disagree. */
static struct {
    pthread_once_t once;
    uint64_t tsc_base, ns_base, mult;
    int ok;
} tsc_calibration = {.once = PTHREAD_ONCE_INIT};

static void tsc_calibrate(void)
{
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int invariant = 0;
    while (cpuinfo && fgets(line, sizeof line, cpuinfo))
        if (strncmp(line, "flags", 5) == 0) {
            invariant = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    if (cpuinfo)
        fclose(cpuinfo);
    if (!invariant)
        return;
    /* Pair tsc and monotonic reads 20 ms apart; the longer the span, the
     * smaller the rate error (a few ns per read at most here). */
    uint64_t ns0 = read_posix(CLOCK_MONOTONIC), tsc0 = __builtin_ia32_rdtsc();
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    uint64_t ns1 = read_posix(CLOCK_MONOTONIC), tsc1 = __builtin_ia32_rdtsc();
    if (tsc1 <= tsc0)
        return;
    tsc_calibration.tsc_base = tsc0;
    tsc_calibration.ns_base = ns0;
    tsc_calibration.mult = (uint64_t)(((unsigned __int128)(ns1 - ns0) << 32) / (tsc1 - tsc0));
    tsc_calibration.ok = 1;
}
#endif

int rl_clock_init(struct rl_clock *out, const char *name, char *err, size_t err_len)
{
    struct rl_clock local, *clock = &local; /* *out stays untouched on failure */
    memset(clock, 0, sizeof *clock);        /* every source byte: rl_clock_same compares them */
    struct rl_clock_state *st = rl_clock_state(clock);
    if (strcmp(name, "monotonic") == 0) {
        clock->read = read_monotonic;
        clock->name = "monotonic";
    } else if (strcmp(name, "coarse") == 0) {
        clock->read = read_coarse;
        clock->name = "coarse";
    } else if (strncmp(name, "cached", 6) == 0 && (name[6] == '\0' || name[6] == ':')) {
        if (rl_clock_cached_attach(clock, name + 6, err, err_len) != 0)
            return -1;
        clock->read = rl_clock_cached_read;
        clock->name = "cached";
    } else if (strcmp(name, "virtual") == 0) {
        clock->read = read_virtual;
        clock->name = "virtual";
        st->virtual_ns = RL_VIRTUAL_ORIGIN_NS;
    } else if (strcmp(name, "tsc") == 0) {
#if defined(__x86_64__)
        pthread_once(&tsc_calibration.once, tsc_calibrate);
        if (!tsc_calibration.ok) {
            snprintf(err, err_len,
                     "clock 'tsc' needs an invariant TSC (constant_tsc, nonstop_tsc)");
            return -1;
        }
        clock->read = read_tsc;
        clock->name = "tsc";
        st->tsc_base = tsc_calibration.tsc_base;
        st->ns_base = tsc_calibration.ns_base;
        st->tsc_mult = tsc_calibration.mult;
#else
        snprintf(err, err_len, "clock 'tsc' is available on x86-64 only");
        return -1;
#endif
    } else {
        snprintf(err, err_len,
                 "unknown clock '%s' (accepted: monotonic, coarse, tsc, cached, cached:T, virtual)",
                 name);
        return -1;
    }
    *out = local;
    return 0;
}

int rl_clock_measure(const char *name, struct rl_clock_report *out, char *err, size_t err_len)
{
    struct rl_clock clock;
    if (rl_clock_init(&clock, name, err, err_len) != 0)
        return -1;
    rl_clock_measure_started(&clock, out);
    return 0;
}

void rl_clock_measure_started(const struct rl_clock *started, struct rl_clock_report *out)
{
    struct rl_clock clock = *started; /* the reads below advance a copy only */
    const char *name = clock.name;
    memset(out, 0, sizeof *out);
    out->name = clock.name;

    enum { READS = 1 << 20 };
    uint64_t smallest = UINT64_MAX, previous = rl_clock_now(&clock), sink = 0;
    uint64_t start = read_posix(CLOCK_MONOTONIC);
    for (int i = 0; i < READS; i++) {
        uint64_t now = rl_clock_now(&clock);
        if (now != previous && now - previous < smallest)
            smallest = now - previous;
        previous = now;
        sink += now;
        if (clock.read == read_virtual)
            rl_clock_state(&clock)->virtual_ns++; /* a simulator advancing time: 1 ns steps */
    }
    out->cost_ns = (double)(read_posix(CLOCK_MONOTONIC) - start) / READS;
    out->smallest_step_ns = smallest == UINT64_MAX ? 0 : smallest;
    (void)sink;

    struct timespec res = {0, 1};
    if (strcmp(name, "monotonic") == 0)
        clock_getres(CLOCK_MONOTONIC, &res);
    else if (strcmp(name, "coarse") == 0)
        clock_getres(CLOCK_MONOTONIC_COARSE, &res);
    out->resolution_ns = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
    struct rl_clock_cached_stats cached;
    if (rl_clock_cached_stats(&clock, &cached) == 0) /* it steps once a period */
        out->resolution_ns = cached.period_ns;
    uint64_t tsc_mult = rl_clock_state(&clock)->tsc_mult;
    if (strcmp(name, "tsc") == 0 && tsc_mult) /* one tick, rounded up */
        out->resolution_ns = (tsc_mult + 0xffffffffu) >> 32;
}
