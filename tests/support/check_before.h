/* check_before.h — the checker before it streamed, as the reference the
 * streaming suites compare with (check_before.c). */
#ifndef RL_TEST_CHECK_BEFORE_H
#define RL_TEST_CHECK_BEFORE_H

#include "harness/check/checker.h"

/* rl_check as of commit dd8d6ee: sorts the log, then measures each key. */
int rl_check_before(struct rl_event_log *log, const struct rl_check_params *params,
                    struct rl_check_result *out, char *err, size_t err_len);

#endif
