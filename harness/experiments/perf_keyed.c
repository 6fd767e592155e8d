/* perf_keyed.c — the keyed goal of the perf suite (docs/performance.md): what a key
 * costs the container in memory, and what it costs in throughput.
 *
 * Memory: `ratelab keys` run as a child (a fresh process, so nothing this
 * one allocated before hides or adds resident memory), bytes per key at
 * 10^6 keys, against the state itself: the one 8-byte word that is all a
 * gcra_cas or tb_cas key needs. The goal, 64 bytes, is 8 of them.
 *
 * Throughput: stress, closed loop, 2 threads, on one shared limiter and
 * through the container over 10^5 uniform keys, alternating in each
 * repetition; the ratio is keyed ÷ unkeyed attempts a second.
 */
#include "harness/report/stats.h"
#include "perf.h"
#include "harness/run/stress.h"
#include "harness/io/csv_read.h"
#include "harness/io/file_bytes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEMORY_KEYS        1000000u
#define THROUGHPUT_KEYS    100000u
#define THROUGHPUT_THREADS 2u
#define RUN_NS             1000000000u /* each stress run; the keyed one adds its 10^5 keys in it */
#define MAX_REPS           32u
#define STATE_BYTES        8.0 /* the one 64-bit word */
#define MEMORY_GOAL_BYTES  64.0

static const char *const algos[] = {"gcra_cas", "tb_cas"};

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

static int stress_mops(const char *algo, uint32_t keys, double *mops, char *err, size_t err_len)
{
    struct rl_stress_params p = {
        .algo = rl_registry_find(algo),
        .cfg = {.limit = 1000, .interval_ns = 100000000u}, /* stress's defaults */
        .threads = THROUGHPUT_THREADS,
        .duration_ns = RUN_NS,
        .clock = "monotonic",
        .keys = keys,
    };
    struct rl_stress_outcome out;
    if (rl_stress_run(&p, &out, err, err_len) != 0)
        return -1;
    *mops = out.mops;
    return 0;
}

static int throughput_row(const struct rl_perf_options *opts, const char *algo,
                          struct rl_perf_row *row, char *err, size_t err_len)
{
    double ratio[MAX_REPS], keyed[MAX_REPS], plain[MAX_REPS];
    unsigned reps = opts->reps < MAX_REPS ? opts->reps : MAX_REPS;
    for (unsigned r = 0; r < reps; r++) {
        if (stress_mops(algo, 1, &plain[r], err, err_len) != 0 ||
            stress_mops(algo, THROUGHPUT_KEYS, &keyed[r], err, err_len) != 0)
            return -1;
        ratio[r] = keyed[r] / plain[r];
    }
    snprintf(row->goal, sizeof row->goal, "keyed throughput %s, 2 threads, 10^5 keys", algo);
    snprintf(row->measured, sizeof row->measured,
             "attempts a second through the container, 10^5 uniform keys (stress, closed loop)");
    snprintf(row->floor, sizeof row->floor,
             "the same algorithm unkeyed: one shared limiter, 2 threads, in the same repetition");
    row->ratio = rl_median(ratio, reps);
    row->at_most = false;
    row->target = 0.5;
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
    if (cap < 2 * count) {
        snprintf(err, err_len, "room for %zu rows, the keyed goal needs %zu", cap, 2 * count);
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        if (memory_row(opts, algos[i], &rows[n++], err, err_len) != 0)
            return -1;
    for (size_t i = 0; i < count; i++)
        if (throughput_row(opts, algos[i], &rows[n++], err, err_len) != 0)
            return -1;
    return (int)n;
}

const struct rl_perf_goal rl_perf_keyed_goal = {
    "keyed",
    "bytes per key at 10^6 keys (vs the 8-byte state) and keyed/unkeyed throughput at 2 threads",
    measure};
