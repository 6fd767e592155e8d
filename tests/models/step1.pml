/* step1.pml — the C++ article's step 1, algorithms/windows/fw_atomic_naive.c:
 * count and timestamp atomic, the window reset by a plain load/store.
 *
 * Start: STEADY (a full window that has just expired), so the counter-
 * example is the lost reset and not the first-window race of step 2
 * (step 1 has that one too). Bounds: L = 1, 2 threads, 1 attempt each.
 * Expected: the assertion admitted <= L fails: both threads find the
 * window expired, both store timestamp and count = 1, both admit.
 */
#include "fw_common.pml"

active [NT] proctype T() {
    int before; byte start, t;
    (started);
    fetch_add(before);              /* fw_atomic_naive.c:35 fetch_add */
    if
    :: before < L -> admit(); goto done   /* :36 fits: fast-path admit */
    :: else                         /* :38 before >= L (n = 1): slow path */
    fi;
    start = ts;                     /* :40 load timestamp: one step */
    t = now;                        /* :41 rl_clock_now: one step */
    if
    :: t - start < I -> goto done   /* :42 window open: reject */
    :: else
    fi;
    /* :44 RL_RACE_POINT: another thread can pass the same check here */
    ts = t;                         /* :45 store timestamp: one step */
    /* :46 RL_RACE_POINT: ... or take tickets the next store erases */
    count = 1;                      /* :47 store count = n: one step */
    admit();                        /* :48 return RL_ADMIT */
done: skip
}

init { d_step { start_steady(); now = T0; started = true } }
