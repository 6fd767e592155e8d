/* litmus.h — hardware litmus tests on two real threads: store buffering
 * (SB) and message passing (MP), each at one C11 memory order, counted over
 * many trials (ratelab litmus; docs/design.md for the layers).
 *
 *   SB  thread 0: x = 1; r0 = y     thread 1: y = 1; r1 = x
 *       the non-SC outcome (no sequentially consistent run gives it):
 *       r0 = 0 and r1 = 0
 *   MP  thread 0: data = 1; flag = 1    thread 1: r0 = flag; r1 = data
 *       the non-SC outcome: r0 = 1 and r1 = 0
 *
 * Whether a memory order allows the non-SC outcome depends on the order:
 * C11 allows SB's at relaxed and release/acquire, MP's at relaxed.
 * The order applies to the accesses the test is about: SB's stores and
 * loads; MP's flag store and flag load (data is always relaxed). */
#ifndef RL_RUN_LITMUS_H
#define RL_RUN_LITMUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rl_litmus_test { RL_LITMUS_SB, RL_LITMUS_MP, RL_LITMUS_TESTS };
enum rl_litmus_order {
    RL_LITMUS_RELAXED, /* relaxed stores and loads */
    RL_LITMUS_ACQ_REL, /* release stores, acquire loads */
    RL_LITMUS_SEQ_CST, /* seq_cst stores and loads */
    RL_LITMUS_ORDERS
};

struct rl_litmus_result {
    enum rl_litmus_test test;
    enum rl_litmus_order order;
    uint64_t trials;
    uint64_t outcome[2][2]; /* trials that ended with r0, r1 */
    uint64_t non_sc;        /* trials that ended in the non-SC outcome */
    bool pinned;            /* the two threads ran on two different CPUs */
};

const char *rl_litmus_test_name(enum rl_litmus_test test); /* "sb", "mp" */
/* Each access's order, as a label: "store relaxed / load relaxed",
 * "store release / load acquire", "store seq_cst / load seq_cst" (for MP,
 * the flag's store and load). */
const char *rl_litmus_order_name(enum rl_litmus_order order);
/* The non-SC outcome, as a label: "r0=0, r1=0" (sb), "r0=1, r1=0" (mp). */
const char *rl_litmus_non_sc_outcome(enum rl_litmus_test test);

/* Whether the non-SC outcome is allowed by C11 at that order, and by
 * x86-64's TSO for the instructions compilers emit for it. */
bool rl_litmus_allowed_c11(enum rl_litmus_test test, enum rl_litmus_order order);
bool rl_litmus_allowed_tso(enum rl_litmus_test test, enum rl_litmus_order order);

/* What a row's count means on the CPU this was built for, in a few words:
 * seen; not seen in this run though this CPU allows it (the threads may
 * not have met: rerun); allowed by C11 but never shown by x86-64 (the
 * weaker CPUs that show it are not observable here); or forbidden. */
const char *rl_litmus_note(const struct rl_litmus_result *r);

/* Runs trials of test at order on two threads, pinned to two CPUs the
 * process may use when there are two. Each trial uses a fresh pair of
 * locations (arrays, a batch at a time), and the threads meet at a cheap
 * two-counter barrier before each. 0, or -1 with err when a thread cannot
 * be started or memory is short. */
int rl_litmus_run(enum rl_litmus_test test, enum rl_litmus_order order, uint64_t trials,
                  struct rl_litmus_result *out, char *err, size_t err_len);

#endif
