/* test_check_merge.c — several logs checked merged (check_merge.h) against
 * what they must equal: the logs concatenated in list order and checked
 * whole (rl_check sorts stably), key by key and field by field, whether
 * each log streams in order, through the reorder buffer or sorted in
 * memory; each log's own line against that log checked alone; and the skew
 * bounds against the truth: for clock offsets drawn within the skew, the
 * logs shifted by them and merged exactly lie between the certain and the
 * possible figures, for every key. */
#include "tests/support/test_util.h"
#include "harness/check/check_merge.h"
#include "harness/check/checker.h"
#include "harness/check/event_log.h"
#include "harness/check/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOGS   3
#define EVENTS 12000 /* 3 logs: 36000 events, past the merge's ring of 4 blocks of 8192 */

static char tmp_dir[64];

static const char *tmp_path(const char *name)
{
    static char paths[8][sizeof tmp_dir + 32];
    static int next;
    if (tmp_dir[0] == '\0') {
        strcpy(tmp_dir, "/tmp/ratelab-test-check-merge-XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp_dir));
    }
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", tmp_dir, name);
    return path;
}

static void remove_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
    EXPECT(system(cmd) == 0, "%s", cmd);
    tmp_dir[0] = '\0';
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One node's log: times rising by 0–20 ns from 100 (ties common), five
 * keys shared with the other logs, costs 1–3, about 70% admitted. */
struct node_log {
    uint64_t t[EVENTS];
    unsigned key[EVENTS], n[EVENTS], admitted[EVENTS];
};

static void make_log(struct node_log *l)
{
    uint64_t t = 100;
    for (int i = 0; i < EVENTS; i++) {
        t += next_random() % 21;
        l->t[i] = t;
        l->key[i] = (unsigned)(next_random() % 5);
        l->n[i] = 1 + (unsigned)(next_random() % 3);
        l->admitted[i] = next_random() % 10 < 7;
    }
}

/* Writes l, its times minus offset, in the order `order` gives (NULL: as
 * made), to f. */
static void write_lines(FILE *f, const struct node_log *l, int64_t offset, const int *order)
{
    for (int j = 0; j < EVENTS; j++) {
        int i = order ? order[j] : j;
        fprintf(f, "%llu,k%u,%u,%u,0\n", (unsigned long long)((int64_t)l->t[i] - offset), l->key[i],
                l->n[i], l->admitted[i]);
    }
}

static const char *write_log(const char *name, const struct node_log *l, int64_t offset,
                             const int *order)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n,admitted,thread\n", f);
    write_lines(f, l, offset, order);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    return path;
}

/* The key named name in a result whose names are names[0, count). */
static const struct rl_key_metrics *by_name(const struct rl_check_result *r, char *const *names,
                                            uint32_t count, const char *name,
                                            const struct rl_key_metrics *per_key)
{
    for (uint32_t k = 0; k < count && k < r->key_count; k++)
        if (strcmp(names[k], name) == 0)
            return &per_key[k];
    return NULL;
}

static void expect_same(const char *what, const char *key, const struct rl_key_metrics *got,
                        const struct rl_key_metrics *want)
{
    EXPECT_FATAL(got && want, "%s: key %s missing", what, key);
    EXPECT(memcmp(got, want, sizeof *got) == 0,
           "%s: key %s differs: admits %llu/%llu max_sliding %llu/%llu false_admits %llu/%llu "
           "false_rejects %llu/%llu strong_violations %llu/%llu",
           what, key, (unsigned long long)got->admits, (unsigned long long)want->admits,
           (unsigned long long)got->max_sliding, (unsigned long long)want->max_sliding,
           (unsigned long long)got->false_admits, (unsigned long long)want->false_admits,
           (unsigned long long)got->false_rejects, (unsigned long long)want->false_rejects,
           (unsigned long long)got->strong_violations, (unsigned long long)want->strong_violations);
}

static const struct rl_check_params params = {.limit = 5, .interval_ns = 100, .epoch_ns = 30};

/* The logs merged equal them concatenated and checked whole, with each log
 * in order, mildly out of order (the reorder buffer) and reversed (sorted
 * in memory); each log's line equals that log checked alone. */
static void test_merge_is_the_concatenation(void)
{
    static struct node_log logs[LOGS];
    static int swapped[EVENTS], reversed[EVENTS];
    for (int i = 0; i < LOGS; i++)
        make_log(&logs[i]);
    for (int i = 0; i < EVENTS; i++) {
        swapped[i] = i % 2 == 0 && i + 1 < EVENTS ? i + 1 : i % 2 ? i - 1 : i;
        reversed[i] = EVENTS - 1 - i;
    }
    const int *orders[LOGS] = {NULL, swapped, reversed};
    const char *paths[LOGS];
    char name[32];
    const char *whole = tmp_path("whole.csv");
    FILE *f = fopen(whole, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n,admitted,thread\n", f);
    for (int i = 0; i < LOGS; i++) {
        snprintf(name, sizeof name, "node-%d.csv", i);
        paths[i] = write_log(name, &logs[i], 0, orders[i]);
        write_lines(f, &logs[i], 0, orders[i]);
    }
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);

    char err[512];
    struct rl_event_log all;
    struct rl_check_result want;
    CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(whole, &all, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_check(&all, &params, &want, err, sizeof err), 0);

    struct rl_merged_check got;
    EXPECT_FATAL(rl_check_merged(paths, LOGS, &params, true, 4, 0, &got, err, sizeof err) ==
                     RL_CHECK_FILE_OK,
                 "%s", err);
    EXPECT(!got.logs[0].reordered && !got.logs[0].in_memory, "node-0 came in order");
    EXPECT(got.logs[1].reordered, "node-1 went through the reorder buffer");
    EXPECT(got.logs[2].in_memory, "node-2 was sorted in memory");
    EXPECT_EQ(got.events, (uint64_t)LOGS * EVENTS);
    EXPECT_EQ(got.result.key_count, want.key_count);
    for (uint32_t k = 0; k < want.key_count; k++) {
        const char *key = all.key_names[k];
        expect_same("merged", key,
                    by_name(&got.result, got.key_names, got.name_count, key, got.result.per_key),
                    &want.per_key[k]);
        /* skew 0: the bounds are the exact figures */
        expect_same("certain", key,
                    by_name(&got.result, got.key_names, got.name_count, key, got.certain),
                    &want.per_key[k]);
        expect_same("possible", key,
                    by_name(&got.result, got.key_names, got.name_count, key, got.possible),
                    &want.per_key[k]);
    }
    for (int i = 0; i < LOGS; i++) {
        struct rl_event_log one;
        struct rl_check_result alone;
        CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(paths[i], &one, err, sizeof err), 0);
        one.complete = false;
        CU_ASSERT_EQUAL_FATAL(rl_check(&one, &params, &alone, err, sizeof err), 0);
        expect_same("a log alone", "*", &got.logs[i].result.total, &alone.total);
        EXPECT_EQ(got.logs[i].events, EVENTS);
        rl_check_result_free(&alone);
        rl_event_log_free(&one);
    }
    rl_merged_check_free(&got);
    rl_check_result_free(&want);
    rl_event_log_free(&all);
    remove_tmp();
}

/* For offsets drawn within the skew (the extremes among them), the logs
 * shifted by them and merged exactly: every key's true maxima and
 * window_excess lie between the certain and the possible figures. */
static void test_skew_bounds_hold_every_shift(void)
{
    static struct node_log logs[LOGS];
    const uint64_t skew = 7;
    for (int i = 0; i < LOGS; i++)
        make_log(&logs[i]);
    const char *paths[LOGS];
    char name[32], err[512];
    for (int i = 0; i < LOGS; i++) {
        snprintf(name, sizeof name, "node-%d.csv", i);
        paths[i] = write_log(name, &logs[i], 0, NULL);
    }
    struct rl_merged_check bounds;
    EXPECT_FATAL(rl_check_merged(paths, LOGS, &params, true, 4, skew, &bounds, err, sizeof err) ==
                     RL_CHECK_FILE_OK,
                 "%s", err);
    int uncertain_gaps = 0;
    for (int trial = 0; trial < 40; trial++) {
        const char *shifted[LOGS];
        for (int i = 0; i < LOGS; i++) {
            int64_t offset = trial < 8 ? ((trial >> i) & 1 ? (int64_t)skew : -(int64_t)skew)
                                       : (int64_t)(next_random() % (2 * skew + 1)) - (int64_t)skew;
            snprintf(name, sizeof name, "shifted-%d.csv", i);
            shifted[i] = write_log(name, &logs[i], offset, NULL);
        }
        struct rl_merged_check truth;
        EXPECT_FATAL(rl_check_merged(shifted, LOGS, &params, true, 4, 0, &truth, err, sizeof err) ==
                         RL_CHECK_FILE_OK,
                     "%s", err);
        for (uint32_t k = 0; k < truth.name_count; k++) {
            const char *key = truth.key_names[k];
            const struct rl_key_metrics *t = &truth.result.per_key[k];
            const struct rl_key_metrics *lo =
                by_name(&bounds.result, bounds.key_names, bounds.name_count, key, bounds.certain);
            const struct rl_key_metrics *hi =
                by_name(&bounds.result, bounds.key_names, bounds.name_count, key, bounds.possible);
            EXPECT_FATAL(lo && hi, "key %s", key);
            EXPECT(lo->certain_max_sliding <= t->max_sliding && t->max_sliding <= hi->max_sliding,
                   "trial %d key %s: max_sliding %llu outside [%llu, %llu]", trial, key,
                   (unsigned long long)t->max_sliding, (unsigned long long)lo->certain_max_sliding,
                   (unsigned long long)hi->max_sliding);
            EXPECT(lo->certain_max_aligned <= t->max_aligned && t->max_aligned <= hi->max_aligned,
                   "trial %d key %s: max_aligned %llu outside [%llu, %llu]", trial, key,
                   (unsigned long long)t->max_aligned, (unsigned long long)lo->certain_max_aligned,
                   (unsigned long long)hi->max_aligned);
            EXPECT(lo->window_excess <= t->window_excess && t->window_excess <= hi->window_excess,
                   "trial %d key %s: window_excess %llu outside [%llu, %llu]", trial, key,
                   (unsigned long long)t->window_excess, (unsigned long long)lo->window_excess,
                   (unsigned long long)hi->window_excess);
            uncertain_gaps += lo->certain_max_sliding < hi->max_sliding;
        }
        rl_merged_check_free(&truth);
    }
    /* the bounds are not the exact figure in disguise: the skew widens them */
    EXPECT(uncertain_gaps > 0, "the certain and possible maxima never differ");
    rl_merged_check_free(&bounds);
    remove_tmp();
}

/* The verdict with bounds (verdict.h, possible): no when the certain
 * figure breaks the bound, yes when the possible one keeps it, uncertain
 * between; for each kind of promise on the figure it weighs. */
static void test_verdict_with_bounds(void)
{
    const struct rl_promised strong = {.kind = RL_BOUND_STRONG, .limit = 10};
    const struct rl_promised weak = {.kind = RL_BOUND_WEAK, .limit = 10};
    const struct rl_promised window = {.kind = RL_BOUND_WINDOW, .limit = 10};
    struct rl_key_metrics lo = {.certain_max_sliding = 10, .certain_max_aligned = 10};
    struct rl_key_metrics hi = {.max_sliding = 10, .max_aligned = 10};
    struct rl_run_facts run = {.checked = true, .m = &lo, .possible = &hi};
    EXPECT_EQ(rl_verdict(&strong, &run), RL_HELD_YES);
    hi.max_sliding = 11;
    EXPECT_EQ(rl_verdict(&strong, &run), RL_HELD_UNCERTAIN);
    EXPECT_EQ(rl_verdict(&weak, &run), RL_HELD_YES); /* weak weighs max_aligned */
    hi.max_aligned = 11;
    EXPECT_EQ(rl_verdict(&weak, &run), RL_HELD_UNCERTAIN);
    lo.certain_max_sliding = 11;
    EXPECT_EQ(rl_verdict(&strong, &run), RL_HELD_NO);
    EXPECT_EQ(rl_verdict(&window, &run), RL_HELD_YES); /* 11 <= 2L, both bounds */
    hi.window_excess = 1;
    EXPECT_EQ(rl_verdict(&window, &run), RL_HELD_UNCERTAIN);
    lo.window_excess = 1;
    EXPECT_EQ(rl_verdict(&window, &run), RL_HELD_NO);
    run.possible = NULL; /* without bounds, as every other run: certain figures alone */
    lo = (struct rl_key_metrics){.certain_max_sliding = 10};
    EXPECT_EQ(rl_verdict(&strong, &run), RL_HELD_YES);
}

RL_TEST_SUITE("check_merge",
              {"the verdict weighs the certain and possible bounds", test_verdict_with_bounds},
              {"merged = concatenated and sorted, in order or not",
               test_merge_is_the_concatenation},
              {"the skew's bounds hold for every shift", test_skew_bounds_hold_every_shift})
