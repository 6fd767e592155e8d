/* stress_check.c — see stress_check.h.
 *
 * Why these bounds are sound from the log: the recorder stamps each admit
 * after acquire returns, so a stamp is never earlier than the admit. A
 * `window` limiter starts its k-th window no earlier than epoch + k·I and
 * admits ≤ L in each, so by stamp time T at most L·(⌊T/I⌋ + 1) admits can
 * exist, and admits stamped in [0, I) all belong to its first window. A
 * sliding-window bound of exactly L is NOT sound for such limiters: two
 * back-to-back windows of L each, one admitting a little more densely than
 * the other, put L + a few into some window of length I. */
#include "stress_check.h"

#include "harness/run/stress.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

uint64_t rl_certain_max_aligned(const struct rl_event_log *log, uint64_t interval_ns)
{
    uint32_t keys = log->key_count ? log->key_count : 1;
    for (size_t i = 0; i < log->len; i++)
        keys = log->events[i].key >= keys ? log->events[i].key + 1 : keys;
    uint64_t *window = calloc(keys, sizeof *window), *count = calloc(keys, sizeof *count);
    CU_ASSERT_FATAL(window != NULL && count != NULL);
    uint64_t most = 0;
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *e = &log->events[i];
        if (!e->admitted || e->t_ns % interval_ns < e->gap_ns)
            continue;
        uint64_t w = e->t_ns / interval_ns + 1; /* + 1: 0 means "none yet" */
        if (window[e->key] != w) {
            window[e->key] = w;
            count[e->key] = 0;
        }
        count[e->key] += e->n;
        most = count[e->key] > most ? count[e->key] : most;
    }
    free(window);
    free(count);
    return most;
}

void rl_stress_checked(const char *name, unsigned threads, uint64_t limit, uint64_t interval_ns,
                       uint64_t duration_ns, struct rl_stress_verdict *v)
{
    memset(v, 0, sizeof *v);
    const struct rl_algo *algo = rl_registry_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_stress_params params = {
        .algo = algo,
        .cfg = {.limit = limit, .interval_ns = interval_ns},
        .threads = threads,
        .duration_ns = duration_ns,
        .clock = "monotonic",
        .record = true,
    };
    struct rl_stress_outcome out;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_stress_run(&params, &out, err, sizeof err), 0);
    v->attempts = out.attempts;
    v->admits = out.admits;
    v->rejects = out.rejects;
    v->errors = out.errors;
    v->recorded = out.log.len;
    v->dropped = out.log.dropped;
    v->uncertainty_ns = out.log.uncertainty_ns;
    CU_ASSERT(out.attempts > 0);
    CU_ASSERT_EQUAL(out.attempts, out.admits + out.rejects);
    CU_ASSERT(out.errors <= out.attempts);
    CU_ASSERT_EQUAL(out.log.len + out.log.dropped, out.admits);
    CU_ASSERT_EQUAL(out.log.dropped, 0);
    for (size_t i = 0; i < out.log.len; i++) {
        uint64_t t = out.log.events[i].t_ns;
        v->last_stamp_ns = t > v->last_stamp_ns ? t : v->last_stamp_ns;
        v->first_window_admits += t < interval_ns;
    }
    v->window_bound = limit * (v->last_stamp_ns / interval_ns + 1);
    v->certain_max_aligned = rl_certain_max_aligned(&out.log, interval_ns);
    struct rl_check_params check = {.limit = limit, .interval_ns = interval_ns};
    struct rl_check_result res;
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    v->m = res.total;
    CU_ASSERT_EQUAL(res.total.admits, out.log.len);
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}
