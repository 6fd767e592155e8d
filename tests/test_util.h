/* test_util.h — how a test file declares its CUnit suite.
 *
 * Each tests/NAME.c ends with RL_TEST_SUITE("name", {"case", fn}, ...); the
 * suite registers itself before main() runs, so adding a test file needs no
 * edit anywhere else. `ratelab-tests NAME…` runs only the named suites.
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

/* CU_ASSERT with a printf-style message, so a failure says which case and
 * which values. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        char msg_[240];                                                                            \
        snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                  \
        CU_assertImplementation((cond), __LINE__, msg_, __FILE__, "", CU_FALSE);                   \
    } while (0)

#endif
