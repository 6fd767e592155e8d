/* fuzz_linearizable.c — libFuzzer target: the history reader on any bytes,
 * and for a history it accepts, the linearizability checker against a
 * registry algorithm: it answers within its budget, a counterexample is a
 * set of operations of one key with its mark among them, and witness
 * replay and the search never disagree where both answer.
 *
 * Input: two bytes of parameters, then the history CSV.
 *   byte 0  the algorithm: fw_mutex, tb_cas, gcra_cas, sliding_log, fw_cas
 *           or fw_atomic_naive (b % 6)
 *   byte 1  L = 1 + b % 8, I = 1 + b / 8 µs
 */
#include "tests/fuzz/fuzz_util.h"
#include "harness/check/history.h"
#include "harness/check/linearizable.h"
#include "harness/run/lin_model.h"

#include <string.h>

#define PARAM_BYTES 2
#define MAX_OPS     48 /* the search is exponential in the worst case: keep runs short */
#define BUDGET      3000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < PARAM_BYTES)
        return 0;
    static const char *const algos[] = {"fw_mutex",    "tb_cas", "gcra_cas",
                                        "sliding_log", "fw_cas", "fw_atomic_naive"};
    struct rl_history h;
    char err[512] = "";
    if (rl_history_parse((const char *)data + PARAM_BYTES, size - PARAM_BYTES, "fuzz", &h, err,
                         sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "refused with no message");
        FUZZ_CHECK(h.ops == NULL && h.len == 0 && h.key_names == NULL && h.windows == NULL,
                   "a refused history leaves operations behind");
        return 0;
    }
    for (size_t i = 0; i < h.len; i++) {
        const struct rl_hist_op *o = &h.ops[i];
        FUZZ_CHECK(
            o->call_ns <= o->return_ns && o->cost >= 1 && o->key < h.key_count &&
                (!o->has_witness || (o->witness_ns >= o->call_ns && o->witness_ns <= o->return_ns)),
            "operation %zu accepted though invalid", i);
    }
    for (uint32_t w = 0; w < h.window_count; w++) {
        const struct rl_hist_window_head *win = &h.windows[w];
        FUZZ_CHECK(win->first_op <= h.len &&
                       (w == 0 ? win->first_op == 0
                               : win->first_op >= win[-1].first_op && win->state &&
                                     win->state_len > 0 && win->start_ns >= win[-1].start_ns),
                   "window %u accepted though malformed", w);
        size_t end = w + 1 < h.window_count ? win[1].first_op : h.len;
        for (size_t i = win->first_op; i < end; i++)
            FUZZ_CHECK(h.ops[i].call_ns >= win->start_ns, "operation %zu before its window", i);
    }
    if (h.len > MAX_OPS) {
        rl_history_free(&h);
        return 0;
    }
    const struct rl_algo *algo = rl_registry_find(algos[data[0] % 6]);
    FUZZ_CHECK(algo != NULL, "%s is not in the registry", algos[data[0] % 6]);
    struct rl_config cfg = {.limit = 1 + data[1] % 8,
                            .interval_ns = 1000u * (1 + data[1] / 8u),
                            .epoch_ns = h.has_epoch ? h.epoch_ns : 0};
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    FUZZ_CHECK(rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) == 0, "%s", err);

    struct rl_lin_result r[2];
    for (int mode = 0; mode < 2; mode++) {
        struct rl_lin_options o = {.budget = BUDGET, .no_witness = mode == 1};
        FUZZ_CHECK(rl_lin_check(&h, &model, &o, &r[mode], err, sizeof err) == 0, "%s", err);
        const struct rl_lin_result *x = &r[mode];
        /* main search, shrinking, overshoot and the culprit's search: a
         * budget each */
        FUZZ_CHECK(x->states <= 4 * (uint64_t)BUDGET, "%llu states past 4 budgets",
                   (unsigned long long)x->states);
        if (x->verdict == RL_LIN_NO) {
            FUZZ_CHECK(x->counter_len >= 1 && x->counter_len <= h.len, "counterexample of %zu",
                       x->counter_len);
            bool marked = false;
            for (size_t i = 0; i < x->counter_len; i++) {
                FUZZ_CHECK(x->counter[i] < h.len, "index %zu out of range", x->counter[i]);
                FUZZ_CHECK(h.ops[x->counter[i]].key == x->failed_key,
                           "the counterexample mixes keys");
                marked |= x->counter[i] == x->culprit;
            }
            FUZZ_CHECK(marked, "the marked operation is not in the counterexample");
        }
        if (x->verdict == RL_LIN_YES && x->overshoot_known)
            FUZZ_CHECK(x->overshoot == 0 && x->false_rejects == 0,
                       "linearizable, yet overshoot %llu and %llu false rejects",
                       (unsigned long long)x->overshoot, (unsigned long long)x->false_rejects);
    }
    if (r[0].verdict != RL_LIN_UNKNOWN && r[1].verdict != RL_LIN_UNKNOWN)
        FUZZ_CHECK(r[0].verdict == r[1].verdict, "witness first says %s, search alone %s",
                   rl_lin_verdict_name(r[0].verdict), rl_lin_verdict_name(r[1].verdict));
    rl_lin_result_free(&r[0]);
    rl_lin_result_free(&r[1]);
    rl_lin_model_free(&ctx);
    rl_history_free(&h);
    return 0;
}
