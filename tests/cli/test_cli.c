/* test_cli.c — build/ratelab as a user meets it: every bad input gets one
 * clear line on stderr and exit 2; good input exits 0; --help gives the
 * exit statuses; tables show user text escaped. RATELAB_BIN names
 * the binary under test (the Makefile sets it). */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "algorithms/rl.h"
#include "harness/cli/parse.h"
#include "harness/cli/table.h"
#include "harness/sys/load.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* An output that cannot be written is refused before the run, not after. */
static void test_unwritable_output(void)
{
    rl_cli_expect_usage_error("stress --algo fw_cas --out /nonexistent-dir/x.csv", "no folder");
    rl_cli_expect_usage_error("bench --suite quick --out /nonexistent-dir/q.csv", "no folder");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --decisions /tmp", "a folder");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --latency-out ''", "empty");
    rl_cli_expect_usage_error("trace --workload uniform --out /nonexistent-dir/t.csv", "no folder");
}

static void test_bad_algorithm(void)
{
    rl_cli_expect_usage_error("sim --algo nope --workload uniform", "unknown algorithm 'nope'");
    rl_cli_expect_usage_error("sim --algo nope --workload uniform", "fw_cas");
    rl_cli_expect_usage_error("stress --algo fw_cas,nope --duration 10ms", "unknown algorithm");
}

static void test_bad_durations_and_limits(void)
{
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 10parsecs", "unit");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 100", "no unit");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval 0s",
                              "greater than zero");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --interval -5ms", "not valid");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --limit 0", "limit");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --limit -3", "limit");
    rl_cli_expect_usage_error("stress --algo fw_cas --duration 0ms", "greater than zero");
    rl_cli_expect_usage_error("check --events /dev/null --interval 1fortnight", "unit");
}

static void test_bad_traces(void)
{
    const char *bad = "/tmp/ratelab-cli-bad.csv", *unsorted = "/tmp/ratelab-cli-unsorted.csv";
    write_file(bad, "t_ns,key,n\n0,a,1\n10,a,x\n");
    write_file(unsorted, "t_ns,key,n\n0,a,1\n500,a,1\n100,a,1\n");
    rl_cli_expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-bad.csv", ":3:");
    rl_cli_expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-unsorted.csv",
                              "sim --unsorted");
    /* --unsorted decides in file order; the three exact buckets agree on
     * times that go back (a stale read refills nothing). */
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo tb_mutex,tb_cas,gcra_cas --limit 2 --interval 1us --unsorted "
                   "--trace /tmp/ratelab-cli-unsorted.csv --format csv");
    EXPECT_EQ(o.status, 0);
    const char *rows[] = {"tb_mutex,", "tb_cas,", "gcra_cas,"};
    for (int i = 0; i < 3; i++) {
        const char *row = strstr(o.out, rows[i]);
        EXPECT(row != NULL, "no %s row: %s", rows[i], o.out);
        if (row) {
            EXPECT_EQ(rl_cli_csv_number(o.out, row, "admits"), 2);
            EXPECT_EQ(rl_cli_csv_number(o.out, row, "attempts"), 3);
        }
    }
    rl_cli_expect_usage_error("sim --algo fw_cas --trace /tmp/ratelab-cli-missing.csv",
                              "missing.csv");
    rl_cli_expect_usage_error("check --events /tmp/ratelab-cli-missing.csv", "missing.csv");
    rl_cli_expect_usage_error("check --events /tmp/ratelab-cli-bad.csv", ":1:"); /* wrong header */
    unlink(bad);
    unlink(unsorted);
}

static void test_bad_usage(void)
{
    rl_cli_expect_usage_error("frobnicate", "unknown command");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --no-such-option",
                              "unrecognized option");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload", "needs a value");
    rl_cli_expect_usage_error("sim --algo fw_cas", "--trace");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload zigzag", "unknown workload");
    rl_cli_expect_usage_error("stress --algo fw_plain --threads 2 --duration 10ms", "--unsafe");
    rl_cli_expect_usage_error("stress --algo fw_cas --clock sundial --duration 10ms",
                              "unknown clock");
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --format yaml",
                              "unknown format");
    rl_cli_expect_usage_error("bench --suite nope", "unknown suite");
}

static void test_help_everywhere(void)
{
    static const char *const commands[] = {"list",  "sim",    "stress", "replay", "trace",
                                           "check", "clocks", "keys",   "bench",  "claims"};
    static struct rl_cli_outcome o;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        rl_cli_run(&o, args);
        CU_ASSERT_EQUAL(o.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "usage: ratelab"));
    }
    rl_cli_run(&o, "--help");
    CU_ASSERT_EQUAL(o.status, 0);
}

static void test_list_names_first(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "list");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        char line_start[80];
        snprintf(line_start, sizeof line_start, "\n%s ", (*a)->name);
        int first = strncmp(o.out, line_start + 1, strlen(line_start) - 1) == 0;
        CU_ASSERT(first || strstr(o.out, line_start) != NULL);
    }
}

/* The fixed columns (docs/design.md, Outputs) open every CSV, in order. */
static void test_sim_csv_columns(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas,fw_aligned --workload boundary --limit 10 --interval 1s "
                   "--format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *fixed = "algo,family,promise,mode,workload,clock,threads,cpus,rep,limit,"
                        "interval_ns,burst,attempts,admits,rejects,errors,ns_per_op,mops,"
                        "max_sliding,max_aligned,strong_excess,weak_excess,false_admits,"
                        "false_rejects,utilization,promise_held,host,git_rev,";
    CU_ASSERT_EQUAL(strncmp(o.out, fixed, strlen(fixed)), 0);
    int lines = 0;
    for (const char *c = o.out; *c; c++)
        lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "\nfw_aligned,fixed_window,weak,sim,boundary,"));
}

/* trace → sim --trace → --decisions → check: the pieces fit together. */
static void test_round_trip(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o,
               "trace --workload boundary --limit 10 --interval 1s --out /tmp/ratelab-cli-t.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    rl_cli_run(&o, "sim --algo fw_expiry --limit 10 --interval 1s --trace /tmp/ratelab-cli-t.csv "
                   "--decisions /tmp/ratelab-cli-d.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    rl_cli_run(&o, "check --events /tmp/ratelab-cli-d.csv --limit 10 --interval 1s --format csv");
    CU_ASSERT_EQUAL(o.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "key,attempts,admits,"));
    unlink("/tmp/ratelab-cli-t.csv");
    unlink("/tmp/ratelab-cli-d.csv");
}

/* stress --decisions writes the recorded admits; check --admits-only reads
 * back the row's max_sliding and leaves the oracle columns empty. */
static void test_stress_decisions(void)
{
    rl_cli_expect_usage_error("stress --algo fw_cas --threads 1,2 --decisions /tmp/x.csv",
                              "one --algo, one --threads count and --reps 1");
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo fw_cas --threads 2 --reps 1 --duration 100ms --limit 100 "
                   "--interval 10ms --decisions /tmp/ratelab-cli-sd.csv --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* the last row is fw_cas recorded */
    const char *row = o.out + strlen(o.out) - 1;
    while (row > o.out && row[-1] != '\n')
        row--;
    CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(row, "fw_cas,"));
    unsigned long max_sliding = rl_cli_csv_number(o.out, row, "max_sliding");
    CU_ASSERT(max_sliding >= 100);
    rl_cli_run(&o, "check --events /tmp/ratelab-cli-sd.csv --limit 100 --interval 10ms "
                   "--admits-only --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* key,attempts,admits,rejects,admitted_cost,max_sliding,…: "*,A,A,0,A,M," then
     * the oracle columns empty */
    unsigned long attempts, admits, rejects, cost, checked_max;
    const char *total = strstr(o.out, "\n*,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(total);
    CU_ASSERT_EQUAL_FATAL(sscanf(total, "\n*,%lu,%lu,%lu,%lu,%lu,", &attempts, &admits, &rejects,
                                 &cost, &checked_max),
                          5);
    CU_ASSERT_EQUAL(rejects, 0);
    CU_ASSERT_EQUAL(attempts, admits);
    CU_ASSERT_EQUAL(checked_max, max_sliding);
    CU_ASSERT_PTR_NOT_NULL(strstr(total, ",,,,")); /* false_admits … weak_false_rejects */
    unlink("/tmp/ratelab-cli-sd.csv");
}

/* sim, stress, replay and bench say what each exit status means. */
static void test_exit_status_help(void)
{
    static const char *const commands[] = {"sim", "stress", "replay", "bench"};
    static struct rl_cli_outcome o;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        rl_cli_run(&o, args);
        CU_ASSERT_EQUAL(o.status, 0);
        const char *line = strstr(o.out, "Exit status: 0 ");
        EXPECT(line != NULL, "ratelab %s has no Exit status line", args);
        if (line == NULL)
            continue;
        EXPECT(strstr(line, ", 1 ") && strstr(line, ", 2 bad usage") && strstr(line, ", 3 "),
               "ratelab %s: %.200s", args, line);
        EXPECT(strstr(line, "errors") != NULL, "ratelab %s: status 3 names errors", args);
    }
}

/* --redis: literal loopback addresses only; a name (127.evil.example) is
 * refused before anything is looked up, with one line and exit 2. */
static void test_redis_address_refused(void)
{
    static const char *const refused[] = {
        "127.evil.example:6379",
        "127.0.0.1.nip.io:6379",
        "localhost.evil.example:6379",
        "10.0.0.5:6379",
        "[::2]:6379",
        "::1:6379",
        "127.1:6379",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:+80",
        "127.0.0.1",
        "unix:",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char args[256];
        snprintf(args, sizeof args,
                 "sim --algo redis_gcra --workload uniform --duration 10ms --redis '%s'",
                 refused[i]);
        rl_cli_expect_usage_error(args, "--redis");
        snprintf(args, sizeof args, "stress --algo redis_gcra --duration 10ms --redis '%s'",
                 refused[i]);
        rl_cli_expect_usage_error(args, "--redis");
    }
    rl_cli_expect_usage_error("replay --algo redis_gcra --workload uniform --redis "
                              "127.evil.example:6379",
                              "only loopback servers");
}

/* User text in tables is escaped: a control byte never reaches the terminal.
 * (Trace keys with control bytes are refused when the trace is read.) */
static void test_table_text_escaped(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain-name_1.csv", "plain-name_1.csv"},
        {"a\x1b[31mred", "a\\x1b[31mred"},
        {"tab\tnl\ncr\r", "tab\\x09nl\\x0acr\\x0d"},
        {"del\x7f", "del\\x7f"},
        {"back\\slash", "back\\\\slash"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"}, /* é €: text */
        {"c1\xc2\x9b", "c1\\xc2\\x9b"},                           /* U+009B, a CSI */
        {"bidi\xe2\x80\xae", "bidi\\xe2\\x80\\xae"},              /* U+202E */
        {"bad\xff\xc3", "bad\\xff\\xc3"},                         /* not UTF-8 */
        {"over\xc0\xaf", "over\\xc0\\xaf"},                       /* overlong '/' */
    };
    char buf[128];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        EXPECT(strcmp(rl_table_text(buf, sizeof buf, cases[i].in), cases[i].out) == 0,
               "case %zu: got '%s', want '%s'", i, buf, cases[i].out);
    char small[8]; /* cut short, never inside an escape */
    CU_ASSERT_STRING_EQUAL(rl_table_text(small, sizeof small, "ab\x1b\x1b"), "ab\\x1b");
    CU_ASSERT_STRING_EQUAL(rl_table_text(small, 1, "abc"), "");

    /* through the CLI: a trace file named with an escape sequence */
    const char *folder = "/tmp/ratelab-cli-escape";
    char path[128];
    mkdir(folder, 0700);
    snprintf(path, sizeof path, "%s/\x1b[2J\x1b]0;x\x07.csv", folder);
    write_file(path, "t_ns,key,n\n0,k\xc3\xa9y,1\n10,k\xc3\xa9y,1\n");
    static struct rl_cli_outcome o;
    char args[256];
    snprintf(args, sizeof args,
             "sim --algo fw_cas,sliding_log --limit 1 --interval 1s --trace '%s'", path);
    rl_cli_run(&o, args);
    CU_ASSERT_EQUAL(o.status, 0);
    for (const char *c = o.out; *c; c++)
        EXPECT(*c == '\n' || (unsigned char)*c >= 0x20, "byte 0x%02x in the table:\n%s",
               (unsigned char)*c, o.out);
    EXPECT(strstr(o.out, "sim: L=1 per 1s, \\x1b[2J\\x1b]0;x\\x07.csv:") != NULL, "%s", o.out);
    EXPECT(strstr(o.out, " \\x1b[2J    window") != NULL, "the workload column: %s", o.out);
    snprintf(args, sizeof args, "replay --algo fw_cas --limit 1 --interval 1s --trace '%s'", path);
    rl_cli_run(&o, args);
    CU_ASSERT_EQUAL(o.status, 0);
    for (const char *c = o.out; *c; c++)
        EXPECT(*c == '\n' || (unsigned char)*c >= 0x20, "byte 0x%02x in the replay table:\n%s",
               (unsigned char)*c, o.out);
    unlink(path);
    rmdir(folder);
}

/* Rows from the normal build say build = normal (the teaching build's say
 * teach: the teach suite checks it). */
static void test_build_column(void)
{
    static struct rl_cli_outcome o;
    char field[32];
    rl_cli_run(&o, "sim --algo fw_cas --workload uniform --duration 200ms --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *row = strchr(o.out, '\n') + 1;
    EXPECT(strcmp(rl_cli_csv_field(o.out, row, "build", field, sizeof field), "normal") == 0,
           "build column '%s'", field);
}

/* A recorder buffer that fills is said on stderr, not only in a CSV column:
 * null admits everything, far more than a limiter's buffer is sized for. */
static void test_dropped_events_warned(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo null --threads 1 --duration 300ms --record --reps 1");
    EXPECT(o.status == 0 && strstr(o.err, "recorder's buffer filled") != NULL,
           "status %d, stderr: %s", o.status, o.err);
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --duration 200ms --record --reps 1");
    EXPECT(o.status == 0 && strstr(o.err, "buffer filled") == NULL,
           "a limiter's run warned: status %d, stderr: %s", o.status, o.err);
}

/* A file written by --out, and the first line of a CSV. */
static char file_text[65536];

static size_t header_len(const char *csv)
{
    return strcspn(csv, "\n");
}

/* Every command that produces results takes --format table|csv|json and
 * --out FILE (CSV, written whole; - is standard output, then without the
 * table). For each: the csv view opens with its header, json is an array
 * (check's an object), --out FILE holds the csv view's header and as many
 * lines, --out - puts that CSV on stdout alone, and --out - beside
 * --format json is refused. */
static void test_format_and_out_everywhere(void)
{
    static const struct {
        const char *args, *header;
    } commands[] = {
        {"sim --algo fw_cas,tb_cas --workload boundary --limit 10 --interval 1s",
         "algo,family,promise,mode,"},
        {"check --events /tmp/ratelab-cli-fmt-d.csv --limit 10 --interval 1s --per-key",
         "key,attempts,admits,"},
        {"list", "name,family,promise,runs,orders,summary"},
        {"clocks", "clock,ns_per_read,resolution_ns,smallest_step_ns,"},
        {"keys --algo fw_cas --keys 1000,2000 --churn 4", "algo,measure,expiry,keys,"},
        {"stress --algo fw_cas --threads 1 --reps 1 --duration 20ms", "algo,family,promise,mode,"},
        {"replay --algo fw_cas --workload uniform --duration 20ms --limit 50 --interval 10ms",
         "algo,family,promise,mode,"},
    };
    static struct rl_cli_outcome o, csv;
    const char *out = "/tmp/ratelab-cli-fmt-out.csv";
    rl_cli_run(&o, "sim --algo fw_cas --workload boundary --limit 10 --interval 1s "
                   "--decisions /tmp/ratelab-cli-fmt-d.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[512];
        const char *cmd = commands[i].args;
        snprintf(args, sizeof args, "%s --format csv", cmd);
        rl_cli_run(&csv, args);
        EXPECT(csv.status == 0 &&
                   strncmp(csv.out, commands[i].header, strlen(commands[i].header)) == 0,
               "%s: exit %d, stdout:\n%.300s\nstderr: %s", args, csv.status, csv.out, csv.err);
        int rows = rl_cli_lines(csv.out);
        EXPECT(rows >= 2, "%s: %d lines", args, rows);

        snprintf(args, sizeof args, "%s --format json", cmd);
        rl_cli_run(&o, args);
        size_t len = strlen(o.out);
        bool object = strncmp(cmd, "check", 5) == 0;
        EXPECT(o.status == 0 && len > 3 && o.out[0] == (object ? '{' : '[') &&
                   strcmp(o.out + len - 2, object ? "}\n" : "]\n") == 0,
               "%s: exit %d: %.300s", args, o.status, o.out);

        unlink(out);
        snprintf(args, sizeof args, "%s --out %s", cmd, out);
        rl_cli_run(&o, args);
        rl_cli_slurp(out, file_text, sizeof file_text);
        EXPECT(o.status == 0, "%s: exit %d: %s", args, o.status, o.err);
        EXPECT(header_len(file_text) == header_len(csv.out) &&
                   strncmp(file_text, csv.out, header_len(csv.out)) == 0,
               "%s: the file's header differs from --format csv's:\n%.300s", args, file_text);
        EXPECT(rl_cli_lines(file_text) == rows, "%s: %d lines in the file, %d in --format csv",
               args, rl_cli_lines(file_text), rows);
        if (strncmp(cmd, "list", 4) != 0) /* list's table: the names, as in the file */
            EXPECT(strncmp(o.out, commands[i].header, strlen(commands[i].header)) != 0,
                   "%s: stdout is not the table: %.200s", args, o.out);

        snprintf(args, sizeof args, "%s --out -", cmd);
        rl_cli_run(&o, args);
        EXPECT(o.status == 0 && strncmp(o.out, csv.out, header_len(csv.out) + 1) == 0 &&
                   rl_cli_lines(o.out) == rows,
               "%s: exit %d, not the CSV alone:\n%.400s", args, o.status, o.out);

        snprintf(args, sizeof args, "%s --out - --format json", cmd);
        rl_cli_expect_usage_error(args, "--out - writes CSV to standard output");
    }
    /* the two that had them keep them */
    rl_cli_run(&o, "bench --help");
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "--format F"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "--out FILE"));
    rl_cli_expect_usage_error("list --format yaml", "unknown format");
    rl_cli_expect_usage_error("clocks --out /nonexistent-dir/c.csv", "no folder");
    unlink(out);
    unlink("/tmp/ratelab-cli-fmt-d.csv");
}

/* trace --out - writes the trace to standard output, and says so. */
static void test_trace_to_stdout(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "trace --workload uniform --limit 10 --interval 1ms --duration 10ms --out -");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    CU_ASSERT_EQUAL(strncmp(o.out, "t_ns,key,n\n0,", 13), 0);
    unsigned long attempts = 0;
    EXPECT(sscanf(o.err, "wrote %lu attempts over 1 key to standard output", &attempts) == 1 &&
               attempts > 0 && rl_cli_lines(o.out) == (int)attempts + 1,
           "stderr: %s, %d lines on stdout", o.err, rl_cli_lines(o.out));
    rl_cli_run(&o, "trace --help");
    CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "--out -"));
}

/* --help lists what the command uses and nothing else: trace and check
 * build no limiter, so no --slots, and trace no --burst (check takes
 * --burst for --promise bucket only, and refuses --slots; trace
 * still takes them from scripts that pass one set of options to trace and
 * sim alike). Every option a --help lists is one the command accepts. */
static void test_help_lists_used_options(void)
{
    static const char *const commands[] = {"list",  "sim",    "stress", "replay", "trace",
                                           "check", "clocks", "keys",   "bench",  "claims"};
    static struct rl_cli_outcome help, o;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[256];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        rl_cli_run(&help, args);
        CU_ASSERT_EQUAL(help.status, 0);
        /* the options of the option lists: lines that start with --NAME */
        for (const char *line = help.out; *line;
             line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
            const char *word = line + strspn(line, " ");
            if (strncmp(word, "--", 2) != 0)
                continue;
            char option[64];
            snprintf(option, sizeof option, "%.*s", (int)strcspn(word, " \n"), word);
            snprintf(args, sizeof args, "%s %s", commands[i], option);
            rl_cli_run(&o, args);
            EXPECT(strstr(o.err, "unrecognized option") == NULL,
                   "ratelab %s --help lists %s, which it refuses: %s", commands[i], option, o.err);
        }
    }
    rl_cli_run(&help, "trace --help");
    EXPECT(strstr(help.out, "--burst") == NULL && strstr(help.out, "--slots") == NULL,
           "trace --help: %s", help.out);
    EXPECT(strstr(help.out, "--limit") != NULL && strstr(help.out, "--interval") != NULL,
           "trace --help: %s", help.out);
    rl_cli_run(&help, "check --help");
    EXPECT(strstr(help.out, "--slots") == NULL, "check --help: %s", help.out);
    /* --burst is the capacity for --promise bucket, and refused without it */
    rl_cli_expect_usage_error("check --events /dev/null --burst 5", "--promise bucket");
    rl_cli_expect_usage_error("check --events /dev/null --slots 5", "unrecognized option");
    rl_cli_run(&o, "trace --workload uniform --duration 10ms --burst 5 --slots 3 --out /dev/null");
    EXPECT(o.status == 0, "trace with --burst: exit %d: %s", o.status, o.err);
    rl_cli_run(&help, "sim --help");
    CU_ASSERT_PTR_NOT_NULL(strstr(help.out, "--burst"));
    CU_ASSERT_PTR_NOT_NULL(strstr(help.out, "--slots"));
}

/* Every table ends with a footer that names each of its columns that is
 * not a plain word: its last paragraph, after a blank line. */
static void expect_footer(const char *args, const char *header_start)
{
    static const char *const plain[] = {"algo",    "workload", "promise", "threads", "admits",
                                        "rejects", "errors",   "metric",  "value",   "clock",
                                        "keys",    "key",      "rep",     NULL};
    static struct rl_cli_outcome o;
    rl_cli_run(&o, args);
    EXPECT_FATAL(o.status == 0, "%s: exit %d: %s", args, o.status, o.err);
    const char *header = NULL; /* the line whose first word is header_start */
    for (const char *line = o.out; *line && header == NULL;) {
        const char *word = line + strspn(line, " ");
        if (strncmp(word, header_start, strlen(header_start)) == 0 &&
            word[strlen(header_start)] == ' ')
            header = line;
        line += strcspn(line, "\n");
        line += *line == '\n';
    }
    EXPECT_FATAL(header != NULL, "%s: no table with a header '%s':\n%s", args, header_start, o.out);
    const char *footer = strstr(header, "\n\n");
    for (const char *next = footer; next; next = strstr(next + 2, "\n\n"))
        footer = next;
    EXPECT_FATAL(footer != NULL, "%s: nothing after the table:\n%s", args, o.out);
    size_t header_end = strcspn(header, "\n");
    for (size_t at = 0; at < header_end;) {
        at += strspn(header + at, " ");
        size_t len = strcspn(header + at, " \n");
        if (len == 0)
            break;
        char column[64];
        snprintf(column, sizeof column, "%.*s", (int)len, header + at);
        at += len;
        bool is_plain = false;
        for (size_t p = 0; plain[p]; p++)
            is_plain |= strcmp(plain[p], column) == 0;
        if (!is_plain)
            EXPECT(strstr(footer, column) != NULL, "%s: the footer does not explain '%s':%s", args,
                   column, footer);
    }
}

static void test_table_footers(void)
{
    expect_footer("sim --algo fw_cas,tb_cas --workload boundary --limit 10 --interval 1s", "algo");
    expect_footer("stress --algo fw_cas --threads 1 --reps 1 --duration 20ms", "algo");
    expect_footer("replay --algo fw_cas --threads 1,2 --reps 2 --workload uniform --duration 20ms "
                  "--limit 50 --interval 10ms",
                  "algo");
    expect_footer("clocks", "clock");
    expect_footer("keys --algo fw_cas --keys 1000 --churn 4", "keys");
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas --workload boundary --limit 10 --interval 1s "
                   "--decisions /tmp/ratelab-cli-foot-d.csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    expect_footer("check --events /tmp/ratelab-cli-foot-d.csv --limit 10 --interval 1s --per-key",
                  "key");
    unlink("/tmp/ratelab-cli-foot-d.csv");
}

/* Times in tables carry a unit, exact where configured, else three decimals. */
static void test_durations_with_units(void)
{
    static const struct {
        uint64_t ns;
        const char *text;
    } cases[] = {
        {0, "0ns"},
        {999, "999ns"},
        {1000, "1.000us"},
        {1500, "1.500us"},
        {999499, "999.499us"},
        {999999, "1.000ms"}, /* rounded up into the next unit */
        {12068398, "12.068ms"},
        {1500000000, "1.500s"},
        {UINT64_MAX, "18446744073.709s"}, /* rounded down: .710s would pass 2^64 - 1 ns */
    };
    char buf[RL_DURATION_BUF_LEN];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        EXPECT(strcmp(rl_format_duration_human(cases[i].ns, buf, sizeof buf), cases[i].text) == 0,
               "%llu ns: '%s', want '%s'", (unsigned long long)cases[i].ns, buf, cases[i].text);
    /* the stress table's uncert column */
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --reps 1 --duration 20ms --record");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *row = strstr(o.out, "\nfw_cas ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *last = row + strcspn(row + 1, "\n");
    while (last > row && *last != ' ')
        last--;
    double value = 0;
    char unit[8] = "";
    EXPECT(sscanf(last, " %lf%7[a-z]", &value, unit) == 2 &&
               (strcmp(unit, "ns") == 0 || strcmp(unit, "us") == 0 || strcmp(unit, "ms") == 0 ||
                strcmp(unit, "s") == 0),
           "uncert '%.*s'", (int)strcspn(last, "\n"), last);
    EXPECT(strstr(o.out, "e+") == NULL, "an exponent in: %s", o.out);
}

/* rep counts from 1 in every mode: sim's one run is 1, stress and replay
 * number their repetitions 1..R. */
static void test_rep_counts_alike(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas --workload boundary --limit 10 --interval 1s --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    EXPECT_EQ(rl_cli_csv_number(o.out, strchr(o.out, '\n') + 1, "rep"), 1);
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --reps 2 --duration 10ms --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    /* faa, fw_cas of rep 1, then of rep 2 */
    const char *row = strchr(o.out, '\n') + 1;
    for (unsigned want = 1, i = 0; i < 4 && *row; i++, row = strchr(row, '\n') + 1) {
        want = i < 2 ? 1 : 2;
        EXPECT_EQ(rl_cli_csv_number(o.out, row, "rep"), want);
    }
}

/* Every stress and replay row carries the load at its start: load_1m and
 * runnable, numbers from /proc/loadavg (or RATELAB_LOADAVG); sim has none.
 * On a busy machine stderr gets one warning line per command. (The test
 * binary points RATELAB_LOADAVG at a calm file for every other test, so
 * their stderr stays exact on a busy machine: test_main.c.) */
static void test_load_recorded(void)
{
    struct rl_load load;
    CU_ASSERT(rl_load_parse("0.52 0.58 0.59 2/345 12345\n", &load));
    CU_ASSERT_DOUBLE_EQUAL(load.avg_1m, 0.52, 1e-9);
    CU_ASSERT_EQUAL(load.runnable, 2);
    CU_ASSERT_FALSE(rl_load_parse("0.52 0.58 0.59\n", &load));
    CU_ASSERT_FALSE(rl_load_parse("", &load));

    static struct rl_cli_outcome o;
    char field[64];
    const char *calm = getenv("RATELAB_LOADAVG");
    unsetenv("RATELAB_LOADAVG"); /* this machine's own /proc/loadavg */
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --reps 1 --duration 10ms --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    for (const char *row = strchr(o.out, '\n') + 1; *row; row = strchr(row, '\n') + 1) {
        char *end;
        double avg = strtod(rl_cli_csv_field(o.out, row, "load_1m", field, sizeof field), &end);
        EXPECT(field[0] != '\0' && *end == '\0' && isfinite(avg) && avg >= 0, "load_1m '%s'",
               field);
        rl_cli_csv_field(o.out, row, "runnable", field, sizeof field);
        EXPECT(field[0] != '\0' && strspn(field, "0123456789") == strlen(field) &&
                   strtoul(field, NULL, 10) >= 1,
               "runnable '%s' (ratelab itself runs)", field);
    }
    rl_cli_run(&o, "sim --algo fw_cas --workload boundary --limit 10 --interval 1s --format csv");
    CU_ASSERT_EQUAL_FATAL(o.status, 0);
    const char *row = strchr(o.out, '\n') + 1;
    EXPECT(rl_cli_csv_field(o.out, row, "load_1m", field, sizeof field)[0] == '\0', "sim: '%s'",
           field);

    const char *busy = "/tmp/ratelab-cli-loadavg";
    write_file(busy, "9999.50 10.00 5.00 9999/10000 4242\n");
    setenv("RATELAB_LOADAVG", busy, 1);
    rl_cli_run(&o, "stress --algo fw_cas --threads 1 --reps 2 --duration 10ms --format csv");
    EXPECT(o.status == 0 && o.err_lines == 1 && strstr(o.err, "runs started with the load"),
           "not on a terminal, still one warning: %s", o.err);
    row = strchr(o.out, '\n') + 1;
    EXPECT(strcmp(rl_cli_csv_field(o.out, row, "load_1m", field, sizeof field), "9999.5") == 0,
           "load_1m '%s'", field);
    EXPECT_EQ(rl_cli_csv_number(o.out, row, "runnable"), 9999);
    rl_cli_run_tty(&o, "stress --algo fw_cas --threads 1 --reps 2 --duration 10ms --format csv");
    const char *warning =
        strstr(o.err, "ratelab stress: warning: 4 of 4 runs started with the load "
                      "above the");
    EXPECT(o.status == 0 && warning != NULL && strchr(warning, '\n') != NULL &&
               strstr(strchr(warning, '\n'), "warning") == NULL,
           "one warning line for the command: %s", o.err);
    rl_cli_run_tty(&o,
                   "replay --algo fw_cas --workload uniform --duration 10ms --reps 2 --format csv");
    EXPECT(o.status == 0 && strstr(o.err, "ratelab replay: warning: 2 of 2 runs") != NULL,
           "replay: %s", o.err);
    write_file(busy, "0.00 0.00 0.00 1/100 4242\n");
    rl_cli_run_tty(&o, "stress --algo fw_cas --threads 1 --reps 1 --duration 10ms --format csv");
    EXPECT(o.status == 0 && strstr(o.err, "warning") == NULL, "calm machine: %s", o.err);
    if (calm)
        setenv("RATELAB_LOADAVG", calm, 1);
    else
        unsetenv("RATELAB_LOADAVG");
    unlink(busy);
}

RL_TEST_SUITE("cli", {"unknown algorithm lists the valid names", test_bad_algorithm},
              {"bad durations, zero or negative limit and interval", test_bad_durations_and_limits},
              {"malformed, unsorted and missing traces", test_bad_traces},
              {"bad commands, options and values", test_bad_usage},
              {"--help on every subcommand", test_help_everywhere},
              {"list puts each name first", test_list_names_first},
              {"sim --format csv opens with the fixed columns", test_sim_csv_columns},
              {"trace, sim --decisions and check fit together", test_round_trip},
              {"an unwritable output is refused before the run", test_unwritable_output},
              {"stress --decisions and check --admits-only fit together", test_stress_decisions},
              {"sim, stress, replay, bench --help: the exit statuses", test_exit_status_help},
              {"--redis: names and non-loopback addresses refused", test_redis_address_refused},
              {"tables escape user text (trace file names)", test_table_text_escaped},
              {"a full recorder buffer is warned about", test_dropped_events_warned},
              {"rows name their build", test_build_column},
              {"--format and --out on every command that has results",
               test_format_and_out_everywhere},
              {"trace --out - writes standard output", test_trace_to_stdout},
              {"--help lists only the options a command uses", test_help_lists_used_options},
              {"every table ends with a footer for its abbreviations", test_table_footers},
              {"times print with units", test_durations_with_units},
              {"rep counts from 1 in every mode", test_rep_counts_alike},
              {"load_1m and runnable in every stress and replay row", test_load_recorded})
