/* test_stress_recorder.c — the recorder's certainty interval, checked
 * against the truth (run again under ThreadSanitizer by `make test`).
 *
 * A spy algorithm wraps a real one: each acquire notes the time on the
 * run's unskewed source as it enters and as it leaves, and every time the
 * wrapped limiter reads its clock. For every admit the recorder logged, all
 * of those must lie in [stamp − gap, stamp]: the decision, whether it read
 * the clock or not, happened inside that interval (stress.c says why it
 * must). The spy's reads are stamp reads (harness/sys/stamp.h), ordered as
 * the recorder's are, so the comparison is exact, not within a tolerance.
 */
#include "tests/support/test_util.h"
#include "harness/run/stress.h"
#include "harness/sys/clock.h"
#include "harness/sys/stamp.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 4
#define SPY_CAP     (1u << 18) /* admits noted per thread; the recorder keeps as many */

/* What one admit's call saw, on the unskewed source. */
struct spy_note {
    uint64_t enter, leave; /* the spy's reads around the wrapped acquire */
    uint64_t first, last;  /* the wrapped limiter's own reads, if any */
    bool read;             /* the limiter read its clock in this call */
};

struct spy_thread {
    struct spy_note *notes;
    size_t len;
};

static struct {
    const struct rl_algo *inner;
    uint64_t epoch_ns;
    struct spy_thread threads[MAX_THREADS];
    _Atomic unsigned claimed; /* each worker thread claims one slot at its first admit */
} spy;

/* Per thread: its slot, and the call in progress. */
static _Thread_local struct spy_thread *spy_mine;
static _Thread_local struct {
    uint64_t (*source_read)(struct rl_clock *);
    uint64_t first, last;
    bool read;
} spy_call;

static void *spy_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    spy.epoch_ns = cfg->epoch_ns;
    return spy.inner->create(cfg, err, err_len);
}

static void spy_destroy(void *state)
{
    spy.inner->destroy(state);
}

/* The wrapped limiter's reader: the source's value (skewed, as the limiter
 * must see it), noted without the skew. */
static uint64_t spy_read(struct rl_clock *self)
{
    uint64_t seen = spy_call.source_read(self);
    uint64_t t = seen - (uint64_t)rl_clock_state(self)->skew_ns;
    if (!spy_call.read)
        spy_call.first = t;
    spy_call.last = t;
    spy_call.read = true;
    return seen;
}

static enum rl_decision spy_acquire(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    struct rl_stamp_clock truth;
    rl_stamp_clock_init(&truth, clock);
    struct rl_clock watched = *clock;
    watched.read = spy_read;
    spy_call.source_read = clock->read;
    spy_call.read = false;
    uint64_t enter = rl_stamp_now(&truth);
    enum rl_decision d = spy.inner->acquire(state, &watched, key, n);
    uint64_t leave = rl_stamp_now(&truth);
    clock->reads = watched.reads;
    if (d != RL_ADMIT)
        return d;
    if (spy_mine == NULL) {
        unsigned slot = atomic_fetch_add_explicit(&spy.claimed, 1, memory_order_relaxed);
        if (slot >= MAX_THREADS)
            abort(); /* the test runs at most MAX_THREADS workers */
        spy_mine = &spy.threads[slot];
    }
    if (spy_mine->len < SPY_CAP)
        spy_mine->notes[spy_mine->len++] = (struct spy_note){
            .enter = enter,
            .leave = leave,
            .first = spy_call.first,
            .last = spy_call.last,
            .read = spy_call.read,
        };
    return d;
}

static void spy_release(void *state, struct rl_clock *clock, uint64_t key, uint64_t n)
{
    spy.inner->release(state, clock, key, n);
}

static struct rl_algo spy_algo = {
    .name = "spy",
    .family = "baseline",
    .summary = "a test's wrapper: notes the times each admit saw",
    .promise = RL_PROMISE_NONE,
    .orders = "none",
    .create = spy_create,
    .destroy = spy_destroy,
    .acquire = spy_acquire,
};

/* Whether note lies in the certainty interval of event e. */
static bool inside(const struct rl_event *e, const struct spy_note *note)
{
    uint64_t stamp = spy.epoch_ns + e->t_ns, earliest = stamp - e->gap_ns;
    bool calls = earliest <= note->enter && note->enter <= note->leave && note->leave <= stamp;
    bool reads = !note->read || (note->enter <= note->first && note->first <= note->last &&
                                 note->last <= note->leave);
    return calls && reads;
}

/* Whether the spy's slot holds thread's recorded admits in order; *bad is
 * the first not inside its interval. Both keep the first SPY_CAP a thread
 * admits, so a full buffer keeps the same prefix in each. */
static bool slot_matches(const struct spy_thread *slot, const struct rl_event_log *log,
                         unsigned thread, size_t *bad)
{
    size_t k = 0;
    *bad = SIZE_MAX;
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *e = &log->events[i];
        if (e->thread != thread)
            continue;
        if (k >= slot->len)
            return false;
        if (!inside(e, &slot->notes[k]) && *bad == SIZE_MAX)
            *bad = k;
        k++;
    }
    return k == slot->len;
}

/* Whether slots s.. can each be given a distinct unused thread they fit.
 * Slots are claimed in the order threads first admit, not by thread index,
 * and two threads with as many admits at the same moments can both fit one
 * slot, so a greedy first fit could pair a slot with the wrong thread; at
 * most MAX_THREADS! tries. */
static bool assign(bool fits[MAX_THREADS][MAX_THREADS], unsigned slots, unsigned threads,
                   unsigned s, bool used[MAX_THREADS])
{
    if (s == slots)
        return true;
    for (unsigned t = 0; t < threads; t++)
        if (!used[t] && fits[s][t]) {
            used[t] = true;
            if (assign(fits, slots, threads, s + 1, used))
                return true;
            used[t] = false;
        }
    return false;
}

struct spy_run {
    const char *algo, *clock;
    unsigned threads;
    uint64_t limit, interval_ns, duration_ns, hold_ns, skew_ns;
};

/* Whether this machine's CPU flags promise an invariant TSC (x86-64 with
 * constant_tsc and nonstop_tsc in /proc/cpuinfo), read here apart from
 * clock.c's own check: where they do, --clock tsc must work. */
static bool invariant_tsc_here(void)
{
#if defined(__x86_64__)
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    char line[4096];
    bool constant = false, nonstop = false;
    while (cpuinfo && fgets(line, sizeof line, cpuinfo))
        if (strncmp(line, "flags", 5) == 0) {
            constant = strstr(line, " constant_tsc") != NULL;
            nonstop = strstr(line, " nonstop_tsc") != NULL;
            break;
        }
    if (cpuinfo)
        fclose(cpuinfo);
    return constant && nonstop;
#else
    return false;
#endif
}

/* Runs the spy around run->algo, recorded, and checks every admit. Returns
 * false when the clock is not available here (tsc on a machine without an
 * invariant TSC), after saying so; tsc failing where the CPU promises an
 * invariant TSC is a failure. */
static bool check_run(const struct spy_run *run)
{
    spy.inner = rl_registry_find(run->algo);
    EXPECT_FATAL(spy.inner != NULL, "no algorithm %s", run->algo);
    spy_algo.flags = spy.inner->flags;
    spy_algo.release = spy.inner->release ? spy_release : NULL;
    atomic_store(&spy.claimed, 0);
    for (unsigned t = 0; t < MAX_THREADS; t++) {
        spy.threads[t].len = 0;
        spy.threads[t].notes = malloc(SPY_CAP * sizeof *spy.threads[t].notes);
        EXPECT_FATAL(spy.threads[t].notes != NULL, "out of memory");
    }
    struct rl_stress_params params = {
        .algo = &spy_algo,
        .cfg = {.limit = run->limit, .interval_ns = run->interval_ns},
        .threads = run->threads,
        .duration_ns = run->duration_ns,
        .clock = run->clock,
        .record = true,
        .record_capacity = SPY_CAP,
        .hold_ns = run->hold_ns,
        .client_skew_ns = run->skew_ns,
    };
    struct rl_stress_outcome out;
    char err[256];
    bool ran = rl_stress_run(&params, &out, err, sizeof err) == 0;
    if (!ran && strcmp(run->clock, "tsc") == 0 && !invariant_tsc_here()) {
        printf("\n  skipped: clock tsc, no invariant TSC here: %s\n", err);
        for (unsigned t = 0; t < MAX_THREADS; t++)
            free(spy.threads[t].notes);
        return false;
    }
    EXPECT_FATAL(ran, "%s on clock %s: %s", run->algo, run->clock, err);

    char what[160];
    snprintf(what, sizeof what, "%s x%u clock %s L=%llu", run->algo, run->threads, run->clock,
             (unsigned long long)run->limit);
    unsigned slots = atomic_load(&spy.claimed);
    EXPECT(out.log.len > 0, "%s: nothing admitted", what);
    EXPECT(slots <= run->threads, "%s: %u slots for %u threads", what, slots, run->threads);
    size_t noted = 0;
    for (unsigned s = 0; s < slots && s < MAX_THREADS; s++)
        noted += spy.threads[s].len;
    if (out.log.dropped == 0)
        EXPECT(noted == out.admits, "%s: spy noted %zu, %llu admits", what, noted,
               (unsigned long long)out.admits);
    bool fits[MAX_THREADS][MAX_THREADS] = {{false}}; /* [slot][thread] */
    for (unsigned s = 0; s < slots && s < MAX_THREADS; s++)
        for (unsigned t = 0; t < run->threads; t++) {
            size_t bad;
            fits[s][t] = slot_matches(&spy.threads[s], &out.log, t, &bad) && bad == SIZE_MAX;
        }
    bool used[MAX_THREADS] = {false};
    EXPECT(assign(fits, slots < MAX_THREADS ? slots : MAX_THREADS, run->threads, 0, used),
           "%s: no way to give each of the %u spy slots its own thread whose recorded admits "
           "hold all its notes",
           what, slots);
    rl_event_log_free(&out.log);
    for (unsigned t = 0; t < MAX_THREADS; t++)
        free(spy.threads[t].notes);
    return true;
}

/* Overload: nearly every call a reject, so most admits follow a batch of
 * rejects the recorder did not stamp. Short windows make many such admits. */
static void test_reject_path(void)
{
    static const char *const algos[] = {"fw_cas", "tb_cas", "sliding_log", "fw_aligned", "faa"};
    for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
        for (unsigned threads = 1; threads <= 2; threads++)
            check_run(&(struct spy_run){.algo = algos[a],
                                        .clock = "monotonic",
                                        .threads = threads,
                                        .limit = 20,
                                        .interval_ns = 500000u,
                                        .duration_ns = 50000000u});
}

/* Every call an admit: each stamp is the next call's lower bound. */
static void test_admit_path(void)
{
    static const char *const algos[] = {"fw_cas", "tb_cas", "faa"};
    for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
        check_run(&(struct spy_run){.algo = algos[a],
                                    .clock = "monotonic",
                                    .threads = 2,
                                    .limit = 1000000000u,
                                    .interval_ns = 1000000000u,
                                    .duration_ns = 5000000u});
}

/* The other sources: coarse (a kernel-tick clock, many equal stamps) and
 * tsc (fenced stamps), where this machine has an invariant TSC. */
static void test_other_clocks(void)
{
    static const char *const clocks[] = {"coarse", "tsc"};
    for (size_t c = 0; c < 2; c++)
        for (unsigned threads = 1; threads <= 2; threads++)
            check_run(&(struct spy_run){.algo = "tb_cas",
                                        .clock = clocks[c],
                                        .threads = threads,
                                        .limit = 20,
                                        .interval_ns = 500000u,
                                        .duration_ns = 30000000u});
}

/* Clients whose clocks are off by ±1 ms: stamps stay on the true time. */
static void test_client_skew(void)
{
    check_run(&(struct spy_run){.algo = "tb_cas",
                                .clock = "monotonic",
                                .threads = 2,
                                .limit = 20,
                                .interval_ns = 500000u,
                                .duration_ns = 30000000u,
                                .skew_ns = 1000000u});
}

/* A limiter that needs release: the hold between an admit and the next
 * call stays outside that call's interval, and inside is still sound. */
static void test_held_permits(void)
{
    check_run(&(struct spy_run){.algo = "concurrency",
                                .clock = "monotonic",
                                .threads = 2,
                                .limit = 1,
                                .interval_ns = 1000000u,
                                .duration_ns = 30000000u,
                                .hold_ns = 2000});
}

RL_TEST_SUITE("stress_recorder",
              {"admits after unstamped rejects lie in their intervals", test_reject_path},
              {"back-to-back admits lie in their intervals", test_admit_path},
              {"coarse and tsc stamps bound their decisions", test_other_clocks},
              {"stamps drop a client's skew and still bound its decisions", test_client_skew},
              {"held permits: every admit lies in its interval", test_held_permits})
