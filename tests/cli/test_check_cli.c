/* test_check_cli.c — `ratelab check --promise` as a user's CI meets it:
 * hand-made logs that keep and break each promise exit 0 and 1 and print
 * held yes or no, bad input exits 2 with one line, a log without the thread
 * column and an unsorted log are judged as their plain sorted selves, and
 * a log from `sim --decisions` gets sim's own verdict. RATELAB_BIN names
 * the binary under test. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN(a) (sizeof(a) / sizeof(a)[0])

/* Every log is checked at L = 2 per I = 100 ns, epoch 0. Key b is quiet in
 * each (one admit a window), so the verdict is key a's.
 *
 * kept: a admits at 0, 50, 100, 150: every (t − 100, t] holds at most 2,
 *   every aligned window 2. Every promise holds.
 * slides: a admits at 90, 95, 100, 105: (5, 105] holds 4 > L, the aligned
 *   windows 2 each, and by t the cost is at most L·(⌊t/I⌋ + 1). Strong is
 *   broken; weak, window (4 ≤ 2L) and bucket (4 ≤ B + L at B = L) hold;
 *   bucket at B = 1 is broken (4 > 3).
 * bunched: a admits at 10, 20, 30: 3 in [0, 100). Strong and weak broken,
 *   window too (window_excess 1: 3 by t = 30, where L·1 = 2 may be); a
 *   bucket (3 ≤ 4) holds.
 * crowded: a admits at 180, 185, 190, 200, 205: (105, 205] holds 5 > 2L,
 *   while by t the cost stays within L·(⌊t/I⌋ + 1) (window_excess 0): the
 *   window promise is broken on its sliding bound alone; a bucket at B = L
 *   is broken (5 > 4), at B = 3 it holds (5 ≤ 5). */
static const char log_kept[] = "t_ns,key,n,admitted,thread\n"
                               "0,a,1,1,0\n5,b,1,1,1\n50,a,1,1,0\n60,a,1,0,1\n"
                               "100,a,1,1,0\n150,a,1,1,0\n160,a,1,0,0\n";
static const char log_slides[] = "t_ns,key,n,admitted,thread\n"
                                 "0,b,1,1,0\n90,a,1,1,0\n95,a,1,1,1\n97,a,1,0,0\n"
                                 "100,a,1,1,0\n105,a,1,1,1\n110,a,1,0,1\n150,b,1,1,0\n";
static const char log_bunched[] = "t_ns,key,n,admitted,thread\n"
                                  "0,b,1,1,0\n10,a,1,1,0\n20,a,1,1,0\n30,a,1,1,0\n40,a,1,0,0\n";
static const char log_crowded[] = "t_ns,key,n,admitted,thread\n"
                                  "0,b,1,1,0\n180,a,1,1,0\n185,a,1,1,0\n190,a,1,1,0\n"
                                  "195,a,1,0,0\n200,a,1,1,0\n205,a,1,1,0\n250,b,1,1,0\n";

static char dir[64];

/* A file in this suite's own directory (made on first use). */
static const char *path_of(const char *name, char *buf, size_t len)
{
    if (dir[0] == '\0') {
        strcpy(dir, "/tmp/ratelab-test-check-cli-XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    }
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

/* Removes the suite's directory, emptied by the test, so the next test
 * makes a fresh one. */
static void remove_dir(void)
{
    if (dir[0] != '\0')
        EXPECT(rmdir(dir) == 0, "%s is not empty", dir);
    dir[0] = '\0';
}

/* log with its header first and its lines last to first, into text. */
static void reverse_lines(const char *log, char *text, size_t len)
{
    const char *body = strchr(log, '\n') + 1;
    size_t n = (size_t)(body - log);
    CU_ASSERT_FATAL(strlen(log) < len);
    memcpy(text, log, n);
    for (const char *end = log + strlen(log); end > body;) {
        const char *start = end - 1;
        while (start > body && start[-1] != '\n')
            start--;
        memcpy(text + n, start, (size_t)(end - start));
        n += (size_t)(end - start);
        end = start;
    }
    text[n] = '\0';
}

static const char *write_log(const char *name, const char *text, char *buf, size_t len)
{
    path_of(name, buf, len);
    FILE *f = fopen(buf, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    return buf;
}

/* The table's verdict: the word after "held" at the start of a line, or
 * "" when there is no such line. */
static const char *table_held(const char *out, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *line = out; *line;
         line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0))
        if (strncmp(line, "held ", 5) == 0) {
            snprintf(buf, len, "%.*s", (int)strcspn(line + 5 + strspn(line + 5, " "), "\n"),
                     line + 5 + strspn(line + 5, " "));
            break;
        }
    return buf;
}

#define WINDOW "--limit 2 --interval 100ns"

/* `check --events FILE WINDOW --promise P EXTRA`: exits want (0 held, 1
 * broken), says so on its held line, writes nothing on stderr, and the csv
 * view's total row carries the same promise and verdict. */
static void expect_verdict(const char *file, const char *window, const char *promise,
                           const char *extra, int want)
{
    static struct rl_cli_outcome o;
    char args[1024], held[16];
    const char *word = want == 0 ? "yes" : "no";
    snprintf(args, sizeof args, "check --events %s %s --promise %s %s", file, window, promise,
             extra);
    rl_cli_run(&o, args);
    EXPECT(o.status == want && o.err_lines == 0, "%s: exit %d (want %d), stderr: %s", args,
           o.status, want, o.err);
    EXPECT(strcmp(table_held(o.out, held, sizeof held), word) == 0, "%s: held '%s', want %s: %s",
           args, held, word, o.out);
    strncat(args, " --format csv", sizeof args - strlen(args) - 1);
    rl_cli_run(&o, args);
    EXPECT(o.status == want, "%s: exit %d, want %d: %s", args, o.status, want, o.err);
    if (o.status == want) {
        EXPECT(strcmp(rl_cli_csv_field(o.out, strstr(o.out, "\n*,") + 1, "held", held, sizeof held),
                      word) == 0,
               "%s: csv held '%s', want %s", args, held, word);
        EXPECT(
            strcmp(rl_cli_csv_field(o.out, strstr(o.out, "\n*,") + 1, "promise", held, sizeof held),
                   promise) == 0,
            "%s: csv promise '%s'", args, held);
    }
}

static const struct {
    const char *name, *log, *promise, *extra;
    int status;
} cases[] = {
    {"kept", log_kept, "strong", "", 0},
    {"kept", log_kept, "weak", "", 0},
    {"kept", log_kept, "window", "", 0},
    {"kept", log_kept, "bucket", "", 0},
    {"kept", log_kept, "bucket", "--burst 1", 0},
    {"slides", log_slides, "strong", "", 1},
    {"slides", log_slides, "weak", "", 0},
    {"slides", log_slides, "window", "", 0},
    {"slides", log_slides, "bucket", "", 0},
    {"slides", log_slides, "bucket", "--burst 1", 1},
    {"bunched", log_bunched, "strong", "", 1},
    {"bunched", log_bunched, "weak", "", 1},
    {"bunched", log_bunched, "window", "", 1},
    {"bunched", log_bunched, "bucket", "", 0},
    {"crowded", log_crowded, "strong", "", 1},
    {"crowded", log_crowded, "weak", "", 1},
    {"crowded", log_crowded, "window", "", 1},
    {"crowded", log_crowded, "bucket", "", 1},
    {"crowded", log_crowded, "bucket", "--burst 3", 0},
    {"crowded", log_crowded, "bucket", "--burst 3 --admits-only", 0},
    {"slides", log_slides, "strong", "--admits-only", 1},
};

static void test_promises(void)
{
    char path[256];
    for (size_t i = 0; i < LEN(cases); i++) {
        write_log(cases[i].name, cases[i].log, path, sizeof path);
        expect_verdict(path, WINDOW, cases[i].promise, cases[i].extra, cases[i].status);
        unlink(path);
    }
    /* The weak grid follows --epoch: slides's admits at 90 and 95 and at 100
     * and 105 meet in [50, 150), 4 > L. */
    write_log("slides", log_slides, path, sizeof path);
    expect_verdict(path, WINDOW, "weak", "--epoch 50ns", 1);
    unlink(path);
    remove_dir();
}

/* Without --promise, check reports and exits 0 whatever the log holds,
 * with no held line and the csv columns it always had. */
static void test_without_promise(void)
{
    static struct rl_cli_outcome o;
    char path[256], args[512], held[16];
    write_log("bunched", log_bunched, path, sizeof path);
    snprintf(args, sizeof args, "check --events %s --limit 2 --interval 100ns", path);
    rl_cli_run(&o, args);
    EXPECT(o.status == 0 && o.err_lines == 0, "exit %d: %s", o.status, o.err);
    EXPECT(table_held(o.out, held, sizeof held)[0] == '\0', "a held line without --promise: %s",
           o.out);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "\nstrong_excess "));
    strncat(args, " --format csv", sizeof args - strlen(args) - 1);
    rl_cli_run(&o, args);
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_EQUAL(strncmp(o.out, "key,attempts,admits,", 20), 0);
    CU_ASSERT_PTR_NULL(strstr(o.out, "held"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(o.out, "\n*,"));
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\n*,") + 1, "strong_excess"), 1);
    EXPECT_EQ(rl_cli_csv_number(o.out, strstr(o.out, "\n*,") + 1, "window_excess"), 1);
    unlink(path);
    remove_dir();
}

/* Bad input: one line on stderr, exit 2, before any verdict. */
static void test_bad_input(void)
{
    char path[256], args[512];
    const char *file = write_log("kept", log_kept, path, sizeof path);
    static const struct {
        const char *options, *needle;
    } bad[] = {
        {"--interval 100ns", "--limit L is required"},
        {"--limit 2", "--interval DUR is required"},
        {"", "--limit L and --interval DUR are required"},
        {"--interval 100ns --promise strong", "--limit L is required"},
        {"--limit 2 --interval 100ns --promise strict", "unknown --promise 'strict'"},
        {"--limit 2 --interval 100ns --promise approx", "unknown --promise 'approx'"},
        {"--limit 2 --interval 100ns --promise concurrency", "no releases"},
        {"--limit 2 --interval 100ns --promise", "needs a value"},
        {"--limit 2 --interval 100ns --burst 3", "--promise bucket"},
        {"--limit 2 --interval 100ns --promise strong --burst 3", "--promise bucket"},
        {"--limit 2 --interval 100ns --promise bucket --burst 0", "--burst"},
    };
    for (size_t i = 0; i < LEN(bad); i++) {
        snprintf(args, sizeof args, "check --events %s %s", file, bad[i].options);
        rl_cli_expect_usage_error(args, bad[i].needle);
    }
    /* a log that cannot be read is bad input too, not a broken promise */
    write_log("broken.csv", "t_ns,key,n,admitted\n1,a,1,1\n2,a,x,1\n", path, sizeof path);
    snprintf(args, sizeof args, "check --events %s --limit 2 --interval 100ns --promise strong",
             path);
    rl_cli_expect_usage_error(args, "broken.csv:3: n must be");
    unlink(path);
    path_of("kept", path, sizeof path);
    unlink(path);
    remove_dir();
}

/* The same log without its thread column: the same verdicts and the same
 * csv lines. */
static void test_without_thread_column(void)
{
    static struct rl_cli_outcome with, without;
    char plain[256], bare[256], args[1024];
    write_log("slides", log_slides, plain, sizeof plain);
    char text[sizeof log_slides];
    /* drop ",thread" from the header and the last field of every line */
    char *w = text;
    for (const char *line = log_slides; *line; line += strcspn(line, "\n") + 1) {
        size_t len = strcspn(line, "\n");
        const char *comma = line + len;
        while (comma > line && *--comma != ',')
            ;
        memcpy(w, line, (size_t)(comma - line));
        w += comma - line;
        *w++ = '\n';
    }
    *w = '\0';
    CU_ASSERT_EQUAL_FATAL(strncmp(text, "t_ns,key,n,admitted\n0,b,1,1\n90,a,1,1\n", 37), 0);
    write_log("slides-bare", text, bare, sizeof bare);
    static const char *const promises[] = {"strong", "weak", "window", "bucket"};
    for (size_t i = 0; i < LEN(promises); i++) {
        snprintf(args, sizeof args,
                 "check --events %s --limit 2 --interval 100ns --promise %s --per-key --format csv",
                 plain, promises[i]);
        rl_cli_run(&with, args);
        snprintf(args, sizeof args,
                 "check --events %s --limit 2 --interval 100ns --promise %s --per-key --format csv",
                 bare, promises[i]);
        rl_cli_run(&without, args);
        EXPECT(without.status == with.status && without.err_lines == 0,
               "%s: exit %d, with threads %d: %s", args, without.status, with.status, without.err);
        EXPECT(strcmp(without.out, with.out) == 0, "%s:\n%s\nwith threads:\n%s", args, without.out,
               with.out);
    }
    expect_verdict(bare, WINDOW, "strong", "", 1);
    expect_verdict(bare, WINDOW, "weak", "", 0);
    unlink(plain);
    unlink(bare);
    remove_dir();
}

/* Lines out of time order are sorted (stably) before judging: reversed,
 * each log gets its sorted self's csv lines and exit status, and the
 * verdicts worked out above. None of these logs has two lines at one time,
 * so the reversed lines are the same log. */
static void test_unsorted(void)
{
    static struct rl_cli_outcome sorted, unsorted;
    static const char *const promises[] = {"strong", "weak", "window", "bucket"};
    char plain[256], reversed[256], args[1024], text[512], name[64];
    for (size_t i = 0; i < LEN(cases); i++) {
        write_log(cases[i].name, cases[i].log, plain, sizeof plain);
        reverse_lines(cases[i].log, text, sizeof text);
        snprintf(name, sizeof name, "%s-reversed", cases[i].name);
        write_log(name, text, reversed, sizeof reversed);
        EXPECT(strcmp(text, cases[i].log) != 0, "%s: reversed is the same", cases[i].name);
        expect_verdict(reversed, WINDOW, cases[i].promise, cases[i].extra, cases[i].status);
        for (size_t p = 0; p < LEN(promises); p++) {
            const char *burst = strcmp(promises[p], "bucket") == 0 ? "--burst 1" : "";
            snprintf(args, sizeof args,
                     "check --events %s " WINDOW " --promise %s %s --per-key --format csv", plain,
                     promises[p], burst);
            rl_cli_run(&sorted, args);
            snprintf(args, sizeof args,
                     "check --events %s " WINDOW " --promise %s %s --per-key --format csv",
                     reversed, promises[p], burst);
            rl_cli_run(&unsorted, args);
            /* keys are named in order of first appearance: compare the
             * total line and each key's line, wherever it is */
            EXPECT(unsorted.status == sorted.status && unsorted.err_lines == 0,
                   "%s: exit %d, sorted %d: %s", args, unsorted.status, sorted.status,
                   unsorted.err);
            static char whole[sizeof unsorted.out + 2];
            snprintf(whole, sizeof whole, "\n%s", unsorted.out);
            for (const char *line = sorted.out; *line; line += strcspn(line, "\n") + 1) {
                char want[512];
                snprintf(want, sizeof want, "\n%.*s\n", (int)strcspn(line, "\n"), line);
                EXPECT(strstr(whole, want) != NULL, "%s: no line %s in:\n%s", args, want + 1,
                       unsorted.out);
            }
            EXPECT_EQ(rl_cli_lines(unsorted.out), rl_cli_lines(sorted.out));
        }
        unlink(plain);
        unlink(reversed);
    }
    remove_dir();
}

/* A log from `sim --decisions` gets from check the verdict sim gave the
 * algorithm: the one rule, in report/result.c. And a log judged by a
 * promise its limiter never made: fw_aligned's, by strong, on the boundary
 * workload that puts 2L across each aligned edge. */
static void test_same_as_sim(void)
{
    static const struct {
        const char *algo, *promise, *options;
    } runs[] = {
        {"sliding_log", "strong", ""},
        {"fw_aligned", "weak", ""},
        {"fw_cas", "window", ""},
        {"tb_cas", "bucket", "--burst 5"},
    };
    static struct rl_cli_outcome o;
    char decisions[256], args[1024], held[16];
    path_of("d.csv", decisions, sizeof decisions);
    for (size_t i = 0; i < LEN(runs); i++) {
        snprintf(args, sizeof args,
                 "sim --algo %s --workload boundary --keys 3 --limit 10 --interval 1s %s "
                 "--decisions %s --format csv",
                 runs[i].algo, runs[i].options, decisions);
        rl_cli_run(&o, args);
        EXPECT_FATAL(o.status == 0, "%s: exit %d: %s", args, o.status, o.err);
        const char *row = strchr(o.out, '\n') + 1;
        rl_cli_csv_field(o.out, row, "promise_held", held, sizeof held);
        EXPECT(strcmp(held, "yes") == 0, "%s: sim's verdict %s", args, held);
        expect_verdict(decisions, "--limit 10 --interval 1s", runs[i].promise, runs[i].options,
                       strcmp(held, "no") == 0);
        /* and at a tenth of the limit, the same decisions break it */
        expect_verdict(decisions, "--limit 1 --interval 1s", runs[i].promise, "", 1);
    }
    rl_cli_run(&o,
               "sim --algo fw_aligned --workload boundary --limit 10 --interval 1s --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    unsigned long sliding = rl_cli_csv_number(o.out, strchr(o.out, '\n') + 1, "max_sliding");
    CU_ASSERT_FATAL(sliding > 10);
    snprintf(args, sizeof args,
             "sim --algo fw_aligned --workload boundary --limit 10 --interval 1s --decisions %s",
             decisions);
    rl_cli_run(&o, args);
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    snprintf(args, sizeof args, "check --events %s --limit 10 --interval 1s --promise strong",
             decisions);
    rl_cli_run(&o, args);
    EXPECT(o.status == 1 && strcmp(table_held(o.out, held, sizeof held), "no") == 0,
           "%s: exit %d, held %s: %s", args, o.status, held, o.out);
    unlink(decisions);
    remove_dir();
}

/* --help says what the exit statuses are and that lines are sorted. */
static void test_help(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "check --help");
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "--promise"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "Exit status: 0 the promise held"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "1 the promise is broken"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "2 bad input"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "they are sorted by\ntime"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "t_ns,key,n,admitted\n(thread 0)"));
}

/* A key of 20000 bytes is cut in the tables to its first bytes (never half
 * a UTF-8 character) and its length, and kept whole in csv and json. */
static void test_huge_key(void)
{
    enum { KEY_LEN = 20000 };
    static char key[KEY_LEN + 1], text[3 * KEY_LEN + 256];
    memset(key, 'a', 39);
    memcpy(key + 39, "\xc3\xa9", 2); /* é across the 40th byte: the cut falls before it */
    memset(key + 41, 'z', KEY_LEN - 41);
    snprintf(text, sizeof text, "t_ns,key,n,admitted,thread\n1,%s,1,1,0\n2,%s,1,1,0\n3,b,1,1,0\n",
             key, key);
    char path[256], args[1024], want[128];
    write_log("huge-key", text, path, sizeof path);
    snprintf(want, sizeof want, "%.39s…(%d bytes)", key, KEY_LEN);
    static struct rl_cli_outcome table, csv, json;
    snprintf(args, sizeof args, "check --events %s --limit 2 --interval 100ns --per-key", path);
    rl_cli_run(&table, args);
    const char *worst = strstr(table.out, "\nworst_key");
    EXPECT(table.status == 0 && worst && strstr(worst, want) &&
               strstr(worst, want) < strchr(worst + 1, '\n'),
           "table worst_key is not '%s':\n%.2000s", want, table.out);
    EXPECT(strstr(table.out, "\n"
                             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…(20000 bytes) ") != NULL,
           "per-key table:\n%.2000s", table.out);
    EXPECT(strlen(table.out) < 4000 && strstr(table.out, "zzz") == NULL,
           "the table holds the key whole: %zu bytes", strlen(table.out));
    snprintf(args, sizeof args,
             "check --events %s --limit 2 --interval 100ns --per-key --format csv", path);
    rl_cli_run(&csv, args);
    char row[KEY_LEN + 8];
    snprintf(row, sizeof row, "\n%s,", key);
    EXPECT(csv.status == 0 && strstr(csv.out, row) != NULL, "csv lacks the whole key");
    snprintf(args, sizeof args,
             "check --events %s --limit 2 --interval 100ns --per-key --format json", path);
    rl_cli_run(&json, args);
    snprintf(row, sizeof row, "\"%s\"", key);
    const char *in_json = strstr(json.out, "\"worst_key\": ");
    EXPECT(json.status == 0 && in_json && strncmp(in_json + 13, row, strlen(row)) == 0,
           "json worst_key is not the whole key");
    unlink(path);
    remove_dir();
}

RL_TEST_SUITE("check_cli", {"each promise kept and broken, exit 0 and 1", test_promises},
              {"without --promise, as before", test_without_promise},
              {"bad input exits 2 with one line", test_bad_input},
              {"a log without the thread column", test_without_thread_column},
              {"an unsorted log is judged as its sorted self", test_unsorted},
              {"a sim log gets sim's verdict", test_same_as_sim},
              {"--help gives the exit statuses", test_help},
              {"a huge key: cut in tables, whole in csv and json", test_huge_key})
