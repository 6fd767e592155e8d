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
};

/* Fills model for algo with cfg (cfg.epoch_ns: the history's t = 0). -1 with
 * the algorithm's complaint in err when it refuses cfg. A state is copied
 * byte for byte (and remembered by the search) when the algorithm declares
 * its state one flat word (rl_algo.one_word_state); any other is copied by
 * replaying the steps that made it, and the search remembers none. */
int rl_lin_model_of(const struct rl_algo *algo, const struct rl_config *cfg,
                    struct rl_lin_algo *ctx, struct rl_lin_model *model, char *err, size_t err_len);

#endif
