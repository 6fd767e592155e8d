/* leaky_nginx.c — a leaky-bucket meter as nginx's limit_req keeps it, under
 * a mutex.
 *
 * Promise: approx. The meter holds its rate over long runs, but the ms
 * clock grants a whole ms of drain to a request that may follow the last
 * one by 1 ns, and its burst counts beyond the first request, so admits in
 * a window of I can exceed the B + L that `bucket` promises (with
 * B = cfg->burst); it also admits far less than L/I above 1000 r/s.
 *
 * State, as nginx's implementation keeps it (described here, not copied):
 * per key, `excess` in thousandths of a request and `last`, the time of the
 * last passed request on nginx's millisecond clock. The rate is an integer
 * in thousandths of a request per second (rate=1r/s is 1000, 30r/m is 500).
 *
 * Decision: documented semantics: the limit is done "using the leaky
 * bucket method"; limit_req_zone sets the rate in requests per second (r/s)
 * or per minute (r/m); limit_req's burst= is "the maximum burst size of
 * requests": excessive requests are delayed "until their number exceeds the
 * maximum burst size in which case the request is terminated with an
 * error", and burst defaults to zero; with nodelay the excessive requests
 * within the burst pass at once. An admit/reject limiter decides what
 * `burst=b nodelay` decides (without nodelay nginx admits the same
 * requests, only later). A request at ms computes
 *
 *   excess' = excess − rate·(ms − last)/1000 + 1000     (integer division)
 *
 * clamped at 0, and is refused when excess' > burst·1000; otherwise excess
 * becomes excess' and last becomes ms. A refused request changes nothing.
 * A key seen for the first time passes with excess 0, so a fresh key
 * passes burst + 1 requests at once (the first at excess 0, then b more,
 * each adding 1000, up to b·1000).
 *
 * Consequences reproduced here (tests show both with exact numbers):
 *  - The drain is counted in whole ms ticks: with burst 0, a second request
 *    in the same ms tick has excess 1000 > 0 and is refused whatever the
 *    rate, so a rate far above 1000/s is capped at one request per ms.
 *  - rate·ms/1000 truncates, and `last` moves on at every pass, so the
 *    remainder is lost on each pass: a low rate driven hard admits a
 *    little less than it says.
 *
 * Mapping from (L, I): rate = ⌊L·10^12 / I⌋ thousandths per second (nginx's
 * own r/m → rate conversion truncates the same way); ms = now_ns / 10^6 on
 * the clock's own timeline, as nginx's cached ms time. burst here means
 * nginx's burst= (requests beyond the first), taken from cfg->burst; when
 * that is 0 (unset) it is nginx's default, 0 — not L, as for the buckets.
 *
 * Choices where nginx has none:
 *  - Cost n > 1 (nginx sees single requests): n requests arriving in the
 *    same ms, admitted all or none. The first drains as above, the other
 *    n − 1 add 1000 each (no time passes between them), so
 *    excess' = max(0, excess − drain + 1000) + (n − 1)·1000; a fresh key
 *    takes (n − 1)·1000. n > burst + 1 can never pass and is refused before
 *    the clock is read. n = 0 passes and changes nothing.
 *  - Time going backwards drains nothing and does not move `last` back.
 *    (nginx counts a jump back of up to 60 s as no time and a longer one as
 *    1 ms; we never drain on a backward read.)
 *  - nginx forgets keys idle for 60 s; sim keeps one meter per key forever.
 *
 * Memory orders: mutex.
 *
 * Races accepted: none (the clock is read under the lock: reads come in
 * lock order).
 *
 * Sources: nginx, module ngx_http_limit_req_module,
 * https://nginx.org/en/docs/http/ngx_http_limit_req_module.html, and its
 * implementation's arithmetic (src/http/modules/ngx_http_limit_req_module.c).
 */
#include "tb_ticks.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define NGX_MILLI 1000u    /* thousandths of a request per request */
#define NS_PER_MS 1000000u /* nginx's clock ticks in ms */

struct leaky_nginx_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock;
    bool seen;        /* the key's meter exists (nginx: its node) */
    uint64_t excess;  /* thousandths of a request, ≤ burst_milli */
    uint64_t last_ms; /* ms of the last passed request; only moves forward */
    uint64_t rate;    /* thousandths of a request per second */
    uint64_t burst;   /* nginx's burst= */
    uint64_t burst_milli;
};

/* Creates a meter for a key not seen yet. NULL with a reason in err for a
 * zero limit or interval, a rate under one thousandth per second or over
 * 2^64 − 1 thousandths, a burst over 2^32 − 1, or ENOMEM. */
static void *leaky_nginx_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->limit == 0 || cfg->interval_ns == 0) {
        snprintf(err, err_len, "leaky_nginx: limit and interval must be at least 1");
        return NULL;
    }
    rl_u128 rate = (rl_u128)cfg->limit * 1000000000000ull / cfg->interval_ns;
    if (rate == 0 || rate > UINT64_MAX) {
        snprintf(err, err_len,
                 "leaky_nginx: nginx keeps the rate in thousandths of a request per second; "
                 "L per I gives %s, outside 1..2^64-1",
                 rate == 0 ? "0" : "more than 2^64-1");
        return NULL;
    }
    if (cfg->burst > UINT32_MAX) {
        snprintf(err, err_len, "leaky_nginx: burst must be at most %u", UINT32_MAX);
        return NULL;
    }
    struct leaky_nginx_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->seen = false;
    s->rate = (uint64_t)rate;
    s->burst = cfg->burst;
    s->burst_milli = cfg->burst * NGX_MILLI;
    return s;
}

static void leaky_nginx_destroy(void *state)
{
    struct leaky_nginx_state *s = state;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Passes n requests at once when the meter's excess after them stays within
 * burst·1000 (see the file comment); a refused attempt changes nothing.
 * Never fails; one clock read, none for n > burst + 1. */
static enum rl_decision leaky_nginx_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                            uint64_t n)
{
    (void)key;
    struct leaky_nginx_state *s = state;
    if (n == 0)
        return RL_ADMIT; /* costs nothing, changes nothing */
    if (n > s->burst + 1)
        return RL_REJECT; /* can never pass: see the file comment */
    pthread_mutex_lock(&s->lock);
    uint64_t ms = rl_clock_now(clock) / NS_PER_MS;
    uint64_t rest = (n - 1) * NGX_MILLI; /* ≤ burst·1000 < 2^42 */
    uint64_t excess = rest;
    if (s->seen) {
        uint64_t elapsed = ms > s->last_ms ? ms - s->last_ms : 0;
        rl_u128 drain = (rl_u128)s->rate * elapsed / NGX_MILLI;
        uint64_t level = s->excess + NGX_MILLI; /* this request's own thousand */
        excess += drain >= level ? 0 : level - (uint64_t)drain;
    }
    enum rl_decision d = RL_REJECT;
    if (excess <= s->burst_milli) {
        s->excess = excess;
        if (!s->seen || ms > s->last_ms)
            s->last_ms = ms;
        s->seen = true;
        d = RL_ADMIT;
    }
    pthread_mutex_unlock(&s->lock);
    return d;
}

const struct rl_algo rl_leaky_nginx_algo = {
    .name = "leaky_nginx",
    .family = "leaky_bucket",
    .summary = "nginx limit_req meter: excess in 1/1000 on a ms clock; --burst = nginx burst= (0)",
    .promise = RL_PROMISE_APPROX,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .create = leaky_nginx_create,
    .destroy = leaky_nginx_destroy,
    .acquire = leaky_nginx_acquire,
};
