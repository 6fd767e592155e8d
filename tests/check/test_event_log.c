/* test_event_log.c — the decision log: CSV round trips with text keys, every
 * malformed line reported with its path and line number, the temp-and-rename
 * writer, and the stable sort by time. */
#include "tests/support/random_trace.h"
#include "tests/support/test_util.h"
#include "harness/check/event_log.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EV(t, k, cost, adm)                                                                        \
    {                                                                                              \
        .t_ns = (t), .key = (k), .n = (cost), .admitted = (adm)                                    \
    }
#define LEN(a) (sizeof(a) / sizeof(a)[0])

/* Equal times must keep their order, on the short path (in-place merge)
 * and the long one (radix), with narrow and full 64-bit time spans. */
static void test_sort_is_stable(void)
{
    const size_t sizes[] = {7, 300, 5000};
    const uint64_t scales[] = {1, UINT64_MAX / 100};
    uint64_t seed = 42;
    for (size_t s = 0; s < LEN(sizes); s++)
        for (size_t c = 0; c < LEN(scales); c++) {
            struct rl_event_log log = {0};
            for (size_t i = 0; i < sizes[s]; i++) {
                struct rl_event e =
                    EV(rl_test_xorshift64(&seed) % 100 * scales[c], (uint32_t)i, 1, 1);
                CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
            }
            rl_event_log_sort(&log);
            CU_ASSERT_EQUAL(log.len, sizes[s]);
            for (size_t i = 1; i < log.len; i++) {
                const struct rl_event *a = &log.events[i - 1], *b = &log.events[i];
                CU_ASSERT(a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->key < b->key));
            }
            rl_event_log_free(&log);
        }

    /* One late event first, 999 at t = 0 after it: every digit but the
     * late one's is shared, and the order of the 999 must survive. */
    struct rl_event_log log = {0};
    for (uint32_t i = 0; i < 1000; i++) {
        struct rl_event e = EV(i == 0 ? (uint64_t)1 << 40 : 0, i, 1, 1);
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
    }
    rl_event_log_sort(&log);
    for (uint32_t i = 0; i < 999; i++)
        CU_ASSERT_EQUAL(log.events[i].key, i + 1);
    CU_ASSERT_EQUAL(log.events[999].key, 0);
    rl_event_log_free(&log);
}

static char tmp_dir[64];

static const char *tmp_path(const char *name)
{
    static char path[sizeof tmp_dir + 258]; /* room for any d_name */
    if (tmp_dir[0] == '\0') {
        strcpy(tmp_dir, "/tmp/ratelab-test-event-log-XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp_dir));
    }
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

/* The test directory's file names, each followed by a space. */
static int dir_entries(char *names, size_t len)
{
    DIR *d = opendir(tmp_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int count = 0;
    names[0] = '\0';
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            strncat(names, e->d_name, len - strlen(names) - 2);
            strcat(names, " ");
            count++;
        }
    closedir(d);
    return count;
}

static void remove_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.')
            unlink(tmp_path(e->d_name));
    if (d)
        closedir(d);
    rmdir(tmp_dir);
}

static void test_csv_round_trip(void)
{
    char err[256] = "";
    const char *path = tmp_path("log.csv");
    const char *names[] = {"alpha", "user 42", "κλειδί/2"};
    struct rl_event_log log = {.complete = true, .key_count = 3};
    log.key_names = malloc(3 * sizeof *log.key_names);
    for (int i = 0; i < 3; i++)
        log.key_names[i] = strdup(names[i]);
    const struct rl_event ev[] = {
        {.t_ns = 5, .key = 1, .n = 2, .admitted = 1, .thread = 3},
        {.t_ns = 0, .key = 0, .n = UINT32_MAX, .admitted = 0, .thread = 65535},
        {.t_ns = UINT64_MAX, .key = 2, .n = 1, .admitted = 1, .thread = 0},
        {.t_ns = 7, .key = 1, .n = 1, .admitted = 0, .thread = 1}};
    for (size_t i = 0; i < LEN(ev); i++)
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &ev[i]), 0);
    CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0);

    /* Keys come back numbered by first appearance: user 42, alpha, κλειδί/2. */
    struct rl_event_log back;
    CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT(back.complete);
    CU_ASSERT_EQUAL_FATAL(back.len, LEN(ev));
    CU_ASSERT_EQUAL_FATAL(back.key_count, 3);
    for (size_t i = 0; i < LEN(ev); i++) {
        CU_ASSERT_EQUAL(back.events[i].t_ns, ev[i].t_ns);
        CU_ASSERT_EQUAL(back.events[i].n, ev[i].n);
        CU_ASSERT_EQUAL(back.events[i].admitted, ev[i].admitted);
        CU_ASSERT_EQUAL(back.events[i].thread, ev[i].thread);
        CU_ASSERT_STRING_EQUAL(back.key_names[back.events[i].key], names[ev[i].key]);
    }
    CU_ASSERT_STRING_EQUAL(back.key_names[0], "user 42");
    rl_event_log_free(&back);

    /* Without names, key id k is written as k<id>. */
    for (int i = 0; i < 3; i++)
        free(log.key_names[i]);
    free(log.key_names);
    log.key_names = NULL;
    CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(back.key_count, 3);
    CU_ASSERT_STRING_EQUAL(back.key_names[0], "k1");
    CU_ASSERT_STRING_EQUAL(back.key_names[1], "k0");
    CU_ASSERT_STRING_EQUAL(back.key_names[2], "k2");
    rl_event_log_free(&back);
    rl_event_log_free(&log);

    /* CRLF, no final newline, a byte-order mark. */
    write_text(path, "\xEF\xBB\xBFt_ns,key,n,admitted,thread\r\n9,bob,1,1,0\r\n3,alice,2,0,1\r\n"
                     "7,bob,1,1,0\r\n1,carol,1,0,2");
    CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(back.len, 4);
    CU_ASSERT_EQUAL_FATAL(back.key_count, 3);
    CU_ASSERT_STRING_EQUAL(back.key_names[2], "carol");
    CU_ASSERT_EQUAL(back.events[2].key, 0);
    CU_ASSERT_EQUAL(back.events[3].t_ns, 1); /* file order is kept */
    CU_ASSERT_EQUAL(back.events[3].thread, 2);
    rl_event_log_free(&back);
    unlink(path);
}

/* 200 000 distinct keys intern into 200 000 ids, in order. */
static void test_csv_many_keys(void)
{
    char err[256] = "";
    const char *path = tmp_path("many.csv");
    struct rl_event_log log = {0};
    for (uint32_t i = 0; i < 200000; i++) {
        struct rl_event e = EV(i, i * 7919u % 200000u, 1, 1); /* a permutation */
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &e), 0);
    }
    CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0);
    struct rl_event_log back;
    CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(back.key_count, 200000);
    char name[32];
    for (size_t i = 0; i < back.len; i++) {
        CU_ASSERT_EQUAL_FATAL(back.events[i].key, i / 2);
        snprintf(name, sizeof name, "k%u", (unsigned)log.events[i].key);
        CU_ASSERT_STRING_EQUAL_FATAL(back.key_names[back.events[i].key], name);
    }
    rl_event_log_free(&back);
    rl_event_log_free(&log);
    unlink(path);
}

/* Each bad line sits after i + 1 good ones, so its number is i + 3. */
static void test_csv_errors(void)
{
    static const struct {
        const char *line, *message;
    } bad[] = {
        {"1,a,1,1", "expected 5 fields t_ns,key,n,admitted,thread, found 4"},
        {"1,a,1,1,0,9", "expected 5 fields t_ns,key,n,admitted,thread, found 6"},
        {"", "empty line (each line is t_ns,key,n,admitted,thread)"},
        {"12a,a,1,1,0", "t_ns must be an integer from 0 to 2^64-1, not '12a'"},
        {"18446744073709551616,a,1,1,0",
         "t_ns must be an integer from 0 to 2^64-1, not '18446744073709551616'"},
        {" 5,a,1,1,0", "t_ns must be an integer from 0 to 2^64-1, not ' 5'"},
        {"5,,1,1,0", "key is empty (a key is non-empty text without commas or control bytes)"},
        {"5,a\rb,1,1,0",
         "key holds a line break (a key is non-empty text without commas or control bytes)"},
        {"5,a,0,1,0", "n must be an integer from 1 to 4294967295, not '0'"},
        {"5,a,4294967296,1,0", "n must be an integer from 1 to 4294967295, not '4294967296'"},
        {"5,a,-1,1,0", "n must be an integer from 1 to 4294967295, not '-1'"},
        {"5,a,1,2,0", "admitted must be 0 or 1, not '2'"},
        {"5,a,1,01,0", "admitted must be 0 or 1, not '01'"},
        {"5,a,1,,0", "admitted must be 0 or 1, not ''"},
        {"5,a,1,1,65536", "thread must be an integer from 0 to 65535, not '65536'"},
        {"5,a,1,1,", "thread must be an integer from 0 to 65535, not ''"},
    };
    const char *path = tmp_path("bad.csv");
    char text[4096], want[512], err[512];
    for (size_t i = 0; i < LEN(bad); i++) {
        strcpy(text, "t_ns,key,n,admitted,thread\n");
        for (size_t g = 0; g <= i; g++)
            strcat(text, "1,good,1,0,0\r\n");
        strcat(text, bad[i].line);
        strcat(text, "\n2,good,1,1,0\n");
        write_text(path, text);
        struct rl_event_log log;
        err[0] = '\0';
        CU_ASSERT_EQUAL(rl_event_log_read_csv(path, &log, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s:%zu: %s", path, i + 3, bad[i].message);
        EXPECT(strcmp(err, want) == 0, "got '%s', want '%s'", err, want);
        CU_ASSERT_PTR_NULL(log.events);
        CU_ASSERT_EQUAL(log.len, 0);
    }

    struct rl_event_log log;
    write_text(path, "t_ns,key,n\n1,a,1\n");
    CU_ASSERT_EQUAL(rl_event_log_read_csv(path, &log, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:1: header must be 't_ns,key,n,admitted,thread' (',thread' optional), not "
             "'t_ns,key,n'",
             path);
    CU_ASSERT_STRING_EQUAL(err, want);
    write_text(path, "");
    CU_ASSERT_EQUAL(rl_event_log_read_csv(path, &log, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:1: header must be 't_ns,key,n,admitted,thread' (',thread' optional), but the "
             "file is empty",
             path);
    CU_ASSERT_STRING_EQUAL(err, want);
    unlink(path);
    CU_ASSERT_EQUAL(rl_event_log_read_csv(path, &log, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    CU_ASSERT_STRING_EQUAL(err, want);

    /* A header alone is an empty, valid log. */
    write_text(path, "t_ns,key,n,admitted,thread\n");
    CU_ASSERT_EQUAL(rl_event_log_read_csv(path, &log, err, sizeof err), 0);
    CU_ASSERT_EQUAL(log.len, 0);
    CU_ASSERT(log.complete);
    rl_event_log_free(&log);
    unlink(path);
}

/* Without the thread column (logs from other systems, the conformance
 * drivers): thread 0, every line four fields, and the other errors as with
 * five. A header that is neither form, or a line with the other count of
 * fields, is refused with its line number. */
static void test_csv_without_thread(void)
{
    const char *path = tmp_path("nothread.csv");
    char err[512] = "", want[512];
    struct rl_event_log log;
    write_text(path, "t_ns,key,n,admitted\r\n9,bob,1,1\r\n3,alice,2,0\n7,bob,1,1");
    CU_ASSERT_EQUAL_FATAL(rl_event_log_read_csv(path, &log, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(log.len, 3);
    CU_ASSERT_EQUAL(log.key_count, 2);
    CU_ASSERT(log.complete);
    CU_ASSERT_EQUAL(log.events[0].t_ns, 9);
    CU_ASSERT_EQUAL(log.events[1].n, 2);
    CU_ASSERT_EQUAL(log.events[1].admitted, 0);
    CU_ASSERT_EQUAL(log.events[2].key, log.events[0].key);
    for (size_t i = 0; i < log.len; i++)
        EXPECT_EQ(log.events[i].thread, 0);
    rl_event_log_free(&log);

    static const struct {
        const char *text, *message;
    } bad[] = {
        {"t_ns,key,n,admitted\n1,a,1,1\n2,a,1,1,0\n",
         ":3: expected 4 fields t_ns,key,n,admitted, found 5"},
        {"t_ns,key,n,admitted\n1,a,1,1\n\n", ":3: empty line (each line is t_ns,key,n,admitted)"},
        {"t_ns,key,n,admitted\n1,a,1,2\n", ":2: admitted must be 0 or 1, not '2'"},
        {"t_ns,key,n,admitted\n1,a,1,\n", ":2: admitted must be 0 or 1, not ''"},
        {"t_ns,key,n,admitted,thread\n1,a,1,1\n",
         ":2: expected 5 fields t_ns,key,n,admitted,thread, found 4"},
        {"t_ns,key,n,admitted,\n1,a,1,1\n", ":1: header must be"},
        {"t_ns,key,n,admitted,threads\n1,a,1,1,0\n", ":1: header must be"},
        {"t_ns,key,n,admit\n1,a,1,1\n", ":1: header must be"},
    };
    for (size_t i = 0; i < LEN(bad); i++) {
        write_text(path, bad[i].text);
        err[0] = '\0';
        CU_ASSERT_EQUAL(rl_event_log_read_csv(path, &log, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s%s", path, bad[i].message);
        EXPECT(strncmp(err, want, strlen(want)) == 0, "case %zu: got '%s', want '%s'", i, err,
               want);
        CU_ASSERT_PTR_NULL(log.events);
    }
    unlink(path);
}

/* The writer goes through PATH.tmp.<pid> and a rename: afterwards only the
 * final file exists, and a failed write leaves nothing behind. */
static void test_csv_write_is_atomic(void)
{
    char err[256] = "", names[512];
    const char *path = tmp_path("atomic.csv");
    struct rl_event_log log = {.complete = true};
    for (uint64_t t = 0; t < 20; t++)
        CU_ASSERT_EQUAL_FATAL(rl_event_log_push(&log, &(struct rl_event)EV(t, 0, 1, 1)), 0);
    CU_ASSERT_EQUAL(dir_entries(names, sizeof names), 0);
    CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_event_log_write_csv(&log, path, err, sizeof err), 0); /* replaces */
    CU_ASSERT_EQUAL(dir_entries(names, sizeof names), 1);
    CU_ASSERT_STRING_EQUAL(names, "atomic.csv ");

    char *bad_names[] = {"a,b"};
    log.key_names = bad_names;
    log.key_count = 1;
    CU_ASSERT_EQUAL(rl_event_log_write_csv(&log, tmp_path("comma.csv"), err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "comma"));
    log.key_names = NULL;
    log.key_count = 0;
    CU_ASSERT_EQUAL(rl_event_log_write_csv(&log, tmp_path("no/such/dir.csv"), err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file or directory"));
    CU_ASSERT_EQUAL(dir_entries(names, sizeof names), 1);

    /* The temporary's name cannot be guessed: a directory and a symlink
     * planted at the old predictable names (PATH.tmp.PID) are neither
     * written through nor in the way, and nothing is left beside the file. */
    char tmp_name[64], link_name[64];
    snprintf(tmp_name, sizeof tmp_name, "taken.csv.tmp.%ld", (long)getpid());
    snprintf(link_name, sizeof link_name, "linked.csv.tmp.%ld", (long)getpid());
    CU_ASSERT_EQUAL_FATAL(mkdir(tmp_path(tmp_name), 0700), 0);
    char victim[sizeof tmp_dir + 16];
    snprintf(victim, sizeof victim, "%s", tmp_path("victim")); /* tmp_path's buffer is reused */
    CU_ASSERT_EQUAL_FATAL(symlink(victim, tmp_path(link_name)), 0);
    CU_ASSERT_EQUAL(rl_event_log_write_csv(&log, tmp_path("taken.csv"), err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_event_log_write_csv(&log, tmp_path("linked.csv"), err, sizeof err), 0);
    CU_ASSERT_EQUAL(access(victim, F_OK), -1);
    CU_ASSERT_EQUAL(rmdir(tmp_path(tmp_name)), 0);
    CU_ASSERT_EQUAL(unlink(tmp_path(link_name)), 0);
    CU_ASSERT_EQUAL(unlink(tmp_path("taken.csv")), 0);
    CU_ASSERT_EQUAL(unlink(tmp_path("linked.csv")), 0);
    CU_ASSERT_EQUAL(dir_entries(names, sizeof names), 1);
    unlink(path);
    rl_event_log_free(&log);
    remove_tmp_dir();
}

RL_TEST_SUITE("event_log", {"sort is stable", test_sort_is_stable},
              {"CSV round trip with text keys", test_csv_round_trip},
              {"CSV with 200000 keys", test_csv_many_keys},
              {"CSV errors carry path and line", test_csv_errors},
              {"CSV without the thread column", test_csv_without_thread},
              {"CSV write goes through tmp and rename", test_csv_write_is_atomic})
