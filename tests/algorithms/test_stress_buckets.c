/* test_stress_buckets.c — the bucket family under 2 threads, recorded and
 * checked from the log (run again under ThreadSanitizer by `make test`).
 *
 * Why the bounds below are sound from stamps. The recorder stamps an admit
 * after acquire returns; the algorithm read the clock inside acquire, after
 * the recorder's `before` read. So an admit's read time lies in
 * [stamp − U, stamp], U = the log's uncertainty_ns. The exact buckets admit
 * at most B + L·(y − x)/I for reads in any [x, y], whatever order threads
 * decide in (tb_tat.h; tb_mutex decides the same way). Admits stamped in a
 * window [s, s + w) were read in [s − U, s + w − 1], hence
 *
 *   admitted cost in any stamped window of length w ≤ B + ⌊L·(w + U)/I⌋,
 *
 * and since no read precedes the epoch, all admits ≤ B + ⌊L·t_last/I⌋ with
 * t_last the last stamp. Lateness only widens the window: with I = 20 ms
 * and L = 200 (T = 100 µs), the slack ⌊L·U/I⌋ is 0 until U reaches 100 µs,
 * so the check is the plain B + L unless a thread was descheduled inside a
 * recorded call (TSan, a loaded machine) — then it widens by what the log
 * proves and no more. Note the bucket admits B at once at the start: no
 * window bound tighter than B + L·w/I can hold for it.
 */
#include "tests/support/bucket_window.h"
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/run/stress.h"

#include <stdio.h>

#define L   200
#define B   L          /* rl_stress_checked leaves burst unset: B = L */
#define I   20000000u  /* 20 ms */
#define RUN 200000000u /* 200 ms: 10 intervals */

/* tb_mutex, tb_cas, tb_cas_relaxed, gcra_cas: accounting holds (inside
 * rl_stress_checked), ≤ B + L + slack in every window of I, ≤ B + L·t/I
 * over the whole run, and the run really refilled (> B + L admits). */
static void test_exact_buckets_hold(void)
{
    static const char *const names[] = {"tb_mutex", "tb_cas", "tb_cas_relaxed", "gcra_cas"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct rl_stress_verdict v;
        rl_stress_checked(names[i], 2, L, I, RUN, &v);
        uint64_t slack = (uint64_t)L * v.uncertainty_ns / I;
        uint64_t whole_run = B + (uint64_t)L * v.last_stamp_ns / I;
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%s: max_sliding %llu vs B + L + %llu, admits %llu vs %llu (U = %llu ns)",
                 names[i], (unsigned long long)v.m.max_sliding, (unsigned long long)slack,
                 (unsigned long long)v.admits, (unsigned long long)whole_run,
                 (unsigned long long)v.uncertainty_ns);
        EXPECT(v.m.max_sliding <= B + L + slack, "%s", msg);
        EXPECT(v.admits <= whole_run, "%s", msg);
        EXPECT(v.admits > B + L, "%s", msg);
        CU_ASSERT_EQUAL(v.errors, 0);
    }
}

/* tb_cas_relaxed stays within B + L·w/I like tb_cas, for w in {I/7, I/2,
 * I, 3I} (plus the stamp slack), checked on the whole recorded log. */
static void test_relaxed_windows(void)
{
    static const char *const names[] = {"tb_cas", "tb_cas_relaxed"};
    const uint64_t windows[] = {I / 7, I / 2, I, 3ull * I};
    for (size_t i = 0; i < 2; i++) {
        struct rl_stress_params params = {
            .algo = rl_registry_find(names[i]),
            .cfg = {.limit = L, .interval_ns = I},
            .threads = 2,
            .duration_ns = RUN,
            .clock = "monotonic",
            .record = true,
        };
        struct rl_stress_outcome out;
        char err[256];
        CU_ASSERT_EQUAL_FATAL(rl_stress_counted(&params, &out, err, sizeof err), 0);
        CU_ASSERT_EQUAL(out.log.len, out.admits);
        CU_ASSERT(out.admits > B + L);
        rl_event_log_sort(&out.log);
        for (size_t w = 0; w < 4; w++) {
            uint64_t got = rl_max_window_cost(&out.log, 0, windows[w]);
            uint64_t bound = B + L * (windows[w] + out.log.uncertainty_ns) / I;
            EXPECT(got <= bound, "%s w=%llu: %llu admitted > %llu (U = %llu ns)", names[i],
                   (unsigned long long)windows[w], (unsigned long long)got,
                   (unsigned long long)bound, (unsigned long long)out.log.uncertainty_ns);
        }
        rl_event_log_free(&out.log);
    }
}

/* tb_debt (n = 1): ≤ L + 1 + L·(w + U)/I in any stamped window (its stored
 * permits, the last request's unpaid token, and the refill; tb_debt.c). */
static void test_debt_holds(void)
{
    struct rl_stress_verdict v;
    rl_stress_checked("tb_debt", 2, L, I, RUN, &v);
    uint64_t bound = L + 1 + L + (uint64_t)L * v.uncertainty_ns / I;
    char msg[160];
    snprintf(msg, sizeof msg, "tb_debt: max_sliding %llu > %llu",
             (unsigned long long)v.m.max_sliding, (unsigned long long)bound);
    EXPECT(v.m.max_sliding <= bound, "%s", msg);
    EXPECT(v.admits <= L + 1 + (uint64_t)L * v.last_stamp_ns / I, "%s", msg);
    CU_ASSERT(v.admits > L);
}

/* leaky_nginx with burst 0 at 10000 r/s (L per I above) passes at most one
 * request per ms tick, under threads too: a read from an earlier tick than
 * the last pass drains nothing and is refused. Its reads lie in
 * [epoch, epoch + t_last], which spans at most t_last/1 ms + 2 ticks. */
static void test_nginx_one_per_ms(void)
{
    struct rl_stress_verdict v;
    rl_stress_checked("leaky_nginx", 2, L, I, RUN, &v);
    char msg[160];
    snprintf(msg, sizeof msg, "leaky_nginx: %llu admits in %llu ns", (unsigned long long)v.admits,
             (unsigned long long)v.last_stamp_ns);
    EXPECT(v.admits <= v.last_stamp_ns / 1000000 + 2, "%s", msg);
    EXPECT(v.admits >= 20, "%s", msg); /* it did pass requests */
}

RL_TEST_SUITE("stress_buckets",
              {"exact buckets keep B + L per I and B + L·t/I overall (2 threads)",
               test_exact_buckets_hold},
              {"tb_cas_relaxed within B + L·w/I like tb_cas (2 threads)", test_relaxed_windows},
              {"tb_debt within L + 1 + L·w/I with unit costs (2 threads)", test_debt_holds},
              {"leaky_nginx passes at most one request per ms (2 threads)", test_nginx_one_per_ms})
