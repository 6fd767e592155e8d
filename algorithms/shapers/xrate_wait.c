/* xrate_wait.c — golang.org/x/time/rate's Limiter as a shaper: ReserveN
 * (a reservation the caller sleeps out, Reservation.DelayFrom), WaitN with
 * a deadline (the max wait), and Reservation.CancelAt, with the rules of
 * the version Debian packages (golang-golang-x-time-dev 0.3.0), computed
 * exactly.
 *
 * Promise: bucket. ReserveN is a token bucket of size B refilled at L per
 * I whose tokens may go negative; in exact arithmetic its timeToAct is
 * GCRA's virtual-scheduling release (gcra_spacer's), so releases stay
 * within B + L·u/I. A cancellation gives tokens back and may let later
 * callers go sooner, never more than the bucket's B at once.
 *
 * State, under a mutex as the Limiter's sync.Mutex: the bucket as the time
 * it is full again (TAT: tokens at t are B − (TAT − t)/T, negative while
 * reservations wait) and lastEvent, the timeToAct of the latest
 * reservation, both in exact 128-bit ticks (tb_ticks.h).
 *
 * Decision at t, cost n: n > B is refused and changes nothing (OK() false);
 * otherwise TAT' = max(t, TAT) + n·T and timeToAct = max(t, TAT' − B·T).
 * A wait (timeToAct − t, rounded up to a ns: never early) above the
 * caller's max wait is refused and changes nothing, as WaitN refuses a
 * reservation past its context's deadline; otherwise TAT and lastEvent are
 * written. No max wait is ReserveN; acquire is max wait 0, AllowN, and
 * decides as tb_mutex. The peer keeps tokens in a float64 and truncates
 * the wait to a whole ns (releases up to a ns early, waits a ns short of a
 * deadline admitted): rounding, which conformance brackets.
 *
 * Cancellation, CancelAt(t) as 0.3.0 implements it: nothing when n = 0 or
 * timeToAct is before t (at timeToAct itself it still gives back). The
 * tokens given back are n less what lastEvent − timeToAct would refill:
 * every token reserved after this reservation counts as kept, even by a
 * reservation cancelled since, whenever that cancellation could not move
 * lastEvent back; nothing when that is ≤ 0. The bucket gets them at t
 * (capped at B: TAT' = max(t, TAT − restored)), and when this reservation
 * was the latest, lastEvent moves back by n·T unless that falls before t.
 * The reservation keeps no record of a cancel, so cancelling it twice gives
 * back twice, as the peer does (the harness refuses a second cancel).
 *
 * Rate change, SetLimitAt(t, L') as 0.3.0 implements it: advance(t) at the
 * old limit (tokens at t, negative while reservations wait), then the new
 * limit from t with the same tokens and the same burst. Here: the debt
 * TAT − t in tokens is kept and TAT' = t + debt·T' (rounded up to a tick
 * of the new rate: never a token more than the exact rule). Reservations
 * already made keep their timeToAct: made at the old rate and released
 * after a drop, they go at the old spacing, which is how the package's
 * documentation says "the limit may be violated" by pending reservations
 * (check --promise shape --set-rate reports them). lastEvent is kept as a
 * time. A reservation made before a change is not cancelled after it
 * (the peer restores at the reservation's own limit; ratelab's harness
 * refuses a trace with both, and cancel's arithmetic here assumes one
 * rate).
 *
 * The issues this relates to: golang/go #52584 (a reservation that failed
 * changed the limiter's state; golang/time PR #22): 0.3.0's reserveN
 * writes nothing when OK() is false, as here. golang/go #56924 ("CancelAt returns less
 * than expected tokens") and #69419 ("wrong number of tokens restored in
 * Reservation.CancelAt") question the restore computed from lastEvent −
 * timeToAct, which 0.3.0 keeps: a reservation made partly from stored
 * tokens, cancelled after one made later was cancelled, gets back less
 * than it took (tests/algorithms/test_shapers_go.c and the conformance
 * driver's cancel table show it against the real package). ratelab follows
 * 0.3.0; whether a later release changed the rule is not checked here.
 *
 * Mapping: rate L per I (rate.Limit(L·1e9/I)), burst B (default L); the
 * bucket is full at the epoch, as a new Limiter is at its first use.
 * RL_ERROR when a reservation's timeToAct in ticks passes 2^64 (its
 * ticket), at more than 584 years / L' of waiting.
 *
 * Memory orders: mutex.
 *
 * Races accepted: a stale read is decided as of its own time (a bucket
 * refilled to then, never refunded for time past): the peer instead moves
 * its last update back to the stale time and refills that span again
 * (golang/go #71360), which conformance classifies as the peer's stale
 * time.
 *
 * Sources: golang.org/x/time/rate 0.3.0 (Debian), rate.go: reserveN,
 * advance, Reservation.DelayFrom and CancelAt, Limiter.WaitN and SetLimitAt; golang/go
 * issues #52584, #56924, #69419, #71360 (docs/references.md).
 */
#include "algorithms/buckets/tb_ticks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__extension__ typedef __int128 xrate_i128;

struct xrate_wait_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    rl_u128 tat;        /* ticks since the epoch when the bucket is full again */
    rl_u128 last_event; /* ticks since the epoch: the latest reservation's timeToAct */
    rl_u128 capacity;   /* B·I' ticks */
    uint64_t burst;
    uint64_t epoch_ns;
    struct tb_ticks ticks;
};

static void *xrate_wait_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "xrate_wait: limit and interval must be at least 1");
        return NULL;
    }
    struct xrate_wait_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->ticks = tb_ticks_of(cfg->limit, cfg->interval_ns);
    s->burst = rl_config_burst(cfg);
    s->capacity = (rl_u128)s->burst * s->ticks.per_token;
    s->epoch_ns = cfg->epoch_ns;
    return s;
}

static void xrate_wait_destroy(void *state)
{
    struct xrate_wait_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static enum rl_decision xrate_wait_shape(void *state, struct rl_clock *clock, uint64_t key,
                                         uint64_t n, uint64_t max_wait_ns,
                                         struct rl_reservation *reservation)
{
    (void)key;
    struct xrate_wait_state *s = state;
    if (n > s->burst)
        return RL_REJECT; /* OK() false: nothing written (#52584) */
    uint64_t read = rl_clock_now(clock);
    rl_u128 now = (rl_u128)tb_since_epoch(read, s->epoch_ns) * s->ticks.per_ns;
    rl_u128 cost = (rl_u128)n * s->ticks.per_token;

    pthread_mutex_lock(&s->lock);
    rl_u128 base = s->tat > now ? s->tat : now;
    rl_u128 next = base + cost;
    rl_u128 act = next - now > s->capacity ? next - s->capacity : now; /* timeToAct */
    rl_u128 wait_ticks = act - now;
    rl_u128 wait_ns = wait_ticks / s->ticks.per_ns + (wait_ticks % s->ticks.per_ns != 0);
    uint64_t from = read > s->epoch_ns ? read : s->epoch_ns;
    if (wait_ns > max_wait_ns) {
        pthread_mutex_unlock(&s->lock);
        return RL_REJECT;
    }
    if (act > UINT64_MAX || wait_ns > UINT64_MAX - from) {
        pthread_mutex_unlock(&s->lock);
        return RL_ERROR;
    }
    s->tat = next;
    s->last_event = act;
    pthread_mutex_unlock(&s->lock);
    reservation->release_ns = from + (uint64_t)wait_ns;
    reservation->ticket = (uint64_t)act;
    return RL_ADMIT;
}

static bool xrate_wait_cancel(void *state, struct rl_clock *clock, uint64_t key, uint64_t n,
                              const struct rl_reservation *reservation)
{
    (void)key;
    struct xrate_wait_state *s = state;
    if (n == 0 || n > s->burst)
        return false; /* r.tokens == 0, or never reserved */
    uint64_t read = rl_clock_now(clock);
    rl_u128 now = (rl_u128)tb_since_epoch(read, s->epoch_ns) * s->ticks.per_ns;
    rl_u128 act = reservation->ticket;
    if (act < now)
        return false; /* timeToAct before t */
    xrate_i128 cost = (xrate_i128)((rl_u128)n * s->ticks.per_token);

    pthread_mutex_lock(&s->lock);
    /* tokens reserved after this one, as the time they span past its timeToAct */
    xrate_i128 later = (xrate_i128)s->last_event - (xrate_i128)act;
    xrate_i128 restore = cost - later;
    if (restore <= 0) {
        pthread_mutex_unlock(&s->lock);
        return false;
    }
    /* tokens at t plus restore, at most B: the bucket full again sooner */
    s->tat = s->tat > now + (rl_u128)restore ? s->tat - (rl_u128)restore : now;
    if (act == s->last_event && act >= now + (rl_u128)cost)
        s->last_event = act - (rl_u128)cost; /* the event before it, unless already past */
    pthread_mutex_unlock(&s->lock);
    return true;
}

static bool xrate_wait_set_rate(void *state, struct rl_clock *clock, uint64_t limit,
                                uint64_t interval_ns)
{
    struct xrate_wait_state *s = state;
    struct tb_ticks to = tb_ticks_of(limit, interval_ns);
    uint64_t since = tb_since_epoch(rl_clock_now(clock), s->epoch_ns);
    rl_u128 now = (rl_u128)since * s->ticks.per_ns, now_to = (rl_u128)since * to.per_ns;

    pthread_mutex_lock(&s->lock);
    /* advance(t) at the old limit: the tokens at t, as the debt below full
     * (TAT − t, 0 when full); SetLimitAt keeps that many tokens */
    rl_u128 debt = s->tat > now ? s->tat - now : 0, debt_to, last_to;
    bool fits = tb_ticks_rescale(debt, s->ticks.per_token, to.per_token, true, &debt_to) &&
                tb_ticks_rescale(s->last_event, s->ticks.per_ns, to.per_ns, true, &last_to) &&
                debt_to <= ~(rl_u128)0 - now_to;
    if (fits) {
        s->tat = now_to + debt_to;
        s->last_event = last_to;
        s->capacity = (rl_u128)s->burst * to.per_token;
        s->ticks = to;
    }
    pthread_mutex_unlock(&s->lock);
    return fits;
}

static enum rl_decision xrate_wait_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                           uint64_t n)
{
    struct rl_reservation reservation;
    return xrate_wait_shape(state, clock, key, n, 0, &reservation);
}

const struct rl_algo rl_xrate_wait_algo = {
    .name = "xrate_wait",
    .family = "shaper",
    .summary = "x/time/rate ReserveN/WaitN with a deadline, CancelAt: tokens go negative",
    .promise = RL_PROMISE_BUCKET,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = xrate_wait_create,
    .destroy = xrate_wait_destroy,
    .acquire = xrate_wait_acquire,
    .shape = xrate_wait_shape,
    .cancel = xrate_wait_cancel,
    .set_rate = xrate_wait_set_rate,
};
