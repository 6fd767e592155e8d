/* generators.h — seeded, deterministic synthetic workloads (DESIGN §7).
 *
 * The same parameters and seed give the same trace on every machine: all
 * randomness comes from workloads/rng.h, never from libc's rand().
 */
#ifndef RL_GENERATORS_H
#define RL_GENERATORS_H

#include "trace.h"

#include <stdint.h>

enum rl_key_dist {
    RL_KEYS_UNIFORM, /* each attempt's key uniform over K */
    RL_KEYS_ZIPF,    /* key k (0-based) with weight 1/(k+1)^s */
};

/* Every field has a default from rl_workload_defaults(); times in ns. */
struct rl_workload_params {
    const char *name; /* uniform | poisson | onoff | boundary | flash */
    uint64_t seed;
    uint64_t duration_ns; /* the trace covers [0, duration) */
    double rate_per_s;    /* mean attempts per second (the base rate for flash) */
    uint32_t keys;        /* K ≥ 1 */
    enum rl_key_dist key_dist;
    double zipf_s;                /* s > 0, used with RL_KEYS_ZIPF */
    uint32_t cost_min, cost_max;  /* each attempt's n uniform in [min, max] */
    uint64_t on_ns, off_ns;       /* onoff: bursts at rate_per_s for on, silence for off */
    uint64_t interval_ns;         /* boundary: the window grid I */
    uint64_t burst_size;          /* boundary: attempts packed on each side of an edge */
    uint64_t spread_ns;           /* boundary: how close to the edge they are packed */
    uint64_t flash_at_ns;         /* flash: when the spike starts */
    uint64_t flash_len_ns;        /* flash: how long it lasts */
    double flash_factor;          /* flash: the spike's rate is factor × rate_per_s */
};

/* NULL-terminated list of the generator names, for --help and errors. */
extern const char *const rl_workload_names[];

/* Fills p with defaults scaled to the limiter under test: 2 s long, an
 * attempt rate of 4·L per interval (overload), one key, cost 1, seed 1;
 * onoff 200 ms on / 800 ms off; boundary bursts of L attempts within I/20
 * of each edge; flash at 1/2 duration for I at 10× the rate. */
void rl_workload_defaults(struct rl_workload_params *p, uint64_t limit, uint64_t interval_ns);

/* Generates the trace (time-sorted, keys named "k0".."k<K-1>"). -1 with one
 * line in err for an unknown name or impossible parameters. */
int rl_workload_generate(const struct rl_workload_params *p, struct rl_trace *out, char *err,
                         size_t err_len);

#endif
