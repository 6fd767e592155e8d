/* fuzz_trace.c — libFuzzer target: the trace CSV reader on any bytes, and
 * for a trace it accepts, the round trip: written back with
 * rl_trace_write_csv and read again, it is the same trace. */
#include "tests/fuzz/fuzz_util.h"
#include "workloads/trace.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_scratch_pair("trace");
    return 0;
}

static void same_trace(const struct rl_trace *a, const struct rl_trace *b)
{
    FUZZ_CHECK(a->len == b->len, "%zu attempts read back as %zu", a->len, b->len);
    FUZZ_CHECK(a->key_count == b->key_count, "%u keys read back as %u", a->key_count, b->key_count);
    for (uint32_t k = 0; k < a->key_count; k++)
        FUZZ_CHECK(strcmp(a->key_names[k], b->key_names[k]) == 0, "key %u '%s' read back as '%s'",
                   k, a->key_names[k], b->key_names[k]);
    for (size_t i = 0; i < a->len; i++) {
        const struct rl_attempt *x = &a->attempts[i], *y = &b->attempts[i];
        FUZZ_CHECK(x->t_ns == y->t_ns && x->key == y->key && x->n == y->n,
                   "attempt %zu (%llu,%u,%u) read back as (%llu,%u,%u)", i,
                   (unsigned long long)x->t_ns, x->key, x->n, (unsigned long long)y->t_ns, y->key,
                   y->n);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(fuzz_in_path, data, size);
    struct rl_trace trace, back;
    char err[512] = "";
    if (rl_trace_read_csv(fuzz_in_path, &trace, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "refused with no message");
        FUZZ_CHECK(trace.attempts == NULL && trace.len == 0 && trace.key_names == NULL,
                   "a refused read leaves a trace behind");
        return 0;
    }
    /* What the reader promises of what it accepts. */
    for (size_t i = 0; i < trace.len; i++) {
        FUZZ_CHECK(trace.attempts[i].n >= 1, "attempt %zu has cost 0", i);
        FUZZ_CHECK(trace.attempts[i].key < trace.key_count, "attempt %zu key %u of %u", i,
                   trace.attempts[i].key, trace.key_count);
        FUZZ_CHECK(i == 0 || trace.attempts[i - 1].t_ns <= trace.attempts[i].t_ns,
                   "attempt %zu is earlier than the one before", i);
    }
    FUZZ_CHECK(rl_trace_write_csv(&trace, fuzz_out_path, err, sizeof err) == 0,
               "an accepted trace cannot be written: %s", err);
    FUZZ_CHECK(rl_trace_read_csv(fuzz_out_path, &back, err, sizeof err) == 0,
               "a written trace cannot be read: %s", err);
    same_trace(&trace, &back);
    rl_trace_free(&back);
    rl_trace_free(&trace);
    return 0;
}
