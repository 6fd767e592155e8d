/* perf_keyed.c — the keyed goal of the perf suite (docs/performance.md): what a key
 * costs the container in memory, and what it costs in throughput.
 *
 * Memory: `ratelab keys` run as a child (a fresh process, so nothing this
 * one allocated before hides or adds resident memory), bytes per key at
 * 10^6 keys, against the state itself: the one 8-byte word that is all a
 * gcra_cas or tb_cas key needs. The goal, 64 bytes, is 8 of them.
 *
 * Throughput against the memory floor: stress, closed loop, 2 threads,
 * through the container over 10^5 and 10^6 uniform keys and 10^6 Zipf(1)
 * keys, against the same key stream doing one relaxed fetch-add on a bare
 * array of one word per key (same sampler, same seeds, same threads, same
 * run length, fresh memory as the keyed run's is): the memory system's cost
 * of touching that slot. The goal rows' limiters read the cached clock (one
 * load, at most 2 T stale: what a gateway's limiter reads, as nginx's
 * ngx_current_msec) and run with stress's look-ahead (each thread draws
 * its keys LOOKAHEAD attempts ahead, prefetches their slots, decides them
 * in batches: stress.c, docs/keys.md), as a gateway that handles its
 * requests in bursts can; the same without look-ahead, and on the
 * monotonic clock, are reported beside them, and so is the floor run with
 * the same look-ahead (does the bare array gain from it too?). In the same
 * repetition, runs that say what limits the
 * ratio: the sampler alone (keys drawn, nothing touched), keyed `null` (the
 * container's lookup, no clock read, no slot written) and keyed `faa` (the
 * lookup and one commit on the slot).
 *
 * Throughput against unkeyed (reported, no longer a goal): the same
 * algorithm on one shared limiter, 2 threads, alternating with the keyed
 * run over 10^5 uniform keys. Its reason: unkeyed at 2 threads rejects on
 * one line both cores only read, while every keyed call admits and writes
 * a slot another core may hold, so it compares two memory costs, not the
 * container's.
 */
#include "harness/report/stats.h"
#include "perf.h"
#include "harness/run/stress.h"
#include "harness/io/csv_read.h"
#include "harness/io/file_bytes.h"
#include "harness/sys/clock.h"
#include "harness/sys/interrupt.h"
#include "harness/sys/pages.h"
#include "harness/sys/prefetch.h"
#include "workloads/keys.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEMORY_KEYS        1000000u
#define THROUGHPUT_KEYS    100000u
#define THROUGHPUT_THREADS 2u
#define RUN_NS             1000000000u /* each stress run; the keyed one adds its 10^5 keys in it */
#define MAX_REPS           32u
#define STATE_BYTES        8.0 /* the one 64-bit word */
#define MEMORY_GOAL_BYTES  64.0

#define ZIPF_S 1.0

/* The goal rows' look-ahead: the best of 4, 8, 16 and 32 measured on this
 * machine (docs/performance.md, "Keyed, fourth pass"). */
#define LOOKAHEAD 8u

static const char *const algos[] = {"gcra_cas", "tb_cas"};

/* The key streams of the floor rows. */
static const struct key_stream {
    const char *name; /* in the row's goal */
    uint32_t keys;
    double zipf_s; /* 0: uniform */
} streams[] = {{"10^5 uniform keys", 100000u, 0},
               {"10^6 uniform keys", 1000000u, 0},
               {"10^6 Zipf(1) keys", 1000000u, ZIPF_S}};
#define STREAMS (sizeof streams / sizeof *streams)

/* bytes_per_key from `ratelab keys ... --format csv` in path; NAN if absent. */
static double read_bytes_per_key(const char *path)
{
    struct rl_file_bytes fb;
    char err[256];
    if (rl_file_bytes_load(path, &fb, err, sizeof err) != 0)
        return NAN;
    struct rl_csv_reader r;
    char header_store[2048], row_store[2048];
    char *header[64], *row[64];
    double value = NAN;
    rl_csv_reader_init(&r, fb.data, fb.len);
    int columns = rl_csv_next(&r, header_store, sizeof header_store, header, 64, err, sizeof err);
    int column = columns > 0 ? rl_csv_column(header, columns, "bytes_per_key") : -1;
    int fields = rl_csv_next(&r, row_store, sizeof row_store, row, 64, err, sizeof err);
    if (column >= 0 && column < fields)
        value = strtod(row[column], NULL);
    rl_file_bytes_free(&fb);
    return value;
}

static int memory_row(const struct rl_perf_options *opts, const char *algo, struct rl_perf_row *row,
                      char *err, size_t err_len)
{
    char path[] = "/tmp/ratelab-perf-keyed-XXXXXX", keys[16];
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create a temporary file in /tmp");
        return -1;
    }
    close(fd);
    snprintf(keys, sizeof keys, "%u", MEMORY_KEYS);
    char *argv[] = {(char *)opts->ratelab,
                    "keys",
                    "--algo",
                    (char *)algo,
                    "--keys",
                    keys,
                    "--churn",
                    "0",
                    "--format",
                    "csv",
                    NULL};
    double per_key[MAX_REPS];
    unsigned reps = opts->reps < MAX_REPS ? opts->reps : MAX_REPS;
    for (unsigned r = 0; r < reps; r++) {
        double wall;
        if (rl_perf_run_child(argv, path, &wall, NULL, err, err_len) != 0) {
            unlink(path);
            return -1;
        }
        per_key[r] = read_bytes_per_key(path);
        if (isnan(per_key[r])) {
            snprintf(err, err_len, "ratelab keys printed no bytes_per_key");
            unlink(path);
            return -1;
        }
    }
    unlink(path);
    double median = rl_median(per_key, reps);
    snprintf(row->goal, sizeof row->goal, "keyed memory %s, 10^6 keys", algo);
    snprintf(row->measured, sizeof row->measured,
             "resident-set growth per key after touching 10^6 fresh keys (bytes)");
    snprintf(row->floor, sizeof row->floor,
             "the state itself, %s's one %.0f-byte word (the goal, %.0f bytes, is %.0f words)",
             algo, STATE_BYTES, MEMORY_GOAL_BYTES, MEMORY_GOAL_BYTES / STATE_BYTES);
    row->ratio = median / STATE_BYTES;
    row->at_most = true;
    row->target = MEMORY_GOAL_BYTES / STATE_BYTES;
    snprintf(row->detail, sizeof row->detail, "%.1f B/key at 10^6 keys; state %.0f B", median,
             STATE_BYTES);
    snprintf(row->command, sizeof row->command,
             "build/ratelab keys --algo %s --keys 1000000 --churn 0", algo);
    return 0;
}

static int stress_mops(const char *algo, const char *clock, uint32_t keys, double zipf_s,
                       unsigned lookahead, double *mops, char *err, size_t err_len)
{
    struct rl_stress_params p = {
        .algo = rl_registry_find(algo),
        .cfg = {.limit = 1000, .interval_ns = 100000000u}, /* stress's defaults */
        .threads = THROUGHPUT_THREADS,
        .duration_ns = RUN_NS,
        .clock = clock,
        .keys = keys,
        .zipf_s = zipf_s,
        .lookahead = lookahead,
    };
    struct rl_stress_outcome out;
    if (rl_stress_run(&p, &out, err, err_len) != 0)
        return -1;
    if (out.interrupted) {
        snprintf(err, err_len, "interrupted");
        return -1;
    }
    *mops = out.mops;
    return 0;
}

/* ---- the memory floor: the key stream on a bare array of words --------- */

/* What a floor thread does with each drawn key. */
enum floor_mode {
    FLOOR_SAMPLER, /* nothing: the sampler alone */
    FLOOR_TOUCH,   /* one relaxed fetch-add on its word: the floor */
    /* the same, each add's address made to wait for the previous add's
     * result: the misses one at a time, as when an attempt is too long for
     * the core to run the next one's miss under it */
    FLOOR_SERIAL,
    /* the same fetch-adds with the keyed goal rows' look-ahead: each key
     * drawn LOOKAHEAD attempts ahead, its word prefetched for writing */
    FLOOR_LOOKAHEAD,
};

struct floor_run {
    _Atomic uint64_t *slots; /* one word per key; NULL: draw keys only */
    enum floor_mode mode;
    struct rl_key_sampler sampler;
    _Atomic bool go, stop;
    _Atomic unsigned arrived;
};

struct floor_worker {
    _Alignas(64) struct floor_run *run;
    pthread_t thread;
    unsigned index;
    uint64_t ops, start_ns, end_ns, sink;
};

/* As a stress worker runs: its own key stream (stress.c seeds thread i's
 * generator with (1, i)), a start rendezvous, the stop flag read every
 * attempt; each attempt one relaxed fetch-add on the drawn key's word. */
static void *floor_main(void *arg)
{
    struct floor_worker *w = arg;
    struct floor_run *run = w->run;
    struct rl_rng rng;
    rl_rng_seed(&rng, 1, w->index);
    while (!atomic_load_explicit(&run->go, memory_order_acquire))
        sched_yield();
    atomic_fetch_add_explicit(&run->arrived, 1, memory_order_relaxed);
    while (atomic_load_explicit(&run->arrived, memory_order_relaxed) < THROUGHPUT_THREADS)
        sched_yield();
    uint64_t ops = 0, sink = 0;
    w->start_ns = rl_monotonic_ns();
    if (run->mode == FLOOR_TOUCH)
        while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
            uint32_t key = rl_key_sampler_draw(&run->sampler, &rng);
            atomic_fetch_add_explicit(&run->slots[key], 1, memory_order_relaxed);
            ops++;
        }
    else if (run->mode == FLOOR_SERIAL)
        for (uint64_t previous = 0; !atomic_load_explicit(&run->stop, memory_order_relaxed);) {
            /* a counter never reaches 2^63, so this adds 0: but the core
             * cannot know, and must wait for the previous add's result
             * before it has this add's address */
            uint32_t key = rl_key_sampler_draw(&run->sampler, &rng) + (uint32_t)(previous >> 63);
            previous = atomic_fetch_add_explicit(&run->slots[key], 1, memory_order_relaxed);
            ops++;
        }
    else if (run->mode == FLOOR_LOOKAHEAD) {
        uint32_t ahead[LOOKAHEAD];
        for (unsigned j = 0; j < LOOKAHEAD; j++) {
            ahead[j] = rl_key_sampler_draw(&run->sampler, &rng);
            rl_prefetch_for_write(&run->slots[ahead[j]]);
        }
        for (unsigned j = 0; !atomic_load_explicit(&run->stop, memory_order_relaxed);
             j = (j + 1) % LOOKAHEAD) {
            atomic_fetch_add_explicit(&run->slots[ahead[j]], 1, memory_order_relaxed);
            ahead[j] = rl_key_sampler_draw(&run->sampler, &rng);
            rl_prefetch_for_write(&run->slots[ahead[j]]);
            ops++;
        }
    } else
        while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
            sink += rl_key_sampler_draw(&run->sampler, &rng);
            ops++;
        }
    w->end_ns = rl_monotonic_ns();
    w->ops = ops;
    w->sink = sink;
    return NULL;
}

static size_t floor_bytes(uint32_t keys)
{
    return (size_t)keys * sizeof(uint64_t);
}

/* The bare array: fresh zeroed pages, on huge pages as the container's
 * tables of 2 MiB or more are (harness/sys/pages.h), so that the floor and
 * the container pay the same TLB. *bytes: what to unmap. */
static _Atomic uint64_t *floor_array(uint32_t keys, size_t *bytes)
{
    *bytes = floor_bytes(keys);
    return rl_pages_map(bytes);
}

/* Millions of attempts a second of the floor loop over `stream` in `mode`,
 * timed as stress times its workers: first start to last end. */
static int floor_mops(const struct key_stream *stream, enum floor_mode mode, double *mops,
                      char *err, size_t err_len)
{
    static struct floor_worker workers[THROUGHPUT_THREADS];
    struct floor_run run = {.mode = mode};
    size_t mapped = 0;
    if (rl_key_sampler_init(&run.sampler, stream->zipf_s > 0 ? RL_KEYS_ZIPF : RL_KEYS_UNIFORM,
                            stream->keys, stream->zipf_s) != 0 ||
        (mode != FLOOR_SAMPLER && (run.slots = floor_array(stream->keys, &mapped)) == NULL)) {
        rl_key_sampler_free(&run.sampler);
        snprintf(err, err_len, "out of memory for %u keys", stream->keys);
        return -1;
    }
    unsigned started = 0;
    for (; started < THROUGHPUT_THREADS; started++) {
        workers[started] = (struct floor_worker){.run = &run, .index = started};
        if (pthread_create(&workers[started].thread, NULL, floor_main, &workers[started]) != 0)
            break;
    }
    if (started < THROUGHPUT_THREADS) /* the started ones never pass the rendezvous: free them */
        atomic_store_explicit(&run.arrived, THROUGHPUT_THREADS, memory_order_relaxed);
    atomic_store_explicit(&run.go, true, memory_order_release);
    if (started == THROUGHPUT_THREADS) {
        while (atomic_load_explicit(&run.arrived, memory_order_relaxed) < THROUGHPUT_THREADS)
            sched_yield();
        uint64_t end = rl_monotonic_ns() + RUN_NS;
        for (uint64_t now; !rl_interrupted && (now = rl_monotonic_ns()) < end;) {
            struct timespec pause = {0, (long)(end - now < 10000000u ? end - now : 10000000u)};
            nanosleep(&pause, NULL);
        }
    }
    atomic_store_explicit(&run.stop, true, memory_order_relaxed);
    uint64_t ops = 0, first = UINT64_MAX, last = 0;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(workers[i].thread, NULL);
        ops += workers[i].ops;
        first = workers[i].start_ns < first ? workers[i].start_ns : first;
        last = workers[i].end_ns > last ? workers[i].end_ns : last;
    }
    if (run.slots)
        munmap((void *)run.slots, mapped);
    rl_key_sampler_free(&run.sampler);
    if (started < THROUGHPUT_THREADS || rl_interrupted) {
        snprintf(err, err_len, "%s", rl_interrupted ? "interrupted" : "cannot start a thread");
        return -1;
    }
    *mops = last > first ? (double)ops * 1e3 / (double)(last - first) : 0;
    return 0;
}

/* What the keyed runs of one stream are divided by and compared with. */
static void stream_command(const struct key_stream *stream, const char *algos_list, char *out,
                           size_t len)
{
    char zipf[32] = "";
    if (stream->zipf_s > 0)
        snprintf(zipf, sizeof zipf, " --zipf %g", stream->zipf_s);
    snprintf(out, len,
             "build/ratelab stress --algo %s --threads 2 --duration 1s --keys %u%s; the floor: "
             "bench --suite perf --goal keyed",
             algos_list, stream->keys, zipf);
}

/* The clock the goal rows' limiters read, and the one the reported rows
 * beside them read. A gateway's keyed limiter reads a cached time (nginx's
 * ngx_current_msec, refreshed once per event-loop pass); ratelab's cached
 * clock is one relaxed load, at most 2 T stale (harness/sys/clock.h), with
 * T = 100 us. The monotonic rows keep the before for comparison. */
#define GOAL_CLOCK     "cached"
#define REPORTED_CLOCK "monotonic"

/* The keyed runs of each stream: the goal's (cached clock, look-ahead),
 * then reported ones (no look-ahead, on each clock). */
static const struct keyed_variant {
    const char *clock;
    unsigned lookahead; /* 0: one key drawn and decided at a time */
    bool goal;
} variants[] = {{GOAL_CLOCK, LOOKAHEAD, true}, {GOAL_CLOCK, 0, false}, {REPORTED_CLOCK, 0, false}};
#define VARIANTS (sizeof variants / sizeof *variants)

/* One keyed row: variant v of algorithm `algo` ÷ the bare fetch-add array. */
/* A reported row of what limits the keyed floor rows (the caller names it
 * and says what it measured): target 0.6 as theirs, never a goal itself. */
static struct rl_perf_row *limit_row(struct rl_perf_row *row, double ratio)
{
    memset(row, 0, sizeof *row);
    row->ratio = ratio;
    row->target = 0.6;
    row->reported = true;
    snprintf(row->command, sizeof row->command, "bench --suite perf --goal keyed");
    return row;
}

static void keyed_row(const struct key_stream *stream, const struct keyed_variant *v,
                      const char *algo, double ratio, double mops, double bare_mops,
                      double clock_ns, struct rl_perf_row *row)
{
    memset(row, 0, sizeof *row);
    char ahead[48] = "";
    if (v->lookahead)
        snprintf(ahead, sizeof ahead, ", look-ahead %u", v->lookahead);
    snprintf(row->goal, sizeof row->goal, "keyed floor %s, %s, %s clock%s", algo, stream->name,
             v->clock, ahead);
    snprintf(row->measured, sizeof row->measured,
             "attempts a second through the container, %s, the %s clock, %s (stress, 2 "
             "threads, closed loop, 1 s)",
             stream->name, v->clock,
             v->lookahead ? "keys drawn ahead, prefetched, decided in batches"
                          : "one key at a time");
    snprintf(row->floor, sizeof row->floor,
             "the same key stream (sampler, seeds, threads, 1 s), one relaxed fetch-add "
             "on a fresh array of one word per key: the cost of touching the slot%s",
             v->goal ? "" : "; reported (the goal's runs: cached clock, look-ahead)");
    row->ratio = ratio;
    row->target = 0.6;
    row->reported = !v->goal;
    snprintf(row->detail, sizeof row->detail,
             "keyed %s %.1f Mops/s on the %s clock (a read %.1f ns)%s, bare fetch-add %.1f "
             "Mops/s (medians)",
             algo, mops, v->clock, clock_ns, v->lookahead ? " with look-ahead" : "", bare_mops);
    char list[96];
    snprintf(list, sizeof list, "%s --clock %s", algo, v->clock);
    if (v->lookahead)
        snprintf(list + strlen(list), sizeof list - strlen(list), " --lookahead %u", v->lookahead);
    stream_command(stream, list, row->command, sizeof row->command);
}

/* One key stream's rows: each algorithm keyed on the cached clock with
 * look-ahead ÷ the bare fetch-add array (the goal), the same without
 * look-ahead and on the monotonic clock without (reported), then reported
 * rows of what limits that ratio: the container alone (keyed `null`, which
 * touches no slot word and reads no clock) ÷ the floor, with keyed `faa`
 * (the container and one commit on the slot) and the sampler alone beside
 * it; the floor with its misses one at a time; the floor with the goal's
 * look-ahead. All runs of a repetition interleaved; each ratio the median
 * of its repetitions' ratios. Fills VARIANTS × count + 3 rows. */
static int stream_rows(const struct rl_perf_options *opts, const struct key_stream *stream,
                       struct rl_perf_row *rows, char *err, size_t err_len)
{
    enum { ALGOS = sizeof algos / sizeof *algos, CLOCKS = 2 };
    static const char *const clocks[CLOCKS] = {GOAL_CLOCK, REPORTED_CLOCK};
    double keyed[VARIANTS][ALGOS][MAX_REPS], ratio[VARIANTS][ALGOS][MAX_REPS], bare[MAX_REPS],
        sampler[MAX_REPS], serial[MAX_REPS], ahead[MAX_REPS], null[MAX_REPS], faa[MAX_REPS],
        null_ratio[MAX_REPS];
    unsigned reps = opts->reps < MAX_REPS ? opts->reps : MAX_REPS;
    for (unsigned r = 0; r < reps; r++) {
        if (floor_mops(stream, FLOOR_TOUCH, &bare[r], err, err_len) != 0 ||
            floor_mops(stream, FLOOR_SAMPLER, &sampler[r], err, err_len) != 0 ||
            floor_mops(stream, FLOOR_SERIAL, &serial[r], err, err_len) != 0 ||
            floor_mops(stream, FLOOR_LOOKAHEAD, &ahead[r], err, err_len) != 0 ||
            stress_mops("null", REPORTED_CLOCK, stream->keys, stream->zipf_s, 0, &null[r], err,
                        err_len) != 0 ||
            stress_mops("faa", REPORTED_CLOCK, stream->keys, stream->zipf_s, 0, &faa[r], err,
                        err_len) != 0)
            return -1;
        for (size_t v = 0; v < VARIANTS; v++)
            for (size_t i = 0; i < ALGOS; i++) {
                if (stress_mops(algos[i], variants[v].clock, stream->keys, stream->zipf_s,
                                variants[v].lookahead, &keyed[v][i][r], err, err_len) != 0)
                    return -1;
                ratio[v][i][r] = keyed[v][i][r] / bare[r];
            }
        null_ratio[r] = null[r] / bare[r];
    }
    double bare_m = rl_median(bare, reps);
    /* gcra_cas and tb_cas read the clock once an attempt; the floor does
     * not. A thread's floor attempt takes THREADS / bare µs, so even with a
     * free lookup a clock-reading limiter reaches at most
     * floor_ns / (floor_ns + clock_ns) of the floor. */
    struct rl_clock_report cost[CLOCKS];
    for (size_t c = 0; c < CLOCKS; c++)
        if (rl_clock_measure(clocks[c], &cost[c], err, err_len) != 0)
            return -1;
    rl_clock_cached_stop(); /* leave no publisher thread behind */
    double floor_ns = THROUGHPUT_THREADS * 1e3 / bare_m;
    for (size_t v = 0; v < VARIANTS; v++)
        for (size_t i = 0; i < ALGOS; i++)
            keyed_row(stream, &variants[v], algos[i], rl_median(ratio[v][i], reps),
                      rl_median(keyed[v][i], reps), bare_m,
                      cost[strcmp(variants[v].clock, GOAL_CLOCK) == 0 ? 0 : 1].cost_ns,
                      &rows[v * ALGOS + i]);
    struct rl_perf_row *row = limit_row(&rows[VARIANTS * ALGOS], rl_median(null_ratio, reps));
    snprintf(row->goal, sizeof row->goal, "keyed floor limits, %s", stream->name);
    snprintf(row->measured, sizeof row->measured,
             "keyed null (the container's lookup alone: no clock, no slot write, no look-ahead) "
             "attempts a second, %s",
             stream->name);
    snprintf(row->floor, sizeof row->floor,
             "the bare fetch-add array on the same key stream: reported, what bounds the keyed "
             "floor rows above without look-ahead");
    snprintf(row->detail, sizeof row->detail,
             "keyed null %.1f, keyed faa %.1f, bare fetch-add %.1f, sampler alone %.1f Mops/s "
             "(medians); a floor attempt %.1f ns; a clock read cached %.1f ns (bound %.2f), "
             "monotonic %.1f ns (bound %.2f)",
             rl_median(null, reps), rl_median(faa, reps), bare_m, rl_median(sampler, reps),
             floor_ns, cost[0].cost_ns, floor_ns / (floor_ns + cost[0].cost_ns), cost[1].cost_ns,
             floor_ns / (floor_ns + cost[1].cost_ns));
    stream_command(stream, "null,faa", row->command, sizeof row->command);
    /* The floor's loop is a few instructions an attempt, so the core runs
     * many attempts' misses at once; an attempt through the container is
     * too long for that. The same adds one at a time say how much of the
     * floor is that overlap. */
    double serial_ratio[MAX_REPS], keyed_serial[MAX_REPS], ahead_ratio[MAX_REPS];
    for (unsigned r = 0; r < reps; r++) {
        serial_ratio[r] = serial[r] / bare[r];
        keyed_serial[r] = keyed[1][0][r] / serial[r];
        ahead_ratio[r] = ahead[r] / bare[r];
    }
    row = limit_row(&rows[VARIANTS * ALGOS + 1], rl_median(serial_ratio, reps));
    snprintf(row->goal, sizeof row->goal, "keyed floor one at a time, %s", stream->name);
    snprintf(row->measured, sizeof row->measured,
             "the bare fetch-add array with each add's address waiting for the previous add's "
             "result (misses one at a time), %s",
             stream->name);
    snprintf(row->floor, sizeof row->floor,
             "the bare fetch-add array, whose misses overlap: reported, the share of the floor "
             "that is overlap no long attempt gets");
    snprintf(row->detail, sizeof row->detail,
             "one at a time %.1f Mops/s, bare fetch-add %.1f (medians); keyed %s on the %s "
             "clock without look-ahead ÷ one at a time %.2f",
             rl_median(serial, reps), bare_m, algos[0], clocks[0], rl_median(keyed_serial, reps));
    row = limit_row(&rows[VARIANTS * ALGOS + 2], rl_median(ahead_ratio, reps));
    snprintf(row->goal, sizeof row->goal, "keyed floor with look-ahead %u, %s", LOOKAHEAD,
             stream->name);
    snprintf(row->measured, sizeof row->measured,
             "the bare fetch-add array with the goal rows' look-ahead: each key drawn %u "
             "attempts ahead, its word prefetched for writing, %s",
             LOOKAHEAD, stream->name);
    snprintf(row->floor, sizeof row->floor,
             "the bare fetch-add array as the goal rows divide by: reported, whether the floor "
             "itself gains from the look-ahead");
    snprintf(row->detail, sizeof row->detail,
             "with look-ahead %.1f Mops/s, bare fetch-add %.1f (medians)", rl_median(ahead, reps),
             bare_m);
    return 0;
}

static int throughput_row(const struct rl_perf_options *opts, const char *algo,
                          struct rl_perf_row *row, char *err, size_t err_len)
{
    double ratio[MAX_REPS], keyed[MAX_REPS], plain[MAX_REPS];
    unsigned reps = opts->reps < MAX_REPS ? opts->reps : MAX_REPS;
    for (unsigned r = 0; r < reps; r++) {
        if (stress_mops(algo, "monotonic", 1, 0, 0, &plain[r], err, err_len) != 0 ||
            stress_mops(algo, "monotonic", THROUGHPUT_KEYS, 0, 0, &keyed[r], err, err_len) != 0)
            return -1;
        ratio[r] = keyed[r] / plain[r];
    }
    snprintf(row->goal, sizeof row->goal, "keyed throughput %s, 2 threads, 10^5 keys", algo);
    /* kept for its history (docs/performance.md); the floor rows are the goal */
    snprintf(row->measured, sizeof row->measured,
             "attempts a second through the container, 10^5 uniform keys (stress, closed loop)");
    snprintf(row->floor, sizeof row->floor,
             "the same algorithm unkeyed, same repetition: reported, not a goal (unkeyed rejects "
             "on one read-shared line; keyed admits and writes a slot: two memory costs)");
    row->ratio = rl_median(ratio, reps);
    row->at_most = false;
    row->target = 0.5;
    row->reported = true;
    snprintf(row->detail, sizeof row->detail, "keyed %.1f Mops/s, unkeyed %.1f Mops/s (medians)",
             rl_median(keyed, reps), rl_median(plain, reps));
    snprintf(row->command, sizeof row->command,
             "build/ratelab stress --algo %s --threads 2 --duration 1s, and with --keys 100000",
             algo);
    return 0;
}

static int measure(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len)
{
    size_t n = 0, count = sizeof algos / sizeof *algos;
    size_t needed = 2 * count + STREAMS * (VARIANTS * count + 3);
    if (cap < needed) {
        snprintf(err, err_len, "room for %zu rows, the keyed goal needs %zu", cap, needed);
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        if (memory_row(opts, algos[i], &rows[n++], err, err_len) != 0)
            return -1;
    for (size_t i = 0; i < count; i++)
        if (throughput_row(opts, algos[i], &rows[n++], err, err_len) != 0)
            return -1;
    for (size_t k = 0; k < STREAMS; k++, n += VARIANTS * count + 3)
        if (stream_rows(opts, &streams[k], &rows[n], err, err_len) != 0)
            return -1;
    return (int)n;
}

const struct rl_perf_goal rl_perf_keyed_goal = {
    "keyed",
    "bytes per key at 10^6 keys (vs the 8-byte state), keyed throughput at 2 threads against "
    "a bare fetch-add array on the same key stream, and keyed/unkeyed (reported)",
    measure};
