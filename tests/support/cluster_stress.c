/* cluster_stress.c — one recorded stress run with --fault on a private
 * 3x1 cluster of its own, and the checks every faulted row passes. */
#include "cluster_stress.h"

#include "harness/run/stress_plan.h"
#include "tests/support/test_util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const uint64_t two_threads[] = {2};

void rl_test_faulted_run(const char *algo, const char *spec, uint64_t limit, uint64_t interval_ns,
                         uint64_t duration_ns, struct rl_result *row)
{
    static struct rl_redis_cluster cluster;
    char err[1024];
    EXPECT_FATAL(rl_redis_cluster_start(&cluster, 3, 1, err, sizeof err) == 0, "start: %s", err);
    struct rl_faults faults;
    EXPECT_FATAL(rl_faults_parse(spec, NULL, &faults, err, sizeof err) == 0, "parse: %s", err);
    const struct rl_algo *asked[] = {rl_registry_find(algo)};
    CU_ASSERT_PTR_NOT_NULL_FATAL(asked[0]);
    struct rl_stress_plan plan = {
        .threads = two_threads,
        .thread_count = 1,
        .reps = 1,
        .run = {.cfg = {.limit = limit, .interval_ns = interval_ns, .remote = cluster.address},
                .duration_ns = duration_ns,
                .clock = "monotonic",
                .record = true},
        .faults = &faults,
        .cluster = &cluster,
    };
    const struct rl_algo *list[4];
    struct rl_stress_asked ask = {.algos = asked, .count = 1};
    EXPECT_FATAL(rl_stress_plan_prepare(&plan, &ask, list, 4, err, sizeof err) == 0, "prepare: %s",
                 err);
    struct rl_result rows[4];
    CU_ASSERT_EQUAL_FATAL(rl_stress_plan_rows(&plan), 3); /* faa, redis_noop, algo */
    bool interrupted, failed;
    size_t done = rl_stress_plan_run(&plan, "test", rows, &interrupted, &failed, err, sizeof err);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", cluster.dir);
    rl_redis_cluster_stop(&cluster);
    struct stat st;
    EXPECT(stat(dir, &st) != 0, "the cluster's folder %s is left", dir);
    EXPECT_FATAL(done == 3 && !failed, "run: %s", err);
    rl_stress_plan_free(&plan);
    EXPECT_FATAL(strcmp(rows[2].algo->name, algo) == 0, "row 2 is %s", rows[2].algo->name);
    *row = rows[2];
    /* the floors: faa never sees a fault; redis_noop does (a fresh cluster) */
    CU_ASSERT_PTR_NULL(rows[0].fault);
    CU_ASSERT_PTR_NOT_NULL(rows[1].fault);
}

void rl_test_expect_faulted_row(const struct rl_result *r, const char *spec)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->fault);
    CU_ASSERT_STRING_EQUAL(r->fault, spec);
    CU_ASSERT(r->checked);
    EXPECT(r->outage_ms > 0, "outage %g ms", r->outage_ms);
    EXPECT(r->errors == 0 || rl_result_held(r) != RL_HELD_YES, "held yes with %llu errors",
           (unsigned long long)r->errors);
}
