/* test_csv_roundtrip.c — a result row whose text fields hold quotes, commas
 * and newlines is written by the CSV writer (harness/report/result.c) and
 * read back, field by field, by an RFC 4180 reader here and by the one the
 * paper's tables use (paper/lib.awk's csv_split): every field must come back
 * exactly as it went in, and the row must have the header's column count. */
#include "harness/report/result.h"
#include "harness/experiments/claims.h"
#include "harness/sys/build_info.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FIELDS 128

/* Splits one CSV record at *p (RFC 4180: quoted fields, doubled quotes,
 * newlines inside quotes) into fields[], each malloc'd; advances *p past the
 * record. Returns the field count, or -1 when a quote is left open or a
 * closing quote is followed by anything but a comma or the record's end. */
static int read_record(const char **p, char **fields, int max)
{
    const char *c = *p;
    int n = 0;
    for (;;) {
        size_t cap = strlen(c) + 1, len = 0;
        char *f = malloc(cap);
        if (*c == '"') {
            for (c++;; c++) {
                if (*c == '\0') {
                    free(f);
                    return -1;
                }
                if (*c == '"' && c[1] == '"') {
                    f[len++] = '"';
                    c++;
                } else if (*c == '"') {
                    c++;
                    break;
                } else {
                    f[len++] = *c;
                }
            }
            if (*c != ',' && *c != '\n' && *c != '\0') {
                free(f);
                return -1;
            }
        } else {
            while (*c != ',' && *c != '\n' && *c != '\0') {
                if (*c == '"') { /* a bare quote inside an unquoted field */
                    free(f);
                    return -1;
                }
                f[len++] = *c++;
            }
        }
        f[len] = '\0';
        if (n == max) {
            free(f);
            return -1;
        }
        fields[n++] = f;
        if (*c != ',')
            break;
        c++;
    }
    if (*c == '\n')
        c++;
    *p = c;
    return n;
}

static void free_fields(char **fields, int n)
{
    for (int i = 0; i < n; i++)
        free(fields[i]);
}

static int column(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* The awkward values, and the columns they are written to. */
static const char *const ALGO_NAME = "fw \"odd\", name";
static const char *const FAMILY = "a,b";
static const char *const WORKLOAD = "trace \"q\".csv";
static const char *const ORDERS = "acq_rel, \"seq_cst\"\nreset";
static const char *const WORST_KEY = "\"";

/* Writes the header and one row with the awkward values into a memory
 * buffer; returns it (malloc'd). */
static char *write_rows(void)
{
    const struct rl_algo algo = {.name = ALGO_NAME, .family = FAMILY, .orders = ORDERS};
    struct rl_result r = {.algo = &algo, .mode = "sim", .workload = WORKLOAD, .clock = "sim"};
    r.checked = true;
    r.worst_key = WORST_KEY;
    struct rl_context ctx = {
        .compiler = "cc", .cflags = "-O2", .allocator = "glibc", .git_rev = "x", .build = "normal"};
    snprintf(ctx.host, sizeof ctx.host, "%s", "host,with\"quote");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rl_result_csv_header(f);
    rl_result_csv_row(f, &r, &ctx);
    fclose(f);
    return buf;
}

static void test_result_row_round_trips(void)
{
    char *buf = write_rows();
    const char *p = buf;
    char *names[MAX_FIELDS], *values[MAX_FIELDS];
    int nn = read_record(&p, names, MAX_FIELDS);
    int nv = read_record(&p, values, MAX_FIELDS);
    EXPECT_FATAL(nn > 0 && nv > 0, "the rows do not parse as CSV (header %d, row %d fields):\n%s",
                 nn, nv, buf);
    EXPECT_EQ(nv, nn);
    EXPECT(*p == '\0', "text after the row: %s", p);
    const struct {
        const char *column, *want;
    } cases[] = {{"algo", ALGO_NAME}, {"family", FAMILY},       {"workload", WORKLOAD},
                 {"orders", ORDERS},  {"worst_key", WORST_KEY}, {"host", "host,with\"quote"},
                 {"mode", "sim"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int at = column(names, nn, cases[i].column);
        EXPECT(at >= 0 && at < nv && strcmp(values[at], cases[i].want) == 0,
               "column %s read back as [%s], want [%s]", cases[i].column,
               at >= 0 && at < nv ? values[at] : "(missing)", cases[i].want);
    }
    free_fields(names, nn > 0 ? nn : 0);
    free_fields(values, nv > 0 ? nv : 0);
    free(buf);
}

/* The paper's reader (paper/lib.awk, no newline inside a field) reads the
 * same row, without the multi-line orders value, to the same fields. */
static void test_paper_reader_reads_it(void)
{
    char path[] = "/tmp/ratelab-csv-roundtrip-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rl_csv_field(f, "plain");
    fputc(',', f);
    rl_csv_field(f, ALGO_NAME);
    fputc(',', f);
    rl_csv_field(f, WORKLOAD);
    fputc(',', f);
    rl_csv_field(f, WORST_KEY);
    fputc('\n', f);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "awk -f paper/lib.awk -f tests/report/csv_fields.awk %s 2>&1", path);
    FILE *awk = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(awk);
    char out[512] = "";
    size_t got = fread(out, 1, sizeof out - 1, awk);
    out[got] = '\0';
    int status = pclose(awk);
    unlink(path);
    EXPECT(status == 0, "awk failed: %s", out);
    char want[256];
    snprintf(want, sizeof want, "4\n[plain]\n[%s]\n[%s]\n[%s]\n", ALGO_NAME, WORKLOAD, WORST_KEY);
    EXPECT(strcmp(out, want) == 0, "paper/lib.awk read:\n%s\nwant:\n%s", out, want);
}

/* Every claim whose source title or sentence holds a quote, through
 * `ratelab claims ID --format csv`: the row splits into the header's columns
 * and those two fields read back as the registry has them. */
static void test_claims_rows_with_quotes(void)
{
    int checked = 0;
    for (const struct rl_claim *c = rl_claims; c->id; c++) {
        if (!strchr(c->source_title, '"') && !strchr(c->claim, '"'))
            continue;
        char args[128];
        snprintf(args, sizeof args, "claims %s --format csv", c->id);
        struct rl_cli_outcome *o = malloc(sizeof *o);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        rl_cli_run(o, args);
        EXPECT(o->status == 0, "%s: status %d: %s", args, o->status, o->err);
        const char *p = o->out;
        char *names[MAX_FIELDS], *values[MAX_FIELDS];
        int nn = read_record(&p, names, MAX_FIELDS);
        int nv = read_record(&p, values, MAX_FIELDS);
        EXPECT(nn > 0 && nv == nn, "%s: header %d fields, row %d:\n%s", args, nn, nv, o->out);
        if (nn > 0 && nv == nn) {
            int title = column(names, nn, "source_title"), claim = column(names, nn, "claim");
            EXPECT(title >= 0 && strcmp(values[title], c->source_title) == 0,
                   "%s: source_title read back as [%s]", c->id, title >= 0 ? values[title] : "");
            EXPECT(claim >= 0 && strcmp(values[claim], c->claim) == 0,
                   "%s: claim read back as [%s]", c->id, claim >= 0 ? values[claim] : "");
        }
        free_fields(names, nn > 0 ? nn : 0);
        free_fields(values, nv > 0 ? nv : 0);
        free(o);
        checked++;
    }
    EXPECT(checked > 0,
           "no claim holds a quote: this case checks nothing (give it a row that does)");
}

/* A sim row names its worst key whole in CSV, however long (issue 19: a
 * key is cut only where it is shown to a person). */
static void test_long_worst_key_whole(void)
{
    char key[301];
    memset(key, 'w', 300);
    key[300] = '\0';
    char path[] = "/tmp/ratelab-longkey-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "t_ns,key,n\n");
    for (int i = 0; i < 30; i++)
        fprintf(f, "%d,%s,1\n", i * 1000, key);
    fclose(f);
    char args[256];
    snprintf(args, sizeof args,
             "sim --algo fw_cas --trace %s --limit 10 --interval 1s --format csv", path);
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    rl_cli_run(o, args);
    unlink(path);
    EXPECT(o->status == 0, "%s: status %d: %s", args, o->status, o->err);
    const char *p = o->out;
    char *names[MAX_FIELDS], *values[MAX_FIELDS];
    int nn = read_record(&p, names, MAX_FIELDS);
    int nv = read_record(&p, values, MAX_FIELDS);
    int worst = nn == nv ? column(names, nn, "worst_key") : -1;
    EXPECT(worst >= 0 && strcmp(values[worst], key) == 0, "worst_key not the whole key: [%.80s]",
           worst >= 0 ? values[worst] : "");
    free_fields(names, nn > 0 ? nn : 0);
    free_fields(values, nv > 0 ? nv : 0);
    free(o);
}

RL_TEST_SUITE("csv_roundtrip",
              {"a 300-byte worst key whole in a sim row", test_long_worst_key_whole},
              {"result row with quotes, commas, newline", test_result_row_round_trips},
              {"paper/lib.awk reads the same fields", test_paper_reader_reads_it},
              {"claims rows with quotes split into the header's columns",
               test_claims_rows_with_quotes});
