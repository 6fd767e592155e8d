/* lost_update.h — the lost update counted: two threads (one, for the
 * control run) each add 1 to one shared counter a fixed number of times,
 * three ways, and the final value is compared with the sum (ratelab teach
 * data-race).
 *
 *   plain       `count++` on a plain (volatile) word: a data race, undefined
 *               behaviour in C; increments overwrite each other
 *   load_store  an atomic load, then an atomic store of the value + 1: no
 *               data race, every access seq_cst, and still lost updates
 *               (atomicity, not ordering)
 *   fetch_add   one atomic read-modify-write: nothing lost */
#ifndef RL_RUN_LOST_UPDATE_H
#define RL_RUN_LOST_UPDATE_H

#include <stddef.h>
#include <stdint.h>

enum rl_lost_update_kind { RL_LOST_PLAIN, RL_LOST_LOAD_STORE, RL_LOST_FETCH_ADD, RL_LOST_KINDS };

struct rl_lost_update_result {
    enum rl_lost_update_kind kind;
    unsigned threads;
    uint64_t expected; /* threads x increments per thread */
    uint64_t final;    /* the counter's value after both threads joined */
};

const char *rl_lost_update_name(enum rl_lost_update_kind kind); /* "plain", ... */
const char *rl_lost_update_code(enum rl_lost_update_kind kind); /* the C of one increment */

/* `threads` threads (1 or 2), started together, each do `per_thread`
 * increments of one shared counter the given way. 0, or -1 with err when a
 * thread cannot be started or threads is not 1 or 2. */
int rl_lost_update_run(enum rl_lost_update_kind kind, unsigned threads, uint64_t per_thread,
                       struct rl_lost_update_result *out, char *err, size_t err_len);

/* What a row shows, for a reader: NULL when updates were lost (the race
 * happened) or the way cannot lose any (fetch_add); otherwise why none were
 * lost in this run (one thread: the control; two: the threads did not
 * overlap at the wrong instant) and that a rerun may show it. */
const char *rl_lost_update_note(const struct rl_lost_update_result *r);

#endif
