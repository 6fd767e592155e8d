/* fuzz_parse.c — libFuzzer target: the command-line value parsers
 * (harness/cli/parse.h) on any text, each with a format-then-parse round
 * trip: a value that parses, formatted and parsed again, is the same value.
 * The input's first 8 bytes, as a number of nanoseconds, also go through
 * rl_format_duration_ns and back (exactly) and rl_format_duration_human and
 * back (to a thousandth of its unit), so every uint64 is reachable. */
#include "tests/fuzz/fuzz_util.h"
#include "harness/cli/parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXT  2048
#define MAX_ITEMS 16

static void duration_round_trip(uint64_t ns, const char *from)
{
    char buf[RL_DURATION_BUF_LEN], err[512] = "";
    uint64_t back = 0;
    rl_format_duration_ns(ns, buf, sizeof buf);
    FUZZ_CHECK(strlen(buf) < sizeof buf - 1, "'%s' fills the buffer", buf);
    FUZZ_CHECK(rl_parse_duration_ns(buf, &back, err, sizeof err) == 0,
               "%llu ns (from '%s') formats as '%s', which does not parse: %s",
               (unsigned long long)ns, from, buf, err);
    FUZZ_CHECK(back == ns, "%llu ns (from '%s') formats as '%s', which parses as %llu ns",
               (unsigned long long)ns, from, buf, (unsigned long long)back);
    /* The human formatter: three decimals of the largest unit, which must
     * parse back to within a thousandth of that unit, up to 2^64 - 1 ns. */
    char human[32];
    rl_format_duration_human(ns, human, sizeof human);
    FUZZ_CHECK(strlen(human) < RL_DURATION_BUF_LEN, "'%s' does not fit RL_DURATION_BUF_LEN", human);
    FUZZ_CHECK(rl_parse_duration_ns(human, &back, err, sizeof err) == 0,
               "%llu ns (from '%s') shows as '%s', which does not parse: %s",
               (unsigned long long)ns, from, human, err);
    uint64_t most = back > ns ? back : ns, off = back > ns ? back - ns : ns - back;
    uint64_t unit = most >= 1000000000u ? 1000000u : most >= 1000000u ? 1000u : 1u;
    FUZZ_CHECK(off <= unit, "%llu ns (from '%s') shows as '%s', which parses as %llu ns",
               (unsigned long long)ns, from, human, (unsigned long long)back);
}

static void durations(const char *text)
{
    char err[512] = "";
    uint64_t ns;
    if (rl_parse_duration_ns(text, &ns, err, sizeof err) == 0)
        duration_round_trip(ns, text);
    else
        FUZZ_CHECK(err[0] != '\0', "duration '%s' refused with no message", text);
}

static void numbers(const char *text, uint64_t min, uint64_t max)
{
    char err[512] = "", buf[32];
    uint64_t v, back;
    if (rl_parse_u64(text, min, max, &v, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "number '%s' refused with no message", text);
        return;
    }
    FUZZ_CHECK(v >= min && v <= max, "'%s' is %llu, outside its range", text,
               (unsigned long long)v);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    FUZZ_CHECK(rl_parse_u64(buf, min, max, &back, err, sizeof err) == 0 && back == v,
               "'%s' is %llu, formatted '%s' parses as %llu (%s)", text, (unsigned long long)v, buf,
               (unsigned long long)back, err);
}

static void doubles(const char *text, double min_exclusive)
{
    char err[512] = "", buf[64];
    double v, back = NAN;
    if (rl_parse_double(text, min_exclusive, &v, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "number '%s' refused with no message", text);
        return;
    }
    FUZZ_CHECK(isfinite(v) && v > min_exclusive, "'%s' is %g", text, v);
    snprintf(buf, sizeof buf, "%.17g", v);
    FUZZ_CHECK(rl_parse_double(buf, min_exclusive, &back, err, sizeof err) == 0 && back == v,
               "'%s' is %.17g, formatted '%s' parses as %.17g (%s)", text, v, buf, back, err);
}

static void lists(const char *text, uint64_t min, uint64_t max, size_t max_items)
{
    char err[512] = "";
    uint64_t items[MAX_ITEMS], again[MAX_ITEMS];
    size_t count = 0, count_again = 0;
    if (rl_parse_u64_list(text, min, max, items, max_items, &count, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "list '%s' refused with no message", text);
        return;
    }
    size_t len = strlen(text);
    FUZZ_CHECK(len > 0 && text[0] != ',' && text[len - 1] != ',' && !strstr(text, ",,"),
               "list '%s' with an empty item is accepted", text);
    FUZZ_CHECK(count >= 1 && count <= max_items, "list '%s' has %zu items", text, count);
    char joined[MAX_ITEMS * 24];
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        FUZZ_CHECK(items[i] >= min && items[i] <= max, "list '%s' item %zu out of range", text, i);
        at += (size_t)snprintf(joined + at, sizeof joined - at, "%s%llu", i ? "," : "",
                               (unsigned long long)items[i]);
    }
    FUZZ_CHECK(
        rl_parse_u64_list(joined, min, max, again, max_items, &count_again, err, sizeof err) == 0,
        "list '%s' formatted '%s' does not parse: %s", text, joined, err);
    FUZZ_CHECK(count_again == count && memcmp(items, again, count * sizeof *items) == 0,
               "list '%s' formatted '%s' parses differently", text, joined);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t raw = 0;
    memcpy(&raw, data, size < sizeof raw ? size : sizeof raw);
    duration_round_trip(raw, "the input's first bytes");

    if (size >= MAX_TEXT)
        return 0;
    char text[MAX_TEXT];
    memcpy(text, data, size);
    text[size] = '\0';

    durations(text);
    numbers(text, 0, UINT64_MAX);
    numbers(text, 1, 1024);
    doubles(text, 0.0);
    doubles(text, -HUGE_VAL);
    lists(text, 0, UINT64_MAX, MAX_ITEMS);
    lists(text, 1, 1024, 4);
    return 0;
}
