/* test_trace_csv.c — the trace CSV: round trips (odd keys, many keys, long
 * keys), every refusal with its line number, line endings, and the write
 * through a temporary file and a rename. */
#include "tests/support/test_util.h"
#include "workloads/generators.h"
#include "workloads/trace.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC 1000000000ull

/* ---- helpers -------------------------------------------------------------- */

static struct rl_workload_params params(const char *name, double rate_per_s, uint64_t duration_ns)
{
    struct rl_workload_params p;
    rl_workload_defaults(&p, 10, SEC);
    p.name = name;
    p.rate_per_s = rate_per_s;
    p.duration_ns = duration_ns;
    return p;
}

/* Generates or fails the test; the trace is the caller's to free. */
static struct rl_trace generate(const struct rl_workload_params *p)
{
    struct rl_trace t;
    char err[256] = "";
    int rc = rl_workload_generate(p, &t, err, sizeof err);
    EXPECT_FATAL(rc == 0, "generate %s: %s", p->name, err);
    return t;
}

static bool same_attempts(const struct rl_trace *a, const struct rl_trace *b)
{
    return a->len == b->len &&
           (a->len == 0 || memcmp(a->attempts, b->attempts, a->len * sizeof *a->attempts) == 0);
}

/* A fresh directory per test, emptied and removed by tmp_done. A test
 * that stops at a failed FATAL assertion never reaches tmp_done: the next
 * tmp_begin, or the process's exit, removes its directory instead. */
static char tmp_dir[256];

static const char *tmp_path(const char *name);

static void tmp_done(void)
{
    if (tmp_dir[0] == '\0')
        return;
    DIR *d = opendir(tmp_dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(tmp_path(e->d_name));
    if (d)
        closedir(d);
    rmdir(tmp_dir);
    tmp_dir[0] = '\0';
}

static void tmp_begin(void)
{
    static bool at_exit;
    if (!at_exit)
        at_exit = atexit(tmp_done) == 0;
    tmp_done();
    const char *base = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/ratelab-wl-XXXXXX", base && *base ? base : "/tmp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp_dir));
}

static const char *tmp_path(const char *name)
{
    static char path[8][512]; /* a few may be alive at once */
    static int which;
    which = (which + 1) % 8;
    snprintf(path[which], sizeof path[which], "%s/%s", tmp_dir, name);
    return path[which];
}

static int tmp_entries(void)
{
    DIR *d = opendir(tmp_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_csv_round_trip(void)
{
    tmp_begin();
    struct rl_workload_params p = params("poisson", 20000, SEC);
    p.keys = 20;
    p.key_dist = RL_KEYS_ZIPF;
    p.cost_max = 4;
    struct rl_trace t = generate(&p), back;
    char err[256] = "";
    const char *path = tmp_path("trace.csv");
    CU_ASSERT_EQUAL_FATAL(rl_trace_write_csv(&t, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(back.len, t.len);
    /* Ids are renumbered by first appearance; names, times and costs are not. */
    bool equal = true;
    for (size_t i = 0; i < t.len; i++) {
        const struct rl_attempt *a = &t.attempts[i], *b = &back.attempts[i];
        equal &= a->t_ns == b->t_ns && a->n == b->n &&
                 strcmp(t.key_names[a->key], back.key_names[b->key]) == 0;
    }
    CU_ASSERT(equal);
    CU_ASSERT_EQUAL(back.attempts[0].key, 0);
    CU_ASSERT(back.key_count <= 20);
    /* Written again, the re-read trace gives the same bytes' worth of lines. */
    struct rl_trace again;
    CU_ASSERT_EQUAL(rl_trace_write_csv(&back, tmp_path("again.csv"), err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_trace_read_csv(tmp_path("again.csv"), &again, err, sizeof err), 0);
    CU_ASSERT(same_attempts(&back, &again));
    CU_ASSERT_EQUAL(tmp_entries(), 2); /* no .tmp left behind */
    rl_trace_free(&t);
    rl_trace_free(&back);
    rl_trace_free(&again);
    tmp_done();
}

static void test_csv_odd_keys(void)
{
    tmp_begin();
    const char *names[] = {"a b",
                           " lead",
                           "trail ",
                           "tab\there",
                           "quote\"x'y",
                           "\xc3\xbc-\xc3\xb1",
                           "semi;colon",
                           "#hash",
                           "=1+2",
                           "longer than twelve bytes",
                           "longer than twelve bytez"};
    const uint32_t count = sizeof names / sizeof names[0];
    struct rl_trace t = {0}, back;
    t.key_names = calloc(count, sizeof(char *));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.key_names);
    t.key_count = count;
    for (uint32_t k = 0; k < count; k++)
        t.key_names[k] = strdup(names[k]);
    for (uint32_t k = 0; k < count; k++)
        CU_ASSERT_EQUAL(rl_trace_push(&t, 7, k, k + 1), 0); /* equal times are fine */
    CU_ASSERT_EQUAL(rl_trace_push(&t, UINT64_MAX, 3, UINT32_MAX), 0);
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(rl_trace_write_csv(&t, tmp_path("odd.csv"), err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(tmp_path("odd.csv"), &back, err, sizeof err), 0);
    CU_ASSERT(same_attempts(&t, &back)); /* first appearance is already 0, 1, 2, … */
    CU_ASSERT_EQUAL_FATAL(back.key_count, count);
    for (uint32_t k = 0; k < count; k++)
        CU_ASSERT_STRING_EQUAL(back.key_names[k], names[k]);
    rl_trace_free(&back);

    /* A comma in a key cannot be written, and nothing is left on disk. */
    free(t.key_names[0]);
    t.key_names[0] = strdup("a,b");
    CU_ASSERT_EQUAL(rl_trace_write_csv(&t, tmp_path("comma.csv"), err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "comma"));
    CU_ASSERT_EQUAL(access(tmp_path("comma.csv"), F_OK), -1);
    CU_ASSERT_EQUAL(tmp_entries(), 1);
    rl_trace_free(&t);
    tmp_done();
}

static void test_csv_first_appearance(void)
{
    tmp_begin();
    const char *path = tmp_path("order.csv");
    const char text[] = "t_ns,key,n\n5,b,1\n6,a,2\n6,b,3\n";
    write_bytes(path, text, sizeof text - 1);
    struct rl_trace t;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.len, 3);
    CU_ASSERT_EQUAL_FATAL(t.key_count, 2);
    CU_ASSERT_STRING_EQUAL(t.key_names[0], "b");
    CU_ASSERT_STRING_EQUAL(t.key_names[1], "a");
    CU_ASSERT(t.attempts[0].key == 0 && t.attempts[1].key == 1 && t.attempts[2].key == 0);
    CU_ASSERT(t.attempts[2].t_ns == 6 && t.attempts[2].n == 3);
    rl_trace_free(&t);
    tmp_done();
}

static void test_csv_line_endings(void)
{
    tmp_begin();
    const char *path = tmp_path("t.csv");
    const char *texts[] = {
        "t_ns,key,n\r\n1,a,1\r\n2,b,3\r\n",       /* CRLF */
        "t_ns,key,n\n1,a,1\n2,b,3",               /* no final newline */
        "t_ns,key,n\r\n1,a,1\n2,b,3\r",           /* mixed, CR at the very end */
        "\xEF\xBB\xBFt_ns,key,n\n1,a,1\n2,b,3\n", /* a byte-order mark, as the log reader takes */
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        write_bytes(path, texts[i], strlen(texts[i]));
        struct rl_trace t;
        char err[256] = "";
        CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &t, err, sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(t.len, 2);
        CU_ASSERT_EQUAL(t.attempts[1].t_ns, 2);
        CU_ASSERT_EQUAL(t.attempts[1].n, 3);
        CU_ASSERT_STRING_EQUAL(t.key_names[1], "b");
        rl_trace_free(&t);
    }
    /* A header alone is an empty trace, with or without its newline. */
    const char *empties[] = {"t_ns,key,n\n", "t_ns,key,n", "t_ns,key,n\r\n"};
    for (size_t i = 0; i < 3; i++) {
        write_bytes(path, empties[i], strlen(empties[i]));
        struct rl_trace t;
        char err[256] = "";
        CU_ASSERT_EQUAL(rl_trace_read_csv(path, &t, err, sizeof err), 0);
        CU_ASSERT(t.len == 0 && t.key_count == 0);
        rl_trace_free(&t);
    }
    tmp_done();
}

struct csv_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *where;
    const char *what;
};

static void test_csv_errors(void)
{
    tmp_begin();
    const char *path = tmp_path("t.csv");
    /* Line 17's cost, after 15 good lines. */
    static char long_text[1024];
    size_t off = (size_t)snprintf(long_text, sizeof long_text, "t_ns,key,n\n");
    for (int i = 0; i < 15; i++)
        off += (size_t)snprintf(long_text + off, sizeof long_text - off, "%d,a,1\n", i * 100);
    snprintf(long_text + off, sizeof long_text - off, "1500,a,0\n");

    const struct csv_case cases[] = {
        {"", 0, ":1:", "header must be 't_ns,key,n'"},
        {"\n", 0, ":1:", "header must be 't_ns,key,n'"},
        {"time,key,n\n1,a,1\n", 0, ":1:", "header must be 't_ns,key,n'"},
        {"t_ns,key\n1,a\n", 0, ":1:", "header"},
        {"t_ns,key,n\n1,a\n", 0, ":2:", "too few fields"},
        {"t_ns,key,n\n1\n", 0, ":2:", "too few fields"},
        {"t_ns,key,n\n1,a,1,2\n", 0, ":2:", "too many fields"},
        {"t_ns,key,n\n1,a,b,1\n", 0, ":2:", "too many fields"},
        {"t_ns,key,n\n1,a,1\n\n2,a,1\n", 0, ":3:", "blank line"},
        {"t_ns,key,n\r\n1,a,1\r\n\r\n", 0, ":3:", "blank line"},
        {"t_ns,key,n\nabc,a,1\n", 0, ":2:", "time 'abc' is not an integer"},
        {"t_ns,key,n\n-5,a,1\n", 0, ":2:", "time '-5' is not an integer"},
        {"t_ns,key,n\n 5,a,1\n", 0, ":2:", "is not an integer"},
        {"t_ns,key,n\n1.5,a,1\n", 0, ":2:", "is not an integer"},
        {"t_ns,key,n\n18446744073709551616,a,1\n", 0, ":2:", "too large"},
        {"t_ns,key,n\n,a,1\n", 0, ":2:", "time is empty"},
        {"t_ns,key,n\n1,,1\n", 0, ":2:", "key is empty"},
        {"t_ns,key,n\n1,a\0b,1\n", 19, ":2:", "NUL"},
        /* Fuzzer finding: a CR inside a key was read, and the decision-log
         * writer refused it after the whole run. One rule now, at read. */
        {"t_ns,key,n\n1,a\rb,1\n", 0, ":2:", "key holds a line break"},
        {"t_ns,key,n\n1,\x1b[31mred,1\n", 0, ":2:", "key holds a control byte"},
        {"t_ns,key,n\n1,del\x7f,1\n", 0, ":2:", "key holds a control byte"},
        {"t_ns,key,n\n1,a,0\n", 0, ":2:", "cost '0' must be a positive integer"},
        {"t_ns,key,n\n1,a,x\n", 0, ":2:", "cost 'x' is not an integer"},
        {"t_ns,key,n\n1,a,1 \n", 0, ":2:", "is not an integer"},
        {"t_ns,key,n\n1,a,-1\n", 0, ":2:", "is not an integer"},
        {"t_ns,key,n\n1,a,4294967296\n", 0, ":2:", "cost '4294967296' is too large"},
        {"t_ns,key,n\n1,a,\n", 0, ":2:", "cost is empty"},
        {"t_ns,key,n\n1500,a,1\n100,a,1\n", 0,
         ":3:", "time 100 is earlier than the line before (1500); traces must be sorted by t_ns"},
        {long_text, 0, ":17:", "cost '0' must be a positive integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_bytes(path, cases[i].text, cases[i].len ? cases[i].len : strlen(cases[i].text));
        struct rl_trace t;
        char err[256] = "", where[600];
        int rc = rl_trace_read_csv(path, &t, err, sizeof err);
        snprintf(where, sizeof where, "%s%s", path, cases[i].where);
        bool ok = rc == -1 && strncmp(err, where, strlen(where)) == 0 &&
                  strstr(err, cases[i].what) != NULL && strchr(err, '\n') == NULL;
        EXPECT(ok, "csv case %zu: rc %d, err '%s'", i, rc, err);
        CU_ASSERT(t.len == 0 && t.attempts == NULL && t.key_names == NULL && t.key_count == 0);
    }

    /* The largest values are accepted. */
    const char big[] = "t_ns,key,n\n18446744073709551615,a,4294967295\n";
    write_bytes(path, big, sizeof big - 1);
    struct rl_trace t;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &t, err, sizeof err), 0);
    CU_ASSERT(t.attempts[0].t_ns == UINT64_MAX && t.attempts[0].n == UINT32_MAX);
    rl_trace_free(&t);

    /* A missing file says so, and tiny or absent err buffers are safe. */
    CU_ASSERT_EQUAL(rl_trace_read_csv(tmp_path("missing.csv"), &t, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.csv: cannot open: No such file or directory"));
    CU_ASSERT_EQUAL(rl_trace_read_csv(tmp_path("missing.csv"), &t, NULL, 0), -1);
    CU_ASSERT_EQUAL(rl_trace_read_csv(tmp_path("missing.csv"), &t, err, 4), -1);
    CU_ASSERT_EQUAL(strlen(err), 3);
    CU_ASSERT_EQUAL(rl_trace_read_csv(tmp_dir, &t, err, sizeof err), -1);
    tmp_done();
}

static void test_csv_many_keys(void)
{
    tmp_begin();
    struct rl_workload_params p = params("uniform", 400000, SEC);
    p.keys = 300000;
    struct rl_trace t = generate(&p), back;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(rl_trace_write_csv(&t, tmp_path("keys.csv"), err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(tmp_path("keys.csv"), &back, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(back.len, t.len);
    bool equal = true;
    for (size_t i = 0; i < t.len; i++)
        equal &= strcmp(t.key_names[t.attempts[i].key], back.key_names[back.attempts[i].key]) == 0;
    CU_ASSERT(equal);
    CU_ASSERT(back.key_count > 200000 && back.key_count <= 300000);
    rl_trace_free(&t);
    rl_trace_free(&back);
    tmp_done();
}

/* Long keys that share their first 12 bytes differ only past what a slot of
 * the interning table holds, and 60000 of them make hash collisions certain. */
static void test_csv_long_keys(void)
{
    tmp_begin();
    const char *path = tmp_path("long.csv");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "t_ns,key,n\n");
    for (int i = 0; i < 120000; i++)
        fprintf(f, "%d,tenant-0000-user-%05d,1\n", i, (i * 7) % 60000);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    struct rl_trace t;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(rl_trace_read_csv(path, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.key_count, 60000);
    bool ids = true, names = true;
    for (int i = 0; i < 120000; i++)
        ids &= t.attempts[i].key == (uint32_t)(i % 60000); /* first appearance order */
    for (int k = 0; k < 60000; k++) {
        char want[64];
        snprintf(want, sizeof want, "tenant-0000-user-%05d", (k * 7) % 60000);
        names &= strcmp(t.key_names[k], want) == 0;
    }
    CU_ASSERT(ids && names);
    rl_trace_free(&t);
    tmp_done();
}

static void test_csv_write_is_atomic(void)
{
    tmp_begin();
    struct rl_workload_params p = params("uniform", 100, SEC);
    struct rl_trace t = generate(&p), back;
    char err[256] = "";
    const char *path = tmp_path("out.csv");

    /* Replacing an existing file leaves only the new one, no .tmp. */
    write_bytes(path, "old", 3);
    CU_ASSERT_EQUAL(rl_trace_write_csv(&t, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL(tmp_entries(), 1);
    CU_ASSERT_EQUAL(rl_trace_read_csv(path, &back, err, sizeof err), 0);
    CU_ASSERT(same_attempts(&t, &back));
    rl_trace_free(&back);

    /* An unwritable place fails with a reason and leaves nothing. */
    CU_ASSERT_EQUAL(rl_trace_write_csv(&t, tmp_path("no/such/dir.csv"), err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file or directory"));
    CU_ASSERT_EQUAL(tmp_entries(), 1);

    /* A trace the reader would refuse is not written at all. */
    t.attempts[5].t_ns = t.attempts[6].t_ns + 1;
    CU_ASSERT_EQUAL(rl_trace_write_csv(&t, tmp_path("unsorted.csv"), err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "sorted"));
    t.attempts[5].t_ns = t.attempts[4].t_ns;
    t.attempts[5].n = 0;
    CU_ASSERT_EQUAL(rl_trace_write_csv(&t, tmp_path("zero.csv"), err, sizeof err), -1);
    t.attempts[5].n = 1;
    t.attempts[5].key = 3;
    CU_ASSERT_EQUAL(rl_trace_write_csv(&t, tmp_path("key.csv"), err, sizeof err), -1);
    CU_ASSERT_EQUAL(tmp_entries(), 1);
    rl_trace_free(&t);
    tmp_done();
}

static void test_trace_basics(void)
{
    struct rl_trace t = {0};
    rl_trace_free(&t); /* a zeroed trace frees cleanly */
    for (uint32_t i = 0; i < 5000; i++)
        CU_ASSERT_EQUAL(rl_trace_push(&t, i, 0, 1), 0);
    CU_ASSERT_EQUAL(t.len, 5000);
    CU_ASSERT(t.cap >= 5000);
    CU_ASSERT_EQUAL(rl_trace_name_keys(&t, 3), 0);
    CU_ASSERT_EQUAL(rl_trace_name_keys(&t, 12), 0); /* replaces, no leak */
    CU_ASSERT_EQUAL(t.key_count, 12);
    CU_ASSERT_STRING_EQUAL(t.key_names[11], "k11");
    rl_trace_free(&t);
    CU_ASSERT(t.attempts == NULL && t.len == 0 && t.key_names == NULL);
}

RL_TEST_SUITE("trace_csv", {"round_trip", test_csv_round_trip}, {"odd_keys", test_csv_odd_keys},
              {"first_appearance", test_csv_first_appearance},
              {"line_endings", test_csv_line_endings}, {"errors", test_csv_errors},
              {"many_keys", test_csv_many_keys}, {"long_keys", test_csv_long_keys},
              {"write_is_atomic", test_csv_write_is_atomic}, {"trace_basics", test_trace_basics})
