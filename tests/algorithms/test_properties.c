/* test_properties.c — properties over many seeded random traces in sim:
 * the promises that hold on one thread, and decision-for-decision
 * agreement between implementations of the same semantics. */
#include "tests/support/random_trace.h"
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/run/sim.h"
#include "workloads/generators.h"

#define TRACES 120

/* Small random traces: any generator, 1–4 keys, costs 1 or 1–3, I in whole
 * ms (1–200). */
static const struct rl_test_trace_shape shape = {.salt = 1};

static void test_aligned_never_exceeds_L_aligned(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log log;
        struct rl_check_result res;
        rl_sim_checked("fw_aligned", &cfg, &trace, &log, &res);
        EXPECT(res.total.max_aligned <= cfg.limit, "seed %llu: max_aligned %llu > L %llu",
               (unsigned long long)seed, (unsigned long long)res.total.max_aligned,
               (unsigned long long)cfg.limit);
        /* and it is exactly the weak oracle on one thread */
        CU_ASSERT_EQUAL(res.total.weak_false_admits, 0);
        CU_ASSERT_EQUAL(res.total.weak_false_rejects, 0);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
        rl_trace_free(&trace);
    }
}

static void test_window_family_within_2L(void)
{
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        for (const struct rl_algo *const *a = rl_registry; *a; a++) {
            if ((*a)->promise != RL_PROMISE_WINDOW || ((*a)->flags & RL_REMOTE))
                continue; /* remote ones need a server: tests/algorithms/test_redis.c */
            struct rl_event_log log;
            struct rl_check_result res;
            rl_sim_checked((*a)->name, &cfg, &trace, &log, &res);
            EXPECT(res.total.max_sliding <= 2 * cfg.limit, "%s seed %llu: max_sliding %llu > 2L",
                   (*a)->name, (unsigned long long)seed, (unsigned long long)res.total.max_sliding);
            rl_check_result_free(&res);
            rl_event_log_free(&log);
        }
        rl_trace_free(&trace);
    }
}

/* fw_mutex runs the article's logic under a lock; every CAS step agrees
 * with it on one thread, costs included. */
static void test_article_steps_decide_identically(void)
{
    static const char *const others[] = {"fw_cas", "fw_cas_acqrel", "fw_cas_nofirst",
                                         "fw_atomic_naive", "fw_plain"};
    for (uint64_t seed = 1; seed <= TRACES; seed++) {
        struct rl_config cfg;
        struct rl_trace trace = {0};
        rl_test_random_trace(seed, &shape, &cfg, &trace, NULL);
        struct rl_event_log reference;
        struct rl_check_result res;
        rl_sim_checked("fw_mutex", &cfg, &trace, &reference, &res);
        rl_check_result_free(&res);
        for (size_t o = 0; o < sizeof others / sizeof *others; o++) {
            struct rl_event_log log;
            rl_sim_checked(others[o], &cfg, &trace, &log, &res);
            size_t differ = rl_logs_differ(&log, &reference);
            EXPECT(differ == 0, "%s vs fw_mutex, seed %llu: %zu decisions differ", others[o],
                   (unsigned long long)seed, differ);
            rl_check_result_free(&res);
            rl_event_log_free(&log);
        }
        rl_event_log_free(&reference);
        rl_trace_free(&trace);
    }
}

/* The .NET article's picture, from real decisions: limit 10 per second, an
 * opener at 0 and bursts packed around the 1 s edge. Every fixed window,
 * aligned or started by the opener, admits 1 + 9 before the edge and 10
 * after: 19 within 100 ms. The exact sliding oracle admits 10. */
static void test_boundary_picture(void)
{
    struct rl_config cfg = {.limit = 10, .interval_ns = 1000000000u};
    struct rl_workload_params p;
    rl_workload_defaults(&p, cfg.limit, cfg.interval_ns);
    p.name = "boundary";
    struct rl_trace trace = {0};
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_workload_generate(&p, &trace, err, sizeof err), 0);
    static const char *const fixed[] = {"fw_aligned", "fw_cas", "fw_expiry"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        struct rl_event_log log;
        struct rl_check_result res;
        rl_sim_checked(fixed[i], &cfg, &trace, &log, &res);
        CU_ASSERT_EQUAL(res.total.max_aligned, 10);
        CU_ASSERT_EQUAL(res.total.max_sliding, 19);
        CU_ASSERT_EQUAL(res.total.false_admits, 9);
        rl_check_result_free(&res);
        rl_event_log_free(&log);
    }
    rl_trace_free(&trace);
}

RL_TEST_SUITE("properties",
              {"fw_aligned never exceeds L in an aligned window",
               test_aligned_never_exceeds_L_aligned},
              {"every window algorithm stays within 2L sliding", test_window_family_within_2L},
              {"article steps and fw_mutex decide identically",
               test_article_steps_decide_identically},
              {"boundary workload: every fixed window admits 19 in 100 ms", test_boundary_picture})
