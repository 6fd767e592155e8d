/* gbench_shim.cc — ratelab's limiters under Google Benchmark: a second,
 * independent measurement of acquire beside `ratelab stress` (README,
 * "Google Benchmark"). The only C++ in ratelab; built by `make gbench`.
 *
 * One benchmark per algorithm of the registry that runs in this process and
 * is thread-safe, at 1 to 2 × online CPUs threads, timed in real time. Every
 * thread of a run calls acquire(state, clock, 0, 1) on one shared limiter,
 * configured as `ratelab stress` configures it (rl_cli_limiter_defaults:
 * L = 1000 per 100 ms), through its own monotonic clock handle.
 *
 * Reading the numbers: Google Benchmark divides each thread's mean timed
 * span by the iterations of all threads, so with T threads its time per
 * iteration is stress's ns/op (one call's time on one thread) divided by T.
 * At one thread the two are the same measurement.
 */

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

/* cli.h declares its exits _Noreturn, a C11 keyword C++ spells [[noreturn]]. */
#define _Noreturn [[noreturn]]
extern "C" {
#include "harness/sys/cpus.h"
#include "algorithms/rl.h"
#include "harness/cli/cli.h"
#include "harness/sys/build_info.h"
#include "harness/sys/clock.h"
}
#undef _Noreturn

namespace
{

/* The clock every thread reads, as `ratelab stress` reads it by default. */
const char kClockName[] = "monotonic";

/* One benchmark's limiter. Thread 0 creates it before the timed loop and
 * destroys it after; Google Benchmark holds every thread at a barrier on
 * entering the loop and on leaving it, so the creation happens before any
 * thread's first call and the destruction after every thread's last. */
struct shared_limiter {
    const struct rl_algo *algo;
    struct rl_config cfg;
    void *state;   /* NULL outside a run, or when create failed */
    char err[256]; /* create's reason when it failed */
};

void run_acquire(benchmark::State &state, shared_limiter *shared)
{
    char err[256];
    struct rl_clock clock; /* this thread's own handle, as in stress */
    if (rl_clock_init(&clock, kClockName, err, sizeof err) != 0) {
        state.SkipWithError(err);
        return;
    }
    const struct rl_algo *algo = shared->algo;
    if (state.thread_index() == 0) {
        struct rl_config cfg = shared->cfg;
        cfg.epoch_ns = clock.read(&clock); /* as stress: the run's t = 0 is its creation */
        shared->state = algo->create(&cfg, shared->err, sizeof shared->err);
        if (shared->state == nullptr) {
            state.SkipWithError(shared->err);
            return; /* the other threads find no limiter and stop too */
        }
    }
    const bool needs_release = (algo->flags & RL_NEEDS_RELEASE) != 0;
    uint64_t decisions[3] = {0, 0, 0}; /* by enum rl_decision */
    for (auto _ : state) {
        /* Read on every call, as stress reads its shared state: only past
         * the start barrier is thread 0's store certainly visible. */
        void *limiter = shared->state;
        if (__builtin_expect(limiter == nullptr, 0)) {
            state.SkipWithError("thread 0 could not create the limiter");
            break;
        }
        enum rl_decision d = algo->acquire(limiter, &clock, 0, 1);
        decisions[d]++;
        if (d == RL_ADMIT && needs_release) /* stress with --hold 0: release at once */
            algo->release(limiter, &clock, 0, 1);
    }
    if (state.thread_index() == 0 && shared->state != nullptr) {
        algo->destroy(shared->state);
        shared->state = nullptr;
    }
    /* Summed over threads; an error (never expected in process) counts as
     * a reject, stress's fail-closed default. */
    using benchmark::Counter;
    state.counters["admits"] = Counter(static_cast<double>(decisions[RL_ADMIT]));
    state.counters["rejects"] =
        Counter(static_cast<double>(decisions[RL_REJECT] + decisions[RL_ERROR]));
    state.counters["errors"] = Counter(static_cast<double>(decisions[RL_ERROR]));
    state.counters["clock_reads_per_op"] =
        Counter(static_cast<double>(clock.reads), Counter::kAvgIterations);
}

std::string format_u64(uint64_t value)
{
    return std::to_string(static_cast<unsigned long long>(value));
}

void *do_nothing(void *arg)
{
    return arg;
}

/* While a process has never started a thread, glibc (2.36 here) takes and
 * releases an uncontended mutex with plain stores instead of lock cmpxchg
 * and xchg (__libc_single_threaded). One-thread benchmarks run on the main
 * thread, so without this a mutex limiter costs 2-3 ns less when nothing
 * threaded ran before it in the same process, and less than in `ratelab
 * stress`, whose workers are always threads. */
bool leave_single_threaded_mode()
{
    pthread_t thread;
    if (pthread_create(&thread, nullptr, do_nothing, nullptr) != 0)
        return false;
    pthread_join(thread, nullptr);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    /* --single-threaded-process keeps glibc's single-thread fast paths, to
     * measure what they are worth (docs/gbench.md). */
    bool single_threaded = false;
    for (int i = 1; i < argc; i++)
        if (std::strcmp(argv[i], "--single-threaded-process") == 0) {
            single_threaded = true;
            for (int j = i; j < argc; j++)
                argv[j] = argv[j + 1]; /* argv[argc] is NULL */
            argc--;
            break;
        }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;
    if (!single_threaded && !leave_single_threaded_mode()) {
        std::fprintf(stderr, "ratelab-gbench: cannot start a thread\n");
        return 1;
    }

    struct rl_config cfg;
    rl_cli_limiter_defaults(&cfg);
    int most_threads = 2 * static_cast<int>(rl_cpu_count());

    /* Remote algorithms need a Redis server, and the others that are not
     * thread-safe cannot share one limiter: both are left out, and said so. */
    std::vector<std::unique_ptr<shared_limiter>> limiters; /* outlive the runs */
    std::string remote, unsafe, failed;
    auto add = [](std::string &list, const std::string &item) {
        list += (list.empty() ? "" : ", ") + item;
    };
    for (const struct rl_algo *const *a = rl_registry; *a; a++) {
        const struct rl_algo *algo = *a;
        if (algo->flags & RL_REMOTE) {
            add(remote, algo->name);
            continue;
        }
        if (!(algo->flags & RL_THREAD_SAFE)) {
            add(unsafe, algo->name);
            continue;
        }
        /* Probe the configuration once, as stress does, so a refusal is a
         * line here rather than an error row per thread count. */
        char err[256];
        void *probe = algo->create(&cfg, err, sizeof err);
        if (probe == nullptr) {
            add(failed, std::string(algo->name) + " (" + err + ")");
            continue;
        }
        algo->destroy(probe);
        limiters.emplace_back(new shared_limiter{algo, cfg, nullptr, {0}});
        benchmark::RegisterBenchmark(algo->name, run_acquire, limiters.back().get())
            ->ThreadRange(1, most_threads)
            ->UseRealTime();
    }
    if (!remote.empty())
        std::fprintf(stderr, "ratelab-gbench: left out, remote (they need a Redis server): %s\n",
                     remote.c_str());
    if (!unsafe.empty())
        std::fprintf(stderr, "ratelab-gbench: left out, not thread-safe: %s\n", unsafe.c_str());
    if (!failed.empty())
        std::fprintf(stderr, "ratelab-gbench: left out, create failed: %s\n", failed.c_str());

    struct rl_context ctx;
    rl_context_init(&ctx);
    benchmark::AddCustomContext("ratelab_limit", format_u64(cfg.limit));
    benchmark::AddCustomContext("ratelab_interval_ns", format_u64(cfg.interval_ns));
    benchmark::AddCustomContext("ratelab_clock", kClockName);
    benchmark::AddCustomContext("ratelab_git_rev", ctx.git_rev);
    benchmark::AddCustomContext("ratelab_cflags", ctx.cflags);
    benchmark::AddCustomContext("ratelab_allocator", ctx.allocator);
    benchmark::AddCustomContext("ratelab_process",
                                single_threaded ? "single-threaded" : "threaded");

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
