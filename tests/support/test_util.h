/* test_util.h — how a test file declares its CUnit suite, and the one
 * family of assertions every suite uses.
 *
 * Each tests/NAME.c ends with RL_TEST_SUITE("name", {"case", fn}, ...); the
 * suite registers itself before main() runs, so adding a test file needs no
 * edit anywhere else. `ratelab-tests NAME…` runs only the named suites.
 *
 * Assertions: one family, in suites and helpers alike.
 *   CU_ASSERT(cond), CU_ASSERT_EQUAL, _PTR_*, _STRING_EQUAL, _DOUBLE_EQUAL
 *       CUnit's own, for a fixed case whose expression (printed on failure
 *       with file:line) says what went wrong. Their _FATAL forms end the
 *       test: for setup that the rest of it needs.
 *   EXPECT(cond, fmt, ...)
 *       cond with a printf-style message naming the case and the values:
 *       in loops over seeds, algorithms or table rows, or to quote an err
 *       buffer. EXPECT_FATAL(cond, fmt, ...) ends the test on failure.
 *   EXPECT_EQ(got, want)
 *       integers equal; the message prints both ("x is 3, want 4").
 * Nothing else: no bare CU_assertImplementation, no fprintf before an
 * assertion, no per-suite assertion macros.
 */
#ifndef RL_TEST_UTIL_H
#define RL_TEST_UTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdio.h>

struct rl_test_case {
    const char *name;
    void (*fn)(void);
};

void rl_test_suite_register(const char *suite, const struct rl_test_case *cases);

#define RL_TEST_SUITE(suite_name, ...)                                                             \
    static const struct rl_test_case rl_suite_cases_[] = {__VA_ARGS__, {NULL, NULL}};              \
    __attribute__((constructor)) static void rl_suite_register_(void)                              \
    {                                                                                              \
        rl_test_suite_register(suite_name, rl_suite_cases_);                                       \
    }

/* One CUnit assertion of ok at file:line; on failure its message is fmt
 * formatted (test_main.c). fatal ends the test as CU_ASSERT_FATAL does. */
void rl_expect(int ok, const char *file, unsigned line, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define EXPECT(cond, ...)       rl_expect(!!(cond), __FILE__, __LINE__, 0, __VA_ARGS__)
#define EXPECT_FATAL(cond, ...) rl_expect(!!(cond), __FILE__, __LINE__, 1, __VA_ARGS__)
#define EXPECT_EQ(got, want)                                                                       \
    do {                                                                                           \
        unsigned long long got_ = (got), want_ = (want);                                           \
        EXPECT(got_ == want_, "%s is %llu, want %llu", #got, got_, want_);                         \
    } while (0)

#endif
