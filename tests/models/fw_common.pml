/* fw_common.pml — what the three fixed-window steps share
 * (algorithms/windows/fw_article.h: struct fw_article_state, fw_ticket_fits,
 * fw_window_open). Included by step1.pml, step2.pml, step3.pml.
 *
 * Abstractions (all costs n = 1, the article's unit tickets):
 *  - count is a uint64_t; CMAX stands for UINT64_MAX and a fetch-add from
 *    it wraps to 0, as the C does.
 *  - time is a small global clock `now` that a clock process advances one
 *    tick at a time up to TEND (a monotonic rl_clock); a thread's
 *    rl_clock_now() is one read of it, a step of its own, so a thread can
 *    hold a stale reading while others run.
 *  - every C atomic (seq_cst fetch-add, load, store, CAS) is ONE Promela
 *    statement (d_step/atomic): seq_cst atomics are indivisible and
 *    totally ordered, so interleaving them is exactly their semantics.
 *    Local work (comparisons on locals) is folded into the next step; it
 *    touches no shared state, so folding loses no behaviour.
 *  - the bounded time domain holds exactly ONE new window: every clock
 *    reading is in [T0, TEND] with TEND < T0 + I, so once a thread
 *    restarts the window at some t >= T0 every later check sees it open.
 *    "At most L admitted per window" is then "admitted <= L" overall.
 */
#ifndef L
#define L 1          /* limit per window */
#endif
#ifndef NT
#define NT 2         /* threads, one attempt each */
#endif
#define I 2          /* interval, in ticks */
#define CMAX 255     /* UINT64_MAX */

int  count;          /* s->count */
byte ts;             /* s->timestamp_ns; 0 = never */
byte now;            /* the clock */
byte T0;             /* first clock reading */
#define TEND (T0 + 1)
byte admitted;       /* ghost: admissions so far (= in the one window) */
bool started;        /* init has set the state */

/* Ghost: an attempt returns RL_ADMIT. The invariant is checked where it
 * can first break. */
inline admit() {
    d_step { admitted++; assert(admitted <= L) }   /* return RL_ADMIT */
}

/* fetch_add(&count, 1): read and wrapped add, one indivisible step. */
inline fetch_add(before) {
    d_step { before = count; count = (count == CMAX -> 0 : count + 1) }  /* fetch_add */
}

/* FIRST: the article's initial state (count UINT64_MAX, timestamp 0),
 * clock at I so the first check passes, as in fw_article.c.
 * STEADY: a window that started at 1 is full (count = L) and has just
 * expired (clock at 1 + I). */
inline start_first()  { count = CMAX; ts = 0; T0 = I }
inline start_steady() { count = L;    ts = 1; T0 = 1 + I }

active proctype clock() {
    (started);
    do
    :: now < TEND -> now++     /* clock ticks */
    :: else -> break
    od
}
