/* test_csv_read.c — the CSV reader (harness/io/csv_read.h): quoted fields
 * with commas, line breaks and doubled quotes come back as written, CRLF
 * and a missing last line end are accepted, and each kind of malformed
 * record is an error naming its line. */
#include "tests/support/test_util.h"

#include "harness/io/csv_read.h"

#include <string.h>

/* Reads every record of text and joins them as "a|b|c;" per record, so one
 * comparison checks fields and record boundaries. -1 (err set) on error. */
static int joined(const char *text, char *out, size_t len, char *err, size_t err_len)
{
    struct rl_csv_reader r;
    char store[256];
    char *f[8];
    int n;
    out[0] = '\0';
    rl_csv_reader_init(&r, text, strlen(text));
    while ((n = rl_csv_next(&r, store, sizeof store, f, 8, err, err_len)) > 0) {
        for (int i = 0; i < n; i++)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "|" : "", f[i]);
        snprintf(out + strlen(out), len - strlen(out), ";");
    }
    return n;
}

static void expect_records(const char *text, const char *want)
{
    char got[512], err[256] = "";
    int rc = joined(text, got, sizeof got, err, sizeof err);
    EXPECT(rc == 0 && strcmp(got, want) == 0, "'%s': got '%s' (rc %d, %s), want '%s'", text, got,
           rc, err, want);
}

static void expect_error(const char *text, const char *want_err)
{
    char got[512], err[256] = "";
    int rc = joined(text, got, sizeof got, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, want_err) != NULL, "'%s': rc %d, err '%s', want '%s'", text, rc,
           err, want_err);
}

static void test_plain_fields(void)
{
    expect_records("a,b,c\n1,2,3\n", "a|b|c;1|2|3;");
    expect_records("a,,c\n,\n", "a||c;|;");
    expect_records("\n", ";");
    expect_records("", "");
}

static void test_quoted_fields(void)
{
    expect_records("\"a,b\",c\n", "a,b|c;");
    expect_records("\"say \"\"hi\"\"\",x\n", "say \"hi\"|x;");
    expect_records("\"\"\"\",\"\"\n", "\"|;");
    expect_records("\"two\nlines\",x\ny,z\n", "two\nlines|x;y|z;");
}

static void test_line_ends(void)
{
    expect_records("a,b\r\n1,2\r\n", "a|b;1|2;");
    expect_records("a,b\n1,2", "a|b;1|2;");
    expect_records("a,\"b\"", "a|b;");
    expect_records("a,\"b\"\r\n", "a|b;");
}

static void test_malformed(void)
{
    expect_error("a,b\n1,\"open\n", "line 2: a quoted field is never closed");
    expect_error("a,b\n\"x\"y,2\n", "line 2: text after a closing quote");
    expect_error("a,b\nx\"y,2\n", "line 2: a quote inside an unquoted field");
    expect_error("1,2,3,4,5,6,7,8,9\n", "more than 8 fields");
    char longer[400];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    expect_error(longer, "line 1: a record longer than 256 bytes");
}

/* A quoted line break counts in the line numbers of what follows. */
static void test_line_numbers(void)
{
    expect_error("\"a\nb\"\nok\nbad\"\n", "line 4:");
}

static void test_column(void)
{
    char a[] = "peer", b[] = "algo", c[] = "date";
    char *fields[] = {a, b, c};
    EXPECT(rl_csv_column(fields, 3, "algo") == 1, "algo is not column 1");
    EXPECT(rl_csv_column(fields, 3, "git_rev") == -1, "a missing column was found");
}

RL_TEST_SUITE("csv_read", {"plain fields", test_plain_fields},
              {"quoted fields: commas, doubled quotes, line breaks", test_quoted_fields},
              {"CRLF and a missing last line end", test_line_ends},
              {"malformed records are errors", test_malformed},
              {"line numbers count quoted line breaks", test_line_numbers},
              {"columns by name", test_column})
