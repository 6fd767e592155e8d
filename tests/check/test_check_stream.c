/* test_check_stream.c — the streaming checker against the checker as it
 * was (check_before.c), field by field: the core fed from memory (rl_check)
 * and fed in pieces, and a file streamed through rl_check_file, on random
 * logs sorted and mildly unsorted, with many keys, costs above 1, ties,
 * certainty gaps and epochs; the reorder buffer's exact promise; memory that
 * stays flat as a log grows; and the reader's errors, which are the
 * whole-file reader's, wherever in the file the bad line is. */
#include "tests/support/check_before.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "harness/check/check_file.h"
#include "harness/check/checker.h"
#include "harness/check/event_log.h"
#include "harness/check/event_reader.h"
#include "harness/check/event_reorder.h"
#include "harness/io/key_table.h"
#include "tests/support/random_trace.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEN(a) (sizeof(a) / sizeof(a)[0])

static char tmp_dir[64];

static const char *tmp_path(const char *name)
{
    static char path[sizeof tmp_dir + 64];
    if (tmp_dir[0] == '\0') {
        strcpy(tmp_dir, "/tmp/ratelab-test-check-stream-XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp_dir));
    }
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

static void remove_tmp(const char *name)
{
    unlink(tmp_path(name));
    if (rmdir(tmp_dir) == 0)
        tmp_dir[0] = '\0';
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

/* ---- comparing results -------------------------------------------------- */

static void expect_same_metrics(const char *what, uint32_t key, const struct rl_key_metrics *got,
                                const struct rl_key_metrics *want)
{
#define SAME(field)                                                                                \
    EXPECT(got->field == want->field, "%s, key %u: " #field " is %llu, before %llu", what, key,    \
           (unsigned long long)got->field, (unsigned long long)want->field)
    SAME(attempts);
    SAME(admits);
    SAME(rejects);
    SAME(attempted_cost);
    SAME(admitted_cost);
    SAME(max_sliding);
    SAME(max_aligned);
    SAME(strong_excess);
    SAME(strong_violations);
    SAME(weak_excess);
    SAME(window_excess);
    SAME(certain_max_sliding);
    SAME(certain_max_aligned);
    SAME(false_admits);
    SAME(false_rejects);
    SAME(weak_false_admits);
    SAME(weak_false_rejects);
    SAME(oracle_admitted_cost);
#undef SAME
}

static void expect_same_result(const char *what, const struct rl_check_result *got,
                               const struct rl_check_result *want)
{
    EXPECT(got->key_count == want->key_count, "%s: %u keys, before %u", what, got->key_count,
           want->key_count);
    EXPECT(got->worst_key == want->worst_key, "%s: worst key %u, before %u", what, got->worst_key,
           want->worst_key);
    EXPECT(got->complete == want->complete, "%s: complete differs", what);
    expect_same_metrics(what, UINT32_MAX, &got->total, &want->total);
    for (uint32_t k = 0; k < got->key_count && k < want->key_count; k++)
        expect_same_metrics(what, k, &got->per_key[k], &want->per_key[k]);
}

/* ---- random logs -------------------------------------------------------- */

struct shape {
    size_t len;
    uint32_t keys;
    uint64_t max_step; /* time between events: 0 .. max_step (0: ties) */
    uint32_t max_cost;
    unsigned admit_pct;
    bool gaps; /* certainty gaps, as a recorded stress run has */
};

static struct rl_event_log random_log(uint64_t *seed, const struct shape *s)
{
    struct rl_event_log log = {.complete = true};
    uint64_t t = rl_test_xorshift64(seed) % 1000;
    for (size_t i = 0; i < s->len; i++) {
        t += rl_test_xorshift64(seed) % (s->max_step + 1);
        struct rl_event e = {.t_ns = t,
                             .key = (uint32_t)(rl_test_xorshift64(seed) % s->keys),
                             .n = 1 + (uint32_t)(rl_test_xorshift64(seed) % s->max_cost),
                             .admitted = rl_test_xorshift64(seed) % 100 < s->admit_pct,
                             .thread = (uint16_t)(i % 3)};
        if (s->gaps && rl_test_xorshift64(seed) % 3 == 0)
            e.gap_ns = (uint32_t)(rl_test_xorshift64(seed) % (4 * s->max_step + 3));
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
    }
    return log;
}

static struct rl_event_log copy_log(const struct rl_event_log *log)
{
    struct rl_event_log copy = *log;
    copy.key_names = NULL;
    copy.events = malloc((log->len ? log->len : 1) * sizeof *copy.events);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy.events);
    memcpy(copy.events, log->events, log->len * sizeof *copy.events);
    copy.cap = log->len;
    return copy;
}

/* Moves each event from `from` on at most `by` places later (a stable sort
 * on i + a random 0..by), as a log written by threads that stamp, then
 * write. */
static void displace_from(struct rl_event_log *log, size_t from, uint64_t *seed, size_t by)
{
    size_t len = log->len - from;
    uint64_t *rank = malloc((len ? len : 1) * sizeof *rank);
    struct rl_event *moved = malloc((len ? len : 1) * sizeof *moved);
    CU_ASSERT_FATAL(rank != NULL && moved != NULL);
    for (size_t i = 0; i < len; i++)
        rank[i] = (i + rl_test_xorshift64(seed) % (by + 1)) << 32 | i;
    /* insertion sort: ranks are nearly in order */
    for (size_t i = 1; i < len; i++) {
        uint64_t r = rank[i];
        size_t j = i;
        for (; j > 0 && rank[j - 1] > r; j--)
            rank[j] = rank[j - 1];
        rank[j] = r;
    }
    for (size_t i = 0; i < len; i++)
        moved[i] = log->events[from + (rank[i] & 0xFFFFFFFFu)];
    memcpy(log->events + from, moved, len * sizeof *moved);
    free(rank);
    free(moved);
}

static void displace(struct rl_event_log *log, uint64_t *seed, size_t by)
{
    displace_from(log, 0, seed, by);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The reorder buffer's measure of disorder: the most events that come
 * before one event (in file order) with a later time. A Fenwick tree over
 * the ranks of the times counts the earlier events at or before each. */
static size_t disorder(const struct rl_event_log *log)
{
    size_t len = log->len, most = 0;
    uint64_t *times = malloc((len + 1) * sizeof *times);
    size_t *tree = calloc(len + 1, sizeof *tree);
    CU_ASSERT_FATAL(times != NULL && tree != NULL);
    for (size_t i = 0; i < len; i++)
        times[i] = log->events[i].t_ns;
    qsort(times, len, sizeof *times, compare_u64);
    for (size_t j = 0; j < len; j++) {
        /* rank: how many times are at or before t_j (1-based) */
        size_t lo = 0, hi = len;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (times[mid] <= log->events[j].t_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t at_or_before = 0;
        for (size_t r = lo; r > 0; r -= r & (0 - r))
            at_or_before += tree[r];
        size_t later = j - at_or_before;
        most = later > most ? later : most;
        for (size_t r = lo; r <= len; r += r & (0 - r))
            tree[r]++;
    }
    free(times);
    free(tree);
    return most;
}

static const struct shape shapes[] = {
    {2000, 1, 5, 1, 60, false}, {2000, 3, 4, 3, 70, false},    {3000, 40, 3, 2, 50, false},
    {3000, 7, 0, 2, 80, false}, {1500, 2, 6, 2, 90, true},     {2500, 300, 2, 4, 40, false},
    {4000, 5, 50, 1, 95, true}, {1000, 1000, 9, 1, 50, false}, {2000, 2, 1, 5, 30, true},
};

static struct rl_check_params random_params(uint64_t *seed)
{
    return (struct rl_check_params){
        .limit = 1 + rl_test_xorshift64(seed) % 9,
        .interval_ns = 1 + rl_test_xorshift64(seed) % 300,
        .epoch_ns = rl_test_xorshift64(seed) % 4 == 0 ? 0 : rl_test_xorshift64(seed) % 3000};
}

/* rl_check (the core fed from memory) and the core fed in pieces of random
 * size give the old checker's numbers; sorted and shuffled logs, complete
 * and admits only, with and without gaps. */
static void test_memory_path_matches_before(void)
{
    uint64_t seed = 0x51ED270B27A3C4F1ull;
    char what[128], err[256];
    for (int round = 0; round < 120; round++) {
        const struct shape *s = &shapes[round % LEN(shapes)];
        struct rl_event_log log = random_log(&seed, s);
        log.complete = round % 4 != 3;
        if (round % 5 == 1)
            displace(&log, &seed, 1 + rl_test_xorshift64(&seed) % 50);
        struct rl_check_params params = random_params(&seed);
        snprintf(what, sizeof what, "round %d (%zu events, %u keys, L %llu, I %llu, epoch %llu)",
                 round, s->len, s->keys, (unsigned long long)params.limit,
                 (unsigned long long)params.interval_ns, (unsigned long long)params.epoch_ns);
        struct rl_event_log before_log = copy_log(&log);
        struct rl_check_result before, now, pieces;
        EXPECT_FATAL(rl_check_before(&before_log, &params, &before, err, sizeof err) == 0, "%s",
                     err);
        EXPECT_FATAL(rl_check(&log, &params, &now, err, sizeof err) == 0, "%s", err);
        expect_same_result(what, &now, &before);

        /* the log is sorted now: the same events in pieces of 0..99 */
        struct rl_checker *c = rl_checker_new(&params, log.complete, err, sizeof err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        for (size_t at = 0; at < log.len;) {
            size_t piece = rl_test_xorshift64(&seed) % 100;
            piece = piece < log.len - at ? piece : log.len - at;
            EXPECT_FATAL(rl_checker_add(c, log.events + at, piece, err, sizeof err) == 0, "%s",
                         err);
            at += piece;
        }
        EXPECT_FATAL(rl_checker_finish(c, log.key_count, &pieces, err, sizeof err) == 0, "%s", err);
        rl_checker_free(c);
        expect_same_result(what, &pieces, &before);
        rl_check_result_free(&before);
        rl_check_result_free(&now);
        rl_check_result_free(&pieces);
        rl_event_log_free(&before_log);
        rl_event_log_free(&log);
    }
}

/* Keys beyond the events (named, never seen) and a large, busy log: 10^6
 * events over 10^4 keys with windows that hold hundreds of events. */
static void test_memory_path_large(void)
{
    uint64_t seed = 77;
    char err[256];
    const struct shape s = {1000000, 10000, 40, 3, 55, true};
    struct rl_event_log log = random_log(&seed, &s);
    log.key_count = 10003;
    struct rl_event_log before_log = copy_log(&log);
    const struct rl_check_params params = {.limit = 20, .interval_ns = 2000000, .epoch_ns = 999};
    struct rl_check_result before, now;
    EXPECT_FATAL(rl_check_before(&before_log, &params, &before, err, sizeof err) == 0, "%s", err);
    EXPECT_FATAL(rl_check(&log, &params, &now, err, sizeof err) == 0, "%s", err);
    CU_ASSERT_EQUAL(now.key_count, 10003);
    expect_same_result("10^6 events, 10^4 keys", &now, &before);
    rl_check_result_free(&before);
    rl_check_result_free(&now);
    rl_event_log_free(&before_log);
    rl_event_log_free(&log);
}

/* The core refuses an event earlier than the one before, with one line. */
static void test_core_refuses_disorder(void)
{
    char err[256] = "";
    const struct rl_check_params params = {.limit = 1, .interval_ns = 10};
    struct rl_checker *c = rl_checker_new(&params, true, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const struct rl_event ev[] = {{.t_ns = 5, .n = 1, .admitted = 1},
                                  {.t_ns = 4, .n = 1, .admitted = 1}};
    CU_ASSERT_EQUAL(rl_checker_add(c, ev, 1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_checker_add(c, ev + 1, 1, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "time order"));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
    rl_checker_free(c);
    CU_ASSERT_PTR_NULL(rl_checker_new(&(struct rl_check_params){0, 10, 0}, true, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "limit must be at least 1"));
}

/* ---- the reorder buffer ------------------------------------------------- */

/* Out comes the stable sort, exactly when no event has more than depth
 * events before it with a later time; otherwise the first such event is
 * refused, and what was given out before it is in order, stably. */
static void test_reorder_promise(void)
{
    uint64_t seed = 0xC0FFEEull;
    for (int round = 0; round < 300; round++) {
        const struct shape s = {
            200 + rl_test_xorshift64(&seed) % 800, 4, rl_test_xorshift64(&seed) % 4, 1, 50, false};
        struct rl_event_log log = random_log(&seed, &s);
        displace(&log, &seed, rl_test_xorshift64(&seed) % 40);
        for (size_t i = 0; i < log.len; i++)
            log.events[i].thread = (uint16_t)i; /* arrival order, to check stability */
        size_t depth = rl_test_xorshift64(&seed) % 48;
        size_t worst = disorder(&log);
        struct rl_event_log want = copy_log(&log);
        rl_event_log_sort(&want);
        struct rl_reorder r;
        CU_ASSERT_EQUAL_FATAL(rl_reorder_init(&r, depth), 0);
        struct rl_event *out = malloc(log.len * sizeof *out);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        size_t len = 0;
        bool refused = false;
        for (size_t i = 0; i < log.len && !refused; i++) {
            int got = rl_reorder_push(&r, &log.events[i], &out[len]);
            refused = got < 0;
            len += got > 0;
        }
        while (!refused && rl_reorder_pop(&r, &out[len]) == 1)
            len++;
        EXPECT(refused == (worst > depth), "round %d: disorder %zu, depth %zu, refused %d", round,
               worst, depth, refused);
        if (!refused) {
            EXPECT_EQ(len, log.len);
            for (size_t i = 0; i < len; i++)
                EXPECT(out[i].thread == want.events[i].thread,
                       "round %d: out %zu is arrival %u, want %u", round, i, out[i].thread,
                       want.events[i].thread);
        }
        for (size_t i = 1; i < len; i++)
            EXPECT(out[i - 1].t_ns < out[i].t_ns ||
                       (out[i - 1].t_ns == out[i].t_ns && out[i - 1].thread < out[i].thread),
                   "round %d: out %zu (t %llu, arrival %u) after (t %llu, arrival %u)", round, i,
                   (unsigned long long)out[i].t_ns, out[i].thread,
                   (unsigned long long)out[i - 1].t_ns, out[i - 1].thread);
        free(out);
        rl_reorder_free(&r);
        rl_event_log_free(&want);
        rl_event_log_free(&log);
    }
}

/* ---- files -------------------------------------------------------------- */

/* A file streamed through rl_check_file gives the old checker's numbers
 * on the same file read whole; it streams (in_memory false) exactly when
 * the file's disorder is within the depth, and otherwise falls back to
 * memory with a line naming the first late line. */
static void test_file_matches_before(void)
{
    uint64_t seed = 0xF11E5ull;
    char what[160], err[512];
    const char *path = tmp_path("log.csv");
    for (int round = 0; round < 60; round++) {
        const struct shape *s = &shapes[round % LEN(shapes)];
        struct shape no_gaps = *s;
        no_gaps.gaps = false; /* a CSV has no gap column */
        struct rl_event_log log = random_log(&seed, &no_gaps);
        size_t by = round % 3 == 0 ? 0 : rl_test_xorshift64(&seed) % 30;
        displace(&log, &seed, by);
        size_t worst = disorder(&log);
        size_t depth = round % 4 == 0 ? worst : rl_test_xorshift64(&seed) % 40;
        CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0);
        bool complete = round % 5 != 4;
        struct rl_check_params params = random_params(&seed);
        snprintf(what, sizeof what, "round %d (disorder %zu, depth %zu, %u keys)", round, worst,
                 depth, s->keys);

        struct rl_event_log whole;
        EXPECT_FATAL(rl_event_log_read_csv(path, &whole, err, sizeof err) == 0, "%s", err);
        whole.complete = complete;
        struct rl_check_result before, before_original;
        EXPECT_FATAL(rl_check_before(&whole, &params, &before, err, sizeof err) == 0, "%s", err);
        log.complete = complete;
        EXPECT_FATAL(rl_check_before(&log, &params, &before_original, err, sizeof err) == 0, "%s",
                     err);

        struct rl_checked_file f;
        EXPECT_FATAL(rl_check_file(path, &params, complete, depth, &f, err, sizeof err) ==
                         RL_CHECK_FILE_OK,
                     "%s: %s", what, err);
        expect_same_result(what, &f.result, &before);
        expect_same_metrics(what, UINT32_MAX, &f.result.total, &before_original.total);
        EXPECT(f.in_memory == (worst > depth), "%s: in memory %d", what, f.in_memory);
        if (f.in_memory)
            EXPECT(strstr(f.why, "out of time order") != NULL, "%s: why '%s'", what, f.why);
        EXPECT_EQ(f.events, log.len);
        EXPECT_EQ(f.key_count, whole.key_count);
        for (uint32_t k = 0; k < f.key_count && k < whole.key_count; k++)
            EXPECT(strcmp(f.key_names[k], whole.key_names[k]) == 0, "%s: key %u is %s, want %s",
                   what, k, f.key_names[k], whole.key_names[k]);
        rl_checked_file_free(&f);
        rl_check_result_free(&before);
        rl_check_result_free(&before_original);
        rl_event_log_free(&whole);
        rl_event_log_free(&log);
    }
    remove_tmp("log.csv");
}

/* Logs of many blocks (8192 lines each) that run in order for 40000
 * lines, then go out of order: the blocks held so far are poured into the
 * reorder buffer and the numbers are still the old checker's. */
static void test_file_out_of_order_late(void)
{
    uint64_t seed = 0xB10C5ull;
    char what[160], err[512];
    const char *path = tmp_path("late.csv");
    static const size_t depths[] = {0, 1, 100, 5000, 8192, 20000, 65536};
    static const size_t bys[] = {0, 1, 50, 3000, 30000};
    for (size_t d = 0; d < LEN(depths); d++)
        for (size_t b = 0; b < LEN(bys); b++) {
            const struct shape s = {60000, 30, 20, 2, 60, false};
            struct rl_event_log log = random_log(&seed, &s);
            displace_from(&log, 40000, &seed, bys[b]);
            size_t worst = disorder(&log);
            CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0);
            const struct rl_check_params params = {.limit = 7, .interval_ns = 2000, .epoch_ns = 3};
            snprintf(what, sizeof what, "depth %zu, displaced by %zu (disorder %zu)", depths[d],
                     bys[b], worst);
            struct rl_event_log whole;
            EXPECT_FATAL(rl_event_log_read_csv(path, &whole, err, sizeof err) == 0, "%s", err);
            struct rl_check_result before;
            EXPECT_FATAL(rl_check_before(&whole, &params, &before, err, sizeof err) == 0, "%s",
                         err);
            struct rl_checked_file f;
            EXPECT_FATAL(rl_check_file(path, &params, true, depths[d], &f, err, sizeof err) ==
                             RL_CHECK_FILE_OK,
                         "%s: %s", what, err);
            expect_same_result(what, &f.result, &before);
            EXPECT(f.in_memory == (worst > depths[d]), "%s: in memory %d", what, f.in_memory);
            rl_checked_file_free(&f);
            rl_check_result_free(&before);
            rl_event_log_free(&whole);
            rl_event_log_free(&log);
        }
    remove_tmp("late.csv");
}

/* 300000 keys, short and long, through the reader's own table as it grows
 * (from 4096 slots) and the key table: every key named as the whole-file
 * reader names it, and the old checker's numbers. */
static void test_file_many_keys(void)
{
    char err[512];
    const char *path = tmp_path("keys.csv");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n,admitted\n", f);
    uint64_t seed = 4242;
    for (size_t i = 0; i < 600000; i++) {
        uint64_t k = rl_test_xorshift64(&seed) % 300000;
        /* lengths 1 to 24 bytes: both sides of the 8- and 16-byte words */
        fprintf(f, "%zu,%.*s%llu,1,%d\n", i * 3, (int)(k % 17), "abcdefghijklmnopq",
                (unsigned long long)k, (int)(i % 3 != 0));
    }
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    struct rl_event_log whole;
    EXPECT_FATAL(rl_event_log_read_csv(path, &whole, err, sizeof err) == 0, "%s", err);
    const struct rl_check_params params = {.limit = 1, .interval_ns = 5000};
    struct rl_check_result before;
    EXPECT_FATAL(rl_check_before(&whole, &params, &before, err, sizeof err) == 0, "%s", err);
    struct rl_checked_file streamed;
    EXPECT_FATAL(rl_check_file(path, &params, true, 1000, &streamed, err, sizeof err) ==
                     RL_CHECK_FILE_OK,
                 "%s", err);
    expect_same_result("300000 keys", &streamed.result, &before);
    EXPECT_EQ(streamed.key_count, whole.key_count);
    CU_ASSERT(whole.key_count > 250000);
    for (uint32_t k = 0; k < streamed.key_count && k < whole.key_count; k++)
        if (strcmp(streamed.key_names[k], whole.key_names[k]) != 0) {
            EXPECT(false, "key %u is %s, want %s", k, streamed.key_names[k], whole.key_names[k]);
            break;
        }
    /* and each line's key, against the line itself */
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[128];
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
    for (size_t i = 0; i < whole.len && fgets(line, sizeof line, f); i++) {
        char *key = strchr(line, ',') + 1;
        *strchr(key, ',') = '\0';
        if (strcmp(whole.key_names[whole.events[i].key], key) != 0) {
            EXPECT(false, "line %zu: key %s, read as %s", i + 2, key,
                   whole.key_names[whole.events[i].key]);
            break;
        }
    }
    fclose(f);
    rl_checked_file_free(&streamed);
    rl_check_result_free(&before);
    rl_event_log_free(&whole);
    remove_tmp("keys.csv");
}

/* Writes `lines` decisions of `keys` keys, each key attempting every
 * `every` ns and admitted two times in three: a log as long as asked whose
 * windows hold the same number of events all along. */
static void write_steady_log(const char *path, size_t lines, uint32_t keys, uint64_t every)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("t_ns,key,n,admitted,thread\n", f);
    for (size_t i = 0; i < lines; i++)
        fprintf(f, "%zu,key%zu,1,%d,0\n", i * every / keys, i % keys, i % 3 != 0);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
}

/* The checker's memory is bounded by the keys and their windows: the core
 * holds the same bytes after 2·10^6 events as after 2·10^5 of the same
 * steady log, and a file ten times longer streams with the same peak. */
static void test_memory_is_bounded(void)
{
    char err[256];
    const struct rl_check_params params = {.limit = 30, .interval_ns = 1000000};
    struct rl_checker *c = rl_checker_new(&params, true, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    size_t at_tenth = 0;
    struct rl_event block[1000];
    for (size_t i = 0; i < 2000000; i += LEN(block)) {
        for (size_t j = 0; j < LEN(block); j++) /* 100 keys, each every 20 µs */
            block[j] = (struct rl_event){.t_ns = (i + j) * 200,
                                         .key = (uint32_t)((i + j) % 100),
                                         .n = 1,
                                         .admitted = (i + j) % 3 != 0};
        CU_ASSERT_EQUAL_FATAL(rl_checker_add(c, block, LEN(block), err, sizeof err), 0);
        if (i + LEN(block) == 200000)
            at_tenth = rl_checker_bytes(c);
    }
    size_t at_end = rl_checker_bytes(c);
    EXPECT(at_end == at_tenth && at_end < 1000000,
           "%zu bytes after 2*10^5 events, %zu after 2*10^6", at_tenth, at_end);
    rl_checker_free(c);

    struct rl_checked_file small, large;
    write_steady_log(tmp_path("small.csv"), 100000, 50, 10000);
    write_steady_log(tmp_path("large.csv"), 1000000, 50, 10000);
    const struct rl_check_params file_params = {.limit = 30, .interval_ns = 10000000};
    CU_ASSERT_EQUAL_FATAL(
        rl_check_file(tmp_path("small.csv"), &file_params, true, 1000, &small, err, sizeof err),
        RL_CHECK_FILE_OK);
    CU_ASSERT_EQUAL_FATAL(
        rl_check_file(tmp_path("large.csv"), &file_params, true, 1000, &large, err, sizeof err),
        RL_CHECK_FILE_OK);
    EXPECT_EQ(large.events, 1000000);
    CU_ASSERT(!large.in_memory);
    EXPECT(large.peak_bytes == small.peak_bytes && large.peak_bytes > 0,
           "peak %zu bytes at 10^5 lines, %zu at 10^6", small.peak_bytes, large.peak_bytes);
    rl_checked_file_free(&small);
    rl_checked_file_free(&large);
    remove_tmp("small.csv");
    remove_tmp("large.csv");
}

/* ---- bad and awkward input ---------------------------------------------- */

/* Both readers on text: the same verdict, the same error line, and when
 * it is good, the same numbers. */
static void expect_readers_agree(const char *what, const char *text, size_t len)
{
    const char *path = tmp_path("input.csv");
    write_text(path, text, len);
    char whole_err[512] = "", stream_err[512] = "";
    struct rl_event_log whole;
    int whole_rc = rl_event_log_read_csv(path, &whole, whole_err, sizeof whole_err);
    const struct rl_check_params params = {.limit = 3, .interval_ns = 100};
    struct rl_checked_file f;
    enum rl_check_file_status status =
        rl_check_file(path, &params, true, 16, &f, stream_err, sizeof stream_err);
    EXPECT((whole_rc == 0) == (status == RL_CHECK_FILE_OK), "%s: whole file %d, streamed %d (%s)",
           what, whole_rc, (int)status, stream_err);
    if (whole_rc != 0) {
        EXPECT(status == RL_CHECK_FILE_BAD_INPUT, "%s: status %d", what, (int)status);
        EXPECT(strcmp(whole_err, stream_err) == 0, "%s: streamed '%s', whole '%s'", what,
               stream_err, whole_err);
        CU_ASSERT_PTR_NULL(strchr(stream_err, '\n'));
    } else if (status == RL_CHECK_FILE_OK) {
        struct rl_check_result before;
        char err[256];
        EXPECT_FATAL(rl_check_before(&whole, &params, &before, err, sizeof err) == 0, "%s", err);
        expect_same_result(what, &f.result, &before);
        EXPECT_EQ(f.events, whole.len);
        rl_check_result_free(&before);
        rl_event_log_free(&whole);
    }
    rl_checked_file_free(&f);
    remove_tmp("input.csv");
}

/* A text of many good lines (about `bytes` of them) with `tail` after. */
static char *long_text(size_t bytes, const char *tail, size_t *len)
{
    size_t cap = bytes + strlen(tail) + 64;
    char *text = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t n = (size_t)sprintf(text, "t_ns,key,n,admitted,thread\n");
    for (size_t i = 0; n + 40 < bytes; i++)
        n += (size_t)sprintf(text + n, "%zu,key%zu,%zu,%d,%zu\n", i * 7, i % 13, 1 + i % 2,
                             i % 4 != 0, i % 5);
    n += (size_t)sprintf(text + n, "%s", tail);
    *len = n;
    return text;
}

static void test_readers_agree_on_bad_input(void)
{
    static const struct {
        const char *what, *text;
    } cases[] = {
        {"empty", ""},
        {"bom only", "\xEF\xBB\xBF"},
        {"header only", "t_ns,key,n,admitted,thread\n"},
        {"bad header", "t_ns,key,n\n1,a,1\n"},
        {"header without newline", "t_ns,key,n,admitted"},
        {"bom, crlf, no last newline", "\xEF\xBB\xBFt_ns,key,n,admitted\r\n1,a,1,1\r\n2,b,2,0"},
        {"four fields among five", "t_ns,key,n,admitted,thread\n1,a,1,1,0\n2,a,1,1\n"},
        {"empty line", "t_ns,key,n,admitted,thread\n1,a,1,1,0\n\n2,a,1,1,0\n"},
        {"20-digit time", "t_ns,key,n,admitted,thread\n00000000000000000005,a,1,1,0\n"},
        {"time too large", "t_ns,key,n,admitted,thread\n18446744073709551616,a,1,1,0\n"},
        {"largest time", "t_ns,key,n,admitted,thread\n18446744073709551615,a,1,1,0\n"},
        {"n zero", "t_ns,key,n,admitted,thread\n1,a,0,1,0\n"},
        {"n too large", "t_ns,key,n,admitted,thread\n1,a,4294967296,1,0\n"},
        {"n largest", "t_ns,key,n,admitted,thread\n1,a,4294967295,1,0\n"},
        {"admitted 2", "t_ns,key,n,admitted,thread\n1,a,1,2,0\n"},
        {"thread too large", "t_ns,key,n,admitted,thread\n1,a,1,1,65536\n"},
        {"tab in key", "t_ns,key,n,admitted,thread\n1,a\tb,1,1,0\n"},
        {"escape in key", "t_ns,key,n,admitted,thread\n1,a\x1b[31m,1,1,0\n"},
        {"cr in key", "t_ns,key,n,admitted,thread\n1,a\rb,1,1,0\n"},
        {"double cr", "t_ns,key,n,admitted,thread\n1,a,1,1,0\r\r\n"},
        {"utf-8 key", "t_ns,key,n,admitted\n1,caf\xC3\xA9,1,1\n2,caf\xC3\xA9,1,1\n"},
        {"space before time", "t_ns,key,n,admitted,thread\n 1,a,1,1,0\n"},
        {"unsorted", "t_ns,key,n,admitted\n9,a,1,1\n3,b,2,0\n7,a,1,1\n3,a,1,1\n"},
    };
    char what[96];
    for (size_t i = 0; i < LEN(cases); i++)
        expect_readers_agree(cases[i].what, cases[i].text, strlen(cases[i].text));
    /* a NUL byte in a key */
    static const char nul[] = "t_ns,key,n,admitted,thread\n1,a\0b,1,1,0\n";
    expect_readers_agree("nul in key", nul, sizeof nul - 1);
    /* past the first read (1 MiB): the line number is still right */
    static const char *const tails[] = {"", "5,a,x,1,0\n", "99,a,1,1,0", "99,a,1,1\n",
                                        "3,late,1,1,0\n"};
    for (size_t i = 0; i < LEN(tails); i++) {
        size_t len;
        char *text = long_text(3 << 20, tails[i], &len);
        snprintf(what, sizeof what, "3 MiB then '%s'", tails[i]);
        expect_readers_agree(what, text, len);
        free(text);
    }
    /* a key of 3 MiB: longer than the read buffer */
    size_t len;
    char *text = long_text(1000, "", &len);
    text = realloc(text, len + (3 << 20) + 32);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    len += (size_t)sprintf(text + len, "9000,");
    memset(text + len, 'k', 3 << 20);
    len += 3 << 20;
    len += (size_t)sprintf(text + len, ",1,1,0\n9001,a,1,1,0\n");
    expect_readers_agree("3 MiB key", text, len);
    free(text);

    /* neither a file nor a folder can be checked that is not there */
    char err[512];
    struct rl_checked_file f;
    const struct rl_check_params params = {.limit = 3, .interval_ns = 100};
    CU_ASSERT_EQUAL(rl_check_file("/nonexistent/log.csv", &params, true, 16, &f, err, sizeof err),
                    RL_CHECK_FILE_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open"));
    rl_checked_file_free(&f);
    CU_ASSERT_EQUAL(rl_check_file("/tmp", &params, true, 16, &f, err, sizeof err),
                    RL_CHECK_FILE_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "Is a directory"));
    rl_checked_file_free(&f);
}

/* ---- the parser against the format, read literally ---------------------- */

/* One field as decimal digits no larger than max; false otherwise. */
static bool reference_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (d > max || v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* event_log.h's format word for word: the line [s, s + len) (its '\n'
 * gone) as an event and its key; false when it is not one. */
static bool reference_line(const char *s, size_t len, int fields, struct rl_event *ev,
                           const char **key, size_t *key_len)
{
    if (len > 0 && s[len - 1] == '\r')
        len--;
    const char *start[6];
    size_t flen[6];
    int count = 0;
    for (size_t i = 0, from = 0; i <= len; i++)
        if (i == len || s[i] == ',') {
            if (count < 6) {
                start[count] = s + from;
                flen[count] = i - from;
            }
            count++;
            from = i + 1;
        }
    uint64_t t, n, admitted, thread = 0;
    if (len == 0 || count != fields || !reference_uint(start[0], flen[0], UINT64_MAX, &t) ||
        rl_key_problem(start[1], flen[1]) != NULL ||
        !reference_uint(start[2], flen[2], UINT32_MAX, &n) || n == 0 || flen[3] != 1 ||
        !reference_uint(start[3], 1, 1, &admitted) ||
        (fields == 5 && !reference_uint(start[4], flen[4], UINT16_MAX, &thread)))
        return false;
    *ev = (struct rl_event){
        .t_ns = t, .n = (uint32_t)n, .admitted = (uint8_t)admitted, .thread = (uint16_t)thread};
    *key = start[1];
    *key_len = flen[1];
    return true;
}

/* A good random number of 1 to max_digits digits (leading zeros now and
 * then), or one of the largest the field takes. */
static size_t random_number(uint64_t *seed, char *out, unsigned max_digits, const char *largest)
{
    uint64_t x = rl_test_xorshift64(seed);
    if (x % 25 == 0)
        return (size_t)sprintf(out, "%s", largest);
    unsigned digits = 1 + (unsigned)(x >> 8) % max_digits;
    for (unsigned i = 0; i < digits; i++)
        out[i] = (char)('0' + rl_test_xorshift64(seed) % 10);
    if (x % 5 != 0)
        out[0] = (char)('1' + (x >> 16) % 9); /* mostly no leading zero */
    else
        out[digits - 1] = (char)('1' + (x >> 16) % 9); /* and never all zeros */
    return digits;
}

/* A good random key: short, 8 to 16 bytes, or longer; now and then a tab,
 * a space or UTF-8, which the rule allows. */
static size_t random_key(uint64_t *seed, char *out)
{
    static const char alphabet[] = "abcdefghijk_-:/.0123456789ABC";
    uint64_t x = rl_test_xorshift64(seed);
    size_t len = x % 3 == 0 ? 8 + (x >> 8) % 9 : x % 3 == 1 ? 1 + (x >> 8) % 8 : 17 + (x >> 8) % 30;
    for (size_t i = 0; i < len; i++)
        out[i] = alphabet[rl_test_xorshift64(seed) % (sizeof alphabet - 1)];
    if (x % 11 == 0)
        out[rl_test_xorshift64(seed) % len] = "\t \xc3\xa9\x80\xff"[(x >> 20) % 6];
    return len;
}

/* What can be wrong with one line, written over a good one. */
static size_t spoil_line(uint64_t *seed, char *line, int fields)
{
    static const char *const bad[] = {
        "18446744073709551616,a,1,1,0",
        "1x,a,1,1,0",
        "123456789012345678901,a,1,1,0",
        ",a,1,1,0",
        "5,,1,1,0",
        "5,a\x01b,1,1,0",
        "5,a\x7f,1,1,0",
        "5,a\rb,1,1,0",
        "5,abcdefghijklmnop\x1bq,1,1,0",
        "5,a,0,1,0",
        "5,a,4294967296,1,0",
        "5,a,-1,1,0",
        "5,a,1,2,0",
        "5,a,1,01,0",
        "5,a,1,,0",
        "5,a,1,1,65536",
        "5,a,1,1,",
        "5,a,1,1,0,0",
        "5,a,1",
        "",
        "5,a,1,1\r\r",
        " 5,a,1,1,0",
        "5,a,1 ,1,0",
        "5,a,1,1,0x",
    };
    const char *b = bad[rl_test_xorshift64(seed) % (sizeof bad / sizeof bad[0])];
    size_t n = strlen(b);
    memcpy(line, b, n);
    if (fields == 4 && n > 2 && b[n - 2] == ',' && b[n - 1] == '0')
        n -= 2; /* the four-field form of the same fault */
    return n;
}

/* Random files of lines, nearly all good: the reader takes a file exactly
 * when every line reads as the format says, with the same numbers and
 * keys, and otherwise names the first bad line. */
static void test_parser_against_the_format(void)
{
    uint64_t seed = 0xFA57ull;
    const char *path = tmp_path("lines.csv");
    static char text[1 << 16];
    char line[256], err[512];
    for (int round = 0; round < 400; round++) {
        int fields = round % 2 ? 5 : 4;
        size_t len = (size_t)sprintf(text, fields == 5 ? "t_ns,key,n,admitted,thread\n"
                                                       : "t_ns,key,n,admitted\n");
        size_t lines = 1 + rl_test_xorshift64(&seed) % 150, first_bad = 0;
        struct rl_event want[150];
        const char *want_key[150];
        size_t want_key_len[150];
        size_t spoiled = round % 2 ? rl_test_xorshift64(&seed) % lines : SIZE_MAX;
        for (size_t i = 0; i < lines; i++) {
            size_t n = random_number(&seed, line, 19, "18446744073709551615");
            line[n++] = ',';
            n += random_key(&seed, line + n);
            line[n++] = ',';
            n += random_number(&seed, line + n, 9, "4294967295");
            uint64_t x = rl_test_xorshift64(&seed);
            n += (size_t)sprintf(line + n, ",%d", (int)(x % 2));
            if (fields == 5) {
                line[n++] = ',';
                n += random_number(&seed, line + n, 4, "65535");
            }
            if (i == spoiled)
                n = spoil_line(&seed, line, fields);
            if (x % 7 == 0)
                line[n++] = '\r';
            bool last = i + 1 == lines;
            if (!(last && x % 3 == 0))
                line[n++] = '\n';
            char *at = text + len;
            memcpy(at, line, n);
            len += n;
            size_t body = n && at[n - 1] == '\n' ? n - 1 : n;
            if (first_bad == 0 &&
                !reference_line(at, body, fields, &want[i], &want_key[i], &want_key_len[i]))
                first_bad = i + 2;
        }
        EXPECT((first_bad != 0) == (spoiled != SIZE_MAX), "round %d: spoiled line %zu, bad %zu",
               round, spoiled, first_bad);
        write_text(path, text, len);
        struct rl_event_log log;
        err[0] = '\0';
        int rc = rl_event_log_read_csv(path, &log, err, sizeof err);
        if (first_bad) {
            char where[64];
            snprintf(where, sizeof where, "%s:%zu: ", path, first_bad);
            EXPECT(rc == -1 && strncmp(err, where, strlen(where)) == 0,
                   "round %d: line %zu is bad, got rc %d, '%s'", round, first_bad, rc, err);
            continue;
        }
        EXPECT(rc == 0, "round %d: refused a good file: %s", round, err);
        if (rc != 0)
            continue;
        EXPECT_EQ(log.len, lines);
        for (size_t i = 0; i < lines && i < log.len; i++) {
            const struct rl_event *e = &log.events[i];
            const char *name = log.key_names[e->key];
            EXPECT(e->t_ns == want[i].t_ns && e->n == want[i].n &&
                       e->admitted == want[i].admitted && e->thread == want[i].thread &&
                       strlen(name) == want_key_len[i] &&
                       memcmp(name, want_key[i], want_key_len[i]) == 0,
                   "round %d, line %zu: read %llu,%s,%u,%u,%u", round, i + 2,
                   (unsigned long long)e->t_ns, name, e->n, e->admitted, e->thread);
        }
        rl_event_log_free(&log);
    }
    remove_tmp("lines.csv");
}

/* ---- a pipe --------------------------------------------------------------- */

struct pipe_writer {
    const char *path, *text;
};

static void *write_pipe(void *arg)
{
    const struct pipe_writer *w = arg;
    int fd = open(w->path, O_WRONLY);
    if (fd >= 0) {
        size_t len = strlen(w->text);
        for (size_t at = 0; at < len;) {
            ssize_t put = write(fd, w->text + at, len - at);
            if (put <= 0)
                break;
            at += (size_t)put;
        }
        close(fd);
    }
    return NULL;
}

/* A pipe streams like a file; one more out of order than the depth cannot
 * be read twice, so it is refused with a line that says so. */
static void test_pipe(void)
{
    const char *path = tmp_path("fifo");
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
    static const char *const texts[] = {"t_ns,key,n,admitted\n1,a,1,1\n2,a,1,1\n3,a,1,0\n",
                                        "t_ns,key,n,admitted\n9,a,1,1\n8,a,1,1\n1,a,1,0\n"};
    const struct rl_check_params params = {.limit = 1, .interval_ns = 100};
    for (size_t i = 0; i < LEN(texts); i++) {
        struct pipe_writer w = {path, texts[i]};
        pthread_t writer;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&writer, NULL, write_pipe, &w), 0);
        struct rl_checked_file f;
        char err[512] = "";
        enum rl_check_file_status status =
            rl_check_file(path, &params, true, 1, &f, err, sizeof err);
        pthread_join(writer, NULL);
        if (i == 0) {
            EXPECT(status == RL_CHECK_FILE_OK, "sorted pipe: %s", err);
            EXPECT_EQ(f.result.total.admits, 2);
            EXPECT_EQ(f.result.total.max_sliding, 2);
        } else {
            EXPECT(status == RL_CHECK_FILE_BAD_INPUT && strstr(err, ":4: ") &&
                       strstr(err, "pipe cannot be read twice"),
                   "unsorted pipe: status %d, '%s'", (int)status, err);
        }
        rl_checked_file_free(&f);
    }
    remove_tmp("fifo");
}

/* ---- a long line, from a pipe and from a file ----------------------------- */

#define LONG_LINE ((size_t)12 << 20) /* 12 MiB: 192 of a pipe's 64 KiB reads */

/* A log whose third line holds `long_field` bytes of `fill` (as its key,
 * or as its t_ns when fill is a digit, which is then too large), a short
 * line on each side, and a last line without its '\n'. malloc'd. */
static char *long_line_log(char fill, size_t long_field)
{
    char *text = malloc(long_field + 256);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t at = (size_t)sprintf(text, "t_ns,key,n,admitted,thread\n1,a,1,1,0\n");
    if (fill >= '0' && fill <= '9') {
        memset(text + at, fill, long_field);
        at += long_field;
        at += (size_t)sprintf(text + at, ",a,1,1,0\n");
    } else {
        at += (size_t)sprintf(text + at, "2,");
        memset(text + at, fill, long_field);
        at += long_field;
        at += (size_t)sprintf(text + at, ",1,1,0\n");
    }
    sprintf(text + at, "3,a,1,1,0\n4,b,2,0,1");
    return text;
}

/* rl_check_file on text through a fifo (a writer thread feeding it). */
static enum rl_check_file_status check_through_pipe(const char *text, struct rl_checked_file *f,
                                                    char *err, size_t err_len)
{
    char path[128];
    snprintf(path, sizeof path, "%s", tmp_path("long.fifo"));
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
    struct pipe_writer w = {path, text};
    pthread_t writer;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&writer, NULL, write_pipe, &w), 0);
    const struct rl_check_params params = {.limit = 1, .interval_ns = 100};
    enum rl_check_file_status status = rl_check_file(path, &params, true, 16, f, err, err_len);
    pthread_join(writer, NULL);
    unlink(path);
    return status;
}

/* A line of many megabytes gives the same result, or the same error, from
 * a pipe as from a file: the pipe hands it over 64 KiB at a time, and the
 * reader must find its end without losing the lines around it. */
static void test_long_line_pipe_and_file(void)
{
    const struct rl_check_params params = {.limit = 1, .interval_ns = 100};
    char *good = long_line_log('k', LONG_LINE);
    char file[128];
    snprintf(file, sizeof file, "%s", tmp_path("long.csv"));
    write_text(file, good, strlen(good));
    struct rl_checked_file from_file, from_pipe;
    char file_err[512] = "", pipe_err[512] = "";
    enum rl_check_file_status file_status =
        rl_check_file(file, &params, true, 16, &from_file, file_err, sizeof file_err);
    enum rl_check_file_status pipe_status =
        check_through_pipe(good, &from_pipe, pipe_err, sizeof pipe_err);
    EXPECT_FATAL(file_status == RL_CHECK_FILE_OK && pipe_status == RL_CHECK_FILE_OK,
                 "long key: file %d '%s', pipe %d '%s'", (int)file_status, file_err,
                 (int)pipe_status, pipe_err);
    EXPECT_EQ(from_file.events, 4);
    EXPECT_EQ(from_pipe.events, 4);
    EXPECT_EQ(from_pipe.key_count, 3);
    expect_same_result("long key through a pipe", &from_pipe.result, &from_file.result);
    for (uint32_t k = 0; k < from_pipe.key_count && k < from_file.key_count; k++)
        EXPECT(strcmp(from_pipe.key_names[k], from_file.key_names[k]) == 0,
               "key %u differs between pipe and file", k);
    EXPECT_EQ(strlen(from_pipe.key_names[1]), LONG_LINE);
    rl_checked_file_free(&from_file);
    rl_checked_file_free(&from_pipe);
    free(good);

    /* a t_ns of 12 MiB digits: the same one line, the field cut with its length */
    char *bad = long_line_log('7', LONG_LINE);
    write_text(file, bad, strlen(bad));
    file_status = rl_check_file(file, &params, true, 16, &from_file, file_err, sizeof file_err);
    pipe_status = check_through_pipe(bad, &from_pipe, pipe_err, sizeof pipe_err);
    EXPECT(file_status == RL_CHECK_FILE_BAD_INPUT && pipe_status == RL_CHECK_FILE_BAD_INPUT,
           "long t_ns: file %d, pipe %d", (int)file_status, (int)pipe_status);
    const char *file_words = strstr(file_err, ":3: "), *pipe_words = strstr(pipe_err, ":3: ");
    EXPECT(file_words && pipe_words && strcmp(file_words, pipe_words) == 0, "file '%s', pipe '%s'",
           file_err, pipe_err);
    EXPECT(strstr(pipe_err, "t_ns must be") && strstr(pipe_err, "…(12582912 bytes)'") &&
               strlen(pipe_err) < 200,
           "pipe: '%s'", pipe_err);
    rl_checked_file_free(&from_file);
    rl_checked_file_free(&from_pipe);
    free(bad);
    remove_tmp("long.csv");
}

/* The reader's work on a long line from a pipe is linear in its length:
 * it searches each byte for a line end about once, not once per read that
 * follows it (which was 192 times the line at 12 MiB, 57 s for 256 MB).
 * Counted in bytes, not timed. */
static void test_long_line_read_once(void)
{
    char *text = long_line_log('k', LONG_LINE);
    char path[128];
    snprintf(path, sizeof path, "%s", tmp_path("once.fifo"));
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
    struct pipe_writer w = {path, text};
    pthread_t writer;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&writer, NULL, write_pipe, &w), 0);
    struct rl_event_reader r;
    char err[512] = "";
    EXPECT(rl_event_reader_open(&r, path, err, sizeof err) == 0, "%s", err);
    struct rl_event events[8];
    long got, lines = 0;
    while ((got = rl_event_reader_next(&r, events, LEN(events), err, sizeof err)) > 0)
        lines += got;
    pthread_join(writer, NULL);
    EXPECT(got == 0, "%s", err);
    EXPECT_EQ(lines, 4);
    size_t len = strlen(text);
    EXPECT(r.searched <= 2 * (uint64_t)len, "searched %llu bytes for line ends in %zu",
           (unsigned long long)r.searched, len);
    rl_event_reader_close(&r);
    free(text);
    remove_tmp("once.fifo");
}

/* ---- the command ---------------------------------------------------------- */

/* check streams by default and says so; --reorder 0 on an unsorted log
 * falls back to memory with a note on stderr and the same lines; a bad
 * --reorder and a bad log without --limit exit 2 naming what is wrong. */
static void test_command(void)
{
    static struct rl_cli_outcome sorted, fallback;
    char args[512];
    const char *path = tmp_path("cli.csv");
    static const char log[] = "t_ns,key,n,admitted\n30,a,1,1\n10,b,1,1\n20,a,1,1\n25,a,1,0\n";
    write_text(path, log, sizeof log - 1);
    snprintf(args, sizeof args, "check --events %s --limit 1 --interval 50ns --per-key", path);
    rl_cli_run(&sorted, args);
    EXPECT(sorted.status == 0 && sorted.err_lines == 0, "%s: exit %d: %s", args, sorted.status,
           sorted.err);
    EXPECT(strstr(sorted.out, "streamed") != NULL, "%s:\n%s", args, sorted.out);
    snprintf(args, sizeof args,
             "check --events %s --limit 1 --interval 50ns --per-key --format csv", path);
    rl_cli_run(&sorted, args);
    snprintf(args, sizeof args,
             "check --events %s --limit 1 --interval 50ns --per-key --format csv --reorder 0",
             path);
    rl_cli_run(&fallback, args);
    EXPECT(fallback.status == 0 && fallback.err_lines == 1 &&
               strstr(fallback.err, "cli.csv:3: earlier than a line already checked") &&
               strstr(fallback.err, "checked in memory instead"),
           "%s: exit %d: %s", args, fallback.status, fallback.err);
    EXPECT(strcmp(fallback.out, sorted.out) == 0, "%s:\n%s\nstreamed:\n%s", args, fallback.out,
           sorted.out);
    snprintf(args, sizeof args, "check --events %s --limit 1 --interval 50ns --reorder x", path);
    rl_cli_expect_usage_error(args, "--reorder");
    static const char bad[] = "t_ns,key,n,admitted\n1,a,1,1\n2,a,1,7\n";
    write_text(path, bad, sizeof bad - 1);
    snprintf(args, sizeof args, "check --events %s --interval 50ns", path);
    rl_cli_expect_usage_error(args, "cli.csv:3: admitted must be 0 or 1");
    remove_tmp("cli.csv");
}

RL_TEST_SUITE("check_stream",
              {"rl_check and the core in pieces match before", test_memory_path_matches_before},
              {"10^6 events over 10^4 keys match before", test_memory_path_large},
              {"the core refuses events out of order", test_core_refuses_disorder},
              {"the reorder buffer's exact promise", test_reorder_promise},
              {"a streamed file matches before, sorted or not", test_file_matches_before},
              {"many blocks in order, then out of order", test_file_out_of_order_late},
              {"300000 keys, short and long", test_file_many_keys},
              {"memory stays flat as the log grows", test_memory_is_bounded},
              {"both readers agree on bad and awkward input", test_readers_agree_on_bad_input},
              {"the parser reads the format word for word", test_parser_against_the_format},
              {"a pipe streams, or is refused when too disordered", test_pipe},
              {"a 12 MiB line: the same from a pipe as from a file", test_long_line_pipe_and_file},
              {"a 12 MiB line from a pipe is searched once", test_long_line_read_once},
              {"ratelab check streams, or notes its fallback", test_command})
