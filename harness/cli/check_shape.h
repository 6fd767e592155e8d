/* check_shape.h — `ratelab check --promise shape`: a shaped decision log
 * judged by harness/check/shape_check.h, printed, and its exit status. */
#ifndef RL_CHECK_SHAPE_H
#define RL_CHECK_SHAPE_H

#include "output.h"
#include "harness/check/shape_check.h"

#include <stdbool.h>
#include <stdint.h>

struct rl_check_shape_request {
    const char *events_path;
    uint64_t limit, interval_ns, burst; /* burst already defaulted to L */
    bool max_wait_set;
    uint64_t max_wait_ns;
    const struct rl_rate_change *rates; /* --set-rate (rate_count 0: none) */
    size_t rate_count;
    const struct rl_cli_output *output; /* --format table|csv|json, --out */
};

/* Reads, judges and prints (the table, or one csv/json row of the same
 * metrics, and the CSV row in --out's file); returns check's exit status (0 held, 1 broken
 * or n/a); exits 2 with one line for a log that cannot be read or is not
 * shaped, 1 on ENOMEM. */
int rl_check_shape(const char *cmd, const struct rl_check_shape_request *req);

#endif
