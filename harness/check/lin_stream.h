/* lin_stream.h — witness mode without reading the history whole: the file
 * is read a block at a time and each operation is replayed at its witness
 * on its key's own sequential limiter as it comes, so memory is the keys'
 * states and the read buffer, not the history.
 *
 * It answers only "linearizable": when every operation has a witness, each
 * key's witnesses come in the file in non-decreasing order, each thread's
 * operations come in call order without overlap, and the sequential
 * algorithm replayed there gives every recorded answer (the replay order is
 * then a linearization: a witness lies in its call, so witness order
 * respects real-time precedence). Anything else (a line the full reader
 * would refuse, an operation without witness, a key out of order, an answer
 * not reproduced) is handed back as "fall back": the caller reads the
 * history whole and checks it as linearizable.h does, which also gives the
 * error messages, the search, the counterexample and the overshoot. */
#ifndef RL_LIN_STREAM_H
#define RL_LIN_STREAM_H

#include "history.h"
#include "linearizable.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_lin_stream {
    int fd;
    char *buf;
    size_t cap, start, end;
    bool eof;
    uint64_t lines;         /* read so far, as the full reader numbers them */
    struct rl_history head; /* algo and epoch from the comment lines; no ops */
};

/* What a streamed check that succeeded saw. */
struct rl_lin_stream_result {
    uint64_t ops;
    uint32_t keys, threads;
};

/* Opens a regular file and reads its comment lines and header. 0, or 1 to
 * fall back (not a regular file, no witness column, anything odd), or -1 on
 * no memory. On 0 the caller reads s->head and then runs or closes. */
int rl_lin_stream_open(struct rl_lin_stream *s, const char *path);

/* Replays the rest of the file. model->create is called once per key with
 * extra 0, and its states are never cloned. 0 when every answer was
 * reproduced (linearizable), 1 to fall back, -1 on no memory. */
int rl_lin_stream_run(struct rl_lin_stream *s, const struct rl_lin_model *model,
                      struct rl_lin_stream_result *out);

void rl_lin_stream_close(struct rl_lin_stream *s);

#endif
