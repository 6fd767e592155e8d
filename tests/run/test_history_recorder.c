/* test_history_recorder.c — `stress --history`: 2-thread recorded runs of
 * the limiters that decide under one lock or one CAS word are judged
 * linearizable; fw_atomic_naive's broken reset is caught (its race needs
 * timing, so runs are retried until it shows); the window's quiescent cut
 * leaves a complete history; witnesses lie inside their calls. */
#include "tests/support/test_util.h"
#include "harness/check/linearizable.h"
#include "harness/run/history_recorder.h"
#include "harness/run/lin_model.h"
#include "harness/run/stress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether both threads' recorded spans overlap: whether a race between
 * them could have been recorded at all (on a busy machine one thread often
 * fills its window before the other gets a core). */
static bool threads_overlapped(const struct rl_history *h)
{
    uint64_t first[2] = {UINT64_MAX, UINT64_MAX}, last[2] = {0, 0};
    for (size_t i = 0; i < h->len; i++) {
        const struct rl_hist_op *op = &h->ops[i];
        if (op->thread > 1)
            continue;
        if (op->call_ns < first[op->thread])
            first[op->thread] = op->call_ns;
        if (op->return_ns > last[op->thread])
            last[op->thread] = op->return_ns;
    }
    return first[0] < last[1] && first[1] < last[0];
}

/* One short recorded run of algo (2 threads, cap operations a thread) and
 * its verdict; *overlapped (when not NULL): threads_overlapped. The history
 * is handed back in *kept when kept is not NULL. */
static enum rl_lin_verdict record_and_check(const char *name, uint64_t limit, uint64_t interval_ns,
                                            size_t cap, struct rl_history *kept, bool *overlapped)
{
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_stress_params p = {.algo = algo,
                                 .threads = 2,
                                 .duration_ns = 10000000u,
                                 .clock = "monotonic",
                                 .history = true,
                                 .history_capacity = cap,
                                 .max_wait_ns = UINT64_MAX};
    p.cfg.limit = limit;
    p.cfg.interval_ns = interval_ns;
    struct rl_stress_outcome out;
    char err[512];
    EXPECT_FATAL(rl_stress_run(&p, &out, err, sizeof err) == 0, "%s: %s", name, err);
    struct rl_history h;
    CU_ASSERT_FATAL(rl_hist_log_to_history(&out.history, name, &h) == 0);
    rl_stress_outcome_free(&out);
    EXPECT(rl_history_validate(&h, name, err, sizeof err) == 0, "%s", err);
    struct rl_config cfg = p.cfg;
    cfg.epoch_ns = h.epoch_ns;
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) == 0);
    struct rl_lin_options o = {.budget = 2000000, .no_overshoot = true};
    struct rl_lin_result r;
    CU_ASSERT_FATAL(rl_lin_check(&h, &model, &o, &r, err, sizeof err) == 0);
    rl_lin_model_free(&ctx);
    enum rl_lin_verdict v = r.verdict;
    rl_lin_result_free(&r);
    if (overlapped)
        *overlapped = threads_overlapped(&h);
    if (kept)
        *kept = h;
    else
        rl_history_free(&h);
    return v;
}

/* One lock or one CAS word: every recorded history has an order. */
static void test_sound_are_linearizable(void)
{
    static const char *const names[] = {"fw_mutex", "tb_mutex",    "tb_cas",
                                        "gcra_cas", "sliding_log", "fw_aligned"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        enum rl_lin_verdict v = record_and_check(names[i], 2, 20000u, 3000, NULL, NULL);
        EXPECT(v == RL_LIN_YES, "%s recorded at 2 threads: %s", names[i], rl_lin_verdict_name(v));
    }
}

/* Runs algo recorded until a history is not linearizable, at most
 * 60 + 60 per unit of 1-minute load per CPU runs (up to 400, 10 ms each):
 * a race needs both threads on a core at one instant. Only runs in which
 * both threads' spans overlapped could show it; none such: skipped, saying
 * so. */
static void expect_caught(const char *algo)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
        printf("\n    skipped: one CPU, the two threads never race ");
        return;
    }
    double load = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = 0;
        fclose(f);
    }
    int runs = 60 + (int)(60 * load / (double)cpus);
    runs = runs > 400 ? 400 : runs;
    enum rl_lin_verdict v = RL_LIN_YES;
    int run = 0, overlapping = 0;
    for (; run < runs && v != RL_LIN_NO; run++) {
        bool overlapped = false;
        v = record_and_check(algo, 2, 20000u, 4000, NULL, &overlapped);
        overlapping += overlapped;
    }
    if (v != RL_LIN_NO && overlapping == 0) {
        printf("\n    skipped: in %d runs the two threads never ran at once (load %.2f) ", run,
               load);
        return;
    }
    EXPECT(v == RL_LIN_NO, "%s judged %s in all %d runs (%d with both threads at once, load %.2f)",
           algo, rl_lin_verdict_name(v), run, overlapping, load);
}

/* fw_atomic_naive: two threads that both find the window expired both
 * reset it, and a late reset erases tickets handed out. The reset happens
 * once per window (L = 2 per 20 us: hundreds of windows a run). */
static void test_atomic_naive_caught(void)
{
    expect_caught("fw_atomic_naive");
}

/* fw_cas_nofirst: the first window leaks while the CAS winner sits before
 * its store; it opens once per run. */
static void test_cas_nofirst_caught(void)
{
    expect_caught("fw_cas_nofirst");
}

/* fw_cas's count and window start are two words, copied through its
 * snapshot and remembered by the search: a recorded 2-thread history of a
 * few thousand operations (its fast path reads no clock, so it goes to the
 * search) gets an answer within `check`'s default budget of 10^6 states,
 * overshoot score included, and in states about linear in its length.
 * Copied by replaying its steps, the same history spent the budget. */
static void test_fw_cas_decided(void)
{
    struct rl_history h;
    bool overlapped = false;
    for (int run = 0; run < 20 && !overlapped; run++) {
        if (run > 0)
            rl_history_free(&h);
        record_and_check("fw_cas", 2, 20000u, 2500, &h, &overlapped);
    }
    if (!overlapped)
        printf("\n    (the two threads never ran at once in 20 runs: one thread's history) ");
    const struct rl_algo *algo = rl_registry_find("fw_cas");
    struct rl_config cfg = {.limit = 2, .interval_ns = 20000u, .epoch_ns = h.epoch_ns};
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    char err[256];
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) == 0);
    struct rl_lin_options o = {.budget = 1000000};
    struct rl_lin_result r;
    CU_ASSERT_FATAL(rl_lin_check(&h, &model, &o, &r, err, sizeof err) == 0);
    EXPECT(h.len >= 2500, "%zu operations recorded", h.len);
    EXPECT(r.verdict != RL_LIN_UNKNOWN && r.overshoot_known,
           "%zu operations: %s, overshoot %s after %llu states", h.len,
           rl_lin_verdict_name(r.verdict), r.overshoot_known ? "known" : "unknown",
           (unsigned long long)r.states);
    printf("\n    %zu operations: %s, %llu states ", h.len, rl_lin_verdict_name(r.verdict),
           (unsigned long long)r.states);
    rl_lin_result_free(&r);
    /* the verdict alone (no shrinking, no overshoot): states linear in the
     * operations, where copies by replay were charged their depth */
    o = (struct rl_lin_options){.budget = 1000000, .no_shrink = true, .no_overshoot = true};
    CU_ASSERT_FATAL(rl_lin_check(&h, &model, &o, &r, err, sizeof err) == 0);
    /* linear when an order exists (the search walks it); proving none
     * exists (fw_cas's lost restart CAS, which TSan's slower threads show
     * more often) explores more, within the budget */
    EXPECT(r.verdict != RL_LIN_UNKNOWN &&
               (r.verdict == RL_LIN_NO || r.states <= 20 * (uint64_t)h.len),
           "%s after %llu states for %zu operations", rl_lin_verdict_name(r.verdict),
           (unsigned long long)r.states, h.len);
    printf("(%llu for the verdict alone) ", (unsigned long long)r.states);
    rl_lin_result_free(&r);
    rl_lin_model_free(&ctx);
    rl_history_free(&h);
}

/* Every operation of every thread until the cut, none after: each thread's
 * operations follow one another, witnesses lie in their calls, and no
 * thread kept more than its cap. */
static void test_window_is_complete(void)
{
    struct rl_history h;
    record_and_check("tb_cas", 5, 1000000u, 500, &h, NULL);
    CU_ASSERT(h.len >= 500 && h.len <= 1000);
    size_t per_thread[2] = {0, 0}, witnessed = 0;
    for (size_t i = 0; i < h.len; i++) {
        const struct rl_hist_op *op = &h.ops[i];
        CU_ASSERT_FATAL(op->thread < 2);
        per_thread[op->thread]++;
        if (op->has_witness) {
            witnessed++;
            CU_ASSERT(op->call_ns <= op->witness_ns && op->witness_ns <= op->return_ns);
        }
    }
    CU_ASSERT(per_thread[0] <= 500 && per_thread[1] <= 500);
    CU_ASSERT(witnessed == h.len); /* tb_cas reads the clock on every call */
    rl_history_free(&h);
}

/* A recorded run of name in `windows` windows of at most cap operations a
 * thread (2 threads, L per 20 us). */
static void record_windows(const char *name, unsigned windows, size_t cap, uint64_t duration_ns,
                           struct rl_stress_outcome *out)
{
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_stress_params p = {.algo = algo,
                                 .threads = 2,
                                 .duration_ns = duration_ns,
                                 .clock = "monotonic",
                                 .history = true,
                                 .history_capacity = cap,
                                 .history_windows = windows,
                                 .max_wait_ns = UINT64_MAX};
    p.cfg.limit = 2;
    p.cfg.interval_ns = 20000u;
    char err[512];
    EXPECT_FATAL(rl_stress_run(&p, out, err, sizeof err) == 0, "%s: %s", name, err);
}

/* Window w of a recorded run judged from its start state. */
static enum rl_lin_verdict check_window(const char *name, const struct rl_hist_log *log, unsigned w,
                                        const unsigned char *state, size_t state_len)
{
    const struct rl_algo *algo = rl_registry_find(name);
    struct rl_history h;
    CU_ASSERT_FATAL(rl_hist_log_window_to_history(log, w, name, &h) == 0);
    char err[512];
    EXPECT(rl_history_validate(&h, name, err, sizeof err) == 0, "%s", err);
    struct rl_config cfg = {.limit = 2, .interval_ns = 20000u, .epoch_ns = h.epoch_ns};
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    CU_ASSERT_FATAL(rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) == 0);
    if (state)
        EXPECT_FATAL(rl_lin_model_start_from(&ctx, state, state_len, err, sizeof err) == 0, "%s",
                     err);
    struct rl_lin_options o = {.budget = 2000000, .no_overshoot = true};
    struct rl_lin_result r;
    CU_ASSERT_FATAL(rl_lin_check(&h, &model, &o, &r, err, sizeof err) == 0);
    enum rl_lin_verdict v = r.verdict;
    rl_lin_result_free(&r);
    rl_lin_model_free(&ctx);
    rl_history_free(&h);
    return v;
}

/* --history-windows: a one-word state (tb_cas, gcra_cas) and a snapshot
 * (fw_mutex) recorded in 3 windows spread over the run, each later one
 * with its start state, each judged linearizable from it. */
static void test_windows_are_linearizable(void)
{
    static const char *const names[] = {"tb_cas", "gcra_cas", "fw_mutex"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct rl_stress_outcome out;
        record_windows(names[i], 3, 400, 60000000u, &out);
        const struct rl_hist_log *log = &out.history;
        /* the run's stop may come as the last window opens on a busy
         * machine: it is then empty, or not opened */
        EXPECT(log->window_count >= 2, "%s: %u windows opened", names[i], log->window_count);
        unsigned later = 0;
        for (unsigned w = 0; w < log->window_count; w++) {
            const struct rl_hist_window *win = &log->windows[w];
            EXPECT(w == 0 ? win->state == NULL : win->state_len > 0, "%s window %u: state %zu B",
                   names[i], w, win->state_len);
            EXPECT(w == 0 || win->start_ns > log->windows[w - 1].start_ns, "%s window %u", names[i],
                   w);
            size_t ops = rl_hist_log_window_len(log, w, 0) + rl_hist_log_window_len(log, w, 1);
            EXPECT(rl_hist_log_window_len(log, w, 0) <= 400 &&
                       rl_hist_log_window_len(log, w, 1) <= 400,
                   "%s window %u: %zu operations", names[i], w, ops);
            if (ops == 0)
                continue;
            later += w > 0;
            enum rl_lin_verdict v = check_window(names[i], log, w, win->state, win->state_len);
            EXPECT(v == RL_LIN_YES, "%s window %u: %s", names[i], w, rl_lin_verdict_name(v));
        }
        EXPECT(later >= 1, "%s: no later window recorded anything", names[i]);
        rl_stress_outcome_free(&out);
    }
}

/* Whether each thread has operations in window w and some operation of
 * each lies inside the other's span (first call to last return). */
static bool both_recorded_and_overlap(const struct rl_hist_log *log, unsigned w)
{
    uint64_t first[2], last[2];
    for (unsigned i = 0; i < 2; i++) {
        size_t len = rl_hist_log_window_len(log, w, i);
        if (len == 0)
            return false;
        const struct rl_hist_record *r = log->threads[i].ops + (size_t)w * log->threads[i].cap;
        first[i] = r[0].call_ns;
        last[i] = r[len - 1].return_ns;
    }
    for (unsigned i = 0; i < 2; i++) {
        unsigned o = 1 - i;
        size_t len = rl_hist_log_window_len(log, w, i);
        const struct rl_hist_record *r = log->threads[i].ops + (size_t)w * log->threads[i].cap;
        bool inside = false;
        for (size_t j = 0; j < len && !inside; j++)
            inside = r[j].call_ns < last[o] && r[j].return_ns > first[o];
        if (!inside)
            return false;
    }
    return true;
}

/* The start gate: in every window that ended full, both threads recorded
 * and an operation of each overlaps the other's span, run after run, with
 * buffers so small (40 operations, 2 us of calls) that one thread used to
 * fill its window before the other got going. */
static void test_both_threads_overlap(void)
{
    unsigned windows = 0, bad = 0;
    for (int run = 0; run < 20; run++) {
        struct rl_stress_outcome out;
        record_windows("tb_cas", 4, 40, 8000000u, &out);
        for (unsigned w = 0; w < out.history.window_count; w++) {
            if (!out.history.windows[w].filled)
                continue;
            windows++;
            if (!both_recorded_and_overlap(&out.history, w)) {
                bad++;
                printf("\n    run %d window %u: %zu/%zu operations, spans apart ", run, w,
                       rl_hist_log_window_len(&out.history, w, 0),
                       rl_hist_log_window_len(&out.history, w, 1));
            }
        }
        rl_stress_outcome_free(&out);
    }
    EXPECT(windows > 0, "no window filled");
    EXPECT(bad == 0, "%u of %u windows without both threads overlapping", bad, windows);
}

/* The windows' refusal reads rl_algo.own_thread, not a name: the sweeper
 * sets it; a copy without it may snapshot (it has snapshot and restore),
 * and tb_cas with it set may not. */
static void test_own_thread_refused(void)
{
    const struct rl_algo *sweeper = rl_registry_find("sliding_log_sweeper");
    const struct rl_algo *tb_cas = rl_registry_find("tb_cas");
    CU_ASSERT_FATAL(sweeper != NULL && tb_cas != NULL);
    CU_ASSERT_TRUE(sweeper->own_thread);
    CU_ASSERT_FALSE(rl_hist_can_snapshot(sweeper));
    struct rl_algo unswept = *sweeper, swept = *tb_cas;
    unswept.own_thread = false;
    swept.own_thread = true;
    CU_ASSERT_TRUE(rl_hist_can_snapshot(&unswept));
    CU_ASSERT_TRUE(rl_hist_can_snapshot(tb_cas));
    CU_ASSERT_FALSE(rl_hist_can_snapshot(&swept));
}

RL_TEST_SUITE(
    "history_recorder",
    {"sound limiters recorded at 2 threads are linearizable", test_sound_are_linearizable},
    {"fw_atomic_naive's reset race is caught", test_atomic_naive_caught},
    {"fw_cas_nofirst's first window is caught", test_cas_nofirst_caught},
    {"the window is complete and bounded", test_window_is_complete},
    {"a recorded fw_cas history is decided within the default budget", test_fw_cas_decided},
    {"windows over the run are each linearizable from their start state",
     test_windows_are_linearizable},
    {"the start gate: both threads record, their spans overlap", test_both_threads_overlap},
    {"a limiter whose own thread changes its state has no windows", test_own_thread_refused})
