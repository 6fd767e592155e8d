/* perf_clock.c — the clock goal of the perf suite (docs/performance.md): time as
 * a variable. Three ratios, each against a floor measured in the same run:
 *   - a cached read against one relaxed load through the same handle (what
 *     "a read is one load" allows);
 *   - tb_cas on the cached clock against tb_cas on monotonic, 1 thread under
 *     overload (the reject path, where the clock read was most of the cost);
 *   - the staleness readers saw, one reader and then one on every CPU,
 *     against the period T (a reader that keeps reading refreshes a word
 *     older than T itself, so the bound is T plus the span of its last 64
 *     reads, whatever the publisher's lag). */
#include "harness/sys/cpus.h"
#include "harness/report/stats.h"
#include "perf.h"
#include "harness/run/stress.h"
#include "harness/sys/clock.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMMAND "build/ratelab bench --suite perf"

/* ---- one read: cached against one relaxed load -------------------------- */

/* A read is about 1 ns on a shared VM, so two long loops timed apart
 * compare two moments of the machine, not two readers (1.08 and 1.67 in
 * two reference runs). Instead the loops run in short blocks, cached and
 * one-load back to back (their order swapped every pair), on one pinned
 * CPU. Even so, one loop's time a read is not one number on this CPU: the
 * same one-load loop runs at one of a few speeds (1.35 or 2.17 ns a read,
 * among others), switching between measurements of identical code
 * (docs/performance.md), so pairs' ratios spread from 0.6 to 1.9 with
 * nothing changed. The ratio is
 * therefore the fastest cached block ÷ the fastest one-load block (noise
 * and slow states only add time: the fastest block is each reader's own
 * cost), with the median of the pairs' ratios and their spread beside it. */
enum {
    BLOCK_READS = 1 << 15, /* ~50 us a block: timer reads are 0.1% of it */
    PAIRS_PER_REP = 501,
};

static _Atomic uint64_t floor_word = 1;

static uint64_t read_one_load(struct rl_clock *self)
{
    (void)self;
    return atomic_load_explicit(&floor_word, memory_order_relaxed);
}

/* Mean ns of one read through clock's handle over `reads` reads, as an
 * algorithm makes them (rl_clock_now: the handle's read count, then an
 * indirect call; the cached reader tests that count to check the real
 * clock every 64th read). The reader is hidden from the compiler so that
 * neither loop is inlined away. */
static double ns_per_read(struct rl_clock *clock, unsigned reads)
{
    uint64_t (*read)(struct rl_clock *) = clock->read;
    __asm__ volatile("" : "+r"(read));
    uint64_t sink = 0, start = rl_monotonic_ns();
    for (unsigned i = 0; i < reads; i++) {
        clock->reads++;
        sink += read(clock);
    }
    uint64_t end = rl_monotonic_ns();
    __asm__ volatile("" : : "r"(sink));
    return (double)(end - start) / reads;
}

/* Pins the calling thread to the CPU it is on, so both readers of a pair
 * run on one core; *old keeps the mask to restore. False where not allowed
 * (the row then says so). */
static bool pin_here(cpu_set_t *old)
{
    int cpu = sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof *old, old) != 0)
        return false;
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

static double smallest(const double *values, size_t n)
{
    double least = values[0];
    for (size_t i = 1; i < n; i++)
        least = values[i] < least ? values[i] : least;
    return least;
}

static int read_row(const struct rl_perf_options *opts, struct rl_perf_row *row, char *err,
                    size_t err_len)
{
    struct rl_clock cached, one_load, monotonic;
    if (rl_clock_init(&cached, "cached", err, err_len) != 0 ||
        rl_clock_init(&monotonic, "monotonic", err, err_len) != 0)
        return -1;
    one_load = monotonic;
    one_load.read = read_one_load;
    unsigned reps = opts->reps < 64 ? opts->reps : 64;
    size_t pairs = (size_t)reps * PAIRS_PER_REP;
    double *ratio = malloc(pairs * sizeof *ratio), *cached_ns = malloc(pairs * sizeof *cached_ns),
           *floor_ns = malloc(pairs * sizeof *floor_ns), mono_ns[64];
    if (ratio == NULL || cached_ns == NULL || floor_ns == NULL) {
        free(ratio), free(cached_ns), free(floor_ns);
        snprintf(err, err_len, "clock read row: out of memory");
        return -1;
    }
    cpu_set_t old;
    bool pinned = pin_here(&old);
    ns_per_read(&one_load, BLOCK_READS); /* both readers' code and lines warm */
    ns_per_read(&cached, BLOCK_READS);
    for (size_t i = 0; i < pairs; i++) {
        if (i % 2 == 0) {
            cached_ns[i] = ns_per_read(&cached, BLOCK_READS);
            floor_ns[i] = ns_per_read(&one_load, BLOCK_READS);
        } else {
            floor_ns[i] = ns_per_read(&one_load, BLOCK_READS);
            cached_ns[i] = ns_per_read(&cached, BLOCK_READS);
        }
        ratio[i] = cached_ns[i] / floor_ns[i];
        if (i % PAIRS_PER_REP == 0)
            mono_ns[i / PAIRS_PER_REP] = ns_per_read(&monotonic, BLOCK_READS);
    }
    if (pinned)
        pthread_setaffinity_np(pthread_self(), sizeof old, &old);
    double cached_min = smallest(cached_ns, pairs), floor_min = smallest(floor_ns, pairs);
    double pair_median = rl_median(ratio, pairs); /* sorts ratio: its deciles follow */
    *row = (struct rl_perf_row){.goal = "clock cached read",
                                .measured = "ns per cached read in its fastest block (1 thread, "
                                            "pinned; blocks of 2^15 reads, each paired with a "
                                            "one-load block, order swapped every pair)",
                                .floor = "one relaxed load through the same handle call, its "
                                         "fastest block of the same run: what 'a read is one "
                                         "load' costs",
                                .ratio = cached_min / floor_min,
                                .at_most = true,
                                .target = 1.5,
                                .command = COMMAND};
    snprintf(row->detail, sizeof row->detail,
             "fastest blocks: cached %.2f ns, one load %.2f ns; %zu pairs: ratio median "
             "%.2f, p10-p90 %.2f-%.2f; medians cached %.2f, one load %.2f ns (monotonic "
             "%.1f ns)%s",
             cached_min, floor_min, pairs, pair_median, ratio[pairs / 10],
             ratio[pairs - 1 - pairs / 10], rl_median(cached_ns, pairs), rl_median(floor_ns, pairs),
             rl_median(mono_ns, reps), pinned ? "" : "; not pinned");
    free(ratio), free(cached_ns), free(floor_ns);
    return 0;
}

/* ---- tb_cas on cached against tb_cas on monotonic ----------------------- */

static int stress_ns(const char *algo_name, const char *clock, double *ns, char *err,
                     size_t err_len)
{
    struct rl_stress_params p = {.algo = rl_registry_find(algo_name),
                                 .cfg = {.limit = 1000, .interval_ns = 100000000u},
                                 .threads = 1,
                                 .duration_ns = 200000000u,
                                 .clock = clock};
    struct rl_stress_outcome out;
    if (p.algo == NULL) {
        snprintf(err, err_len, "no algorithm %s", algo_name);
        return -1;
    }
    if (rl_stress_run(&p, &out, err, err_len) != 0)
        return -1;
    rl_event_log_free(&out.log);
    if (out.interrupted) {
        snprintf(err, err_len, "interrupted");
        return -1;
    }
    *ns = out.ns_per_op;
    return 0;
}

static int tb_cas_row(const struct rl_perf_options *opts, struct rl_perf_row *row, char *err,
                      size_t err_len)
{
    double ratio[64], cached_ns[64], mono_ns[64], faa_ns[64];
    unsigned reps = opts->reps < 64 ? opts->reps : 64;
    for (unsigned r = 0; r < reps; r++) /* interleaved */
        if (stress_ns("tb_cas", "monotonic", &mono_ns[r], err, err_len) != 0 ||
            stress_ns("tb_cas", "cached", &cached_ns[r], err, err_len) != 0 ||
            stress_ns("faa", "monotonic", &faa_ns[r], err, err_len) != 0)
            return -1;
        else
            ratio[r] = cached_ns[r] / mono_ns[r];
    *row = (struct rl_perf_row){
        .goal = "clock tb_cas cached 1 thread reject",
        .measured = "tb_cas ns per decision on the cached clock (stress, 1 thread, L=1000 per "
                    "100ms, 200 ms runs: the reject path)",
        .floor = "tb_cas on monotonic, the default clock, in the same run: the clock read was "
                 "most of its cost, so a one-load clock should take at least half away",
        .ratio = rl_median(ratio, reps),
        .at_most = true,
        .target = 0.5,
        .command = COMMAND};
    snprintf(row->detail, sizeof row->detail,
             "tb_cas cached %.1f ns, monotonic %.1f ns a decision (faa %.1f ns), median of %u",
             rl_median(cached_ns, reps), rl_median(mono_ns, reps), rl_median(faa_ns, reps), reps);
    return 0;
}

/* ---- staleness with every CPU busy -------------------------------------- */

struct stale_reader {
    pthread_t thread;
    struct rl_clock clock;
    _Atomic bool *stop;
    uint64_t max_stale_ns;
    uint64_t since_check_ns; /* before the stalest read: since its handle's last check */
    uint64_t init_ns;        /* just before its handle's rl_clock_init */
};

/* Spins on the cached clock, each read checked against a monotonic read
 * taken just before it: the read happened later, so its staleness is at
 * least the difference (a reader preempted between the two reads only makes
 * it smaller). */
static void *stale_main(void *arg)
{
    struct stale_reader *r = arg;
    uint64_t last_check = r->init_ns; /* attaching stored the time: a check */
    while (!atomic_load_explicit(r->stop, memory_order_relaxed)) {
        uint64_t before = rl_monotonic_ns(), cached = rl_clock_now(&r->clock);
        if (r->clock.reads % RL_CACHED_CHECK_EVERY == 0) /* this read checked the real clock */
            last_check = before;
        /* the read's bound is T + the time since the check: long when the
         * reader itself was off the CPU in between */
        if (before > cached && before - cached > r->max_stale_ns) {
            r->max_stale_ns = before - cached;
            r->since_check_ns = before - last_check;
        }
    }
    return NULL;
}

/* The largest staleness seen by `threads` readers over duration_ns, and the
 * publisher's own longest gap, CPU time and priority. */
static int staleness(unsigned threads, uint64_t duration_ns, uint64_t *seen_ns, uint64_t *own_ns,
                     uint64_t *late_ns, uint64_t *cpu_ns, bool *realtime, char *err, size_t err_len)
{
    rl_clock_cached_stop(); /* a fresh publisher: its longest gap counts from now */
    struct stale_reader readers[64];
    _Atomic bool stop = false;
    threads = threads < 64 ? threads : 64;
    unsigned started = 0;
    for (; started < threads; started++) {
        readers[started] = (struct stale_reader){.stop = &stop, .init_ns = rl_monotonic_ns()};
        if (rl_clock_init(&readers[started].clock, "cached", err, err_len) != 0 ||
            pthread_create(&readers[started].thread, NULL, stale_main, &readers[started]) != 0)
            break;
    }
    struct timespec pause = {(time_t)(duration_ns / 1000000000u),
                             (long)(duration_ns % 1000000000u)};
    if (started == threads)
        nanosleep(&pause, NULL);
    atomic_store(&stop, true);
    *seen_ns = *own_ns = 0;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(readers[i].thread, NULL);
        if (readers[i].max_stale_ns > *seen_ns) {
            *seen_ns = readers[i].max_stale_ns;
            *own_ns = readers[i].since_check_ns;
        }
    }
    struct rl_clock_cached_stats stats = {0};
    if (started)
        rl_clock_cached_stats(&readers[0].clock, &stats);
    *late_ns = stats.max_late_ns;
    *realtime = stats.realtime;
    *cpu_ns = stats.cpu_ns;
    if (started < threads) {
        if (!err[0])
            snprintf(err, err_len, "cannot start a reader thread");
        return -1;
    }
    return 0;
}

/* The stalest read with `readers` spinning readers (every CPU busy when
 * readers = the CPU count), against T. */
static int staleness_row(const struct rl_perf_options *opts, unsigned readers,
                         struct rl_perf_row *row, char *err, size_t err_len)
{
    double ratio[64], seen_us[64], own_us[64], late_us[64], cpu_share[64];
    unsigned reps = opts->reps < 64 ? opts->reps : 64;
    bool realtime = false;
    for (unsigned r = 0; r < reps; r++) {
        uint64_t seen, own, late, cpu_ns;
        if (staleness(readers, 500000000u, &seen, &own, &late, &cpu_ns, &realtime, err, err_len) !=
            0)
            return -1;
        seen_us[r] = (double)seen / 1e3;
        own_us[r] = (double)own / 1e3;
        late_us[r] = (double)late / 1e3;
        cpu_share[r] = (double)cpu_ns / 500000000.0 * 100;
        ratio[r] = (double)seen / RL_CACHED_DEFAULT_PERIOD_NS;
    }
    long cpus = rl_cpu_count();
    *row = (struct rl_perf_row){
        .ratio = rl_median(ratio, reps), .at_most = true, .target = 2, .command = COMMAND};
    if ((long)readers >= cpus)
        snprintf(row->goal, sizeof row->goal, "clock cached staleness, every cpu busy");
    else
        snprintf(row->goal, sizeof row->goal, "clock cached staleness, %u reader%s", readers,
                 readers > 1 ? "s" : "");
    snprintf(row->measured, sizeof row->measured,
             "the stalest cached read (a monotonic read just before it − its value: a lower "
             "bound), %u reader%s spinning for 500 ms",
             readers, readers > 1 ? "s" : "");
    snprintf(row->floor, sizeof row->floor,
             "the period T = 100us: every 64th read checks the real clock and refreshes a word "
             "older than T, so a running reader stays within 2 T however late the publisher");
    double worst_seen = 0, worst_own = 0; /* the stalest read of all reps, and its reader's gap */
    for (unsigned r = 0; r < reps; r++)
        if (seen_us[r] > worst_seen)
            worst_seen = seen_us[r], worst_own = own_us[r];
    snprintf(row->detail, sizeof row->detail,
             "stalest read %.0f us (worst %.0f, %.0f us after its handle's last check); "
             "publisher late by up to %.0f us (%s, %.1f%% cpu); median of %u",
             rl_median(seen_us, reps), worst_seen, worst_own, rl_median(late_us, reps),
             realtime ? "SCHED_FIFO" : "normal priority", rl_median(cpu_share, reps), reps);
    return 0;
}

static int quiet_staleness_row(const struct rl_perf_options *opts, struct rl_perf_row *row,
                               char *err, size_t err_len)
{
    return staleness_row(opts, 1, row, err, err_len);
}

static int busy_staleness_row(const struct rl_perf_options *opts, struct rl_perf_row *row,
                              char *err, size_t err_len)
{
    return staleness_row(opts, (unsigned)rl_cpu_count(), row, err, err_len);
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    int (*const row_makers[])(const struct rl_perf_options *, struct rl_perf_row *, char *,
                              size_t) = {read_row, tb_cas_row, quiet_staleness_row,
                                         busy_staleness_row};
    size_t n = 0;
    for (size_t i = 0; i < sizeof row_makers / sizeof row_makers[0] && n < cap; i++, n++)
        if (row_makers[i](opts, &rows[n], err, err_len) != 0) {
            rl_clock_cached_stop();
            return -1;
        }
    rl_clock_cached_stop(); /* no publisher left running into the goals after this one */
    return (int)n;
}

const struct rl_perf_goal rl_perf_clock_goal = {
    "clock",
    "the cached clock: a read against one load, tb_cas on it against monotonic, and "
    "its staleness with every CPU busy",
    measure};
