/* test_teach_cli.c — `ratelab teach`: the list names every lesson, the
 * litmus and lost-reset lessons run and print their counts, a run in which
 * the race did not happen says so (the one-thread control run forces it),
 * `ratelab litmus` notes each row, and an unknown lesson is one line and
 * exit 2. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_list_names_all(void)
{
    static struct rl_cli_outcome o;
    static const char *const names[] = {"data-race", "lost-reset", "first-window", "litmus",
                                        "tso-model", "asm",        "linearizable"};
    rl_cli_run(&o, "teach");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *prev = o.out;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *at = strstr(prev, names[i]);
        EXPECT(at != NULL, "teach list lacks '%s' in order:\n%s", names[i], o.out);
        prev = at ? at : prev;
    }
}

/* Each litmus row ("TEST store A / load B  trials non_sc c11 tso pinned
 * note") carries the note its count calls for: "seen" when counted; when
 * not, "not seen in this run ... rerun" where x86-64's TSO allows it, "not
 * observable here" where only C11 does, "forbidden" where neither does.
 * Returns the rows that said "not seen in this run". */
static int check_litmus_notes(const char *out)
{
    static const char *const orders[] = {"relaxed / load relaxed", "release / load acquire",
                                         "seq_cst / load seq_cst"};
    int not_seen = 0;
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++) {
            char label[64];
            snprintf(label, sizeof label, "\n%s   store %s ", t ? "mp" : "sb", orders[k]);
            const char *row = strstr(out, label);
            EXPECT_FATAL(row != NULL, "no row '%s':\n%s", label + 1, out);
            row += strlen(label);
            unsigned long long trials = 0, non_sc = 0;
            char c11[16] = "", tso[16] = "", third[16] = "";
            int at = 0;
            EXPECT_FATAL(sscanf(row, "%llu %llu%n %15s", &trials, &non_sc, &at, third) == 3,
                         "row '%s' unreadable", label + 1);
            /* `litmus` has per_1m before c11; `teach litmus` does not */
            double per_1m;
            int skip = 0;
            if (strchr(third, '.') != NULL)
                EXPECT_FATAL(sscanf(row + at, " %lf%n", &per_1m, &skip) == 1, "per_1m");
            EXPECT_FATAL(sscanf(row + at + skip, "%15s %15s", c11, tso) == 2,
                         "row '%s' has no c11, x86_64_tso", label + 1);
            const char *eol = strchr(row, '\n');
            size_t len = eol ? (size_t)(eol - row) : strlen(row);
            char line[256];
            snprintf(line, sizeof line, "%.*s", (int)len, row);
            const char *want = non_sc > 0                    ? "  seen"
                               : strcmp(tso, "allowed") == 0 ? "not seen in this run"
                               : strcmp(c11, "allowed") == 0 ? "not observable here"
                                                             : "forbidden at this order";
            EXPECT(strstr(line, want) != NULL, "row '%s%s' lacks '%s'", label + 1, line, want);
            if (non_sc == 0 && strcmp(tso, "allowed") == 0)
                EXPECT(strstr(line, "rerun") != NULL, "no rerun suggested: %s", line);
            not_seen += strstr(line, "not seen in this run") != NULL;
        }
    return not_seen;
}

static void test_litmus_counts(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "teach litmus");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* the count is named for what it counts, not "forbidden" */
    const char *eol = strchr(o.out, '\n');
    const char *header = strstr(o.out, "\ntest ");
    EXPECT_FATAL(header != NULL && eol != NULL, "no table header:\n%s", o.out);
    EXPECT(strstr(header, "non_sc") != NULL && strstr(header, "non_sc") < strchr(header + 1, '\n'),
           "header does not name non_sc:\n%s", o.out);
    EXPECT(strstr(header, "forbidden") > strchr(header + 1, '\n'),
           "'forbidden' heads a column:\n%s", o.out);
    CU_ASSERT(strstr(o.out, "sb: r0=0, r1=0; mp: r0=1, r1=0") != NULL);
    const char *sb = strstr(o.out, "sb   store seq_cst / load seq_cst");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
    unsigned long long trials = 1, non_sc = 1;
    CU_ASSERT_EQUAL(sscanf(sb, "sb store seq_cst / load seq_cst %llu %llu", &trials, &non_sc), 2);
    CU_ASSERT_EQUAL(trials, 1000000);
    EXPECT(non_sc == 0, "sb seq_cst non_sc %llu", non_sc);
    CU_ASSERT(strstr(o.out, "store release / load acquire") != NULL);
    CU_ASSERT(strstr(o.out, "acq_rel ") == NULL);
    check_litmus_notes(o.out);
    CU_ASSERT(strstr(o.out, "Arm and POWER may\n       do it (not observable here)") != NULL);
    CU_ASSERT(strstr(o.out, "ordering") != NULL);
}

/* `ratelab litmus` with one trial per row: SB at relaxed and release /
 * acquire shows r0=r1=0 a few times in 10^3 trials here, so with one trial
 * at least one of them is 0 all but about once in 10^5 runs, and its row
 * must say the race did not happen in this run and suggest the rerun. */
static void test_litmus_not_seen(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "litmus --trials 1");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(check_litmus_notes(o.out) > 0, "no row said 'not seen in this run':\n%s", o.out);
    CU_ASSERT(strstr(o.out, "\nnon_sc: trials") != NULL);
    CU_ASSERT(strstr(o.out, "Arm and POWER (not\nobservable here)") != NULL);
}

/* A count the lesson printed ("  name   value"), or -1. */
static long long printed(const char *out, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "\n  %s ", name);
    const char *at = strstr(out, key);
    long long value = -1;
    return at && sscanf(at + strlen(key), " %lld", &value) == 1 ? value : -1;
}

/* The verdict, not its label: fw_atomic_naive is broken, so its lesson says
 * `held no`, and says it exactly when its own counts show the race (an
 * excess over L per window, more than 2L sliding or more than L in the
 * first window; TEACH_L = 50). The race is a reset lost between two threads
 * running at once, seen in every one of 10 runs here; a run without it is
 * retried, up to 5 runs per CPU, and never seeing it fails the test. One
 * CPU is skipped: the threads never overlap there. */
static void test_lost_reset_runs(void)
{
    static struct rl_cli_outcome o;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
        printf("\n    skipped: one CPU, the lost reset cannot be observed ");
        return;
    }
    bool race = false;
    for (long run = 0; run < 5 * cpus && !race; run++) {
        rl_cli_run(&o, "teach lost-reset");
        CU_ASSERT_EQUAL_FATAL(o.status, 0);
        const char *held = strstr(o.out, "\n  held ");
        EXPECT_FATAL(held != NULL, "no verdict printed:\n%s", o.out);
        char verdict[8] = "";
        EXPECT(sscanf(held + strlen("\n  held "), " %7s", verdict) == 1 &&
                   (strcmp(verdict, "yes") == 0 || strcmp(verdict, "no") == 0),
               "verdict '%s' is neither yes nor no", verdict);
        bool said_no = strcmp(verdict, "no") == 0;
        long long excess = printed(o.out, "window_excess"), sliding = printed(o.out, "max_sliding"),
                  first = printed(o.out, "first_window");
        EXPECT_FATAL(excess >= 0 && sliding >= 0 && first >= 0, "counts not printed:\n%s", o.out);
        bool counts_show_it = excess > 0 || sliding > 100 || first > 50;
        EXPECT(said_no == counts_show_it,
               "verdict says held %s, counts: excess %lld, "
               "max_sliding %lld, first window %lld:\n%s",
               said_no ? "no" : "yes", excess, sliding, first, o.out);
        /* a run without the race says so, and only such a run */
        bool says_none = strstr(o.out, "The race did not happen in this run") != NULL;
        EXPECT(says_none == !said_no, "held %s but 'did not happen' %s:\n%s",
               said_no ? "no" : "yes", says_none ? "printed" : "missing", o.out);
        /* the two excess counts are explained, and agree with it */
        long long beyond = printed(o.out, "beyond the bound");
        EXPECT(beyond >= 0 && excess >= beyond, "beyond the bound %lld > window_excess %lld",
               beyond, excess);
        CU_ASSERT(strstr(o.out, "beyond the bound is counted once, at the end of the run") != NULL);
        race = said_no;
    }
    EXPECT(race, "the race was not observed: fw_atomic_naive held in %ld runs on %ld CPUs",
           5 * cpus, cpus);
    CU_ASSERT(strstr(o.out, "make teach") != NULL);
    CU_ASSERT(strstr(o.out, "make model-check") != NULL);
    CU_ASSERT(strstr(o.out, "atomicity") != NULL);
}

/* The counts of lost updates: fetch_add loses none, the other two at most
 * all but one per thread; and ThreadSanitizer's report, naming the racing
 * line of fw_article.h (make check-unit sets RATELAB_TSAN_BIN). */
static void test_data_race_counts(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "teach data-race");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    static const char *const ways[] = {"plain", "load_store", "fetch_add"};
    for (size_t i = 0; i < 3; i++) {
        char needle[32];
        snprintf(needle, sizeof needle, "\n  %s ", ways[i]);
        const char *at = strstr(o.out, needle + 1);
        EXPECT_FATAL(at != NULL, "no '%s' row:\n%s", ways[i], o.out);
        const char *nums = strstr(at, "2000000");
        EXPECT_FATAL(nums != NULL, "no expected count on the '%s' row", ways[i]);
        unsigned long long expected = 0, final = 0, lost = 1;
        CU_ASSERT_EQUAL(sscanf(nums, "%llu %llu %llu", &expected, &final, &lost), 3);
        EXPECT(final <= expected && lost == expected - final, "%s: %llu %llu %llu", ways[i],
               expected, final, lost);
        if (i == 2)
            EXPECT(lost == 0, "fetch_add lost %llu updates", lost);
        else { /* a racing way that lost nothing says the race did not happen */
            char note[64];
            snprintf(note, sizeof note, "\n  %s: none lost: the race did not happen", ways[i]);
            EXPECT((lost == 0) == (strstr(o.out, note) != NULL), "%s lost %llu; note %s:\n%s",
                   ways[i], lost, strstr(o.out, note) ? "printed" : "missing", o.out);
        }
    }
    CU_ASSERT(strstr(o.out, "fw_plain, 2 threads") != NULL);
    const char *tsan = getenv("RATELAB_TSAN_BIN");
    if (tsan != NULL && access(tsan, X_OK) == 0) {
        EXPECT(strstr(o.out, "WARNING: ThreadSanitizer: data race") != NULL,
               "no ThreadSanitizer report:\n%s", o.out);
        EXPECT(strstr(o.out, "fw_plain_decide algorithms/windows/fw_article.h:") != NULL,
               "the report does not name fw_article.h:\n%s", o.out);
    } else
        EXPECT(strstr(o.out, "SAN=thread MALLOC= make build/san-thread/ratelab") != NULL,
               "no hint to build ThreadSanitizer's ratelab:\n%s", o.out);
}

/* Without the sanitized build the lesson says how to get it. */
static void test_data_race_without_tsan(void)
{
    static struct rl_cli_outcome o;
    char *saved = getenv("RATELAB_TSAN_BIN") ? strdup(getenv("RATELAB_TSAN_BIN")) : NULL;
    setenv("RATELAB_TSAN_BIN", "/nonexistent/ratelab", 1);
    rl_cli_run(&o, "teach data-race");
    if (saved != NULL) {
        setenv("RATELAB_TSAN_BIN", saved, 1);
        free(saved);
    } else
        unsetenv("RATELAB_TSAN_BIN");
    CU_ASSERT_EQUAL(o.status, 0);
    EXPECT(strstr(o.out, "its build is not here") != NULL, "%s", o.out);
    CU_ASSERT(strstr(o.out, "WARNING: ThreadSanitizer") == NULL);
}

/* The control run: with one thread no race can happen, so every lesson
 * whose point is a race must say it did not happen, and how to see it. */
static void test_control_run_says_no_race(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "teach --threads 1 data-race");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT(strstr(o.out, "  plain: none lost: one thread, so no race can happen") != NULL &&
               strstr(o.out, "  load_store: none lost: one thread") != NULL,
           "no note on the racing ways' zero losses:\n%s", o.out);
    CU_ASSERT(strstr(o.out, "fetch_add: none lost") == NULL);
    CU_ASSERT(strstr(o.out, "fw_plain, 1 thread,") != NULL);
    EXPECT(strstr(o.out, "The race did not happen: one thread") != NULL &&
               strstr(o.out, "ratelab teach data-race\n") != NULL,
           "no 'did not happen' for fw_plain:\n%s", o.out);
    static const char *const lessons[] = {"lost-reset", "first-window"};
    for (size_t i = 0; i < 2; i++) {
        char args[64], rerun[64];
        snprintf(args, sizeof args, "teach --threads 1 %s", lessons[i]);
        snprintf(rerun, sizeof rerun, "Run with two threads to see it: ratelab teach %s\n",
                 lessons[i]);
        rl_cli_run(&o, args);
        CU_ASSERT_EQUAL_FATAL(o.status, 0);
        CU_ASSERT(strstr(o.out, "\n  held                yes\n") != NULL);
        EXPECT(strstr(o.out, "The race did not happen: one thread") != NULL &&
                   strstr(o.out, rerun) != NULL,
               "%s: no 'did not happen':\n%s", lessons[i], o.out);
    }
    /* one thread's history always has an order: its calls never overlap */
    rl_cli_run(&o, "teach --threads 1 linearizable");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* step 1's block, up to the fix's */
    const char *naive = strstr(o.out, "fw_atomic_naive, 1 thread asked");
    const char *fix = naive ? strstr(naive, "fw_mutex, 1 thread asked") : NULL;
    EXPECT_FATAL(naive != NULL && fix != NULL, "no one-thread blocks:\n%s", o.out);
    char block[4096];
    snprintf(block, sizeof block, "%.*s", (int)(fix - naive), naive);
    EXPECT(strstr(block, "\n  threads             1 ") != NULL &&
               strstr(block, "\n  verdict             linearizable\n") != NULL &&
               strstr(block, "\n  overlapping         0 ") != NULL,
           "linearizable, one thread:\n%s", block);
    EXPECT(strstr(o.out, "The race did not happen: one thread") != NULL &&
               strstr(o.out, "Run with two threads to see it: ratelab teach linearizable\n") !=
                   NULL,
           "linearizable: no 'did not happen':\n%s", o.out);
    CU_ASSERT(strstr(o.out, "The counterexample") == NULL);
    rl_cli_expect_usage_error("teach --threads 3 lost-reset", "--threads");
}

static void test_unknown_lesson(void)
{
    rl_cli_expect_usage_error("teach no-such-lesson", "no-such-lesson");
}

RL_TEST_SUITE("teach_cli", {"the list names all seven lessons in order", test_list_names_all},
              {"teach litmus prints counts, seq_cst SB 0", test_litmus_counts},
              {"litmus with one trial says 'not seen in this run'", test_litmus_not_seen},
              {"teach --threads 1: every race lesson says no race", test_control_run_says_no_race},
              {"teach lost-reset: held no, as its counts show", test_lost_reset_runs},
              {"teach data-race counts lost updates, shows TSan", test_data_race_counts},
              {"teach data-race without TSan says how to build it", test_data_race_without_tsan},
              {"an unknown lesson is one line, exit 2", test_unknown_lesson})
