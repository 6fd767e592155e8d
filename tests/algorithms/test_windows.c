/* test_windows.c — the sliding-log, sliding-counter, time-wheel and trylock
 * limiters in sim: hand-worked decision sequences (first window, idle gap,
 * n > 1, n > L, time going backwards), then properties over seeded traces.
 * Times are trace ns; the epoch is trace time 0. */
#include "tests/support/decide.h"
#include "tests/support/random_trace.h"
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/run/sim.h"
#include "workloads/generators.h"

#include <stdlib.h>
#include <string.h>

#define I 1000

/* ---- sliding_log (L = 3 unless noted) --------------------------------- */

/* An admit at e leaves the window (t − I, t] when t − e ≥ I: 0 goes at
 * 1000, 1 at 1001, 2 at 1002. Equal times share one log entry. */
static void test_sliding_log_window(void)
{
    rl_expect_decisions("sliding_log", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}, {3, 1, 'R'},
                                 {999, 1, 'R'},  /* 0, 1, 2 all within (−1, 999] */
                                 {1000, 1, 'A'}, /* 0 left: 1, 2, 1000 */
                                 {1001, 1, 'A'}, /* 1 left: 2, 1000, 1001 */
                                 {1001, 1, 'R'}, {1002, 1, 'A'}, {1003, 1, 'R'},
                                 {50000, 1, 'A'}, /* idle gap: empty log, no debt */
                                 {50000, 1, 'A'}, {50000, 1, 'A'}, {50000, 1, 'R'}));
}

/* L = 5: costs are summed exactly; a rejected attempt costs nothing. */
static void test_sliding_log_costs(void)
{
    rl_expect_decisions("sliding_log", 5, I, 0,
                        RL_STEPS({0, 3, 'A'}, {1, 3, 'R'}, {2, 2, 'A'}, /* 5 */
                                 {500, 1, 'R'}, {1000, 1, 'A'},         /* 3 at 0 left: 2 + 1 */
                                 {1000, 3, 'R'},                        /* 3 + 3 > 5 */
                                 {1000, 2, 'A'},                        /* 5 */
                                 {1002, 3, 'R'},                        /* 2 at 2 left: 3 + 3 > 5 */
                                 {1002, 2, 'A'}, {1003, 6, 'R'}));      /* n > L: never */
}

/* Time going back is decided as at the newest time seen: the log at 1050
 * is full, and stepping back to 500 does not empty it. */
static void test_sliding_log_backwards(void)
{
    rl_expect_decisions("sliding_log", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {100, 1, 'A'}, {1000, 1, 'A'}, /* 0 left: 100, 1000 */
                                 {1050, 1, 'A'},                 /* full: 100, 1000, 1050 */
                                 {500, 1, 'R'},                  /* as at 1050: still full */
                                 {1099, 1, 'R'}, {1100, 1, 'A'}, /* 100 left */
                                 {99, 1, 'R'}));                 /* as at 1100: full again */
}

/* ---- sliding_log_sweeper (L = 2, I = 1000: sweeps every 100, age 3000) -- */

/* Entries leave only at a sweep instant s = 100·k, when older than
 * s − 3000: 0 and 1 go at 3100 (the sweep at 3000 needs t < 0). An entry at
 * 100 is not < 100, so it waits for the sweep at 3200. */
static void test_sweeper_schedule(void)
{
    rl_expect_decisions("sliding_log_sweeper", 2, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'R'},
                                 {1000, 1, 'R'}, /* sliding_log would admit here */
                                 {3099, 1, 'R'}, /* the sweep at 3000 removed nothing */
                                 {3100, 1, 'A'}, /* swept: 0, 1 (< 100) */
                                 {3100, 1, 'A'}, {3101, 1, 'R'}));
    rl_expect_decisions(
        "sliding_log_sweeper", 2, I, 0,
        RL_STEPS({0, 1, 'A'}, {100, 1, 'A'}, {3100, 1, 'A'}, /* sweep 3100 drops t < 100: only 0 */
                 {3150, 1, 'R'}, {3000, 1, 'R'},       /* back in time: no sweep, still full */
                 {3200, 1, 'A'},                       /* sweep 3200 drops 100 */
                 {100000, 2, 'A'},                     /* idle gap: everything swept */
                 {100000, 1, 'R'}, {100001, 3, 'R'})); /* n > L */
}

/* ---- sliding_counter and freq_ctr (L = 4): identical rules ------------ */

static const char *const counters[] = {"sliding_counter", "freq_ctr"};
#define FOR_EACH(name, list)                                                                       \
    for (size_t i_ = 0; i_ < sizeof list / sizeof *list; i_++)                                     \
        for (const char *name = list[i_]; name; name = NULL)

/* Admit n ⇔ prev·(I − e) + (curr + n)·I ≤ L·I, e = elapsed in the window. */
static void test_counter_estimate(void)
{
    FOR_EACH(name, counters)
    {
        rl_expect_decisions(
            name, 4, I, 0,
            RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}, {3, 1, 'A'},
                     {4, 1, 'R'},                    /* window 0 holds 4 */
                     {1000, 1, 'R'},                 /* 4·1000 + 1·1000 > 4000 */
                     {1250, 1, 'A'},                 /* 4·750 + 1·1000 = 4000 */
                     {1250, 1, 'R'},                 /* 3000 + 2000 */
                     {1500, 1, 'A'},                 /* 2000 + 2000 */
                     {1750, 1, 'A'},                 /* 1000 + 3000 */
                     {1999, 1, 'R'},                 /* 4 + 4000 */
                     {2000, 1, 'A'},                 /* prev = 3: 3000 + 1000 */
                     {2000, 1, 'R'}, {5000, 1, 'A'}, /* idle: prev of window 4 = 0 */
                     {5001, 1, 'A'}, {5002, 1, 'A'}, {5003, 1, 'A'}, {5004, 1, 'R'}));
    }
}

/* Costs, n > L, and stale times: a time in an older window counts in the
 * current one at elapsed 0, where the estimate is largest. */
static void test_counter_costs_and_backwards(void)
{
    FOR_EACH(name, counters)
    {
        rl_expect_decisions(name, 4, I, 0,
                            RL_STEPS({0, 3, 'A'}, {1, 2, 'R'}, {2, 1, 'A'},
                                     {1500, 2, 'A'},                 /* 4·500 + 2·1000 = 4000 */
                                     {1500, 1, 'R'}, {1600, 5, 'R'}, /* n > L */
                                     {2000, 1, 'A'},                 /* prev 2: 2000 + 1000 */
                                     {2600, 1, 'A'},                 /* 2·400 + 2·1000 = 2800 */
                                     {1900, 1, 'R'},                 /* as at 2000: 2000 + 3000 */
                                     {2500, 1, 'A'})); /* same window, own e: 1000 + 3000 */
    }
}

/* The 2L − 1 worst case: 4 at the very end of window 0 (prev weight ≈ 0),
 * then window 1 admits as prev's weight fades: [999, 1999) holds 7. */
static void test_counter_worst_case(void)
{
    FOR_EACH(name, counters)
    {
        rl_expect_decisions(name, 4, I, 0,
                            RL_STEPS({999, 1, 'A'}, {999, 1, 'A'}, {999, 1, 'A'}, {999, 1, 'A'},
                                     {1250, 1, 'A'}, {1500, 1, 'A'}, {1750, 1, 'A'},
                                     {1998, 1, 'R'})); /* 4·2 + 4·1000 > 4000 */
    }
}

/* ---- wheel and wheel_atomic (L = 3, S = 10: slots of 100) ------------- */

static const char *const wheels[] = {"wheel", "wheel_atomic"};

/* The grid starts at the first attempt (50): slots [50, 150), [150, 250), …
 * The total covers the current slot and the 9 before it. */
static void test_wheel_rotation(void)
{
    FOR_EACH(name, wheels)
    {
        rl_expect_decisions(name, 3, I, 0,
                            RL_STEPS({50, 1, 'A'}, {60, 1, 'A'}, {149, 1, 'A'},
                                     {150, 1, 'R'},  /* slot 1; slot 0 still on the wheel */
                                     {1049, 1, 'R'}, /* slot 9 */
                                     {1050, 1, 'A'}, /* slot 10 clears slot 0 */
                                     {1050, 1, 'A'}, {1050, 1, 'A'}, {1051, 1, 'R'},
                                     {50000, 1, 'A'}, /* idle gap: the whole wheel cleared */
                                     {50001, 1, 'A'}, {50002, 1, 'A'}, {50003, 1, 'R'}));
    }
}

/* L = 5: costs, n > L; then a step back in time stays in the current slot. */
static void test_wheel_costs_and_backwards(void)
{
    FOR_EACH(name, wheels)
    {
        rl_expect_decisions(name, 5, I, 0,
                            RL_STEPS({0, 3, 'A'}, {1, 3, 'R'}, {2, 2, 'A'}, {999, 1, 'R'},
                                     {1000, 5, 'A'}, /* slot 10 clears slot 0's 5 */
                                     {1001, 6, 'R'}, /* n > L */
                                     {500, 1, 'R'},  /* back: counted in slot 10, full */
                                     {1100, 1, 'R'}, {2000, 1, 'A'}));
    }
}

/* The 2L worst case: 3 at the very end of slot 10, nothing for 9 slots,
 * 3 at the start of slot 20, which has just turned slot 10 off the wheel:
 * [1099, 2099) holds 6. (The attempt at 0 only opens the grid.) */
static void test_wheel_worst_case(void)
{
    FOR_EACH(name, wheels)
    {
        rl_expect_decisions(name, 3, I, 0,
                            RL_STEPS({0, 1, 'A'}, {1099, 1, 'A'}, {1099, 1, 'A'}, {1099, 1, 'A'},
                                     {1999, 1, 'R'}, /* slot 19: slot 10 still counts */
                                     {2000, 1, 'A'}, {2000, 1, 'A'}, {2000, 1, 'A'},
                                     {2000, 1, 'R'}));
    }
}

/* ---- fw_trylock (one thread: the lock is never contended) ------------- */

/* Linux restarts the window when begin + I is before now: strictly after
 * I, so 1000 still falls in the window opened at 0 (fw_expiry restarts). */
static void test_trylock_window(void)
{
    rl_expect_decisions("fw_trylock", 3, I, 0,
                        RL_STEPS({0, 1, 'A'}, {1, 1, 'A'}, {2, 1, 'A'}, {3, 1, 'R'},
                                 {1000, 1, 'R'}, /* now − begin = I: not yet */
                                 {1001, 1, 'A'}, /* restarts at 1001 */
                                 {1002, 1, 'A'}, {1003, 1, 'A'}, {1004, 1, 'R'},
                                 {50000, 1, 'A'})); /* idle gap: one restart */
    rl_expect_decisions(
        "fw_trylock", 5, I, 0,
        RL_STEPS({0, 3, 'A'}, {1, 3, 'R'}, {2, 2, 'A'}, {3, 1, 'R'}, {4, 6, 'R'})); /* n > L */
    /* L = 1: a time before the window's start stays in that window. */
    rl_expect_decisions("fw_trylock", 1, I, 0,
                        RL_STEPS({0, 1, 'A'}, {2000, 1, 'A'}, {1500, 1, 'R'}, {3001, 1, 'A'}));
}

/* ---- properties over seeded traces ------------------------------------ */

#define TRACES 300

/* Small random traces as in test_properties.c, with S varied too. */
static const struct rl_test_trace_shape shape = {.salt = 7, .slots = true};

/* rl_sim_checked (the log stays in trace order), and no attempt erred. */
static void run(const char *name, const struct rl_config *cfg, const struct rl_trace *trace,
                struct rl_event_log *log, struct rl_check_result *res)
{
    CU_ASSERT_EQUAL(rl_sim_checked(name, cfg, trace, log, res), 0);
}

/* sliding_log is the strong oracle: never above L sliding, and no decision
 * differs from the checker's exact sliding log. */
static void test_sliding_log_is_the_oracle(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log log;
        struct rl_check_result res;
        run("sliding_log", &cfg, &trace, &log, &res);
        EXPECT(res.total.max_sliding <= cfg.limit, "seed %llu: max_sliding %llu > L %llu",
               (unsigned long long)seed, (unsigned long long)res.total.max_sliding,
               (unsigned long long)cfg.limit);
        EXPECT(res.total.false_admits == 0 && res.total.false_rejects == 0,
               "seed %llu: %llu false admits, %llu false rejects", (unsigned long long)seed,
               (unsigned long long)res.total.false_admits,
               (unsigned long long)res.total.false_rejects);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_trace_free(&trace);
    }
}

/* The sweeper keeps entries ≥ 3·I, so it is strong too. */
static void test_sweeper_is_strong(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log log;
        struct rl_check_result res;
        run("sliding_log_sweeper", &cfg, &trace, &log, &res);
        EXPECT(res.total.max_sliding <= cfg.limit, "seed %llu: max_sliding %llu > L %llu",
               (unsigned long long)seed, (unsigned long long)res.total.max_sliding,
               (unsigned long long)cfg.limit);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_trace_free(&trace);
    }
}

/* Under steady overload the sweeper admits about L per 3·I + I/10 after
 * its first L: over 20 intervals at 4× the limit, 7 lots of L = 0.35 of
 * what the oracle admits (20 lots). */
static void test_sweeper_under_admits(void)
{
    struct rl_config cfg = {.limit = 100, .interval_ns = 1000000000u};
    struct rl_workload_params p;
    rl_workload_defaults(&p, cfg.limit, cfg.interval_ns);
    p.duration_ns = 20 * cfg.interval_ns;
    struct rl_trace trace = {0};
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &trace, err, sizeof err), 0);
    struct rl_event_log log;
    struct rl_check_result res;
    run("sliding_log_sweeper", &cfg, &trace, &log, &res);
    CU_ASSERT_EQUAL(res.total.admitted_cost, 700);
    CU_ASSERT_EQUAL(res.total.oracle_admitted_cost, 2000);
    rl_check_result_free(&res);
    rl_event_log_free(&log);
    rl_trace_free(&trace);
}

/* Counters: curr + n ≤ L at every admit, so ≤ L per aligned window (weak
 * holds, and with it window_excess = 0); a sliding window holding a of the
 * previous window's admits and c of the current one's, the last at elapsed
 * e < I, has c ≤ L − a·(I − e)/I, so a + c < L + a ≤ 2L: at most 2L − 1.
 * freq_ctr decides exactly as sliding_counter on one thread. */
static void test_counters_bounds_and_agree(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log reference, log;
        struct rl_check_result res;
        run("sliding_counter", &cfg, &trace, &reference, &res);
        EXPECT(res.total.max_aligned <= cfg.limit, "seed %llu: max_aligned %llu > L",
               (unsigned long long)seed, (unsigned long long)res.total.max_aligned);
        EXPECT(res.total.max_sliding <= 2 * cfg.limit - 1, "seed %llu: max_sliding %llu ≥ 2L",
               (unsigned long long)seed, (unsigned long long)res.total.max_sliding);
        CU_ASSERT_EQUAL(res.total.window_excess, 0);
        rl_check_result_free(&res);
        run("freq_ctr", &cfg, &trace, &log, &res);
        size_t differ = rl_logs_differ(&log, &reference);
        EXPECT(differ == 0, "seed %llu: freq_ctr and sliding_counter differ on %zu",
               (unsigned long long)seed, differ);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_event_log_free(&reference);
        rl_trace_free(&trace);
    }
}

/* The most admitted cost in any S consecutive slots of each key's wheel
 * grid: slots of ⌈I/S⌉ from the key's first attempt with n ≤ L (one with
 * n > L is refused before the clock is read, so it opens nothing). */
static uint64_t max_grid_window(const struct rl_event_log *log, const struct rl_config *cfg)
{
    uint32_t slots = cfg->slots ? cfg->slots : RL_DEFAULT_SLOTS;
    uint64_t slot_ns = (cfg->interval_ns + slots - 1) / slots;
    uint64_t worst = 0;
    for (uint32_t key = 0; key < (log->key_count ? log->key_count : 1); key++) {
        uint64_t anchor = UINT64_MAX, last = 0;
        for (size_t i = 0; i < log->len; i++)
            if (log->events[i].key == key && log->events[i].n <= cfg->limit) {
                anchor = anchor < log->events[i].t_ns ? anchor : log->events[i].t_ns;
                last = log->events[i].t_ns;
            }
        if (anchor == UINT64_MAX)
            continue;
        size_t count = (size_t)((last - anchor) / slot_ns) + 1;
        uint64_t *cost = calloc(count, sizeof *cost);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cost);
        for (size_t i = 0; i < log->len; i++)
            if (log->events[i].key == key && log->events[i].admitted)
                cost[(log->events[i].t_ns - anchor) / slot_ns] += log->events[i].n;
        uint64_t run_sum = 0;
        for (size_t j = 0; j < count; j++) {
            run_sum += cost[j];
            if (j >= slots)
                run_sum -= cost[j - slots];
            worst = run_sum > worst ? run_sum : worst;
        }
        free(cost);
    }
    return worst;
}

/* Wheels: ≤ L in every S slots of their grid, hence window_excess = 0 and
 * ≤ 2L sliding; wheel_atomic decides exactly as wheel on one thread. */
static void test_wheels_bounds_and_agree(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log reference, log;
        struct rl_check_result res;
        run("wheel", &cfg, &trace, &reference, &res);
        uint64_t grid = max_grid_window(&reference, &cfg);
        EXPECT(grid <= cfg.limit, "seed %llu S %u: %llu in S slots > L", (unsigned long long)seed,
               cfg.slots, (unsigned long long)grid);
        EXPECT(res.total.window_excess == 0 && res.total.max_sliding <= 2 * cfg.limit,
               "seed %llu: window_excess %llu, max_sliding %llu", (unsigned long long)seed,
               (unsigned long long)res.total.window_excess,
               (unsigned long long)res.total.max_sliding);
        rl_check_result_free(&res);
        run("wheel_atomic", &cfg, &trace, &log, &res);
        size_t differ = rl_logs_differ(&log, &reference);
        EXPECT(differ == 0, "seed %llu S %u: wheel_atomic and wheel differ on %zu",
               (unsigned long long)seed, cfg.slots, differ);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_event_log_free(&reference);
        rl_trace_free(&trace);
    }
}

/* Uncontended, fw_trylock at I is fw_expiry at I + 1 ns: restarting when
 * now − begin > I is restarting when now − begin ≥ I + 1. */
static void test_trylock_is_expiry_plus_one(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_config longer = cfg;
        longer.interval_ns++;
        struct rl_event_log reference, log;
        struct rl_check_result res;
        run("fw_expiry", &longer, &trace, &reference, &res);
        rl_check_result_free(&res);
        run("fw_trylock", &cfg, &trace, &log, &res);
        size_t differ = rl_logs_differ(&log, &reference);
        EXPECT(differ == 0, "seed %llu: fw_trylock and fw_expiry(I+1) differ on %zu",
               (unsigned long long)seed, differ);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_event_log_free(&reference);
        rl_trace_free(&trace);
    }
}

/* Bad configurations are refused with a reason, not crashed on. */
static void test_refuses_bad_config(void)
{
    char err[256];
    struct rl_config cfg = {.limit = 10, .interval_ns = 5, .slots = 10};
    CU_ASSERT_PTR_NULL(rl_registry_find("wheel")->create(&cfg, err, sizeof err));
    CU_ASSERT_PTR_NULL(rl_registry_find("wheel_atomic")->create(&cfg, err, sizeof err));
    cfg = (struct rl_config){.limit = 1ull << 33, .interval_ns = I};
    CU_ASSERT_PTR_NULL(rl_registry_find("freq_ctr")->create(&cfg, err, sizeof err));
    CU_ASSERT_PTR_NULL(rl_registry_find("wheel_atomic")->create(&cfg, err, sizeof err));
    /* a huge L costs nothing up front: the log grows with use */
    const struct rl_algo *log = rl_registry_find("sliding_log");
    void *state = log->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL(state);
    if (state)
        log->destroy(state);
}

RL_TEST_SUITE("windows", {"sliding_log: window, idle gap", test_sliding_log_window},
              {"sliding_log: costs n > 1 and n > L", test_sliding_log_costs},
              {"sliding_log: time going backwards", test_sliding_log_backwards},
              {"sliding_log_sweeper: sweep schedule, age 3I", test_sweeper_schedule},
              {"counters: weighted estimate, idle gap", test_counter_estimate},
              {"counters: costs, n > L, stale times", test_counter_costs_and_backwards},
              {"counters: the 2L - 1 worst case", test_counter_worst_case},
              {"wheels: rotation, idle gap", test_wheel_rotation},
              {"wheels: costs, n > L, backwards", test_wheel_costs_and_backwards},
              {"wheels: the 2L worst case", test_wheel_worst_case},
              {"fw_trylock: Linux's strict expiry, costs, backwards", test_trylock_window},
              {"sliding_log equals the strong oracle", test_sliding_log_is_the_oracle},
              {"sliding_log_sweeper never exceeds L sliding", test_sweeper_is_strong},
              {"sliding_log_sweeper admits 0.35 of the oracle at 4x", test_sweeper_under_admits},
              {"counters: <= L aligned, < 2L sliding, agree", test_counters_bounds_and_agree},
              {"wheels: <= L per S slots, agree", test_wheels_bounds_and_agree},
              {"fw_trylock alone is fw_expiry at I + 1", test_trylock_is_expiry_plus_one},
              {"bad configurations refused", test_refuses_bad_config})
