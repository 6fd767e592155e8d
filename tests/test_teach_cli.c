/* test_teach_cli.c — `ratelab teach`: the list names every lesson, the
 * litmus and lost-reset lessons run and print their counts, and an unknown
 * lesson is one line and exit 2. */
#include "cli_run.h"
#include "test_util.h"

#include <string.h>

static void test_list_names_all(void)
{
    static struct rl_cli_outcome o;
    static const char *const names[] = {"data-race", "lost-reset", "first-window",
                                        "litmus",    "tso-model",  "asm"};
    rl_cli_run(&o, "teach");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *prev = o.out;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *at = strstr(prev, names[i]);
        EXPECT(at != NULL, "teach list lacks '%s' in order:\n%s", names[i], o.out);
        prev = at ? at : prev;
    }
}

static void test_litmus_counts(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "teach litmus");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    CU_ASSERT(strstr(o.out, "forbidden") != NULL);
    CU_ASSERT(strstr(o.out, "mp   seq_cst") != NULL);
    const char *sb = strstr(o.out, "sb   seq_cst");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
    unsigned long long trials = 1, forbidden = 1;
    CU_ASSERT_EQUAL(sscanf(sb, "sb seq_cst %llu %llu", &trials, &forbidden), 2);
    CU_ASSERT_EQUAL(trials, 1000000);
    EXPECT(forbidden == 0, "sb seq_cst forbidden %llu", forbidden);
    CU_ASSERT(strstr(o.out, "ordering") != NULL);
}

static void test_lost_reset_runs(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "teach lost-reset");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    CU_ASSERT(strstr(o.out, "held ") != NULL);
    CU_ASSERT(strstr(o.out, "window_excess") != NULL);
    CU_ASSERT(strstr(o.out, "make teach") != NULL);
    CU_ASSERT(strstr(o.out, "make model-check") != NULL);
    CU_ASSERT(strstr(o.out, "atomicity") != NULL);
}

static void test_unknown_lesson(void)
{
    rl_cli_expect_usage_error("teach no-such-lesson", "no-such-lesson");
}

RL_TEST_SUITE("teach_cli", {"the list names all six lessons in order", test_list_names_all},
              {"teach litmus prints counts, seq_cst SB 0", test_litmus_counts},
              {"teach lost-reset runs and prints held", test_lost_reset_runs},
              {"an unknown lesson is one line, exit 2", test_unknown_lesson})
