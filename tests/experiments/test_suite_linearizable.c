/* test_suite_linearizable.c — the linearizable suite's rows are what they
 * say (harness/experiments/suite_linearizable.c): a history counts as
 * concurrent only when both threads have operations that overlap, a run
 * that is not is recorded again within a bound, and a row that never got a
 * concurrent history says so instead of passing. */
#include "tests/support/test_util.h"
#include "harness/experiments/suite_linearizable.h"

#include <string.h>

static struct rl_hist_op op(uint32_t thread, uint64_t call, uint64_t ret)
{
    return (struct rl_hist_op){
        .thread = thread, .call_ns = call, .return_ns = ret, .cost = 1, .admitted = true};
}

static void history_of(struct rl_history *h, const struct rl_hist_op *ops, size_t n)
{
    memset(h, 0, sizeof *h);
    h->key_count = 1;
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL_FATAL(rl_history_push(h, &ops[i]), 0);
}

/* One thread alone; two that took turns (one returned exactly when the
 * other called: no overlap); two that overlapped once. Only the last is
 * concurrent, and a 1-thread control run always is. */
static void test_concurrency_counted(void)
{
    struct rl_history h;
    struct rl_lin_concurrency c;
    const struct rl_hist_op solo[] = {op(1, 10, 20), op(1, 20, 30), op(1, 30, 40)};
    history_of(&h, solo, 3);
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 2, &c), 0);
    EXPECT(c.threads == 1 && c.thread_ops[0] == 0 && c.thread_ops[1] == 3 && !c.concurrent,
           "one thread: %u threads, %zu/%zu ops, concurrent %d", c.threads, c.thread_ops[0],
           c.thread_ops[1], c.concurrent);
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 1, &c), 0);
    CU_ASSERT(c.concurrent); /* a control run asks for nothing more */
    rl_history_free(&h);

    const struct rl_hist_op turns[] = {op(0, 10, 20), op(1, 20, 30), op(0, 30, 40), op(1, 45, 50)};
    history_of(&h, turns, 4);
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 2, &c), 0);
    EXPECT(c.threads == 2 && c.thread_ops[0] == 2 && c.thread_ops[1] == 2 && c.overlapping == 0 &&
               !c.concurrent,
           "turns: %u threads, %zu/%zu ops, %zu overlapping, concurrent %d", c.threads,
           c.thread_ops[0], c.thread_ops[1], c.overlapping, c.concurrent);
    rl_history_free(&h);

    const struct rl_hist_op met[] = {op(0, 10, 20), op(1, 15, 30), op(0, 31, 40), op(1, 45, 50)};
    history_of(&h, met, 4);
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 2, &c), 0);
    EXPECT(c.threads == 2 && c.overlapping == 1 && c.concurrent,
           "met once: %u threads, %zu overlapping, concurrent %d", c.threads, c.overlapping,
           c.concurrent);
    rl_history_free(&h);
}

/* The recorder holds the first finisher's last call open until the other
 * thread has called its last (history_recorder.c), so every call the other
 * makes meanwhile lies inside it: those are not overlaps. Thread 0's last
 * call spans 10..100 and thread 1 runs three calls inside it: solo. When
 * thread 1's first call (10..30) meets thread 0's first (5..12), two count:
 * it, and thread 0's last, called at 12 while it was in flight; thread 1's
 * calls at 30 and 40, inside the held-open one only, do not. A history of windows leaves out each
 * thread's last call of each window. */
static void test_held_open_call_left_out(void)
{
    struct rl_history h;
    struct rl_lin_concurrency c;
    const struct rl_hist_op held[] = {op(0, 0, 10), op(0, 10, 100), op(1, 20, 30), op(1, 30, 40),
                                      op(1, 40, 50)};
    history_of(&h, held, 5);
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 2, &c), 0);
    EXPECT(c.threads == 2 && c.overlapping == 0 && !c.concurrent,
           "inside the held-open call only: %zu overlapping, concurrent %d", c.overlapping,
           c.concurrent);
    rl_history_free(&h);

    const struct rl_hist_op met[] = {op(0, 5, 12), op(0, 12, 100), op(1, 10, 30), op(1, 30, 40),
                                     op(1, 40, 50)};
    history_of(&h, met, 5);
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 2, &c), 0);
    EXPECT(c.overlapping == 2 && c.concurrent,
           "calls inside a call not held open: %zu overlapping, concurrent %d", c.overlapping,
           c.concurrent);
    rl_history_free(&h);

    /* two windows, each ending in thread 0's held-open call */
    const struct rl_hist_op windows[] = {op(0, 0, 10),    op(0, 10, 100),  op(1, 20, 30),
                                         op(1, 30, 40),   op(0, 200, 210), op(0, 210, 300),
                                         op(1, 220, 230), op(1, 230, 240)};
    history_of(&h, windows, 8);
    struct rl_hist_window_head heads[2] = {{.first_op = 0, .start_ns = 0},
                                           {.first_op = 4, .start_ns = 200}};
    h.windows = heads;
    h.window_count = 2;
    CU_ASSERT_EQUAL_FATAL(rl_lin_concurrency_of(&h, 2, &c), 0);
    EXPECT(c.overlapping == 0 && !c.concurrent,
           "two windows, inside held-open calls only: %zu overlapping", c.overlapping);
    h.windows = NULL;
    h.window_count = 0;
    rl_history_free(&h);
}

/* One operation a thread: each is its thread's last, so no run counts as
 * concurrent (the recorder holds the first open until the other calls).
 * Whatever happened, the trial stops within its bound (1 try + 2 solo
 * retries) and a kept history that is not concurrent is never shown as a
 * verdict. */
static void test_solo_runs_bounded_and_said(void)
{
    struct rl_lin_trial_params p = rl_lin_suite_params("fw_mutex");
    p.max_ops = 1;
    p.tries = 1;
    p.solo_retries = 2;
    p.duration_ns = 2000000;
    for (int round = 0; round < 3; round++) {
        struct rl_lin_trial t;
        char err[256];
        EXPECT_FATAL(rl_lin_trial_run(&p, &t, err, sizeof err) == 0, "%s", err);
        EXPECT(t.runs >= 1 && t.runs <= 3, "%u runs", t.runs);
        EXPECT(t.thread_ops[0] + t.thread_ops[1] == t.ops, "%zu + %zu ops of %zu", t.thread_ops[0],
               t.thread_ops[1], t.ops);
        if (t.concurrent) {
            EXPECT(t.thread_ops[0] > 0 && t.thread_ops[1] > 0 && t.overlapping > 0,
                   "concurrent with %zu/%zu ops, %zu overlapping", t.thread_ops[0], t.thread_ops[1],
                   t.overlapping);
            EXPECT(t.solo == t.runs - 1, "%u solo of %u runs", t.solo, t.runs);
        } else {
            EXPECT(t.runs == 3 && t.solo == 3, "not concurrent after %u runs (%u solo)", t.runs,
                   t.solo);
            EXPECT(strcmp(rl_lin_trial_verdict(&t), "no concurrent history") == 0,
                   "a solo history shown as '%s'", rl_lin_trial_verdict(&t));
        }
        rl_lin_trial_free(&t);
    }
}

/* The four limiters whose reference rows held one thread only (each call
 * is a few dozen ns, so one thread can fill its 5000 operations before the
 * other starts): at the suite's parameters each now keeps a concurrent
 * history, both threads with operations that overlap, and decides it. */
static void test_fast_limiters_recorded_concurrently(void)
{
    static const char *const names[] = {"sliding_counter", "freq_ctr", "wheel", "wheel_atomic"};
    for (size_t a = 0; a < sizeof names / sizeof *names; a++) {
        struct rl_lin_trial_params p = rl_lin_suite_params(names[a]);
        p.tries = 1; /* one concurrent run is what this asks */
        struct rl_lin_trial t;
        char err[256];
        EXPECT_FATAL(rl_lin_trial_run(&p, &t, err, sizeof err) == 0, "%s: %s", names[a], err);
        EXPECT(t.concurrent && t.thread_ops[0] > 0 && t.thread_ops[1] > 0 && t.overlapping > 0,
               "%s: after %u runs (%u solo) the kept history has %zu/%zu ops, %zu overlapping",
               names[a], t.runs, t.solo, t.thread_ops[0], t.thread_ops[1], t.overlapping);
        EXPECT(t.result.verdict != RL_LIN_UNKNOWN, "%s: unknown", names[a]);
        rl_lin_trial_free(&t);
    }
}

RL_TEST_SUITE("suite_linearizable",
              {"a concurrent history: both threads, overlapping", test_concurrency_counted},
              {"calls inside the held-open last call are no overlap", test_held_open_call_left_out},
              {"solo runs are retried within a bound and said", test_solo_runs_bounded_and_said},
              {"the fast limiters get a concurrent history",
               test_fast_limiters_recorded_concurrently})
