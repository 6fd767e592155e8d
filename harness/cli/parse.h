/* parse.h — strict parsing of command-line values: durations with units,
 * counts, ratios and comma lists. Each returns 0, or -1 with one line in
 * err saying what was wrong and what is accepted. */
#ifndef RL_PARSE_H
#define RL_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "250ms", "1.5s", "100us", "40ns" (also "µs"); a unit is required, since a
 * bare number is ambiguous. Values are rounded to whole nanoseconds (half
 * away from zero); a plain decimal ("1.5s", "18446744073709551615ns") is
 * converted exactly, an exponent form ("1e3ms") through a double. */
int rl_parse_duration_ns(const char *text, uint64_t *out_ns, char *err, size_t err_len);

/* --max-wait: a duration (as above) of at most RL_MAX_WAIT_LIMIT_NS, one
 * day: a longer wait is a typo, not a caller's patience. 0 is "no wait". */
#define RL_MAX_WAIT_LIMIT_NS (86400ull * 1000000000ull)
int rl_parse_max_wait_ns(const char *text, uint64_t *out_ns, char *err, size_t err_len);

/* A decimal integer in [min, max]. */
int rl_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                 size_t err_len);

/* A finite decimal number greater than min_exclusive. */
int rl_parse_double(const char *text, double min_exclusive, double *out, char *err, size_t err_len);

/* "1,2,4": up to max_items integers in [min, max]; *count gets how many.
 * Every item must be there: "1,,2", ",1" and "1," are refused. */
int rl_parse_u64_list(const char *text, uint64_t min, uint64_t max, uint64_t *items,
                      size_t max_items, size_t *count, char *err, size_t err_len);

/* Room for any rl_format_duration_ns text: 20 digits, a unit, the NUL. */
#define RL_DURATION_BUF_LEN 24

/* The shortest exact form with a unit: a whole number of the largest unit
 * that divides ns ("2s", "1500ms", "250us", "7ns"; 0 is "0s"), which
 * rl_parse_duration_ns reads back as ns. Returns buf; the text is cut short
 * only when buf_len is under RL_DURATION_BUF_LEN. */
const char *rl_format_duration_ns(uint64_t ns, char *buf, size_t buf_len);

/* A measured duration for people: the largest unit (s, ms, us) in which it
 * is at least 1, with three decimals, rounded half up at the last one
 * ("12.068ms" for 12068398 ns, "1.000ms" for 999999 ns); below 1us the
 * whole number of ns ("412ns"). Every text it gives parses back
 * (rl_parse_duration_ns) to within a thousandth of its unit (half of one
 * but at the very top, where rounding up would pass 2^64 - 1 ns and it
 * rounds down: 18446744073709551615 ns is "18446744073.709s"). Exact ones (a
 * configured --interval) go through rl_format_duration_ns instead. Returns
 * buf; never longer than "18446744073.709s", which fits RL_DURATION_BUF_LEN. */
const char *rl_format_duration_human(uint64_t ns, char *buf, size_t buf_len);

#endif
