/* lin_model.h — a registry algorithm as the linearizability checker's
 * sequential model (check/linearizable.h): one limiter per key, run in
 * virtual time as sim runs it, at the times the checker chooses. */
#ifndef RL_LIN_MODEL_H
#define RL_LIN_MODEL_H

#include "algorithms/rl.h"
#include "harness/check/linearizable.h"

struct rl_lin_algo {
    const struct rl_algo *algo;
    struct rl_config cfg; /* limit, interval, burst, slots; epoch_ns on the history's clock */
    struct rl_clock clock;
    /* Set after rl_lin_model_of for a model whose states are never copied
     * (the streamed witness replay, check/lin_stream.h): steps are not kept
     * for replaying, so memory does not grow with the history. */
    bool never_cloned;
    /* A window of a run (history.h, # window): every limiter the model
     * creates starts from this state (rl_lin_model_start_from); NULL: fresh */
    const unsigned char *start_state;
    size_t start_len;
    /* Scratch for two snapshots (rl_algo.snapshot), grown as needed */
    unsigned char *snap[2];
    size_t snap_cap[2];
};

/* Fills model for algo with cfg (cfg.epoch_ns: the history's t = 0). -1 with
 * the algorithm's complaint in err when it refuses cfg. A state is copied
 * byte for byte (and remembered by the search) when the algorithm declares
 * its state one flat word (rl_algo.one_word_state), through its snapshot
 * (and remembered by it) when it has rl_algo.snapshot; any other is copied
 * by replaying the steps that made it, and the search remembers none.
 * Models with cheap copies also say where the answer flips (next_flip):
 * by bisection on copies, assuming at most one flip in the span asked
 * about (true of every window and bucket: the answer changes when a window
 * ends or enough accrues). Free with rl_lin_model_free. */
int rl_lin_model_of(const struct rl_algo *algo, const struct rl_config *cfg,
                    struct rl_lin_algo *ctx, struct rl_lin_model *model, char *err, size_t err_len);

/* Makes every state the model creates start from state (len bytes, kept
 * by the caller until the model is freed): the limiter's state at a
 * window's start as the recorder took it, restored through the algorithm's
 * restore, or as its one word (history_recorder.h, rl_hist_state_snapshot).
 * -1 with one line in err when the algorithm has neither or refuses it. */
int rl_lin_model_start_from(struct rl_lin_algo *ctx, const void *state, size_t len, char *err,
                            size_t err_len);

/* Frees what rl_lin_model_of allocated in ctx (the snapshot scratch). */
void rl_lin_model_free(struct rl_lin_algo *ctx);

#endif
