/* test_shape_runs_cli.c — shapers on the real clock and cancellations, as a
 * user meets them: a recorded stress of each shaper on 2 threads judged
 * held by check --promise shape; a trace's cancellations in sim's virtual
 * time against a decision table computed by hand; a cancellation in
 * replay; the bad input of all four commands (exit 2, one line, nothing
 * written). No timing is asserted: real-clock runs are judged on what the
 * checker can prove from their logs. */
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
        snprintf(dir, sizeof dir, "/tmp/ratelab-shape-runs-%d", (int)getpid());
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

/* The line of csv that starts with prefix (the header excluded). */
static const char *row_of(const char *csv, const char *prefix)
{
    char wanted[128];
    snprintf(wanted, sizeof wanted, "\n%s", prefix);
    const char *at = strstr(csv, wanted);
    EXPECT_FATAL(at != NULL, "no row %s in: %.300s", prefix, csv);
    return at + 1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* The shapers this suite was written with, each with the burst it honours
 * (a shaper added later brings its own decision table; one that rejects
 * beyond a burst would need a max wait here). guava_bursty stores up to L
 * permits whatever --burst says (maxBurstSeconds = I): a start that comes
 * a few ms after its creation is already a burst of that many, so it is
 * judged at B = L. pacer_uber_idle_bug is left out: under a loaded machine
 * both threads can be off the CPU longer than its slack, and then it stops
 * limiting, as its bug does (test_shape_cli.c shows it broken).
 * guava_warmup stores at most B permits and spends each in at least T;
 * nginx_delay passes B + 1 at once only to B + 1 callers, and here there
 * are two. xrate_wait decides as gcra_spacer. juju_wait's quantum of L/g
 * tokens arrives whole (g = gcd(L, I): here 1 token a ms), so its promise
 * is B + L/g + L·u/I (juju_wait.c): judged at B + 1. */
static const struct {
    const char *name;
    unsigned burst, judged;
} shapers[] = {{"gcra_spacer", 5, 5},  {"pacer_uber", 5, 5},  {"guava_bursty", 1000, 1000},
               {"guava_warmup", 5, 5}, {"nginx_delay", 5, 5}, {"xrate_wait", 5, 5},
               {"juju_wait", 5, 6}};

/* Each shaper recorded in stress on 2 threads (each thread sleeps until its
 * release): every attempt logged with release_ns and woke_ns, and check
 * --promise shape finds the releases causal and within B + L·u/I. */
static void test_stress_each_shaper_held(void)
{
    char log[128], args[512];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    in_dir("stress.csv", log, sizeof log);
    for (size_t i = 0; i < sizeof shapers / sizeof shapers[0]; i++) {
        snprintf(args, sizeof args,
                 "stress --algo %s --threads 2 --duration 100ms --reps 1 --limit 1000 "
                 "--interval 1s --burst %u --decisions %s --format csv",
                 shapers[i].name, shapers[i].burst, log);
        rl_cli_run(o, args);
        CU_ASSERT_EQUAL(o->status, 0);
        /* the rows carry the timer's overshoot, apart from the limiter's columns */
        char field[32], name[64];
        snprintf(name, sizeof name, "%s,", shapers[i].name);
        rl_cli_csv_field(o->out, row_of(o->out, name), "overshoot_p99_ns", field, sizeof field);
        CU_ASSERT(field[0] != '\0');
        char text[256];
        rl_cli_slurp(log, text, sizeof text);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "t_ns,key,n,admitted,thread,release_ns,woke_ns\n"));
        snprintf(args, sizeof args,
                 "check --events %s --limit 1000 --interval 1s --burst %u --promise shape "
                 "--format csv",
                 log, shapers[i].judged);
        rl_cli_run(o, args);
        CU_ASSERT_EQUAL(o->status, 0);
        const char *row = row_of(o->out, "1,");
        EXPECT(rl_cli_csv_number(o->out, row, "curve_violations") == 0 &&
                   rl_cli_csv_number(o->out, row, "noncausal") == 0 &&
                   rl_cli_csv_number(o->out, row, "admits") > 10,
               "%s: %s", shapers[i].name, o->out);
        rl_cli_csv_field(o->out, row, "held", field, sizeof field);
        EXPECT(strcmp(field, "yes") == 0, "%s held %s", shapers[i].name, field);
    }
    free(o);
    remove_dir();
}

/* stress --cancel-share: 2 threads at B = 1 wait for each other's slots,
 * half of those waits are given up through gcra_spacer's cancel; the log
 * records them and the rest of the schedule is still held. */
static void test_stress_cancellations(void)
{
    char log[128], args[512];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    in_dir("stress-cancel.csv", log, sizeof log);
    snprintf(args, sizeof args,
             "stress --algo gcra_spacer --threads 2 --duration 100ms --reps 1 --limit 1000 "
             "--interval 1s --burst 1 --cancel-share 0.5 --decisions %s",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->out, "reservations cancelled"));
    snprintf(args, sizeof args,
             "check --events %s --limit 1000 --interval 1s --burst 1 --promise shape --format csv",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    const char *row = row_of(o->out, "1,");
    EXPECT(rl_cli_csv_number(o->out, row, "cancellations") > 0, "%s", o->out);
    CU_ASSERT_EQUAL(rl_cli_csv_number(o->out, row, "curve_violations"), 0);
    rl_cli_expect_usage_error("stress --algo pacer_uber --cancel-share 0.5 --duration 10ms",
                              "cannot cancel");
    rl_cli_expect_usage_error("stress --algo gcra_spacer --cancel-share 1.5 --duration 10ms",
                              "not a share");
    free(o);
    remove_dir();
}

/* gcra_spacer, L = 10 per s (T = 100 ms), B = 1, by hand (gcra_spacer.c):
 *   A   0 ms          release   0, TAT 100
 *   B   0 ms          release 100, TAT 200 (ticket 200)
 *       50 ms cancel B: nothing reserved after it: all back, TAT 100
 *   C  60 ms          release 100 (not 200: B's slot came back), TAT 200
 *   D  60 ms          release 200, TAT 300 (ticket 300)
 *   E  65 ms          release 300, TAT 400
 *       70 ms cancel D: E reserved T after it: nothing back (x/time's rule)
 *   F  80 ms          release 400 (the ideal without D would say 300: one
 *                     token lost, which check reports) */
static const char cancel_trace[] = "t_ns,key,n,max_wait_ns,cancel_ns\n"
                                   "0,a,1,,\n"
                                   "0,a,1,,50000000\n"
                                   "60000000,a,1,,\n"
                                   "60000000,a,1,,70000000\n"
                                   "65000000,a,1,,\n"
                                   "80000000,a,1,,\n";

static const char cancel_table[] = "t_ns,key,n,admitted,thread,release_ns,cancel_ns\n"
                                   "0,a,1,1,0,0,\n"
                                   "0,a,1,1,0,100000000,50000000\n"
                                   "60000000,a,1,1,0,100000000,\n"
                                   "60000000,a,1,1,0,200000000,70000000\n"
                                   "65000000,a,1,1,0,300000000,\n"
                                   "80000000,a,1,1,0,400000000,\n";

static void test_sim_cancellation_table(void)
{
    char trace[128], log[128], args[512], text[1024];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    write_file(in_dir("cancel.csv", trace, sizeof trace), cancel_trace);
    in_dir("cancel-log.csv", log, sizeof log);
    snprintf(args, sizeof args,
             "sim --algo gcra_spacer --trace %s --limit 10 --interval 1s --burst 1 "
             "--decisions %s",
             trace, log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    rl_cli_slurp(log, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, cancel_table);
    /* the checker: held, two cancellations, one token lost to x/time's rule */
    snprintf(args, sizeof args,
             "check --events %s --limit 10 --interval 1s --burst 1 --promise shape --format json",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->out, "\"cancellations\": 2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->out, "\"cancel_tokens_gained\": 0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->out, "\"cancel_tokens_lost\": 1,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->out, "\"held\": \"yes\""));
    free(o);
    remove_dir();
}

/* replay: B's reservation (release 500 ms at L = 2 per s, B = 1) is
 * cancelled at 10 ms; C, sent at 20 ms, then takes B's slot. The margins
 * are half a second, and the log is judged, not timed: C's release shows
 * the give-back (500 ms, not 1 s), and check finds the run held. */
static void test_replay_cancellation(void)
{
    char trace[128], log[128], args[512], text[1024];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    write_file(in_dir("replay-cancel.csv", trace, sizeof trace),
               "t_ns,key,n,max_wait_ns,cancel_ns\n0,a,1,,\n0,a,1,,10000000\n20000000,a,1,,\n");
    in_dir("replay-log.csv", log, sizeof log);
    snprintf(args, sizeof args,
             "replay --algo gcra_spacer --trace %s --limit 2 --interval 1s --burst 1 "
             "--decisions %s --format csv",
             trace, log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL_FATAL(o->status, 0);
    rl_cli_slurp(log, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(text, "t_ns,key,n,admitted,thread,release_ns,woke_ns,cancel_ns\n"));
    /* rows by arrival: A, B (cancelled: no wake-up), C */
    unsigned long long t[3], release[3], woke[3], cancel[3];
    const char *line = strchr(text, '\n') + 1;
    for (int i = 0; i < 3; i++) {
        char w[32] = "", c[32] = "";
        CU_ASSERT_FATAL(
            sscanf(line, "%llu,a,1,1,0,%llu,%31[0-9],%31[0-9]", &t[i], &release[i], w, c) >= 2);
        woke[i] = w[0] ? strtoull(w, NULL, 10) : 0;
        cancel[i] = c[0] ? strtoull(c, NULL, 10) : 0;
        if (i == 1) { /* ",," then the cancel time: sscanf stops at the empty field */
            const char *comma = strstr(line, ",,");
            CU_ASSERT_PTR_NOT_NULL_FATAL(comma);
            cancel[i] = strtoull(comma + 2, NULL, 10);
        }
        line = strchr(line, '\n') + 1;
    }
    CU_ASSERT(woke[0] >= release[0]);
    CU_ASSERT(cancel[1] > 0 && cancel[1] < release[1]);
    CU_ASSERT(release[2] < 1000000000ull); /* B's slot came back: not A + 2T */
    CU_ASSERT(woke[2] >= release[2]);
    snprintf(args, sizeof args,
             "check --events %s --limit 2 --interval 1s --burst 1 --promise shape --format csv",
             log);
    rl_cli_run(o, args);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_EQUAL(rl_cli_csv_number(o->out, row_of(o->out, "1,"), "cancellations"), 1);
    free(o);
    remove_dir();
}

static void test_bad_input(void)
{
    char trace[128], log[128], args[512];
    /* a cancellation of a reject (max wait 0 rejects the second), of a
     * reservation already released (the first goes at once), and by a
     * shaper that cannot cancel */
    static const struct {
        const char *trace, *algo, *needle;
    } cancel_bad[] = {
        {"t_ns,key,n,max_wait_ns,cancel_ns\n0,a,1,,\n0,a,1,0,5\n", "gcra_spacer",
         "rejected: there is none"},
        {"t_ns,key,n,max_wait_ns,cancel_ns\n0,a,1,,5\n", "gcra_spacer", "already released"},
        /* released at 100 ms, the cancellation at that very time: too late */
        {"t_ns,key,n,max_wait_ns,cancel_ns\n0,a,1,,\n0,a,1,,100000000\n", "gcra_spacer",
         "already released at 100000000"},
        {"t_ns,key,n,max_wait_ns,cancel_ns\n0,a,1,,\n0,a,1,,5\n", "pacer_uber", "cannot cancel"},
        {"t_ns,key,n,max_wait_ns,cancel_ns\n10,a,1,,5\n", "gcra_spacer", "before the attempt"},
        {"t_ns,key,n,max_wait_ns,cancel_ns\n10,a,1,,x\n", "gcra_spacer", "cancel time 'x'"},
    };
    in_dir("bad.csv", trace, sizeof trace);
    in_dir("never.csv", log, sizeof log);
    for (size_t i = 0; i < sizeof cancel_bad / sizeof cancel_bad[0]; i++) {
        write_file(trace, cancel_bad[i].trace);
        snprintf(args, sizeof args,
                 "sim --algo %s --trace %s --limit 10 --interval 1s --burst 1 --decisions %s",
                 cancel_bad[i].algo, trace, log);
        rl_cli_expect_usage_error(args, cancel_bad[i].needle);
        CU_ASSERT_NOT_EQUAL(access(log, F_OK), 0); /* nothing written */
    }
    write_file(trace, "t_ns,key,n,max_wait_ns,cancel_ns\n0,a,1,,\n0,a,1,,5\n");
    snprintf(args, sizeof args, "replay --algo pacer_uber --trace %s --decisions %s", trace, log);
    rl_cli_expect_usage_error(args, "cannot cancel");
    CU_ASSERT_NOT_EQUAL(access(log, F_OK), 0);
    /* a negative or absurd max wait, on all four commands */
    static const char *const commands[] = {
        "sim --algo gcra_spacer --workload uniform",
        "stress --algo gcra_spacer --duration 10ms --reps 1",
        "replay --algo gcra_spacer --workload uniform",
        "check --events /dev/null --limit 1 --interval 1s --promise shape",
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, "%s --max-wait -1s", commands[i]);
        rl_cli_expect_usage_error(args, "--max-wait");
        snprintf(args, sizeof args, "%s --max-wait 86401s", commands[i]);
        rl_cli_expect_usage_error(args, "more than a day");
    }
    /* a burst a shaper cannot honour; a shaper with a client skew */
    rl_cli_expect_usage_error("stress --algo pacer_uber --burst 4294967295 --limit 1 --interval "
                              "1000000s --duration 10ms --reps 1",
                              "overflows");
    rl_cli_expect_usage_error("stress --algo gcra_spacer --client-skew 1ms --duration 10ms",
                              "--client-skew");
    /* check: a log without release times; a cancellation of a reject or
     * after its release */
    static const struct {
        const char *log, *needle;
    } check_bad[] = {
        {"t_ns,key,n,admitted,thread\n0,a,1,1,0\n", "no release_ns column"},
        {"t_ns,key,n,admitted,thread,release_ns,cancel_ns\n0,a,1,0,0,,5\n", "cancels a reject"},
        {"t_ns,key,n,admitted,thread,release_ns,cancel_ns\n0,a,1,1,0,5,5\n",
         "at or after its release"},
    };
    for (size_t i = 0; i < sizeof check_bad / sizeof check_bad[0]; i++) {
        write_file(trace, check_bad[i].log);
        snprintf(args, sizeof args,
                 "check --events %s --limit 1 --interval 1s --promise shape --out %s", trace, log);
        rl_cli_expect_usage_error(args, check_bad[i].needle);
        CU_ASSERT_NOT_EQUAL(access(log, F_OK), 0);
    }
    remove_dir();
}

RL_TEST_SUITE("shape_runs_cli",
              {"stress: each shaper on 2 threads, recorded, held", test_stress_each_shaper_held},
              {"stress: a share of waits cancelled, the rest held", test_stress_cancellations},
              {"sim: cancellations in virtual time, by hand", test_sim_cancellation_table},
              {"replay: a cancellation gives its slot back", test_replay_cancellation},
              {"bad input: one line, exit 2, nothing written", test_bad_input})
