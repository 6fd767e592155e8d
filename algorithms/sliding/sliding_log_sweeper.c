/* sliding_log_sweeper.c — the .NET article's "pipeline" limiter as written:
 * a list of admit times of capacity L per limiter, admission = the list is
 * not full, and entries removed only by a sweeper on its own schedule.
 *
 * Promise: strong, as the article claims; it under-admits by design. Why
 * strong holds: an entry leaves only after ≥ 3·I ≥ I, so at every decision
 * all admits of (t − I, t] are still listed and counted, and at most L is
 * ever listed. Why it under-admits: under sustained overload the list
 * fills in the first instant and then admits only as sweeps free entries
 * 3·I later — about L per 3.1·I, a third of the ideal. Measured
 * (`ratelab sim --algo sliding_log_sweeper --workload W --duration 20s`,
 * L = 1000 per 100 ms): utilization 0.325 on uniform, poisson and flash at
 * the default 4× load and at 1×, and still 0.64–0.65 at 0.5× (`--rate
 * 5000`): its effective limit is about L/3 per I whatever the offered load.
 *
 * State: the list, as (time, cost) stamps with their sum (stamp_ring.h),
 * the newest time seen, and how it is swept.
 *
 * Decision, with the article's parameters read from its code (limit 10 per
 * second):
 *   - admission: CounterAdd(10, DateTime.Now) fails when Count ≥ 10; with
 *     cost n we admit when the listed cost + n ≤ L.
 *   - removal age: the sweeper drops an entry when
 *     DateTime.Now.AddSeconds(-3) > dt, i.e. when it is older than 3 s =
 *     3·I. We keep RL_SWEEPER_AGE_INTERVALS = 3 intervals, strictly older.
 *   - sweep period: its loop sleeps 100 ms only when the container is
 *     empty, and otherwise sweeps again at once. We sweep every I/10 (the
 *     100 ms at I = 1 s) always, so that a real sweeper thread does not spin
 *     on a core the stress threads need; the entries it keeps live between
 *     3·I and 3·I + I/10, where the article's live 3·I plus one pass.
 * Time is clamped to the newest time seen, as in sliding_log.c, so the list
 * stays in time order and a sweep looks only at its head. RL_ERROR only
 * when the list cannot grow.
 *
 * Who sweeps:
 *   - on a real clock, one background thread per sweep schedule in the
 *     whole process (sweeper_group.c), as the article has one sweeper per
 *     container of many pipelines: the thousands of per-key instances the
 *     keyed container makes share it, so any number of keys costs one
 *     thread. An instance joins on its first acquire (so a simulation's
 *     instances never do) the group of its schedule: the period P and
 *     that acquire's clock handle, whose behaviour (source, calibration,
 *     skew) the thread copies. Instances with different I but the same P
 *     share a thread; each is swept with its own age. The thread wakes at
 *     the instants k·P of the clock's timeline, reads the clock once, at
 *     w, and removes from every member the entries stamped before w − 3·I.
 *     Each member's newest time is raised to w in the same locked step, so
 *     every later decision there is at ≥ w: an entry leaves only once the
 *     limiter's own time is more than 3·I past it, and strong's argument
 *     holds as before. destroy leaves the group, which waits for a pass in
 *     progress, so the thread never touches a freed limiter; the last
 *     member to leave stops and joins the thread, so no thread outlives
 *     the limiters it sweeps (and a thread per schedule costs one start per
 *     time a schedule's members all go and come back).
 *   - on the virtual clock, which a thread cannot follow, acquire applies
 *     the sweeps whose scheduled instant s = epoch + k·P has passed, each
 *     removing entries older than s − 3·I. A later sweep removes a superset
 *     of an earlier one's, so applying only the latest is exact. Should the
 *     group's thread fail to start, the same lazy sweeping takes over.
 *
 * Memory orders: mutex: the limiter's own, and the sweeper group's, always
 * taken group first (see choose_mode).
 *
 * Races accepted: two first acquires may both try to join the group; the
 * second join is a no-op and the first mode written stays.
 *
 * Sources: the .NET article, "How does .Net simulate session-level
 * semaphores, limit the http interface call frequency",
 * http://www.cnblogs.com/1996V/p/8127576.html (its standalone version).
 */
#include "stamp_ring.h"
#include "sweeper_group.h"

#include "algorithms/rl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RL_SWEEPER_AGE_INTERVALS        3  /* the article's 3 s at a limit per 1 s */
#define RL_SWEEPER_PERIODS_PER_INTERVAL 10 /* the article's 100 ms at 1 s */

enum sweeper_mode {
    SWEEP_UNDECIDED, /* no acquire yet: the clock is not known */
    SWEEP_THREAD,    /* a real clock: the shared sweeper thread sweeps */
    SWEEP_LAZY,      /* the virtual clock (or no thread): acquire sweeps */
};

struct sweeper_state {
    _Alignas(RL_CACHE_LINE) pthread_mutex_t lock; /* guards everything below */
    struct rl_stamp_ring list;
    enum sweeper_mode mode;
    bool started;
    uint64_t newest_ns;
    uint64_t last_sweep; /* index k of the latest lazy sweep applied */
    uint64_t limit;
    uint64_t epoch_ns;
    uint64_t age_ns;    /* entries this old are removed: 3·I */
    uint64_t period_ns; /* sweeps every period: I/10 */
    /* In the shared sweeper's list: the group's lock guards it, not ours. */
    struct rl_sweeper_member member;
};

/* Creates an empty list, in no sweeper group yet. NULL with a reason in err
 * on bad config or ENOMEM. */
static void *sweeper_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > UINT64_MAX / RL_SWEEPER_AGE_INTERVALS) {
        snprintf(err, err_len, "sliding_log_sweeper keeps entries 3·I: interval too large");
        return NULL;
    }
    struct sweeper_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    size_t max_entries = cfg->limit < SIZE_MAX ? (size_t)cfg->limit : SIZE_MAX;
    if (rl_stamp_ring_init(&s->list, max_entries) != 0) {
        snprintf(err, err_len, "out of memory for a sweeper list");
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->limit = cfg->limit;
    s->epoch_ns = cfg->epoch_ns;
    s->age_ns = RL_SWEEPER_AGE_INTERVALS * cfg->interval_ns;
    s->period_ns = cfg->interval_ns / RL_SWEEPER_PERIODS_PER_INTERVAL;
    if (s->period_ns == 0)
        s->period_ns = 1;
    return s;
}

/* Removes every entry older than age_ns at time now_ns. Lock held. */
static void sweep_at(struct sweeper_state *s, uint64_t now_ns)
{
    if (now_ns > s->age_ns)
        rl_stamp_ring_drop_before(&s->list, now_ns - s->age_ns);
}

/* The shared sweeper's pass over this limiter, at now_ns on the group's
 * clock. Called by the group's thread with the group's lock held. */
static void sweep_member(void *owner, uint64_t now_ns)
{
    struct sweeper_state *s = owner;
    pthread_mutex_lock(&s->lock);
    /* The sweep joins the limiter's timeline: an acquire that read the
     * clock before this pass decides as of this pass's time, so it can
     * never count a window that reaches back to an entry swept here. */
    if (!s->started || now_ns > s->newest_ns)
        s->newest_ns = now_ns;
    s->started = true;
    sweep_at(s, now_ns);
    pthread_mutex_unlock(&s->lock);
}

/* Leaves the sweeper group, if in one (after which its thread no longer
 * touches this limiter), then frees. Never fails. */
static void sweeper_destroy(void *state)
{
    struct sweeper_state *s = state;
    rl_sweeper_leave(&s->member);
    pthread_mutex_destroy(&s->lock);
    rl_stamp_ring_free(&s->list);
    free(s);
}

/* First acquire: a real clock joins the shared sweeper of its schedule,
 * the virtual clock (or a failed join) sweeps lazily. Called WITHOUT our
 * lock: the group's thread takes the group's lock before ours, so joining
 * with ours held could deadlock. Two first acquires may race here: the
 * second join is a no-op, and the first mode written stays. */
static void choose_mode(struct sweeper_state *s, const struct rl_clock *clock)
{
    enum sweeper_mode mode = SWEEP_LAZY;
    bool real = clock->name == NULL || strcmp(clock->name, "virtual") != 0;
    if (real && rl_sweeper_join(&s->member, s, sweep_member, s->period_ns, clock) == 0)
        mode = SWEEP_THREAD;
    pthread_mutex_lock(&s->lock);
    if (s->mode == SWEEP_UNDECIDED)
        s->mode = mode;
    pthread_mutex_unlock(&s->lock);
}

/* Admits n when the listed cost + n ≤ L. In lazy mode first applies the
 * latest sweep whose scheduled instant has passed. n > L is rejected
 * without reading the clock. Error only when the list cannot grow. */
static enum rl_decision sweeper_acquire(void *state, struct rl_clock *clock, uint64_t key,
                                        uint64_t n)
{
    (void)key;
    struct sweeper_state *s = state;
    if (n > s->limit)
        return RL_REJECT;
    uint64_t now = rl_clock_now(clock);
    pthread_mutex_lock(&s->lock);
    if (s->mode == SWEEP_UNDECIDED) {
        pthread_mutex_unlock(&s->lock);
        choose_mode(s, clock);
        pthread_mutex_lock(&s->lock);
    }
    if (s->started && now < s->newest_ns)
        now = s->newest_ns;
    s->started = true;
    s->newest_ns = now;
    if (s->mode == SWEEP_LAZY && now > s->epoch_ns) {
        uint64_t k = (now - s->epoch_ns) / s->period_ns;
        if (k > s->last_sweep) {
            s->last_sweep = k;
            sweep_at(s, s->epoch_ns + k * s->period_ns);
        }
    }
    enum rl_decision d = RL_REJECT;
    if (n <= s->limit - s->list.sum)
        d = rl_stamp_ring_push(&s->list, now, n) == 0 ? RL_ADMIT : RL_ERROR;
    pthread_mutex_unlock(&s->lock);
    return d;
}

/* The checker's copy (rl_algo.snapshot), in virtual time where no thread
 * sweeps: the mode, whether started, the newest time, the latest sweep
 * applied, then the listed (time, cost) stamps oldest first. */
static size_t sweeper_snapshot(const void *state, void *buf, size_t cap)
{
    const struct sweeper_state *s = state;
    const struct rl_stamp_ring *r = &s->list;
    size_t len = (4 + 2 * r->len) * sizeof(uint64_t);
    if (cap < len)
        return len;
    uint64_t head[4] = {(uint64_t)s->mode, s->started, s->newest_ns, s->last_sweep};
    unsigned char *out = buf;
    memcpy(out, head, sizeof head);
    out += sizeof head;
    for (size_t i = 0; i < r->len; i++) {
        const struct rl_stamp *e = &r->entries[(r->head + i) % r->cap];
        uint64_t w[2] = {e->t_ns, e->n};
        memcpy(out, w, sizeof w);
        out += sizeof w;
    }
    return len;
}

static int sweeper_restore(void *state, const void *buf, size_t len)
{
    struct sweeper_state *s = state;
    uint64_t head[4];
    if (len < sizeof head || (len - sizeof head) % (2 * sizeof(uint64_t)) != 0)
        return -1;
    const unsigned char *in = buf;
    memcpy(head, in, sizeof head);
    s->mode = (enum sweeper_mode)head[0];
    s->started = head[1] != 0;
    s->newest_ns = head[2];
    s->last_sweep = head[3];
    s->list.head = s->list.len = 0; /* emptied, its storage kept */
    s->list.sum = 0;
    for (size_t off = sizeof head; off < len; off += 2 * sizeof(uint64_t)) {
        uint64_t w[2];
        memcpy(w, in + off, sizeof w);
        if (rl_stamp_ring_push(&s->list, w[0], w[1]) != 0)
            return -1;
    }
    return 0;
}

const struct rl_algo rl_sliding_log_sweeper_algo = {
    .name = "sliding_log_sweeper",
    .family = "sliding_log",
    .summary = ".NET article: list of ≤ L admits, swept every I/10 of entries older than 3·I",
    .promise = RL_PROMISE_STRONG,
    .flags = RL_THREAD_SAFE,
    .orders = "mutex",
    .own_thread = true,
    .create = sweeper_create,
    .destroy = sweeper_destroy,
    .acquire = sweeper_acquire,
    .snapshot = sweeper_snapshot,
    .restore = sweeper_restore,
};
