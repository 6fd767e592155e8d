/* random_trace.c — see random_trace.h. */
#include "random_trace.h"

#include "test_util.h"
#include "workloads/generators.h"

#include <string.h>

#define MS 1000000ull

void rl_test_random_trace(uint64_t seed, const struct rl_test_trace_shape *shape,
                          struct rl_config *cfg, struct rl_trace *trace, uint32_t *cost_max)
{
    static const uint32_t slot_choices[] = {0, 1, 2, 3, 7, 10, 50, 100};
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + shape->salt;
    if (shape->scramble)
        x ^= x >> 29;
    uint64_t limit = (shape->min_limit ? shape->min_limit : 1) + x % 40;
    uint64_t interval_ns = !shape->odd_intervals || (x >> 6) % 2
                               ? MS * (1 + (x >> 8) % 200)
                               : 1000003ull * (1 + (x >> 8) % 97) + (x >> 16) % 1000;
    memset(cfg, 0, sizeof *cfg);
    cfg->limit = limit;
    cfg->interval_ns = interval_ns;
    if (shape->burst)
        cfg->burst = (x >> 44) % 3 == 0 ? 0 : 1 + (x >> 46) % (2 * limit);
    if (shape->slots)
        cfg->slots = slot_choices[(x >> 44) % 8];
    struct rl_workload_params p;
    rl_workload_defaults(&p, limit, interval_ns);
    p.name = rl_workload_names[(x >> 20) % 5];
    p.seed = seed;
    p.duration_ns = (shape->intervals ? shape->intervals : 10) * interval_ns;
    p.keys = 1 + (uint32_t)((x >> 30) % 4);
    p.rate_per_s = (double)limit * 1e9 / (double)interval_ns *
                   (1.0 + (double)((x >> 36) % (shape->overload ? shape->overload : 6)));
    p.cost_max = (x >> 40) % 2 ? 3 : 1;
    if (cost_max)
        *cost_max = p.cost_max;
    char err[256] = "";
    int rc = rl_workload_generate(&p, trace, err, sizeof err);
    EXPECT_FATAL(rc == 0, "random trace, seed %llu: %s", (unsigned long long)seed, err);
}

uint64_t rl_test_xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}
