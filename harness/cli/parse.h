/* parse.h — strict parsing of command-line values: durations with units,
 * counts, ratios and comma lists. Each returns 0, or -1 with one line in
 * err saying what was wrong and what is accepted. */
#ifndef RL_PARSE_H
#define RL_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "250ms", "1.5s", "100us", "40ns" (also "µs"); a unit is required, since a
 * bare number is ambiguous. Values are rounded to whole nanoseconds. */
int rl_parse_duration_ns(const char *text, uint64_t *out_ns, char *err, size_t err_len);

/* A decimal integer in [min, max]. */
int rl_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                 size_t err_len);

/* A finite decimal number greater than min_exclusive. */
int rl_parse_double(const char *text, double min_exclusive, double *out, char *err, size_t err_len);

/* "1,2,4": up to max_items integers in [min, max]; *count gets how many. */
int rl_parse_u64_list(const char *text, uint64_t min, uint64_t max, uint64_t *items,
                      size_t max_items, size_t *count, char *err, size_t err_len);

/* Formats a duration for humans: "1s", "250ms", "1.5us", "40ns". */
const char *rl_format_duration(uint64_t ns, char *buf, size_t buf_len);

#endif
