/* test_main.c — the CUnit runner: every self-registered suite, or only the
 * suites named on the command line. Exits 1 when any assertion failed.
 * Also rl_expect, behind test_util.h's EXPECT macros. */
#include "test_util.h"

#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUITES 128

static struct {
    const char *name;
    const struct rl_test_case *cases;
} pending[MAX_SUITES];
static int pending_count;

void rl_test_suite_register(const char *suite, const struct rl_test_case *cases)
{
    if (pending_count == MAX_SUITES) {
        fprintf(stderr, "test_main: more than %d suites; raise MAX_SUITES\n", MAX_SUITES);
        return;
    }
    pending[pending_count].name = suite;
    pending[pending_count].cases = cases;
    pending_count++;
}

void rl_expect(int ok, const char *file, unsigned line, int fatal, const char *fmt, ...)
{
    char message[8192];
    message[0] = '\0';
    if (!ok) { /* formatted only when it will be shown */
        va_list args;
        va_start(args, fmt);
        vsnprintf(message, sizeof message, fmt, args);
        va_end(args);
    }
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, line, message, file, "",
                            fatal ? CU_TRUE : CU_FALSE);
}

/* A name ending in '*' matches every suite it prefixes ("stress*"). */
static int matches(const char *pattern, const char *suite)
{
    size_t len = strlen(pattern);
    if (len > 0 && pattern[len - 1] == '*')
        return strncmp(pattern, suite, len - 1) == 0;
    return strcmp(pattern, suite) == 0;
}

/* With no names, every suite but the slow ones ("..._slow": their own
 * make targets, such as cluster-check, name them). */
static int wanted(const char *suite, int argc, char **argv)
{
    size_t len = strlen(suite);
    if (argc < 2)
        return !(len >= 5 && strcmp(suite + len - 5, "_slow") == 0);
    for (int i = 1; i < argc; i++)
        if (matches(argv[i], suite))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    /* The CLI suites count stderr lines; a busy machine's load warning
     * (stress, replay) would add one. Runs read a calm load average unless
     * a test points elsewhere (the cli suite's load test does). */
    static const char calm[] = "/tmp/ratelab-tests-calm-loadavg";
    FILE *f = fopen(calm, "w");
    if (f) {
        fputs("0.00 0.00 0.00 1/100 1\n", f);
        fclose(f);
        setenv("RATELAB_LOADAVG", calm, 0);
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    int added = 0;
    for (int i = 0; i < pending_count; i++) {
        if (!wanted(pending[i].name, argc, argv))
            continue;
        CU_pSuite suite = CU_add_suite(pending[i].name, NULL, NULL);
        if (suite == NULL)
            return 2;
        for (const struct rl_test_case *c = pending[i].cases; c->name; c++)
            if (CU_add_test(suite, c->name, c->fn) == NULL)
                return 2;
        added++;
    }
    int unmatched = 0;
    for (int i = 1; i < argc; i++) {
        int found = 0;
        for (int j = 0; j < pending_count; j++)
            found |= matches(argv[i], pending[j].name);
        unmatched += !found;
    }
    if (added == 0 || unmatched) {
        fprintf(stderr, "ratelab-tests: a named suite does not exist in this build (have:");
        for (int i = 0; i < pending_count; i++)
            fprintf(stderr, " %s", pending[i].name);
        fprintf(stderr, ")\n");
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
