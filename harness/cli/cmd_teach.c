/* cmd_teach.c — `ratelab teach`: the lessons of docs/teaching.md, listed,
 * or one run in-process with its counts and a conclusion that tells
 * atomicity (a race under seq_cst) from ordering (what may be reordered). */
#include "cli.h"
#include "commands.h"
#include "harness/check/checker.h"
#include "harness/check/verdict.h"
#include "harness/report/result.h"
#include "harness/experiments/litmus.h"
#include "harness/experiments/lost_update.h"
#include "harness/experiments/suite_linearizable.h"
#include "harness/check/lin_timeline.h"
#include "harness/run/stress.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEACH_L    50
#define TEACH_I    10000000u  /* 10 ms */
#define TEACH_RUN  300000000u /* 300 ms: 30 windows */
#define TEACH_SHOT 20000000u  /* 20 ms: one first window per run */

struct lesson {
    const char *name, *shows, *takes, *command;
    int (*run)(const struct lesson *lesson);
};

/* Threads that race in the lessons that count a race: 2, or 1 for the
 * control run (`--threads 1`), in which no race can happen. */
static unsigned teach_threads = 2;

static const char atomicity[] =
    "Conclusion: this is atomicity, not ordering. The race is a check and an act\n"
    "that should have been one read-modify-write; it happens with every access\n"
    "seq_cst, so no memory order fixes it, only a CAS or a lock does.\n";

static const char ordering[] =
    "Conclusion: this is ordering, not atomicity. Every access here is atomic, yet\n"
    "a machine may let a later load pass an earlier store (or reorder stores) unless\n"
    "the order forbids it; seq_cst (or one RMW on one word) is what forbids it.\n";

struct counts {
    uint64_t attempts, admits, bound, first_window, window_excess, max_sliding, runs;
    bool held;
};

/* One recorded 2-thread run of name at (L, I) for duration_ns, checked. */
static int stress_once(const char *name, uint64_t duration_ns, struct counts *c)
{
    const struct rl_algo *algo = rl_registry_find(name);
    if (algo == NULL)
        rl_cli_run_error("teach", "%s: not in this build", name);
    struct rl_stress_params params = {
        .algo = algo,
        .cfg = {.limit = TEACH_L, .interval_ns = TEACH_I},
        .threads = teach_threads,
        .duration_ns = duration_ns,
        .clock = "monotonic",
        .record = true,
    };
    struct rl_stress_outcome out;
    char err[256];
    if (rl_stress_run(&params, &out, err, sizeof err) != 0)
        rl_cli_run_error("teach", "%s: %s", name, err);
    uint64_t last = 0, first = 0;
    for (size_t i = 0; i < out.log.len; i++) {
        uint64_t t = out.log.events[i].t_ns;
        last = t > last ? t : last;
        first += t < TEACH_I ? out.log.events[i].n : 0;
    }
    struct rl_check_params check = {.limit = TEACH_L, .interval_ns = TEACH_I};
    struct rl_check_result res;
    if (rl_check(&out.log, &check, &res, err, sizeof err) != 0)
        rl_cli_run_error("teach", "%s: %s", name, err);
    c->attempts += out.attempts;
    c->admits = out.admits;
    c->bound = TEACH_L * (last / TEACH_I + 1);
    c->first_window = first > c->first_window ? first : c->first_window;
    c->window_excess = res.total.window_excess;
    c->max_sliding = res.total.max_sliding;
    /* The verdict sim and check give, on the algorithm's own promise (one
     * rule: harness/check/verdict.h), and the first window too: step 2's
     * leak shows only there. */
    struct rl_promised promised = rl_algo_promised(algo, &params.cfg, params.threads);
    struct rl_run_facts run = {.checked = true, .m = &res.total, .dropped = out.log.dropped};
    c->held = rl_verdict(&promised, &run) != RL_HELD_NO && c->first_window <= TEACH_L;
    c->runs++;
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
    return 0;
}

static void print_counts(const char *name, const struct counts *c)
{
    printf("%s, %u thread%s, L=%d per 10 ms window, recorded (%llu run%s):\n", name, teach_threads,
           teach_threads == 1 ? "" : "s", TEACH_L, (unsigned long long)c->runs,
           c->runs == 1 ? "" : "s");
    printf("  attempts            %llu\n", (unsigned long long)c->attempts);
    printf("  admits              %llu\n", (unsigned long long)c->admits);
    printf("  bound L*(windows)   %llu (%llu windows up to the last event)\n",
           (unsigned long long)c->bound, (unsigned long long)(c->bound / TEACH_L));
    printf("  beyond the bound    %llu\n",
           (unsigned long long)(c->admits > c->bound ? c->admits - c->bound : 0));
    printf("  window_excess       %llu\n", (unsigned long long)c->window_excess);
    printf("  max_sliding         %llu (the promise allows %d)\n",
           (unsigned long long)c->max_sliding, 2 * TEACH_L);
    printf("  first_window        %llu admits stamped in [0, I)\n",
           (unsigned long long)c->first_window);
    printf("  held                %s\n\n", c->held ? "yes" : "no");
    printf("beyond the bound is counted once, at the end of the run: all admits minus\n"
           "L x (windows up to the last event). window_excess (from check) is the largest\n"
           "excess at any instant: admits by time t minus L x (windows up to t). They differ\n"
           "when windows after that instant admitted fewer than L, which the end count nets\n"
           "off; window_excess >= beyond the bound always.\n\n");
}

/* Says so when the lesson's race did not happen in this run: with one
 * thread it cannot (the control run); with two, the threads did not meet at
 * the wrong instant, and a rerun (or the teaching build) may show it. */
static void say_if_no_race(bool raced, const char *lesson)
{
    if (raced)
        return;
    if (teach_threads < 2)
        printf("The race did not happen: one thread, so it cannot (the control run).\n"
               "Run with two threads to see it: ratelab teach %s\n\n",
               lesson);
    else
        printf("The race did not happen in this run: the two threads never met at the\n"
               "wrong instant, so the counts above show no excess. Rerun the lesson\n"
               "(ratelab teach %s) or run it in the teaching build, where the race\n"
               "is widest: make teach && build/ratelab-teach teach %s\n\n",
               lesson, lesson);
}

/* The ThreadSanitizer build of ratelab: RATELAB_TSAN_BIN, else
 * san-thread/ratelab beside this binary's folder (build/ for build/ratelab
 * and build/ratelab-teach). NULL when there is none. */
static const char *tsan_binary(char *buf, size_t len)
{
    const char *env = getenv("RATELAB_TSAN_BIN");
    if (env != NULL && *env != '\0')
        return access(env, X_OK) == 0 ? env : NULL;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    if (snprintf(buf, len, "%s/san-thread/ratelab", self) >= (int)len)
        return NULL;
    return access(buf, X_OK) == 0 ? buf : NULL;
}

/* Runs fw_plain on two threads in the ThreadSanitizer build and prints its
 * first report up to where the memory was allocated: the two racing
 * accesses, each with its C line. Returns whether a report was seen. */
static bool show_tsan_report(const char *bin)
{
    char command[PATH_MAX + 256];
    snprintf(command, sizeof command,
             "TSAN_OPTIONS=halt_on_error=1 '%s' stress --algo fw_plain --unsafe --threads 2 "
             "--duration 200ms --reps 1 2>&1 >/dev/null",
             bin);
    FILE *p = popen(command, "r");
    if (p == NULL)
        return false;
    char line[1024];
    bool in_report = false, seen = false;
    int shown = 0;
    while (fgets(line, sizeof line, p) != NULL) {
        if (strstr(line, "WARNING: ThreadSanitizer:") != NULL && !seen)
            in_report = seen = true;
        if (in_report && strstr(line, "Location is") != NULL)
            in_report = false;
        if (!in_report || shown >= 16)
            continue;
        char *addr = strstr(line, " (ratelab+0x"); /* the offset is noise to a class */
        if (addr == NULL)
            addr = strstr(line, " (pid=");
        if (addr != NULL)
            strcpy(addr, "\n");
        printf("  | %s", line);
        shown++;
    }
    pclose(p);
    return seen;
}

static int lesson_data_race(const struct lesson *l)
{
    printf("Look at: %s 1 to one counter 10^6 times, three ways. The\n"
           "plain increment is a data race; an atomic load then an atomic store has no\n"
           "data race and still loses updates; only one read-modify-write loses none.\n\n",
           teach_threads == 1 ? "one thread (the control run) adds" : "two threads each add");
    printf("  %-11s %-40s %10s %10s %10s\n", "way", "one increment", "expected", "final", "lost");
    char err[256];
    const char *notes[RL_LOST_KINDS];
    for (int k = 0; k < RL_LOST_KINDS; k++) {
        struct rl_lost_update_result r;
        if (rl_lost_update_run(k, teach_threads, 1000000, &r, err, sizeof err) != 0)
            rl_cli_run_error("teach", "%s: %s", rl_lost_update_name(k), err);
        printf("  %-11s %-40s %10llu %10llu %10llu\n", rl_lost_update_name(k),
               rl_lost_update_code(k), (unsigned long long)r.expected, (unsigned long long)r.final,
               (unsigned long long)(r.expected - r.final));
        notes[k] = rl_lost_update_note(&r);
    }
    for (int k = 0; k < RL_LOST_KINDS; k++)
        if (notes[k] != NULL)
            printf("  %s: %s\n", rl_lost_update_name(k), notes[k]);
    printf("\nThe same race in a limiter: fw_plain (step 0) keeps its count and window start\n"
           "in plain memory; a lost increment is a ticket handed out twice, and admits pass\n"
           "the bound.\n\n");
    struct counts c = {0};
    stress_once("fw_plain", TEACH_RUN, &c);
    print_counts("fw_plain", &c);
    say_if_no_race(!c.held, l->name);
    char buf[PATH_MAX];
    const char *bin = tsan_binary(buf, sizeof buf);
    if (bin == NULL)
        printf("ThreadSanitizer names the racing lines; its build is not here. Build it\n"
               "(about a minute) and rerun this lesson:\n  SAN=thread MALLOC= make "
               "build/san-thread/ratelab\n\n");
    else {
        printf("ThreadSanitizer's report, fw_plain on two threads (%s):\n", bin);
        if (!show_tsan_report(bin))
            printf("  (no report this run: rerun the lesson)\n");
        printf("\n");
    }
    fputs(atomicity, stdout);
    printf("Here it is worse still: without atomics the C program has a data race, so it\n"
           "has no defined behaviour at all.\n");
    return 0;
}

static void widest(void)
{
    printf("The race is widest in the teaching build (race points spin 3 us, then yield):\n"
           "  make teach && build/ratelab-teach teach ...\n"
           "Every interleaving, exhaustively, with the C line of each step: make model-check\n\n");
}

static int lesson_lost_reset(const struct lesson *l)
{
    printf("Look at: fw_atomic_naive (step 1); two threads both find the window expired\n"
           "and both store count = 1, so a late reset erases tickets already handed out.\n"
           "held no and window_excess > 0 are the race.\n\n");
    struct counts c = {0};
    stress_once("fw_atomic_naive", TEACH_RUN, &c);
    print_counts("fw_atomic_naive", &c);
    say_if_no_race(!c.held, l->name);
    widest();
    fputs(atomicity, stdout);
    return 0;
}

static int lesson_first_window(const struct lesson *l)
{
    printf("Look at: fw_cas_nofirst (step 2); the CAS on the window start is right, but a\n"
           "thread that read the count before the first reset still takes the fast path,\n"
           "so only the first window leaks: first_window > L is the race (up to 5 runs).\n\n");
    struct counts c = {0};
    for (int run = 0; run < 5 && c.first_window <= TEACH_L; run++)
        stress_once("fw_cas_nofirst", TEACH_SHOT, &c);
    print_counts("fw_cas_nofirst", &c);
    say_if_no_race(c.first_window > TEACH_L, l->name);
    widest();
    fputs(atomicity, stdout);
    return 0;
}

static int lesson_litmus(const struct lesson *l)
{
    (void)l;
    printf("Look at: SB's non-SC outcome r0=r1=0 with relaxed accesses and with release\n"
           "stores / acquire loads (x86-64 lets a load pass a buffered store), never with\n"
           "seq_cst; MP's r0=1, r1=0, which C11 allows with relaxed accesses but x86-64's\n"
           "TSO never shows.\n\n");
    printf("%-4s %-28s %8s %7s %9s %10s %6s  %s\n", "test", "orders", "trials", "non_sc", "c11",
           "x86_64_tso", "pinned", "note");
    char err[256];
    for (int t = 0; t < RL_LITMUS_TESTS; t++)
        for (int o = 0; o < RL_LITMUS_ORDERS; o++) {
            struct rl_litmus_result r;
            if (rl_litmus_run(t, o, 1000000, &r, err, sizeof err) != 0)
                rl_cli_run_error("teach", "%s %s: %s", rl_litmus_test_name(t),
                                 rl_litmus_order_name(o), err);
            printf("%-4s %-28s %8llu %7llu %9s %10s %6s  %s\n", rl_litmus_test_name(t),
                   rl_litmus_order_name(o), (unsigned long long)r.trials,
                   (unsigned long long)r.non_sc,
                   rl_litmus_allowed_c11(t, o) ? "allowed" : "forbidden",
                   rl_litmus_allowed_tso(t, o) ? "allowed" : "forbidden", r.pinned ? "yes" : "no",
                   rl_litmus_note(&r));
        }
    printf("\nnon_sc: trials ending in the outcome no sequentially consistent run gives\n"
           "(sb: %s; mp: %s); c11, x86_64_tso: whether each model allows it with that\n"
           "row's orders (mp: the flag's; data is relaxed). A count of 0 does not prove it\n"
           "cannot happen: where the model allows it, the race did not happen in this run;\n"
           "rerun the lesson (ratelab teach litmus).\n\n",
           rl_litmus_non_sc_outcome(RL_LITMUS_SB), rl_litmus_non_sc_outcome(RL_LITMUS_MP));
    printf("In ratelab's limiters (docs/teaching.md, lesson 4, has the lines):\n"
           "  SB   wheel_atomic: the admitter CASes a slot then rereads the newest index;\n"
           "       the checker CASes the index then sums the slots. Only seq_cst on all\n"
           "       four forbids both missing each other (x86's lock cmpxchg hides it).\n"
           "  MP   freq_ctr publishes prev with release, read with acquire; fw_trylock's\n"
           "       flag publishes its plain count. With relaxed accesses C11 lets the next\n"
           "       thread see a stale count and admit past the limit; Arm and POWER may\n"
           "       do it (not observable here).\n"
           "  one word  tb_cas_relaxed, gcra_cas, fw_aligned decide with one RMW on one\n"
           "       word: relaxed keeps the limit on any machine (C11's argument, in\n"
           "       algorithms/buckets/tb_cas_relaxed.c).\n\n");
    fputs(ordering, stdout);
    return 0;
}

static int lesson_tso_model(const struct lesson *l)
{
    printf("Run: %s\n\n", l->command);
    printf("Look at its two sb_tso lines:\n"
           "  sb_tso.pml        ... not (r1=0 and r2=0): violated (trail: ...)\n"
           "  sb_tso_fence.pml  ... not (r1=0 and r2=0): verified (N states)\n"
           "sb_tso models each thread's stores going into its own FIFO store buffer; SPIN\n"
           "finds r1 = r2 = 0 (violated, with a four-step trail). sb_tso_fence drains the\n"
           "buffer (mfence) after each store, and the outcome is gone (verified).\n\n");
    fputs(ordering, stdout);
    return 0;
}

static int lesson_asm(const struct lesson *l)
{
    printf("Run: %s   (the table is written to build/asm/table.md)\n\n", l->command);
    printf("Read, per order, the atomic and fence instructions on each target (gcc 12):\n"
           "- x86-64: every fetch-add is lock xadd whatever the order; only a seq_cst\n"
           "  store differs (xchg against mov).\n"
           "- AArch64 (armv8-a, armv8.1-a with LSE, armv8.3-a): acq_rel and seq_cst\n"
           "  compile to the same instructions: fetch-add ldaxr/stlxr without LSE,\n"
           "  ldaddal with it; stlr for both stores; ldar for both loads (gcc 12 emits\n"
           "  no RCpc ldapr, even for armv8.3-a). fw_cas and fw_cas_acqrel are the same\n"
           "  atomics there.\n"
           "- POWER: they differ: seq_cst puts hwsync where acq_rel and release put\n"
           "  lwsync (fw_cas_acqrel trades three of fw_cas's hwsyncs for lwsyncs).\n"
           "  Whether that is faster is not observable here: the table is instructions.\n"
           "Then read its cost table (build/asm/cost.md), timed on this machine: every\n"
           "fetch-add order costs the same; a seq_cst store (xchg) costs more than a\n"
           "release store (mov), most with two threads on the word.\n\n");
    fputs(ordering, stdout);
    return 0;
}

static void print_trial(const char *name, const struct rl_lin_trial *t)
{
    const struct rl_lin_result *r = &t->result;
    printf("%s, %u thread%s asked, L=%u per 20 us, recorded (run %u of %u kept):\n", name,
           teach_threads, teach_threads == 1 ? "" : "s", RL_LIN_SUITE_LIMIT, t->tries, t->runs);
    printf("  operations          %zu\n", t->ops);
    printf("  threads             %u (with operations in the history; each thread's", t->threads);
    for (unsigned i = 0; i < teach_threads && i < RL_LIN_TRIAL_MAX_THREADS; i++)
        printf("%s%zu", i ? ", " : ": ", t->thread_ops[i]);
    printf(")\n");
    printf("  overlapping         %zu (calls made while the other thread's was in flight)\n",
           t->overlapping);
    printf("  verdict             %s\n", rl_lin_trial_verdict(t));
    printf("  mode                %s (%u of %u keys by witness replay)\n", r->mode,
           r->keys_witnessed, t->history.key_count);
    if (r->overshoot_known)
        printf("  overshoot           %llu (linearizable against L + %llu)\n",
               (unsigned long long)r->overshoot, (unsigned long long)r->overshoot);
    else
        printf("  overshoot           unknown (the budget ran out)\n");
    printf("  check time          %.3f s\n\n", t->check_s);
}

/* All of a (short) history's operations, as the counterexample is drawn. */
static void print_whole(const struct rl_history *h)
{
    size_t *idx = malloc((h->len ? h->len : 1) * sizeof *idx);
    if (idx == NULL)
        rl_cli_run_error("teach", "out of memory");
    for (size_t i = 0; i < h->len; i++)
        idx[i] = i;
    rl_lin_timeline_text(stdout, h, idx, h->len, SIZE_MAX);
    free(idx);
}

/* Runs of step 1 the lesson makes before it says the race did not happen:
 * about 0.1 s each (30 ms recorded, then the check); more than the suite's
 * 12, since a student should see the race in one lesson. */
#define LESSON_TRIES 40
/* Shorter histories and a smaller budget than the suite's, so that a run
 * whose search cannot decide (the teaching build's widened spans overlap
 * everything) costs a second, not ten: the lesson stays under ~30 s. */
#define LESSON_MAX_OPS 2000
#define LESSON_BUDGET  1000000

static int lesson_linearizable(const struct lesson *l)
{
    printf("Look at: fw_atomic_naive (step 1) recorded with every call, rejects included\n"
           "(stress --history), then check --linearizable: is there an order of the calls,\n"
           "each at a time inside its call, in which the single-threaded algorithm gives\n"
           "every recorded answer? Up to %u runs, until one is not linearizable; then the\n"
           "fix, fw_mutex, whose every history has such an order.\n\n",
           LESSON_TRIES);
    char err[512];
    struct rl_lin_trial_params p = rl_lin_suite_params("fw_atomic_naive");
    p.threads = teach_threads;
    p.tries = LESSON_TRIES;
    p.max_ops = LESSON_MAX_OPS;
    p.plain_races = true; /* the race shows unaided on 2 cores (teach build: spans stay short) */
    p.budget = LESSON_BUDGET;
    struct rl_lin_trial t;
    if (rl_lin_trial_run(&p, &t, err, sizeof err) != 0)
        rl_cli_run_error("teach", "%s", err);
    print_trial("fw_atomic_naive", &t);
    bool caught = t.result.verdict == RL_LIN_NO;
    if (caught) {
        printf("The counterexample, shrunk until dropping any call makes it linearizable.\n"
               "Rows are threads, spans are calls; A admit, R reject, ! the answer no order\n"
               "explains:\n");
        rl_lin_timeline_text(stdout, &t.history, t.result.counter, t.result.counter_len,
                             t.result.culprit);
        printf("\nNo order of these calls, each at a time inside its span, lets the\n"
               "single-threaded algorithm give the ! answer. A reset here is a load, a check\n"
               "and a store, three steps, and a ticket is taken (a fetch-add) before it.\n");
        if (t.result.culprit < t.history.len && !t.history.ops[t.result.culprit].admitted)
            printf(
                "Here the ! answer is a reject: a thread took its ticket while the other\n"
                "was restarting an expired, full window; the restart stored the count back\n"
                "to its own ticket, and the first thread's, counted against the old window,\n"
                "was refused though the new one had room. A lone reject is what is left\n"
                "after shrinking: a fresh limiter never refuses its first call, and no call\n"
                "before it explains it. The race also over-admits (one thread's reset\n"
                "landing after the other had taken tickets in the new window): the\n"
                "overshoot score counts by how many (unknown: its search ran out of budget).\n\n");
        else
            printf("Here the ! answer is an admit: one thread's reset landed after the other\n"
                   "had taken tickets, and tickets were handed out that one window's L\n"
                   "forbids. The overshoot score is by how many (unknown: its search ran out\n"
                   "of budget).\n\n");
    }
    bool unknown = t.result.verdict == RL_LIN_UNKNOWN;
    rl_lin_trial_free(&t);
    if (unknown && teach_threads > 1)
        printf("unknown: every run of both threads either had an order or spent the search's\n"
               "budget (never a pass). Rerun the lesson (ratelab teach %s), or run it in\n"
               "the teaching build, where the race is widest: make teach &&\n"
               "build/ratelab-teach teach %s\n\n",
               l->name, l->name);
    else
        say_if_no_race(caught, l->name);

    /* the fix, short enough to draw whole */
    p = rl_lin_suite_params("fw_mutex");
    p.threads = teach_threads;
    p.max_ops = 6;
    if (rl_lin_trial_run(&p, &t, err, sizeof err) != 0)
        rl_cli_run_error("teach", "%s", err);
    print_trial("fw_mutex", &t);
    printf("Its whole history (the first 6 calls of a thread end the window):\n");
    print_whole(&t.history);
    printf("\n");
    bool fixed = t.result.verdict == RL_LIN_YES;
    rl_lin_trial_free(&t);
    if (!fixed)
        printf("fw_mutex was not judged linearizable here: that is a bug in ratelab,\n"
               "please report it with this output.\n\n");
    fputs(atomicity, stdout);
    printf("Linearizability is the stronger question: a limiter may keep its bound and\n"
           "still answer as its sequential self never would (the overshoot score counts\n"
           "by how many requests it did not). fw_mutex decides under one lock, so the\n"
           "lock's order is an order that explains every answer.\n");
    return 0;
}

static const struct lesson lessons[] = {
    {"data-race", "step 0 fw_plain: lost updates counted; ThreadSanitizer's report", "~2 s",
     "stress --algo fw_plain --unsafe --threads 2 --record", lesson_data_race},
    {"lost-reset", "step 1 fw_atomic_naive: a late reset erases tickets (atomicity)", "~1 s",
     "stress --algo fw_atomic_naive --threads 2 --record", lesson_lost_reset},
    {"first-window", "step 2 fw_cas_nofirst: the first window leaks (atomicity)", "~1 s",
     "stress --algo fw_cas_nofirst --threads 2 --record", lesson_first_window},
    {"litmus", "SB and MP counted on real threads, per order (ordering)", "~2 s",
     "litmus --trials 1000000", lesson_litmus},
    {"tso-model", "SPIN on a store-buffer machine reaches SB's forbidden outcome", "~1 min",
     "make model-check", lesson_tso_model},
    {"asm", "the instructions each order compiles to, five targets", "~1 min", "make asm",
     lesson_asm},
    {"linearizable", "step 1's history no sequential order explains; fw_mutex's has one", "~3 s",
     "stress --algo fw_atomic_naive --threads 2 --history h.csv", lesson_linearizable},
};

#define LESSONS (sizeof lessons / sizeof lessons[0])

int rl_cmd_teach(int argc, char **argv)
{
    static const struct option options[] = {
        RL_CLI_HELP_OPTION, {"threads", required_argument, NULL, OPT_THREADS}, {0}};
    const char *cmd = "teach";
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        if (code == OPT_HELP) {
            printf("usage: ratelab teach [--threads 1|2] [LESSON]\n\n"
                   "Without LESSON, lists the lessons of docs/teaching.md in order; with one,\n"
                   "runs it (under ~30 s on 2 cores) and prints what to look at, the counts\n"
                   "and a conclusion: atomicity (data-race, lost-reset, first-window) or\n"
                   "ordering (litmus, tso-model, asm), and linearizable: a history of step 1\n"
                   "that no sequential order explains. A run in which the lesson's race did\n"
                   "not happen says so and suggests the rerun.\n\n"
                   "  --threads N  threads that race in data-race, lost-reset, first-window,\n"
                   "               linearizable: 2 (default), or 1 for the control run,\n"
                   "               where no race can happen\n");
            return 0;
        }
        if (code == OPT_THREADS) {
            if (strcmp(optarg, "1") != 0 && strcmp(optarg, "2") != 0)
                rl_cli_usage_error(cmd, "--threads: '%s' is not 1 or 2", optarg);
            teach_threads = (unsigned)(optarg[0] - '0');
        } else
            rl_cli_bad_option(cmd, code, argv);
    }
    if (optind == argc) {
        printf("%-13s %-70s %-7s %s\n", "lesson", "shows", "takes", "command");
        for (size_t i = 0; i < LESSONS; i++)
            printf("%-13s %-70s %-7s %s\n", lessons[i].name, lessons[i].shows, lessons[i].takes,
                   lessons[i].command);
        printf("\nRun one: ratelab teach LESSON. The first three are atomicity (they happen\n"
               "under seq_cst); the next three are ordering; linearizable checks step 1's\n"
               "answers against its sequential self.\n");
        return 0;
    }
    if (optind + 1 < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    for (size_t i = 0; i < LESSONS; i++)
        if (strcmp(argv[optind], lessons[i].name) == 0)
            return lessons[i].run(&lessons[i]);
    rl_cli_usage_error(cmd,
                       "unknown lesson '%s' (accepted: data-race, lost-reset, first-window, "
                       "litmus, tso-model, asm, linearizable)",
                       argv[optind]);
}
