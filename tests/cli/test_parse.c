/* test_parse.c — the command-line value parsers: lists refuse empty items,
 * durations are exact, and the duration formatter reads back as itself. */
#include "tests/support/test_util.h"
#include "harness/cli/parse.h"

#include <stdint.h>
#include <string.h>

static void test_list_refuses_empty_items(void)
{
    static const char *const bad[] = {"1,,2", ",1", "1,", ",", ",,", "", "1,2,", "4,,,8"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        uint64_t items[8];
        size_t count = 99;
        int rc = rl_parse_u64_list(bad[i], 1, 1024, items, 8, &count, err, sizeof err);
        EXPECT(rc == -1, "'%s' is accepted (count %zu)", bad[i], count);
        EXPECT(strstr(err, "empty") != NULL, "'%s': error '%s' does not say empty", bad[i], err);
        EXPECT(strchr(err, '\n') == NULL, "'%s': error '%s' is not one line", bad[i], err);
    }
    char err[256];
    uint64_t items[8];
    size_t count;
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,,2", 1, 1024, items, 8, &count, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "between two commas"));
    CU_ASSERT_EQUAL(rl_parse_u64_list(",1", 1, 1024, items, 8, &count, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "at the start"));
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,", 1, 1024, items, 8, &count, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "at the end"));
}

static void test_list_good_and_bad_items(void)
{
    char err[256];
    uint64_t items[4];
    size_t count;
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,2,4", 1, 1024, items, 4, &count, err, sizeof err), 0);
    EXPECT_EQ(count, 3);
    EXPECT_EQ(items[0], 1);
    EXPECT_EQ(items[1], 2);
    EXPECT_EQ(items[2], 4);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1024", 1, 1024, items, 4, &count, err, sizeof err), 0);
    EXPECT_EQ(count, 1);
    EXPECT_EQ(items[0], 1024);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,2,3,4", 1, 1024, items, 4, &count, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,2,3,4,5", 1, 1024, items, 4, &count, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1, 2", 1, 1024, items, 4, &count, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list("1,1025", 1, 1024, items, 4, &count, err, sizeof err), -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list("0001,99999999999999999999999999999999999", 1, 1024, items, 4,
                                      &count, err, sizeof err),
                    -1);
    CU_ASSERT_EQUAL(rl_parse_u64_list(NULL, 1, 1024, items, 4, &count, err, sizeof err), -1);
}

static void test_format_examples(void)
{
    static const struct {
        uint64_t ns;
        const char *text;
    } cases[] = {{0, "0s"},
                 {7, "7ns"},
                 {1001, "1001ns"},
                 {250000, "250us"},
                 {1500000, "1500us"},
                 {250000000, "250ms"},
                 {1500000000, "1500ms"},
                 {2000000000, "2s"},
                 {86400000000000, "86400s"},
                 {UINT64_MAX, "18446744073709551615ns"},
                 {18446744073000000000u, "18446744073s"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[RL_DURATION_BUF_LEN];
        const char *got = rl_format_duration_ns(cases[i].ns, buf, sizeof buf);
        EXPECT(got == buf && strcmp(buf, cases[i].text) == 0, "%llu ns formats as '%s', want '%s'",
               (unsigned long long)cases[i].ns, buf, cases[i].text);
    }
    char small[4];
    rl_format_duration_ns(1500000000, small, sizeof small); /* cut short, still terminated */
    CU_ASSERT_STRING_EQUAL(small, "150");
}

/* format then parse gives the value back, at the edges of every unit and
 * over a spread of values from a fixed LCG. */
static void test_format_parse_round_trip(void)
{
    uint64_t values[200];
    size_t n = 0;
    static const uint64_t edges[] = {0,
                                     1,
                                     999,
                                     1000,
                                     1001,
                                     999999,
                                     1000000,
                                     1000001,
                                     999999999,
                                     1000000000,
                                     1000000001,
                                     UINT64_MAX,
                                     UINT64_MAX - 1,
                                     UINT64_MAX / 1000000000 * 1000000000};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        values[n++] = edges[i];
    uint64_t x = 0x9E3779B97F4A7C15u;
    while (n < sizeof values / sizeof *values) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        /* vary the magnitude and the trailing zeros */
        static const uint64_t scale[] = {1, 1000, 1000000, 1000000000};
        uint64_t unit = scale[n % 4];
        values[n++] = (x >> (x % 60)) / unit * unit;
    }
    for (size_t i = 0; i < n; i++) {
        char buf[RL_DURATION_BUF_LEN], err[256] = "";
        uint64_t back = 0;
        rl_format_duration_ns(values[i], buf, sizeof buf);
        int rc = rl_parse_duration_ns(buf, &back, err, sizeof err);
        EXPECT(rc == 0 && back == values[i], "%llu ns -> '%s' -> rc %d, %llu ns (%s)",
               (unsigned long long)values[i], buf, rc, (unsigned long long)back, err);
    }
}

static void test_durations_exact(void)
{
    static const struct {
        const char *text;
        uint64_t ns;
    } good[] = {{"18446744073709551615ns", UINT64_MAX},
                {"10000000000s", 10000000000000000000u}, /* past 2^63 */
                {"18446744073.709551615s", UINT64_MAX},
                {"9007199254740993ns", 9007199254740993u}, /* not a double */
                {"0.5ns", 1},
                {"0.4999ns", 0},
                {"1.0000000005s", 1000000001},
                {"1.00000000049s", 1000000000},
                {".5us", 500},
                {"5.ms", 5000000},
                {"1e3ms", 1000000000},
                {"2.5e-3s", 2500000},
                {"3µs", 3000},
                {"1min", 60000000000u},
                {"1.5min", 90000000000u},
                {"2h", 7200000000000u},
                {"0.25h", 900000000000u},
                {"0.0000000001min", 6},  /* 6 ns, not 0.0000000001 s rounded, then × 60 */
                {"0.00000000001min", 1}, /* 0.6 ns: half up */
                {"0.000000000001h", 4},  /* 3.6 ns */
                {"5124095.576030431h", 18446744073709551600u}, /* 2^64 - 1 - 15 */
                {"1e-9h", 3600},
                {"2.5e-1min", 15000000000u}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char err[256] = "";
        uint64_t ns = 0;
        int rc = rl_parse_duration_ns(good[i].text, &ns, err, sizeof err);
        EXPECT(rc == 0 && ns == good[i].ns, "'%s' -> rc %d, %llu ns, want %llu (%s)", good[i].text,
               rc, (unsigned long long)ns, (unsigned long long)good[i].ns, err);
    }
    static const char *const bad[] = {"18446744073709551616ns",
                                      "18446744073.709551616s",
                                      "20000000000s",
                                      "1e20s",
                                      "0x10ms",
                                      "0x1p3s",
                                      "infs",
                                      "nans",
                                      ".s",
                                      "1.5e",
                                      "1m", /* a minute or a mistyped ms: refused */
                                      "1hr",
                                      "1mins",
                                      "5124095.576030432h",
                                      "5124096h",
                                      "0x1h"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        uint64_t ns = 0;
        int rc = rl_parse_duration_ns(bad[i], &ns, err, sizeof err);
        EXPECT(rc == -1 && err[0] != '\0', "'%s' -> rc %d, %llu ns", bad[i], rc,
               (unsigned long long)ns);
    }
}

RL_TEST_SUITE("parse", {"lists refuse empty items", test_list_refuses_empty_items},
              {"lists: good items, bad items", test_list_good_and_bad_items},
              {"duration formatter: examples", test_format_examples},
              {"duration formatter: parse reads it back", test_format_parse_round_trip},
              {"durations: plain decimals are exact", test_durations_exact})
