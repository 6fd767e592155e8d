/* generators.h — seeded, deterministic synthetic workloads (docs/design.md, Modes).
 *
 * The same parameters and seed give the same trace on every machine: all
 * randomness comes from workloads/rng.h, never from libc's rand(). Times are
 * integer ns in [0, duration), sorted (equal times are allowed).
 *
 *   uniform   attempt i at floor(i·1e9/rate): exactly ceil(rate·duration/1e9).
 *   poisson   exponential gaps of mean 1e9/rate (the only random count).
 *   onoff     cycles of on_ns at rate (spaced as uniform, restarting at each
 *             cycle) and off_ns of silence.
 *   boundary  the .NET article's 3+7 / 7+3 picture: around every second edge
 *             of the grid (k·I for odd k, k·I < duration), one opening
 *             attempt at (k−1)·I, then burst_size attempts evenly spaced in
 *             [kI - spread, kI) and burst_size in [kI, kI + spread). The
 *             opener starts the window of limiters whose window begins at an
 *             attempt (the C++ article's, fw_expiry), so it ends at kI as an
 *             aligned one does: every fixed window admits about 2L within
 *             2·spread, while a sliding one admits L. rate_per_s is ignored (and not checked);
 * duration must exceed interval_ns so that at least one edge falls inside. flash     uniform at
 * rate, except [flash_at, flash_at + flash_len) at flash_factor × rate; each of the three phases
 * restarts its spacing at its start.
 *
 *   idle_burst, warm_poll: the shaping workloads (shaping_workloads.c):
 *             an opener, off_ns idle, burst_size attempts at one instant,
 *             every off_ns + on_ns (cancel_share of each burst's second half
 *             cancelled at arrival); polling at rate_per_s with max wait 0.
 *
 * Keys and costs are drawn after the times, each from its own stream of the
 * seed, so changing K or the cost range never moves an arrival.
 */
#ifndef RL_GENERATORS_H
#define RL_GENERATORS_H

#include "trace.h"

#include <stdbool.h>
#include <stdint.h>

/* A generator refuses a trace larger than this (16 bytes per attempt: 3.2 GB). */
#define RL_WORKLOAD_MAX_ATTEMPTS 200000000ull

enum rl_key_dist {
    RL_KEYS_UNIFORM, /* each attempt's key uniform over K */
    RL_KEYS_ZIPF,    /* key k (0-based) with weight 1/(k+1)^s */
};

/* Every field has a default from rl_workload_defaults(); times in ns. */
struct rl_workload_params {
    const char *name; /* uniform | poisson | onoff | boundary | flash | idle_burst | warm_poll */
    uint64_t seed;
    uint64_t duration_ns; /* the trace covers [0, duration) */
    double rate_per_s;    /* mean attempts per second (the base rate for flash) */
    uint32_t keys;        /* K ≥ 1 */
    enum rl_key_dist key_dist;
    double zipf_s;               /* s > 0, used with RL_KEYS_ZIPF */
    uint32_t cost_min, cost_max; /* each attempt's n uniform in [min, max] */
    uint64_t on_ns, off_ns;      /* onoff: bursts at rate_per_s for on, silence for off */
    uint64_t interval_ns;        /* boundary: the window grid I */
    uint64_t burst_size;         /* boundary: attempts packed on each side of an edge */
    uint64_t spread_ns;          /* boundary: how close to the edge they are packed */
    uint64_t flash_at_ns;        /* flash: when the spike starts */
    uint64_t flash_len_ns;       /* flash: how long it lasts */
    double flash_factor;         /* flash: the spike's rate is factor × rate_per_s */
    double cancel_share;         /* idle_burst: share of each burst's second half cancelled */
};

/* NULL-terminated list of the generator names, for --help and errors. */
extern const char *const rl_workload_names[];

/* Fills p with defaults scaled to the limiter under test: 2 s long, an
 * attempt rate of 4·L per interval (overload), one key, cost 1, seed 1;
 * onoff 200 ms on / 800 ms off (idle_burst: 3 I off, 2 I on, bursts of
 * 2 L; warm_poll polls at 5/6 of L per I: 120 ms at 10/s); boundary bursts of L attempts within
 * I/20 of each edge (at least 1 ns); flash at 1/2 duration for I at 10× the rate. name is
 * "uniform"; a Zipf exponent of 1 waits for key_dist = RL_KEYS_ZIPF. Never fails: a zero limit or
 * interval shows up as an error from rl_workload_generate. */
void rl_workload_defaults(struct rl_workload_params *p, uint64_t limit, uint64_t interval_ns);

/* The defaults that differ by workload, for p->name (call after
 * rl_workload_defaults and setting the name): idle_burst 3 I off, 2 I on,
 * bursts of 2 L; warm_poll at 5/6 of L per I. Others unchanged. */
void rl_workload_name_defaults(struct rl_workload_params *p, uint64_t limit, uint64_t interval_ns);

/* Generates the trace (time-sorted, keys named "k0".."k<K-1>") into *out,
 * which is overwritten (pass a zeroed or freed trace). -1 with one line in
 * err, and *out left zeroed, for an unknown name, impossible parameters, a
 * trace over RL_WORKLOAD_MAX_ATTEMPTS, or ENOMEM. */
int rl_workload_generate(const struct rl_workload_params *p, struct rl_trace *out, char *err,
                         size_t err_len);

/* ---- streaming ---------------------------------------------------------------
 * The same attempts, never held: handed to a sink in batches of at most
 * RL_STREAM_BATCH, in time order, as rl_workload_generate would have laid
 * them (keys "k0".."k<K-1>" by id). No size limit: a run of 10^9 attempts
 * holds one batch.
 *
 * A new generator follows the pattern of generators.c: validate its
 * parameters in validate(), count them in expected_attempts() (the held
 * trace's limit), and lay its arrival times in order with emit(e, t_ns),
 * stopping when emit() returns nonzero (the sink refused). emit() draws
 * the key and the cost; the generator never sees the trace or the sink. */
#define RL_STREAM_BATCH 1024

struct rl_attempt_sink {
    /* Takes batch[0, len); nonzero stops the generator (the sink writes
     * its own reason into whatever err it holds). */
    int (*take)(void *ctx, const struct rl_attempt *batch, size_t len);
    void *ctx;
};

/* Whether p's generator streams: lays its attempts through emit() alone,
 * with no side columns (trace.h: max_wait_ns, cancel_ns). All five do; a
 * generator that fills side columns must answer false here, and its runs
 * then hold the trace (sim: rl_workload_generate). */
bool rl_workload_can_stream(const struct rl_workload_params *p);

/* 0 when p names a generator and its parameters are valid (every check of
 * rl_workload_generate but the held trace's size); else -1 with one line. */
int rl_workload_check(const struct rl_workload_params *p, char *err, size_t err_len);

/* Streams p's attempts into sink. -1 with one line in err for bad
 * parameters (as rl_workload_check) or ENOMEM; -1 with err untouched when
 * the sink stopped it. */
int rl_workload_stream(const struct rl_workload_params *p, const struct rl_attempt_sink *sink,
                       char *err, size_t err_len);

#endif
