/* parse.c — strict command-line value parsing (see parse.h). */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s[0..len) as a plain decimal, digits [. digits], converted exactly to
 * ns for a unit of multiple·10^unit_digits ns, rounded half up at the
 * nanosecond. The fraction is multiplied by the multiple digit by digit
 * from its right end, so "0.0000000001min" is 6 ns, not 0·60. 1 done, 0
 * when s is not a plain decimal, -1 when it is too long. */
static int exact_decimal_ns(const char *s, size_t len, unsigned unit_digits, unsigned multiple,
                            uint64_t *out_ns)
{
    size_t i = 0, digits = 0;
    uint64_t whole = 0;
    bool too_big = false;
    for (; i < len && isdigit((unsigned char)s[i]); i++, digits++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (whole > (UINT64_MAX - d) / 10)
            too_big = true;
        else
            whole = whole * 10 + d;
    }
    size_t frac_start = i;
    if (i < len && s[i] == '.')
        for (frac_start = ++i; i < len && isdigit((unsigned char)s[i]); i++, digits++)
            ;
    if (i != len || digits == 0)
        return 0;
    /* multiple · 0.f1f2…fn = carry + 0.e1e2…en; only e1..e(unit_digits+1) matter. */
    uint64_t carry = 0, frac = 0, scale = 1;
    bool round_up = false;
    for (size_t k = len; k > frac_start; k--) {
        size_t place = k - frac_start; /* 1 for the first digit after the point */
        uint64_t v = (uint64_t)(s[k - 1] - '0') * multiple + carry;
        carry = v / 10;
        if (place == unit_digits + 1)
            round_up = v % 10 >= 5;
        else if (place <= unit_digits) {
            frac += v % 10 * scale;
            scale *= 10;
        }
    }
    for (size_t k = len > frac_start ? len - frac_start : 0; k < unit_digits; k++)
        frac *= 10; /* fewer digits than the unit has: scale them up */
    uint64_t unit_ns = multiple, one = 1;
    for (unsigned k = 0; k < unit_digits; k++)
        unit_ns *= 10, one *= 10;
    frac += carry * one + round_up; /* below multiple·10^9 + 1: no wrap */
    if (too_big || whole > (UINT64_MAX - frac) / unit_ns)
        return -1;
    *out_ns = whole * unit_ns + frac;
    return 1;
}

int rl_parse_duration_ns(const char *text, uint64_t *out_ns, char *err, size_t err_len)
{
    static const struct {
        const char *suffix;
        unsigned digits, multiple; /* the unit is multiple·10^digits ns */
        uint64_t ns;
    } units[] = {{"ns", 0, 1, 1},
                 {"us", 3, 1, 1000},
                 {"µs", 3, 1, 1000},
                 {"ms", 6, 1, 1000000},
                 {"s", 9, 1, 1000000000},
                 {"min", 9, 60, 60000000000},
                 {"h", 9, 3600, 3600000000000}};
    /* No "m": a minute or a mistyped "ms" could not be told apart. */
    const char *accepted = "a number with a unit: ns, us, ms, s, min or h, e.g. 250ms";
    if (text == NULL || *text == '\0' || isspace((unsigned char)*text) || *text == '-' ||
        *text == '+') {
        snprintf(err, err_len, "duration '%s' is not valid (expected %s)", text ? text : "",
                 accepted);
        return -1;
    }
    errno = 0;
    char *end;
    double value = strtod(text, &end);
    int strtod_errno = errno;
    if (end == text || !isfinite(value)) {
        snprintf(err, err_len, "duration '%s' is not valid (expected %s)", text, accepted);
        return -1;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) != 0)
            continue;
        int exact = exact_decimal_ns(text, (size_t)(end - text), units[i].digits, units[i].multiple,
                                     out_ns);
        if (exact == 1)
            return 0;
        /* Not a plain decimal: an exponent form through a double. Hex
         * floats ("0x1p3s") are strtod's, not a duration. */
        double ns = value * (double)units[i].ns;
        if (exact == 0 && (strtod_errno != 0 || memchr(text, 'x', (size_t)(end - text)) ||
                           memchr(text, 'X', (size_t)(end - text)))) {
            snprintf(err, err_len, "duration '%s' is not valid (expected %s)", text, accepted);
            return -1;
        }
        if (exact == -1 || ns >= 18446744073709551616.0) {
            snprintf(err, err_len, "duration '%s' is too long (at most about 584 years)", text);
            return -1;
        }
        *out_ns = (uint64_t)round(ns); /* below 2^64, where every double is whole */
        return 0;
    }
    snprintf(err, err_len, "duration '%s' has %s (expected %s)", text,
             *end ? "an unknown unit" : "no unit", accepted);
    return -1;
}

int rl_parse_max_wait_ns(const char *text, uint64_t *out_ns, char *err, size_t err_len)
{
    uint64_t ns;
    if (rl_parse_duration_ns(text, &ns, err, err_len) != 0)
        return -1;
    if (ns > RL_MAX_WAIT_LIMIT_NS) {
        snprintf(err, err_len, "max wait '%s' is more than a day (expected 0s to 86400s)", text);
        return -1;
    }
    *out_ns = ns;
    return 0;
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

/* Digits, a point and an exponent only, as a person writes a number:
 * strtod alone would also take hex ("0x10"), "inf", "nan" and leading
 * spaces, which no other option accepts. */
static bool plain_decimal(const char *text)
{
    const char *p = text + (*text == '-');
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return false;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
            return false;
    return true;
}

int rl_parse_double(const char *text, double min_exclusive, double *out, char *err, size_t err_len)
{
    errno = 0;
    char *end = NULL;
    double value = text && plain_decimal(text) ? strtod(text, &end) : NAN;
    if (text == NULL || end == text || end == NULL || *end != '\0' || errno != 0 ||
        !isfinite(value) || value <= min_exclusive) {
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
    char item[1024];
    *count = 0;
    if (text == NULL || *text == '\0') {
        snprintf(err, err_len, "list is empty (expected numbers separated by commas, e.g. 1,2,4)");
        return -1;
    }
    if (strlen(text) >= sizeof item) {
        snprintf(err, err_len, "list is too long (at most %zu characters)", sizeof item - 1);
        return -1;
    }
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            snprintf(err, err_len,
                     "list '%s' has an empty item %s (expected numbers separated by single "
                     "commas, e.g. 1,2,4)",
                     text,
                     p == text ? "at the start"
                     : comma   ? "between two commas"
                               : "at the end");
            return -1;
        }
        if (*count == max_items) {
            snprintf(err, err_len, "list '%s' has more than %zu items", text, max_items);
            return -1;
        }
        memcpy(item, p, len); /* fits: the whole list does */
        item[len] = '\0';
        if (rl_parse_u64(item, min, max, &items[*count], err, err_len) != 0)
            return -1;
        (*count)++;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

const char *rl_format_duration_ns(uint64_t ns, char *buf, size_t buf_len)
{
    static const struct {
        uint64_t ns;
        const char *unit;
    } units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    size_t i = 0;
    while (ns % units[i].ns != 0)
        i++;
    snprintf(buf, buf_len, "%llu%s", (unsigned long long)(ns / units[i].ns), units[i].unit);
    return buf;
}

const char *rl_format_duration_human(uint64_t ns, char *buf, size_t buf_len)
{
    static const struct {
        uint64_t ns;
        const char *unit;
    } units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        uint64_t step = units[i].ns / 1000; /* a thousandth of the unit */
        uint64_t thousandths = ns / step + (ns % step >= (step + 1) / 2);
        /* Rounding up past 2^64 - 1 ns would print a time the parser
         * refuses ("18446744073.710s"): the top of the range rounds down. */
        if (thousandths > UINT64_MAX / step)
            thousandths--;
        if (thousandths >= 1000) { /* 999.9996us is 1.000ms, not 1000.000us */
            snprintf(buf, buf_len, "%llu.%03llu%s", (unsigned long long)(thousandths / 1000),
                     (unsigned long long)(thousandths % 1000), units[i].unit);
            return buf;
        }
    }
    snprintf(buf, buf_len, "%lluns", (unsigned long long)ns);
    return buf;
}
