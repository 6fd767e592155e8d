/* lin_timeline.h — a counterexample to linearizability drawn for a person:
 * threads as rows, each operation as the span of its call, the answer the
 * sequential algorithm could not give marked; as text and as SVG. */
#ifndef RL_LIN_TIMELINE_H
#define RL_LIN_TIMELINE_H

#include "history.h"

#include <stddef.h>
#include <stdio.h>

/* The operations h->ops[idx[0..n)]; culprit: the index (into h->ops) of the
 * one to mark. */
void rl_lin_timeline_text(FILE *out, const struct rl_history *h, const size_t *idx, size_t n,
                          size_t culprit);

void rl_lin_timeline_svg(FILE *out, const struct rl_history *h, const size_t *idx, size_t n,
                         size_t culprit);

#endif
