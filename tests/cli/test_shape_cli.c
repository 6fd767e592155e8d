/* test_shape_cli.c — shaping as a user meets it: sim --max-wait and the
 * release_ns column, check --promise shape's verdicts and exit statuses,
 * and its bad input (exit 2, one line). */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static const char *in_dir(const char *name, char *buf, size_t len)
{
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/ratelab-shape-cli-%d", (int)getpid());
        char mk[128];
        snprintf(mk, sizeof mk, "mkdir -p %s", dir);
        CU_ASSERT_EQUAL_FATAL(system(mk), 0);
    }
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

static void remove_dir(void)
{
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(rm), 0);
    dir[0] = '\0';
}

static char first_line[256];

static const char *header_of(const char *path)
{
    char text[4096];
    rl_cli_slurp(path, text, sizeof text);
    size_t n = strcspn(text, "\n");
    snprintf(first_line, sizeof first_line, "%.*s", (int)n, text);
    return first_line;
}

static void test_sim_release_column(void)
{
    char log[128], plain[128], waited[128], args[512];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    /* a shaper's log carries release_ns, and check judges it held */
    in_dir("spacer.csv", log, sizeof log);
    snprintf(args, sizeof args,
             "sim --algo gcra_spacer --workload flash --limit 10 --interval 1s --duration 3s "
             "--decisions %s",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_STRING_EQUAL(header_of(log), "t_ns,key,n,admitted,thread,release_ns");
    snprintf(args, sizeof args, "check --events %s --limit 10 --interval 1s --promise shape", log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->out, "held                            yes"));
    /* any other algorithm: no column unless --max-wait, and the same
     * decisions either way */
    in_dir("plain.csv", plain, sizeof plain);
    in_dir("waited.csv", waited, sizeof waited);
    snprintf(args, sizeof args,
             "sim --algo tb_cas --workload flash --limit 10 --interval 1s --duration 3s "
             "--decisions %s",
             plain);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_STRING_EQUAL(header_of(plain), "t_ns,key,n,admitted,thread");
    snprintf(args, sizeof args,
             "sim --algo tb_cas --workload flash --limit 10 --interval 1s --duration 3s "
             "--max-wait 0s --decisions %s",
             waited);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    /* the first five columns as without --max-wait; each admit released at its t_ns */
    char cmd[640];
    snprintf(cmd, sizeof cmd,
             "cut -d, -f1-5 %s | cmp -s - %s && awk -F, 'NR > 1 && (($4 == 1) != ($6 == $1))' %s "
             "| wc -l",
             waited, plain, waited);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char got[64] = "";
    CU_ASSERT_PTR_NOT_NULL(fgets(got, sizeof got, p));
    CU_ASSERT_EQUAL(pclose(p), 0);
    EXPECT(atoi(got) == 0 && got[0] == '0', "tb_cas with --max-wait: %s lines differ", got);
    free(o);
    remove_dir();
}

static void test_check_broken_by_idle_bug(void)
{
    char trace[128], log[128], args[512];
    in_dir("idle.csv", trace, sizeof trace);
    FILE *f = fopen(trace, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "t_ns,key,n\n0,a,1\n");
    for (int i = 0; i < 30; i++)
        fprintf(f, "%llu,a,1\n", 5000000000ull + (unsigned long long)i * 1000000ull);
    fclose(f);
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    const char *algos[] = {"pacer_uber", "pacer_uber_idle_bug"};
    const int status[] = {0, 1};
    for (int a = 0; a < 2; a++) {
        in_dir("pacer.csv", log, sizeof log);
        snprintf(args, sizeof args,
                 "sim --algo %s --trace %s --limit 10 --interval 1s --burst 11 --decisions %s",
                 algos[a], trace, log);
        rl_cli_run(o, args);
        CU_ASSERT_EQUAL(o->status, 0);
        snprintf(args, sizeof args,
                 "check --events %s --limit 10 --interval 1s --burst 11 --promise shape", log);
        rl_cli_run(o, args);
        EXPECT(o->status == status[a], "%s: check --promise shape exited %d, expected %d", algos[a],
               o->status, status[a]);
    }
    free(o);
    remove_dir();
}

static void test_trace_max_wait_column(void)
{
    char trace[128], log[128], args[512], text[1024];
    in_dir("waits.csv", trace, sizeof trace);
    FILE *f = fopen(trace, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* T = 100 ms, B = 1; empty waits take --max-wait 100ms */
    fputs("t_ns,key,n,max_wait_ns\n0,a,1,\n0,a,1,0\n0,a,1,\n0,a,1,150000000\n0,a,1,1000000000\n",
          f);
    fclose(f);
    in_dir("waits-log.csv", log, sizeof log);
    snprintf(args, sizeof args,
             "sim --algo gcra_spacer --trace %s --limit 10 --interval 1s --burst 1 --max-wait "
             "100ms --decisions %s",
             trace, log);
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    rl_cli_slurp(log, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "t_ns,key,n,admitted,thread,release_ns\n"
                                 "0,a,1,1,0,0\n0,a,1,0,0,\n0,a,1,1,0,100000000\n"
                                 "0,a,1,0,0,\n0,a,1,1,0,200000000\n");
    /* replay takes it too (its releases are real time: only the columns are
     * asserted here; test_shape_runs.c judges such runs) */
    snprintf(args, sizeof args,
             "replay --algo gcra_spacer --trace %s --limit 10 --interval 1s --burst 1 "
             "--max-wait 100ms --decisions %s",
             trace, log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_STRING_EQUAL(header_of(log), "t_ns,key,n,admitted,thread,release_ns,woke_ns");
    static const char *const bad[][2] = {
        {"t_ns,key,n,max_wait_ns\n0,a,1,x\n", ":2: max wait 'x'"},
        {"t_ns,key,n,max_wait_ns\n0,a,1,86400000000001\n", ":2: max wait"},
        {"t_ns,key,n,max_wait_ns\n0,a,1,\n0\n", ":3: too few fields"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = fopen(trace, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(bad[i][0], f);
        fclose(f);
        snprintf(args, sizeof args, "sim --algo gcra_spacer --trace %s", trace);
        rl_cli_expect_usage_error(args, bad[i][1]);
    }
    free(o);
    remove_dir();
}

static void test_bad_input(void)
{
    char plain[128], args[512];
    in_dir("plain.csv", plain, sizeof plain);
    FILE *f = fopen(plain, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "t_ns,key,n,admitted,thread\n0,a,1,1,0\n");
    fclose(f);
    static const struct {
        const char *options, *needle;
    } sim_bad[] = {
        {"--max-wait -1s", "--max-wait: duration '-1s'"},
        {"--max-wait 86401s", "more than a day"},
        {"--max-wait 5", "--max-wait"},
    };
    for (size_t i = 0; i < sizeof sim_bad / sizeof sim_bad[0]; i++) {
        snprintf(args, sizeof args, "sim --algo gcra_spacer --workload uniform %s",
                 sim_bad[i].options);
        rl_cli_expect_usage_error(args, sim_bad[i].needle);
    }
    /* a burst the shaper cannot keep: guava_bursty stores L permits, no other B */
    rl_cli_expect_usage_error("sim --algo guava_bursty --workload uniform --limit 100 --interval "
                              "100ms --burst 150",
                              "--burst 150 cannot be honoured");
    rl_cli_expect_usage_error("stress --algo guava_bursty --threads 1 --duration 10ms --limit 10 "
                              "--interval 1s --burst 3",
                              "--burst 3 cannot be honoured");
    static const struct {
        const char *options, *needle;
    } check_bad[] = {
        {"--promise shape", "no release_ns column"},
        {"--promise strong --max-wait 1s", "--max-wait is the caller's wait for --promise shape"},
        {"--promise shape --max-wait 25h", "more than a day"},
        {"--promise shape --per-key", "no --per-key or --admits-only"},
    };
    for (size_t i = 0; i < sizeof check_bad / sizeof check_bad[0]; i++) {
        snprintf(args, sizeof args, "check --events %s --limit 1 --interval 1s %s", plain,
                 check_bad[i].options);
        rl_cli_expect_usage_error(args, check_bad[i].needle);
    }
    remove_dir();
}

/* bench --suite shaping: a distance row per shaper and workload, a cost row
 * each, with the provenance every reference CSV carries; the spacer is its
 * own ideal, the #119 rule breaks the curve on idle_burst. */
static void test_bench_shaping_rows(void)
{
    static struct rl_cli_outcome o;
    char out[128], args[256];
    /* --out in the scratch folder: without it bench writes results/shaping-HOST.csv */
    in_dir("shaping.csv", out, sizeof out);
    snprintf(args, sizeof args, "bench --suite shaping --reps 1 --format csv --out %s", out);
    rl_cli_run(&o, args);
    EXPECT_EQ(o.status, 0);
    EXPECT(access(out, R_OK) == 0, "no %s written", out);
    remove_dir();
    const char *spacer = strstr(o.out, "sim,distance,gcra_spacer,idle_burst,");
    const char *bug = strstr(o.out, "sim,distance,pacer_uber_idle_bug,idle_burst,");
    const char *uber = strstr(o.out, "sim,distance,pacer_uber,idle_burst,");
    const char *cost = strstr(o.out, "stress,cost,pacer_uber,");
    const char *floor = strstr(o.out, "stress,cost,tb_cas,");
    EXPECT_FATAL(spacer && bug && uber && cost && floor, "rows missing: %.600s", o.out);
    char value[64];
    EXPECT_EQ(rl_cli_csv_number(o.out, spacer, "late_max_ns"), 0);
    EXPECT(strcmp(rl_cli_csv_field(o.out, spacer, "shape_held", value, sizeof value), "yes") == 0,
           "gcra_spacer held %s", value);
    EXPECT(strcmp(rl_cli_csv_field(o.out, uber, "shape_held", value, sizeof value), "yes") == 0,
           "pacer_uber held %s", value);
    EXPECT(strcmp(rl_cli_csv_field(o.out, bug, "shape_held", value, sizeof value), "no") == 0,
           "pacer_uber_idle_bug held %s on idle_burst", value);
    EXPECT(rl_cli_csv_number(o.out, cost, "ns_per_decision") > 0, "no cost");
    static const char *const provenance[] = {"host", "git_rev", "date", "cpus", "cpu_model"};
    for (size_t i = 0; i < sizeof provenance / sizeof provenance[0]; i++)
        EXPECT(rl_cli_csv_field(o.out, cost, provenance[i], value, sizeof value)[0] != '\0',
               "no %s in the row", provenance[i]);
}

RL_TEST_SUITE("shape_cli",
              {"bench --suite shaping: distance and cost rows", test_bench_shaping_rows},
              {"sim: release_ns for a shaper or --max-wait only", test_sim_release_column},
              {"check --promise shape: pacer_uber held, its idle bug broken",
               test_check_broken_by_idle_bug},
              {"a trace's max_wait_ns column, sim and replay", test_trace_max_wait_column},
              {"bad input exits 2 with one line", test_bad_input})
