/* fuzz_lin_stream.c — libFuzzer target: streamed witness mode
 * (check/lin_stream.h) on any bytes as a history file. It must never crash,
 * and whenever it says linearizable the whole-history path must agree: the
 * full reader accepts the file, finds as many operations, keys and threads,
 * and rl_lin_check judges it linearizable. Anything else the stream hands
 * back ("fall back") is the full reader's to judge, as in the command.
 *
 * This build reads LIN_STREAM_BLOCK = 64 bytes at a time in batches of
 * LIN_STREAM_BATCH = 3 operations (the Makefile), so small inputs cross
 * block ends, grow the buffer for long lines and turn the batch ring.
 *
 * Input: two bytes of parameters, then the file.
 *   byte 0  the algorithm: tb_cas, fw_mutex, sliding_log, gcra_cas, fw_cas
 *           or fw_atomic_naive (b % 6)
 *   byte 1  L = 1 + b % 8, I = 1 + b / 8 µs
 */
#include "tests/fuzz/fuzz_util.h"
#include "harness/check/history.h"
#include "harness/check/lin_stream.h"
#include "harness/check/linearizable.h"
#include "harness/run/lin_model.h"

#include <string.h>

#define PARAM_BYTES 2
#define BUDGET      100000

/* Distinct thread ids of h (the stream counts those below 4096, and takes
 * no others). */
static uint32_t threads_of(const struct rl_history *h)
{
    static bool seen[4096];
    uint32_t n = 0;
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < h->len; i++) {
        uint32_t t = h->ops[i].thread;
        FUZZ_CHECK(t < 4096, "the stream took thread %u", t);
        n += !seen[t];
        seen[t] = true;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fuzz_scratch_pair("lin_stream");
        ready = true;
    }
    if (size < PARAM_BYTES)
        return 0;
    static const char *const algos[] = {"tb_cas",   "fw_mutex", "sliding_log",
                                        "gcra_cas", "fw_cas",   "fw_atomic_naive"};
    const struct rl_algo *algo = rl_registry_find(algos[data[0] % 6]);
    FUZZ_CHECK(algo != NULL, "%s is not in the registry", algos[data[0] % 6]);
    fuzz_write_file(fuzz_in_path, data + PARAM_BYTES, size - PARAM_BYTES);

    struct rl_lin_stream s;
    int rc = rl_lin_stream_open(&s, fuzz_in_path);
    FUZZ_CHECK(rc >= 0, "open: out of memory");
    if (rc > 0)
        return 0;
    struct rl_config cfg = {.limit = 1 + data[1] % 8,
                            .interval_ns = 1000u * (1 + data[1] / 8u),
                            .epoch_ns = s.head.has_epoch ? s.head.epoch_ns : 0};
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    char err[512] = "";
    FUZZ_CHECK(rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) == 0, "%s", err);
    ctx.never_cloned = true;
    struct rl_lin_stream_result sr;
    rc = rl_lin_stream_run(&s, &model, &sr);
    rl_lin_stream_close(&s);
    rl_lin_model_free(&ctx);
    FUZZ_CHECK(rc >= 0, "run: out of memory or a read error");
    if (rc > 0)
        return 0;

    /* streamed linearizable: the whole-history path must say so too */
    struct rl_history h;
    FUZZ_CHECK(rl_history_read(fuzz_in_path, &h, err, sizeof err) == 0,
               "streamed linearizable, but the full reader refuses it: %s", err);
    FUZZ_CHECK(sr.ops == h.len && sr.keys == h.key_count,
               "streamed %llu operations over %u keys, the full reader %zu over %u",
               (unsigned long long)sr.ops, sr.keys, h.len, h.key_count);
    uint32_t threads = threads_of(&h);
    FUZZ_CHECK(sr.threads == threads, "streamed %u threads, the full reader %u", sr.threads,
               threads);
    for (size_t i = 0; i < h.len; i++)
        FUZZ_CHECK(h.ops[i].has_witness, "streamed operation %zu has no witness", i);
    cfg.epoch_ns = h.has_epoch ? h.epoch_ns : 0;
    FUZZ_CHECK(rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) == 0, "%s", err);
    struct rl_lin_options o = {.budget = BUDGET, .no_overshoot = true};
    struct rl_lin_result r;
    FUZZ_CHECK(rl_lin_check(&h, &model, &o, &r, err, sizeof err) == 0, "%s", err);
    /* the stream replayed a linearization; the whole check may order equal
     * witnesses otherwise and search, so its budget may run out, but it
     * can never find none */
    FUZZ_CHECK(r.verdict != RL_LIN_NO, "streamed linearizable, the whole check says %s",
               rl_lin_verdict_name(r.verdict));
    rl_lin_result_free(&r);
    rl_lin_model_free(&ctx);
    rl_history_free(&h);
    return 0;
}
