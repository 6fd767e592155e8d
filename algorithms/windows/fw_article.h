/* fw_article.h — state shared by the C++ article's fixed-window limiter and
 * its five steps (fw_plain … fw_cas_acqrel).
 *
 * The limiter: a count and the time its window started. An attempt takes a
 * ticket from the count; while tickets are below L it is admitted without
 * reading the clock. The first attempt past L that comes at least I after
 * the window's start restarts the window at its own time. Its windows are
 * therefore not aligned and not back to back: the promise is `window`.
 *
 * The article's initial values do its first-window work: count starts at
 * UINT64_MAX so the first attempt takes the slow path, and timestamp 0 makes
 * the interval check pass. Costs n > 1 generalise its unit tickets: an
 * attempt is admitted when its whole cost fits below L; a rejected
 * attempt's cost stays in the count (fetch-add first, decide after), as the
 * article's count keeps growing past L; an attempt with n > L is rejected
 * before it touches anything.
 *
 * Source: the C++ article, 「C++ 实现线程安全的频率限制器」 ("A thread-safe
 * frequency limiter in C++"), which defines the strong and weak statements
 * and evolves this limiter in the five steps kept here.
 */
#ifndef RL_FW_ARTICLE_H
#define RL_FW_ARTICLE_H

#include "algorithms/race_point.h"
#include "algorithms/rl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct fw_article_state {
    _Alignas(RL_CACHE_LINE) _Atomic uint64_t count; /* tickets taken in this window */
    _Atomic uint64_t timestamp_ns;                  /* the window's start; 0 = never */
    uint64_t limit;
    int64_t interval_ns;
};

/* A ticket taken when `before` tickets were out admits cost n. */
static inline bool fw_ticket_fits(uint64_t before, uint64_t n, uint64_t limit)
{
    return before < limit && n <= limit - before;
}

/* Signed, as the article's clock::rep is: a timestamp written by a thread
 * that read the clock after us makes the difference negative, which must
 * not look like a long-expired window. */
static inline bool fw_window_open(uint64_t now_ns, uint64_t start_ns, int64_t interval_ns)
{
    return (int64_t)(now_ns - start_ns) < interval_ns;
}

/* The article's step-0 decision on plain memory: fw_plain runs it bare,
 * fw_mutex under a lock, so the two share their semantics by construction. */
static inline enum rl_decision fw_plain_decide(uint64_t *count, uint64_t *timestamp_ns,
                                               uint64_t limit, int64_t interval_ns,
                                               struct rl_clock *clock, uint64_t n)
{
    if (n > limit)
        return RL_REJECT;
    uint64_t before = *count;
    *count += n;
    if (fw_ticket_fits(before, n, limit))
        return RL_ADMIT;
    if (before < limit)
        return RL_REJECT; /* the window still has room, but not for n */
    uint64_t now = rl_clock_now(clock);
    if (fw_window_open(now, *timestamp_ns, interval_ns))
        return RL_REJECT;
    RL_RACE_POINT();
    *timestamp_ns = now;
    *count = n;
    return RL_ADMIT;
}

/* Steps 3 and 4 are the same code with different orders on the count, so
 * they share it; always_inline keeps each order a compile-time constant.
 *
 * The first-window fix: when the CAS replaced the initial timestamp 0, our
 * own fetch-add wrapped the count from UINT64_MAX to n−1, and other threads
 * may already hold tickets from it. Rather than store over them, take one
 * more ticket: n−1 wrapped units plus this one count our cost once (for the
 * article's n = 1 this is exactly its second fetch-add). */
__attribute__((always_inline)) static inline enum rl_decision
fw_cas_acquire_ordered(struct fw_article_state *s, struct rl_clock *clock, uint64_t n,
                       memory_order count_rmw, memory_order count_store)
{
    if (n > s->limit)
        return RL_REJECT;
    uint64_t before = atomic_fetch_add_explicit(&s->count, n, count_rmw);
    if (fw_ticket_fits(before, n, s->limit))
        return RL_ADMIT;
    if (before < s->limit)
        return RL_REJECT;
    /* The timestamp keeps the article's default seq_cst in both steps. */
    uint64_t start = atomic_load_explicit(&s->timestamp_ns, memory_order_seq_cst);
    uint64_t now = rl_clock_now(clock);
    if (fw_window_open(now, start, s->interval_ns))
        return RL_REJECT;
    if (!atomic_compare_exchange_strong_explicit(&s->timestamp_ns, &start, now,
                                                 memory_order_seq_cst, memory_order_seq_cst))
        return RL_REJECT; /* another thread restarted this window */
    RL_RACE_POINT();
    if (start == 0) {
        uint64_t taken = atomic_fetch_add_explicit(&s->count, 1, count_rmw);
        return taken < s->limit ? RL_ADMIT : RL_REJECT;
    }
    atomic_store_explicit(&s->count, n, count_store);
    return RL_ADMIT;
}

/* The article's initial state: count UINT64_MAX, timestamp 0 (fw_article.c).
 * NULL with a reason in err for an interval past INT64_MAX ns, or on ENOMEM. */
void *fw_article_create(const struct rl_config *cfg, char *err, size_t err_len);

/* The checker's copy of a state (rl_algo.snapshot/restore): count and
 * window start, the whole of what the steps decide on. */
size_t fw_article_snapshot(const void *state, void *buf, size_t cap);
int fw_article_restore(void *state, const void *buf, size_t len);

#endif
