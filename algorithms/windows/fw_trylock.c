/* fw_trylock.c — Linux's ___ratelimit (lib/ratelimit.c) as it behaves: a
 * fixed window that starts at the first attempt after the previous one
 * expired (as fw_expiry's, but expiring one tick later), and a lock that is
 * only ever tried.
 *
 * Promise: window.
 *
 * State: the trylock, the window's start and the cost admitted in it.
 *
 * Decision: when another caller holds the lock, the attempt is rejected at
 * once — the kernel returns 0, "suppress", rather than spin in a path that
 * may run with interrupts off. The kernel's semantics (v6.1), kept:
 *   - the lock is taken with a trylock; failing it rejects and records
 *     nothing (the attempt is not even counted as missed);
 *   - the first call starts the window (rs->begin was 0; here a flag, as
 *     a 64-bit kernel's jiffies, starting at INITIAL_JIFFIES, never reads 0);
 *   - the window restarts when time_is_before_jiffies(begin + interval),
 *     i.e. now − begin > I, strictly: the kernel's window is [begin,
 *     begin + interval] in jiffies, inclusive, one tick longer than I.
 *     Here the tick is 1 ns, so at times that are whole jiffies this
 *     decides as the kernel does, attempt by attempt (fw_expiry restarts
 *     at ≥ I: one tick earlier);
 *   - every call that gets the lock may restart the window, admitted or
 *     not; a rejected call changes nothing else (the kernel counts it in
 *     rs->missed, for its "callbacks suppressed" message only);
 *   - within the window at most burst calls pass: L is the burst. The
 *     kernel has no cost; here an attempt of cost n passes whole when
 *     used + n ≤ L, which is the kernel's rule at n = 1.
 * The clock is read after the lock is taken, as the kernel reads jiffies
 * inside it, so a contended attempt does not look at the time at all.
 * Checked against the kernel's own code by tests/conformance/linux.
 *
 * Memory orders: acquire/release: the trylock is an acquire exchange, its
 * unlock a release store that publishes the window to the next holder.
 *
 * Races accepted: contention rejects, which are false rejects: the window
 * may have had room. Measured with a limit no run reaches, so that every
 * reject is one (`ratelab stress --algo fw_trylock --threads 1,2 --limit
 * 4294967295 --interval 3600s --reps 5`, 2 cores): none at 1 thread,
 * 69–93% of attempts at 2 threads in a closed loop. At L = 1000 per 100 ms
 * the windows still fill (attempts outnumber L ten-thousandfold), so the
 * loss shows as wasted attempts, not as lower utilization.
 *
 * Sources: Linux v6.1, lib/ratelimit.c (___ratelimit),
 * https://elixir.bootlin.com/linux/v6.1/source/lib/ratelimit.c.
 */
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct fw_trylock_state {
    _Alignas(RL_CACHE_LINE) _Atomic bool busy; /* the trylock: true while held */
    bool started;
    uint64_t begin_ns; /* start of the current window */
    uint64_t used;     /* admitted cost in it */
    uint64_t limit;
    uint64_t interval_ns;
};

/* Not started, lock free. NULL with a reason in err on ENOMEM. */
static void *fw_trylock_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    struct fw_trylock_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->busy, false);
    s->limit = cfg->limit;
    s->interval_ns = cfg->interval_ns;
    return s;
}

/* Rejects when the lock is held by another caller; otherwise decides as
 * the kernel does (file comment). Every call that gets the lock may start a
 * window, as every kernel call does, even one with n > L that it then
 * rejects (so it matches fw_expiry's rule). Never errs. */
static enum rl_decision fw_trylock_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    (void)key;
    struct fw_trylock_state *s = state;
    /* acquire: on success we see the window as the last holder left it
     * (pairs with the release store below). A failed try reads nothing. */
    if (atomic_exchange_explicit(&s->busy, true, memory_order_acquire))
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    if (!s->started) {
        s->started = true;
        s->begin_ns = now;
    }
    /* A time before begin (a clock that went back) stays in this window. */
    if (now > s->begin_ns && now - s->begin_ns > s->interval_ns) {
        s->begin_ns = now;
        s->used = 0;
    }
    bool admit = n <= s->limit - s->used;
    if (admit)
        s->used += n;
    /* release: publishes begin/used to the next holder. */
    atomic_store_explicit(&s->busy, false, memory_order_release);
    return admit ? RL_ADMIT : RL_REJECT;
}

/* The checker's copy (rl_algo.snapshot): whether started, the window's
 * start and the cost admitted in it. */
static size_t fw_trylock_snapshot(const void *state, void *buf, size_t cap)
{
    const struct fw_trylock_state *s = state;
    uint64_t w[3] = {s->started, s->started ? s->begin_ns : 0, s->used};
    return rl_snapshot_words(buf, cap, w, sizeof w / sizeof *w);
}

static int fw_trylock_restore(void *state, const void *buf, size_t len)
{
    struct fw_trylock_state *s = state;
    uint64_t w[3];
    if (!rl_restore_words(buf, len, w, sizeof w / sizeof *w))
        return -1;
    s->started = w[0] != 0;
    s->begin_ns = w[1];
    s->used = w[2];
    return 0;
}

const struct rl_algo rl_fw_trylock_algo = {
    .name = "fw_trylock",
    .family = "fixed_window",
    .summary = "Linux ___ratelimit: new window once now - begin > I (strictly), trylock rejects",
    .promise = RL_PROMISE_WINDOW,
    .flags = RL_THREAD_SAFE,
    .orders = "acquire/release",
    .create = fw_trylock_create,
    .destroy = free,
    .acquire = fw_trylock_acquire,
    .snapshot = fw_trylock_snapshot,
    .restore = fw_trylock_restore,
};
