/* nginx_delay.c — nginx's limit_req with `burst=B delay=D` as a shaper:
 * the first D requests of a burst pass at once, the rest up to the burst
 * are delayed until the meter has drained to D, and beyond the burst they
 * are rejected.
 *
 * Promise: approx, as leaky_nginx (the same meter): its ms clock and
 * whole-request burst let more than B + L pass in a window of I, and a
 * delayed request is released on the meter's ms ticks, not at its exact
 * conforming time.
 *
 * State: leaky_nginx's meter, as nginx keeps it per key: `excess` in
 * thousandths of a request and `last`, the ms of the last passed or
 * delayed request, on nginx's millisecond clock; the rate in thousandths of
 * a request per second.
 *
 * Decision: documented semantics (ngx_http_limit_req_module): requests
 * beyond the rate are delayed "until their number exceeds the maximum
 * burst size in which case the request is terminated with an error";
 * `delay=` (since 1.15.7) "specifies a limit at which excessive requests
 * become delayed", default 0 (every excessive request delayed); `nodelay`
 * is a delay as large as the burst. A request at ms computes, as
 * leaky_nginx,
 *
 *   excess' = max(0, excess − rate·(ms − last)/1000 + 1000)  (integer division)
 *
 * and is rejected when excess' > B·1000, changing nothing. Otherwise the
 * meter takes excess' and ms at once (at arrival, not at release), and the
 * request waits (excess' − D·1000)·1000/rate ms (truncated) when excess' >
 * D·1000, else nothing: the timer nginx arms at ms + delay, so the release
 * is (ms + delay)·10^6 ns on the clock's timeline, or the read itself for no
 * delay. A fresh key passes at once with excess 0. With a max wait (ratelab's
 * tryAcquire; nginx has none) a delay past it is a reject that changes
 * nothing. acquire (ratelab's) is the max wait 0.
 *
 * Mapping from (L, I, B, S), as leaky_nginx: rate = ⌊L·10^12 / I⌋
 * thousandths per second, ms = now_ns / 10^6, B = nginx's burst= (0 when
 * unset: nginx's default); the delay D is --slots S (unset: nginx's default
 * delay 0; S ≥ B is nodelay). Cost n > 1 as leaky_nginx: n requests in one
 * ms, all or none, excess' + (n − 1)·1000; n > B + 1 is rejected before the
 * clock is read; n = 0 passes at once and changes nothing. Time going back
 * drains nothing and does not move `last` back.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none.
 *
 * Sources: nginx, module ngx_http_limit_req_module,
 * https://nginx.org/en/docs/http/ngx_http_limit_req_module.html (burst=,
 * delay=, nodelay), and its implementation's arithmetic
 * (src/http/modules/ngx_http_limit_req_module.c, 1.22: the delay
 * (excess − delay)·1000/rate ms of ngx_http_limit_req_account).
 */
#include "algorithms/buckets/tb_ticks.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define NGX_MILLI 1000u    /* thousandths of a request per request */
#define NS_PER_MS 1000000u /* nginx's clock ticks in ms */

struct nginx_delay_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    bool seen;        /* the key's meter exists (nginx: its node) */
    uint64_t excess;  /* thousandths of a request, ≤ burst_milli */
    uint64_t last_ms; /* ms of the last request that passed or waits */
    uint64_t rate;    /* thousandths of a request per second */
    uint64_t burst;   /* nginx's burst= */
    uint64_t burst_milli;
    uint64_t delay_milli; /* nginx's delay=, in thousandths */
};

static void *nginx_delay_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "nginx_delay: limit and interval must be at least 1");
        return NULL;
    }
    rl_u128 rate = (rl_u128)cfg->limit * 1000000000000ull / cfg->interval_ns;
    if (rate == 0 || rate > UINT64_MAX) {
        snprintf(err, err_len,
                 "nginx_delay: nginx keeps the rate in thousandths of a request per second; "
                 "L per I gives %s, outside 1..2^64-1",
                 rate == 0 ? "0" : "more than 2^64-1");
        return NULL;
    }
    if (cfg->burst > UINT32_MAX) {
        snprintf(err, err_len, "nginx_delay: burst must be at most %u", UINT32_MAX);
        return NULL;
    }
    struct nginx_delay_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->rate = (uint64_t)rate;
    s->burst = cfg->burst;
    s->burst_milli = cfg->burst * NGX_MILLI;
    s->delay_milli = (uint64_t)cfg->slots * NGX_MILLI; /* slots ≤ 2^32 − 1 */
    return s;
}

static void nginx_delay_destroy(void *state)
{
    struct nginx_delay_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static enum rl_decision nginx_delay_shape(void *state, struct rl_clock *clock, uint64_t key,
                                          uint64_t n, uint64_t max_wait_ns,
                                          struct rl_reservation *reservation)
{
    (void)key;
    struct nginx_delay_state *s = state;
    reservation->ticket = 0; /* no cancel */
    if (n == 0) {
        reservation->release_ns = rl_clock_now(clock);
        return RL_ADMIT; /* costs nothing, changes nothing */
    }
    if (n > s->burst + 1)
        return RL_REJECT; /* can never pass */
    uint64_t read = rl_clock_now(clock), ms = read / NS_PER_MS;
    uint64_t excess = (n - 1) * NGX_MILLI; /* ≤ burst·1000 < 2^42 */

    pthread_mutex_lock(&s->lock);
    if (s->seen) {
        uint64_t elapsed = ms > s->last_ms ? ms - s->last_ms : 0;
        rl_u128 drain = (rl_u128)s->rate * elapsed / NGX_MILLI;
        uint64_t level = s->excess + NGX_MILLI; /* this request's own thousand */
        excess += drain >= level ? 0 : level - (uint64_t)drain;
    }
    if (excess > s->burst_milli) {
        pthread_mutex_unlock(&s->lock);
        return RL_REJECT;
    }
    /* (excess − delay)·1000/rate ms: excess < 2^42, so the product fits */
    uint64_t delay_ms =
        excess > s->delay_milli ? (excess - s->delay_milli) * NGX_MILLI / s->rate : 0;
    uint64_t release = delay_ms ? (ms + delay_ms) * NS_PER_MS : read;
    if (release - read > max_wait_ns) {
        pthread_mutex_unlock(&s->lock);
        return RL_REJECT;
    }
    s->excess = excess;
    if (!s->seen || ms > s->last_ms)
        s->last_ms = ms;
    s->seen = true;
    pthread_mutex_unlock(&s->lock);
    reservation->release_ns = release;
    return RL_ADMIT;
}

static enum rl_decision nginx_delay_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                            uint64_t n)
{
    struct rl_reservation reservation;
    return nginx_delay_shape(state, clock, key, n, 0, &reservation);
}

const struct rl_algo rl_nginx_delay_algo = {
    .name = "nginx_delay",
    .family = "shaper",
    .summary = "nginx limit_req burst=B delay=S: first S of a burst at once, the rest delayed",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = nginx_delay_create,
    .destroy = nginx_delay_destroy,
    .acquire = nginx_delay_acquire,
    .shape = nginx_delay_shape,
};
