/* fuzz_event_log.c — libFuzzer target: the decision-log reader on any
 * bytes, and for a log it accepts, a write-and-read-back round trip and
 * the checker with a small limit and interval.
 *
 * Input: three bytes of parameters, then the CSV file.
 *   byte 0  L = 1 + b % 32
 *   byte 1  I = (1 + b % 64) · 10^(3·(b / 64)): 1..64 ns, us, ms or s
 *   byte 2  epoch_ns = b
 */
#include "tests/fuzz/fuzz_util.h"
#include "harness/check/checker.h"
#include "harness/check/event_log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARAM_BYTES 3

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_scratch_pair("events");
    return 0;
}

static void same_log(const struct rl_event_log *a, const struct rl_event_log *b)
{
    FUZZ_CHECK(a->len == b->len, "%zu events read back as %zu", a->len, b->len);
    FUZZ_CHECK(a->key_count == b->key_count, "%u keys read back as %u", a->key_count, b->key_count);
    for (uint32_t k = 0; k < a->key_count; k++)
        FUZZ_CHECK(strcmp(a->key_names[k], b->key_names[k]) == 0, "key %u '%s' read back as '%s'",
                   k, a->key_names[k], b->key_names[k]);
    for (size_t i = 0; i < a->len; i++) {
        const struct rl_event *x = &a->events[i], *y = &b->events[i];
        FUZZ_CHECK(x->t_ns == y->t_ns && x->key == y->key && x->n == y->n &&
                       x->admitted == y->admitted && x->thread == y->thread,
                   "event %zu read back different", i);
    }
}

/* What the definitions promise of any log's metrics (checker.h). */
static void check_metrics(const struct rl_key_metrics *m, uint64_t limit, bool complete)
{
    FUZZ_CHECK(m->admits + m->rejects == m->attempts, "admits + rejects != attempts");
    FUZZ_CHECK(m->admitted_cost <= m->attempted_cost, "admitted more cost than attempted");
    FUZZ_CHECK(m->max_aligned <= m->max_sliding, "aligned max %llu over sliding max %llu",
               (unsigned long long)m->max_aligned, (unsigned long long)m->max_sliding);
    FUZZ_CHECK(m->max_sliding <= m->admitted_cost, "sliding max over all admitted cost");
    FUZZ_CHECK(m->certain_max_sliding <= m->max_sliding, "certain sliding max over sliding max");
    FUZZ_CHECK(m->certain_max_aligned <= m->max_aligned, "certain aligned max over aligned max");
    FUZZ_CHECK(m->strong_excess == (m->max_sliding > limit ? m->max_sliding - limit : 0),
               "strong excess");
    FUZZ_CHECK(m->weak_excess == (m->max_aligned > limit ? m->max_aligned - limit : 0),
               "weak excess");
    FUZZ_CHECK(m->strong_violations <= m->admits, "more violations than admits");
    if (!complete)
        return;
    FUZZ_CHECK(m->false_admits <= m->admits && m->weak_false_admits <= m->admits,
               "more false admits than admits");
    FUZZ_CHECK(m->false_rejects <= m->rejects && m->weak_false_rejects <= m->rejects,
               "more false rejects than rejects");
    /* A log that decided as an oracle did keeps that oracle's promise. */
    if (m->false_admits == 0 && m->false_rejects == 0)
        FUZZ_CHECK(m->max_sliding <= limit && m->admitted_cost == m->oracle_admitted_cost,
                   "agrees with the strong oracle, yet sliding max %llu > L %llu",
                   (unsigned long long)m->max_sliding, (unsigned long long)limit);
    if (m->weak_false_admits == 0 && m->weak_false_rejects == 0)
        FUZZ_CHECK(m->max_aligned <= limit,
                   "agrees with the weak oracle, yet aligned max %llu > L %llu",
                   (unsigned long long)m->max_aligned, (unsigned long long)limit);
    double u = rl_check_utilization(m, complete);
    FUZZ_CHECK(isnan(u) || u >= 0, "utilization %g", u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < PARAM_BYTES)
        return 0;
    static const uint64_t scale[] = {1, 1000, 1000000, 1000000000};
    struct rl_check_params params = {.limit = 1 + data[0] % 32,
                                     .interval_ns = (1 + data[1] % 64) * scale[data[1] / 64],
                                     .epoch_ns = data[2]};
    fuzz_write_file(fuzz_in_path, data + PARAM_BYTES, size - PARAM_BYTES);

    struct rl_event_log log, back;
    char err[512] = "";
    if (rl_event_log_read_csv(fuzz_in_path, &log, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "refused with no message");
        FUZZ_CHECK(log.events == NULL && log.len == 0 && log.key_names == NULL,
                   "a refused read leaves a log behind");
        return 0;
    }
    for (size_t i = 0; i < log.len; i++)
        FUZZ_CHECK(log.events[i].key < log.key_count && log.events[i].n >= 1 &&
                       log.events[i].admitted <= 1,
                   "event %zu: key %u of %u, n %u, admitted %u", i, log.events[i].key,
                   log.key_count, log.events[i].n, log.events[i].admitted);
    FUZZ_CHECK(rl_event_log_write_csv(&log, fuzz_out_path, err, sizeof err) == 0,
               "an accepted log cannot be written: %s", err);
    FUZZ_CHECK(rl_event_log_read_csv(fuzz_out_path, &back, err, sizeof err) == 0,
               "a written log cannot be read: %s", err);
    same_log(&log, &back);
    rl_event_log_free(&back);

    struct rl_check_result result;
    FUZZ_CHECK(rl_check(&log, &params, &result, err, sizeof err) == 0, "check refused: %s", err);
    FUZZ_CHECK(result.total.attempts == log.len, "%llu attempts in a log of %zu",
               (unsigned long long)result.total.attempts, log.len);
    FUZZ_CHECK(result.key_count == log.key_count, "%u keys checked of %u", result.key_count,
               log.key_count);
    for (size_t i = 1; i < log.len; i++)
        FUZZ_CHECK(log.events[i - 1].t_ns <= log.events[i].t_ns, "not sorted at %zu", i);
    for (uint32_t k = 0; k < result.key_count; k++)
        check_metrics(&result.per_key[k], params.limit, result.complete);
    rl_check_result_free(&result);
    rl_event_log_free(&log);
    return 0;
}
