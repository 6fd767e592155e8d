/* linearizable.h — is a recorded concurrent history (history.h) what the
 * sequential algorithm could have answered?
 *
 * A history is linearizable when each operation can be given a time inside
 * its call, from its candidates, such that the times never go down in some
 * order of the operations, and the sequential algorithm replayed in that
 * order at those times gives every recorded answer. Real-time precedence
 * follows: an operation that returned before another was called gets an
 * earlier time. An operation's candidates, once the operations of its key
 * before it are placed at times up to T: max(T, its call), its witness, its
 * return and, when the model says where and the answer at max(T, call) is
 * not the recorded one, the first time after it at which the sequential
 * answer flips to the recorded one — each kept only when it lies in
 * [T, return]. "not linearizable" therefore means no order at any candidate
 * time explains the answers.
 *
 * Keys are independent limiters (the keyed container gives each key its
 * own), so each key's operations are checked on their own
 * (P-compositionality) and the history is linearizable when every key's is.
 *
 * The layer knows no algorithm: the caller gives the sequential model as
 * callbacks (harness/run/lin_model.h wraps a registry algorithm in virtual
 * time). */
#ifndef RL_LINEARIZABLE_H
#define RL_LINEARIZABLE_H

#include "history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sequential algorithm. create: a fresh limiter whose limit (and
 * capacity) is raised by extra (the overshoot search), NULL on failure.
 * step: the answer at time_ns, true for admit; it changes state as the
 * algorithm would. hash and equal may be NULL: the search then remembers no
 * states (slower, same answers). */
struct rl_lin_model {
    void *ctx;
    void *(*create)(void *ctx, uint64_t extra);
    bool (*step)(void *ctx, void *state, uint64_t time_ns, uint32_t key, uint64_t cost);
    void *(*clone)(void *ctx, const void *state);
    void (*destroy)(void *ctx, void *state);
    uint64_t (*hash)(void *ctx, const void *state);
    bool (*equal)(void *ctx, const void *a, const void *b);
    /* clone replays every step that made the state: a copy at depth d is
     * charged d + 1 states of the budget, so time stays bounded by it */
    bool clone_replays;
    /* Optional (all three or none), for a model whose clone replays: a
     * cheap mark of what made a state, a fresh state rebuilt from one
     * (replaying, charged like clone) and freeing a mark. With them the
     * search steps one state in place along its path and rebuilds only when
     * it comes back to try another choice. Ignored when states are
     * remembered (hash and equal given). */
    void *(*mark)(void *ctx, const void *state);
    void *(*rebuild)(void *ctx, const void *mark);
    void (*release)(void *ctx, void *mark);
    /* Optional (NULL: none): when step from this state would not answer
     * (key, cost) with want at from, the earliest time in (from, to] at
     * which it would — for a window, the boundary; for a bucket or GCRA,
     * when enough has accrued — else UINT64_MAX. The search then also
     * tries the operation there, a time call, witness and return can all
     * miss. */
    uint64_t (*next_flip)(void *ctx, const void *state, uint32_t key, uint64_t cost, bool want,
                          uint64_t from, uint64_t to);
};

enum rl_lin_verdict { RL_LIN_YES, RL_LIN_NO, RL_LIN_UNKNOWN };

struct rl_lin_options {
    uint64_t budget; /* search states the whole check may visit; > 0 */
    bool no_witness; /* search every key even where witness replay would do */
    bool no_shrink;  /* keep the failing key's whole history as the counterexample */
    bool no_overshoot;
};

struct rl_lin_result {
    enum rl_lin_verdict verdict;
    const char *mode;        /* "witness" (every key by replay), "search", "witness+search" */
    uint64_t states;         /* search states visited, over every check */
    uint32_t keys_checked;   /* keys judged before the end or the budget */
    uint32_t keys_witnessed; /* of those, by witness replay alone */
    uint32_t failed_key;     /* RL_LIN_NO: the first key found not linearizable */
    /* RL_LIN_UNKNOWN: where the budget ran out */
    uint32_t unknown_key;
    size_t unknown_ops, unknown_deepest; /* that key's operations; most placed in one order */
    /* RL_LIN_NO: the counterexample, as indices into the history's ops (by
     * call), shrunk so that dropping any one makes it linearizable; culprit:
     * the operation whose answer the deepest order found could not give */
    size_t *counter;
    size_t counter_len;
    size_t culprit;
    /* The overshoot score: the least k for which every key is linearizable
     * against L + k when recorded rejects that no order explains are
     * forgiven (a reject harms no bound). false_rejects: over the keys whose
     * k is 0, the fewest rejects that must be forgiven for them to be
     * linearizable against L itself. overshoot_known false: the budget ran
     * out, or no k up to the key's admitted cost explains it. */
    bool overshoot_known;
    uint64_t overshoot;
    uint64_t false_rejects;
    /* false when the budget ran out before fewer forgiven rejects were ruled
     * out: false_rejects is then the fewest found, an upper bound (k = 0
     * itself is known) */
    bool false_rejects_exact;
    /* RL_LIN_NO with overshoot 0 and false_rejects > 0: every admit is
     * explained and only rejects no order gives are not — the limiter
     * broke no bound, it refused more than its sequential self would */
    bool only_false_rejects;
};

/* Judges h against model: 0 with result filled, -1 with one line in err
 * (out of memory, the model could not be created). Free with
 * rl_lin_result_free. */
int rl_lin_check(const struct rl_history *h, const struct rl_lin_model *model,
                 const struct rl_lin_options *options, struct rl_lin_result *result, char *err,
                 size_t err_len);

void rl_lin_result_free(struct rl_lin_result *result);

/* The verdict as the command prints it: "linearizable", "not linearizable",
 * "unknown". */
const char *rl_lin_verdict_name(enum rl_lin_verdict verdict);

#endif
