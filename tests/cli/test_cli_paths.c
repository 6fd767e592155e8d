/* test_cli_paths.c — no command destroys its own input (issue 19): an
 * output naming an input or another output, through the same name, "./",
 * a symlink or a hard link, is refused with exit 2 and the input left byte
 * for byte; and the smaller rules around it: a repeated value option, a
 * trace that cannot be replayed, an output that cannot be created, --speed
 * in hex, and the human duration formatter read back at the top of the
 * range. Runs build/ratelab in a fresh folder of its own. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"
#include "harness/cli/parse.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char home[PATH_MAX], folder[PATH_MAX];

/* Into a fresh folder, the binary named by its absolute path, so the cases
 * can name files as a user at a shell does ("t.csv", "./t.csv"). */
static void enter_folder(void)
{
    const char *bin = getenv("RATELAB_BIN");
    char absolute[PATH_MAX];
    EXPECT_FATAL(realpath(bin ? bin : "build/ratelab", absolute) != NULL, "no ratelab binary");
    setenv("RATELAB_BIN", absolute, 1);
    EXPECT_FATAL(getcwd(home, sizeof home) != NULL, "no working folder");
    snprintf(folder, sizeof folder, "/tmp/ratelab-paths-XXXXXX");
    EXPECT_FATAL(mkdtemp(folder) != NULL, "cannot create a test folder");
    EXPECT_FATAL(chdir(folder) == 0, "cannot enter %s", folder);
}

static void leave_folder(void)
{
    DIR *d = opendir(".");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(e->d_name);
    if (d)
        closedir(d);
    EXPECT(chdir(home) == 0, "cannot go back to %s", home);
    rmdir(folder);
}

/* The whole file, malloc'd ("" for none); *len its size. */
static char *read_whole(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 22);
    if (buf == NULL)
        return NULL;
    if (f) {
        *len = fread(buf, 1, (1 << 22) - 1, f);
        fclose(f);
    }
    buf[*len] = '\0';
    return buf;
}

/* No temporary (NAME.tmp.XXXXXX) left in the folder. */
static bool no_temporaries(void)
{
    bool none = true;
    DIR *d = opendir(".");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        none &= strstr(e->d_name, ".tmp.") == NULL;
    if (d)
        closedir(d);
    return none;
}

/* ARGS exits 2 with one line naming both options, and the trace t.csv is
 * byte for byte what it was. */
static void expect_refused_keeps_trace(const char *args, const char *first, const char *second)
{
    size_t before_len, after_len;
    char *before = read_whole("t.csv", &before_len);
    static struct rl_cli_outcome o;
    rl_cli_run(&o, args);
    char *after = read_whole("t.csv", &after_len);
    EXPECT(o.status == 2 && o.err_lines == 1, "ratelab %s: exit %d, stderr: %s", args, o.status,
           o.err);
    EXPECT(strstr(o.err, first) && strstr(o.err, second) && strstr(o.err, "the same file"),
           "ratelab %s does not name %s and %s: %s", args, first, second, o.err);
    EXPECT(before_len > 0 && before_len == after_len && memcmp(before, after, before_len) == 0,
           "ratelab %s changed t.csv (%zu bytes, now %zu)", args, before_len, after_len);
    EXPECT(no_temporaries(), "ratelab %s left a temporary", args);
    free(before);
    free(after);
}

static void make_trace(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "trace --workload uniform --duration 50ms --out t.csv");
    EXPECT_FATAL(o.status == 0, "trace failed: %s", o.err);
    EXPECT_FATAL(symlink("t.csv", "link.csv") == 0, "cannot link");
    EXPECT_FATAL(link("t.csv", "hard.csv") == 0, "cannot hard-link");
}

static void test_output_names_the_input(void)
{
    enter_folder();
    make_trace();
    const char *names[] = {"t.csv", "./t.csv", "link.csv", "hard.csv", NULL};
    for (const char *const *n = names; *n; n++) {
        char args[512];
        snprintf(args, sizeof args, "sim --algo fw_cas --trace t.csv --out %s", *n);
        expect_refused_keeps_trace(args, "--out", "--trace");
        snprintf(args, sizeof args, "sim --algo fw_cas --trace %s --decisions t.csv", *n);
        expect_refused_keeps_trace(args, "--decisions", "--trace");
        snprintf(args, sizeof args, "replay --algo fw_cas --trace t.csv --latency-out %s", *n);
        expect_refused_keeps_trace(args, "--latency-out", "--trace");
        snprintf(args, sizeof args, "replay --algo fw_cas --trace %s --decisions t.csv", *n);
        expect_refused_keeps_trace(args, "--decisions", "--trace");
        snprintf(args, sizeof args, "replay --algo fw_cas --trace t.csv --out %s", *n);
        expect_refused_keeps_trace(args, "--out", "--trace");
        snprintf(args, sizeof args, "check --events t.csv --limit 5 --interval 1s --out %s", *n);
        expect_refused_keeps_trace(args, "--out", "--events");
    }
    leave_folder();
}

/* Two outputs naming one file: refused, and neither written. */
static void test_two_outputs(void)
{
    enter_folder();
    make_trace();
    const char *cases[][3] = {
        {"sim --algo fw_cas --workload uniform --duration 50ms --decisions x.csv --out x.csv",
         "--out", "--decisions"},
        {"sim --algo fw_cas --workload uniform --duration 50ms --decisions x.csv --out ./x.csv",
         "--out", "--decisions"},
        {"replay --algo fw_cas --workload uniform --duration 50ms --decisions x.csv --out x.csv",
         "--out", "--decisions"},
        {"replay --algo fw_cas --workload uniform --duration 50ms --latency-out x.csv --out x.csv",
         "--out", "--latency-out"},
        {"stress --algo fw_cas --threads 1 --reps 1 --duration 10ms --decisions x.csv --out x.csv",
         "--out", "--decisions"},
        /* an existing file and its links */
        {"sim --algo fw_cas --workload uniform --decisions link.csv --out hard.csv", "--out",
         "--decisions"},
        /* a dangling link: its target, where the file would be created */
        {"sim --algo fw_cas --workload uniform --decisions dangling.csv --out x.csv", "--out",
         "--decisions"},
    };
    EXPECT_FATAL(symlink("x.csv", "dangling.csv") == 0, "cannot link");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_refused_keeps_trace(cases[i][0], cases[i][1], cases[i][2]);
        EXPECT(access("x.csv", F_OK) != 0, "ratelab %s wrote x.csv", cases[i][0]);
    }
    leave_folder();
}

/* "-" and devices keep their meaning: two outputs to /dev/null are fine. */
static void test_devices_may_repeat(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas --workload uniform --duration 50ms --out /dev/null "
                   "--decisions /dev/null --format csv");
    EXPECT(o.status == 0, "two outputs to /dev/null: exit %d: %s", o.status, o.err);
}

static void test_unreplayable_trace_is_bad_input(void)
{
    enter_folder();
    FILE *f = fopen("span.csv", "w");
    EXPECT_FATAL(f != NULL, "cannot write span.csv");
    fputs("t_ns,key,n\n0,a,1\n18446744073709551615,a,1\n", f);
    fclose(f);
    rl_cli_expect_usage_error("replay --algo fw_cas --trace span.csv", "10^9 s");
    leave_folder();
}

/* access() says yes to root in /sys; creating the temporary there does
 * not, and that is now tried before the run. */
static void test_uncreatable_output_refused_first(void)
{
    if (geteuid() != 0 || access("/sys", F_OK) != 0)
        return; /* access() already refuses it to anyone else (test_cli) */
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --out /sys/ratelab-x.csv",
                              "temporary");
    rl_cli_expect_usage_error("trace --workload uniform --out /sys/ratelab-t.csv", "temporary");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --latency-out "
                              "/proc/ratelab-l.csv",
                              "temporary");
}

static void test_repeated_option_refused(void)
{
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --limit 5 --limit 6",
                              "--limit is given twice");
    rl_cli_expect_usage_error("sim --algo fw_cas --algo tb_cas --workload uniform",
                              "--algo is given twice");
    rl_cli_expect_usage_error("check --events /dev/null --out a.csv --out b.csv",
                              "--out is given twice");
    rl_cli_expect_usage_error("replay --algo fw_cas --workload uniform --speed 1 --speed 2",
                              "--speed is given twice");
    /* an abbreviation is the same option */
    rl_cli_expect_usage_error("stress --algo fw_cas --dur 10ms --duration 20ms",
                              "--duration is given twice");
    /* a flag given twice is the flag */
    static struct rl_cli_outcome o;
    rl_cli_run(&o, "sim --algo fw_cas --workload uniform --duration 10ms --unsorted --unsorted "
                   "--format csv");
    EXPECT(o.status == 0, "--unsorted twice: exit %d: %s", o.status, o.err);
}

static void test_speed_is_a_plain_number(void)
{
    const char *bad[] = {"0x10", "inf", "nan", "' 2'", "0x1p4", "+2", NULL};
    for (const char *const *s = bad; *s; s++) {
        char args[256];
        snprintf(args, sizeof args, "replay --algo fw_cas --workload uniform --speed %s", *s);
        rl_cli_expect_usage_error(args, "--speed");
    }
    rl_cli_expect_usage_error("sim --algo fw_cas --workload uniform --rate 0x10", "--rate");
    double v;
    char err[256];
    EXPECT(rl_parse_double("2.5e1", 0.0, &v, err, sizeof err) == 0 && v == 25.0, "2.5e1: %s", err);
    EXPECT(rl_parse_double(".5", 0.0, &v, err, sizeof err) == 0 && v == 0.5, ".5: %s", err);
}

/* Every human duration parses back, to within a thousandth of its unit. */
static void test_human_duration_round_trip(void)
{
    uint64_t values[64];
    size_t n = 0;
    for (uint64_t d = 0; d < 20; d++)
        values[n++] = UINT64_MAX - d * 249999;
    values[n++] = 18446744073709500000u;
    values[n++] = 18446744073709499999u;
    values[n++] = 999999;
    values[n++] = 999;
    values[n++] = 0;
    for (uint64_t x = 88172645463325252u, i = 0; i < 20; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        values[n++] = x >> (i * 3 % 60);
    }
    for (size_t i = 0; i < n; i++) {
        char text[RL_DURATION_BUF_LEN], err[256] = "";
        uint64_t back = 0, ns = values[i];
        rl_format_duration_human(ns, text, sizeof text);
        EXPECT(rl_parse_duration_ns(text, &back, err, sizeof err) == 0,
               "%llu ns shows as %s, which does not parse: %s", (unsigned long long)ns, text, err);
        uint64_t most = back > ns ? back : ns;
        uint64_t unit = most >= 1000000000u ? 1000000u : most >= 1000000u ? 1000u : 1u;
        uint64_t off = back > ns ? back - ns : ns - back;
        EXPECT(off <= unit, "%llu ns shows as %s, read back as %llu ns", (unsigned long long)ns,
               text, (unsigned long long)back);
    }
}

RL_TEST_SUITE("cli_paths", {"an output naming the input is refused", test_output_names_the_input},
              {"two outputs naming one file are refused", test_two_outputs},
              {"devices keep their meaning", test_devices_may_repeat},
              {"an unreplayable trace is bad input", test_unreplayable_trace_is_bad_input},
              {"an uncreatable output is refused first", test_uncreatable_output_refused_first},
              {"a repeated value option is refused", test_repeated_option_refused},
              {"--speed is a plain number", test_speed_is_a_plain_number},
              {"human durations read back", test_human_duration_round_trip});
