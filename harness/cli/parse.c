/* parse.c — strict command-line value parsing (see parse.h). */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_parse_duration_ns(const char *text, uint64_t *out_ns, char *err, size_t err_len)
{
    static const struct {
        const char *suffix;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    const char *accepted = "a number with a unit: ns, us, ms or s, e.g. 250ms";
    if (text == NULL || *text == '\0' || isspace((unsigned char)*text) || *text == '-' ||
        *text == '+') {
        snprintf(err, err_len, "duration '%s' is not valid (expected %s)", text ? text : "",
                 accepted);
        return -1;
    }
    errno = 0;
    char *end;
    double value = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(value)) {
        snprintf(err, err_len, "duration '%s' is not valid (expected %s)", text, accepted);
        return -1;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) != 0)
            continue;
        double ns = value * units[i].ns;
        if (ns >= 18446744073709551615.0) {
            snprintf(err, err_len, "duration '%s' is too long (at most about 584 years)", text);
            return -1;
        }
        *out_ns = (uint64_t)llround(ns);
        return 0;
    }
    snprintf(err, err_len, "duration '%s' has %s (expected %s)", text,
             *end ? "an unknown unit" : "no unit", accepted);
    return -1;
}

int rl_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                 size_t err_len)
{
    if (text == NULL || !isdigit((unsigned char)*text)) {
        snprintf(err, err_len, "'%s' is not a whole number (expected %llu..%llu)", text ? text : "",
                 (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (*end != '\0' || errno != 0 || value < min || value > max) {
        snprintf(err, err_len, "'%s' is not a whole number in %llu..%llu", text,
                 (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    *out = value;
    return 0;
}

int rl_parse_double(const char *text, double min_exclusive, double *out, char *err, size_t err_len)
{
    errno = 0;
    char *end = NULL;
    double value = text ? strtod(text, &end) : NAN;
    if (text == NULL || end == text || *end != '\0' || errno != 0 || !isfinite(value) ||
        value <= min_exclusive) {
        snprintf(err, err_len, "'%s' is not a number greater than %g", text ? text : "",
                 min_exclusive);
        return -1;
    }
    *out = value;
    return 0;
}

int rl_parse_u64_list(const char *text, uint64_t min, uint64_t max, uint64_t *items,
                      size_t max_items, size_t *count, char *err, size_t err_len)
{
    char buf[1024];
    if (text == NULL || strlen(text) >= sizeof buf) {
        snprintf(err, err_len, "list is empty or too long");
        return -1;
    }
    strcpy(buf, text);
    *count = 0;
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (*count == max_items) {
            snprintf(err, err_len, "list '%s' has more than %zu items", text, max_items);
            return -1;
        }
        if (rl_parse_u64(item, min, max, &items[*count], err, err_len) != 0)
            return -1;
        (*count)++;
    }
    if (*count == 0) {
        snprintf(err, err_len, "list '%s' is empty", text);
        return -1;
    }
    return 0;
}

const char *rl_format_duration(uint64_t ns, char *buf, size_t buf_len)
{
    if (ns >= 1000000000u && ns % 1000000u == 0)
        snprintf(buf, buf_len, "%gs", (double)ns / 1e9);
    else if (ns >= 1000000u && ns % 1000u == 0)
        snprintf(buf, buf_len, "%gms", (double)ns / 1e6);
    else if (ns >= 1000u)
        snprintf(buf, buf_len, "%gus", (double)ns / 1e3);
    else
        snprintf(buf, buf_len, "%lluns", (unsigned long long)ns);
    return buf;
}
