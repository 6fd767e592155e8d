/* test_table.c — the stress and replay tables (harness/cli/table.c) and the
 * recorder-overhead lines (stress_print.c) on hand-made rows: the verdict's
 * own maximum and the admits it left out are shown, an uncertain run never
 * reads yes, every time carries its spread and run count, ratios within
 * the floor's noise are marked, and oversubscribed thread counts say so. */
#include "tests/support/test_util.h"
#include "harness/cli/stress_print.h"
#include "harness/cli/table.h"

#include <stdlib.h>
#include <string.h>

/* One stress row of algo at threads, rep, on 2 CPUs, L = 50 per 10 ms. */
static struct rl_result stress_row(const char *algo, unsigned threads, unsigned rep, double ns,
                                   double faa_ns)
{
    struct rl_result r = {.algo = rl_registry_find(algo),
                          .mode = "stress",
                          .workload = "closed_loop",
                          .clock = "monotonic",
                          .threads = threads,
                          .cpus = 2,
                          .rep = rep,
                          .ns_per_op = ns,
                          .mops = 1e3 / ns * threads,
                          .ratio_faa = ns / faa_ns,
                          .ratio_noop = __builtin_nan("")};
    r.cfg.limit = 50;
    r.cfg.interval_ns = 10000000;
    return r;
}

/* rows as rl_table_speed (and, with overhead, rl_print_recorder_overhead)
 * prints them; the caller frees. */
static char *printed(const struct rl_result *rows, size_t count, bool overhead)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL)
        return NULL;
    rl_table_speed(out, rows, count);
    if (overhead)
        rl_print_recorder_overhead(out, rows, count);
    fclose(out);
    return text;
}

/* The line of text that starts with name followed by a space. */
static const char *line_of(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *line = text; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, name, n) == 0 && line[n] == ' ')
            return line;
    return NULL;
}

/* The run: sliding_log at 2 threads, 3 reps, each with a recorded
 * twin whose plain maximum is above L (a late stamp) while the certain one
 * is L, and whose largest gap (5 ms) is half of I. */
static void test_verdict_columns(void)
{
    struct rl_result rows[12];
    size_t n = 0;
    for (unsigned rep = 1; rep <= 3; rep++) {
        rows[n++] = stress_row("faa", 2, rep, 10, 10);
        struct rl_result plain = stress_row("sliding_log", 2, rep, 70 + rep, 10);
        rows[n++] = plain;
        struct rl_result rec = plain;
        rec.checked = true;
        rec.ns_per_op = 90;
        rec.m.max_sliding = 51;
        rec.m.certain_max_sliding = 50;
        rec.m.max_aligned = rec.m.certain_max_aligned = 50;
        rec.m.uncertain_admits = rep;
        rec.uncertainty_ns = rep == 2 ? 5000000 : 2000;
        rows[n++] = rec;
        rows[n++] = stress_row("fw_aligned", 2, rep, 12 + rep, 10); /* unrecorded */
    }
    char *text = printed(rows, n, true);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    EXPECT(strstr(text, "certain/L") && strstr(text, "excluded") && strstr(text, "runs"),
           "columns missing: %s", text);
    const char *line = line_of(text, "sliding_log");
    EXPECT_FATAL(line != NULL, "no sliding_log line: %s", text);
    char algo[32], range[32], mops[32], mops_range[32], rej[16], faa[32], faa_range[32], held[16],
        uncert[16];
    unsigned threads, runs;
    unsigned long long excluded;
    double ns, sliding, certain, aligned;
    int got =
        sscanf(line, "%31s %u %u %lf %31s %31s %31s %15s %31s %31s %lf %lf %lf %llu %15s %15s",
               algo, &threads, &runs, &ns, range, mops, mops_range, rej, faa, faa_range, &sliding,
               &certain, &aligned, &excluded, held, uncert);
    EXPECT_FATAL(got == 16, "parsed %d fields of: %.200s", got, line);
    EXPECT_EQ(runs, 3); /* the unrecorded runs are the timed ones */
    EXPECT(strcmp(range, "(71.0-73.0)") == 0, "ns/op range %s", range);
    EXPECT(mops_range[0] == '(' && strchr(mops_range, '-'), "Mops/s without range: %s", mops);
    EXPECT(faa_range[0] == '(' && faa[strlen(faa) - 1] != '~', "x faa %s %s", faa, faa_range);
    EXPECT(sliding > 1.0 && certain == 1.0, "sliding/L %.3f certain/L %.3f", sliding, certain);
    EXPECT_EQ(excluded, 3); /* the largest over the recorded reps */
    EXPECT(strcmp(held, "uncertain") == 0, "held '%s' with a gap of I/2", held);
    EXPECT(strcmp(uncert, "5.000ms") == 0, "uncert %s", uncert);
    /* fw_aligned's 13-15 ns meets faa's 10 ns? No: its ratio is not marked.
     * faa itself, the floor, is never marked. */
    const char *fa = line_of(text, "fw_aligned");
    EXPECT_FATAL(fa != NULL, "no fw_aligned line");
    const char *floor = line_of(text, "faa");
    EXPECT(floor && memchr(floor, '~', strcspn(floor, "\n")) == NULL, "faa marked against itself");
    EXPECT(memchr(fa, '~', strcspn(fa, "\n")) == NULL, "fw_aligned marked: %.200s", fa);
    EXPECT(strstr(text, "~ after the median") != NULL, "no legend for ~");
    EXPECT(strstr(text, "oversubscribed") == NULL, "2 threads on 2 CPUs called oversubscribed");
    /* the recorder-overhead lines: median (min-max) and the pairs */
    const char *over = strstr(text, "\n  sliding_log");
    EXPECT_FATAL(over != NULL, "no overhead line: %s", text);
    double median, lo, hi;
    unsigned pairs;
    EXPECT(sscanf(over, " sliding_log x2 %lf (%lf-%lf) %u", &median, &lo, &hi, &pairs) == 4 &&
               pairs == 3 && lo <= median && median <= hi,
           "overhead line: %.80s", over + 1);
    free(text);

    /* Overlapping ranges: fw_aligned 10-12 ns against faa's 10 ns is within
     * noise, and marked; 2 threads are still not oversubscribed. */
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].algo->name, "fw_aligned") == 0)
            rows[i].ns_per_op = 9 + rows[i].rep, rows[i].ratio_faa = rows[i].ns_per_op / 10;
    text = printed(rows, n, false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    fa = line_of(text, "fw_aligned");
    EXPECT(fa && memchr(fa, '~', strcspn(fa, "\n")) != NULL, "fw_aligned not marked: %s", text);
    free(text);
}

/* Small gaps: yes; a thread count above the CPUs is marked and explained;
 * a ratio of single runs is marked as of unknown noise. */
static void test_yes_and_oversubscribed(void)
{
    struct rl_result rows[2] = {stress_row("faa", 4, 1, 10, 10),
                                stress_row("sliding_log", 4, 1, 70, 10)};
    rows[1].checked = true;
    rows[1].m.max_sliding = rows[1].m.certain_max_sliding = 50;
    rows[1].m.max_aligned = rows[1].m.certain_max_aligned = 50;
    rows[1].uncertainty_ns = 1000000; /* I/10: not above it */
    char *text = printed(rows, 2, false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *line = line_of(text, "sliding_log");
    EXPECT_FATAL(line != NULL, "no line: %s", text);
    EXPECT(strstr(line, "  4! ") != NULL, "4 threads on 2 CPUs unmarked: %.120s", line);
    EXPECT(strstr(line, " yes ") != NULL, "held not yes: %.200s", line);
    EXPECT(strstr(line, " 7.00? (") != NULL,
           "one run each: the ratio's noise not marked unknown: "
           "%.200s",
           line);
    EXPECT(strstr(text, "more threads than the 2 CPUs: oversubscribed, not a scaling point") !=
               NULL,
           "no oversubscription legend: %s", text);
    free(text);
}

RL_TEST_SUITE("table", {"the verdict's maximum, excluded admits, spreads", test_verdict_columns},
              {"yes with small gaps; oversubscription marked", test_yes_and_oversubscribed})
