/* step2.pml — the C++ article's step 2, algorithms/windows/fw_cas_nofirst.c:
 * the reset claimed by a CAS on the timestamp, no first-window fix.
 *
 * Start: FIRST (count UINT64_MAX, timestamp 0). Bounds: L = 1, 2 threads.
 * Expected: admitted <= L fails. The winner's fetch-add wrapped the count
 * to 0; between its CAS and its store another thread takes ticket 0 and is
 * admitted; the store then sets count = 1 and the winner admits too.
 * (From STEADY this step holds: the CAS lets one thread reset.)
 */
#include "fw_common.pml"

active [NT] proctype T() {
    int before; byte start, t;
    (started);
    fetch_add(before);              /* fw_cas_nofirst.c:33 fetch_add */
    if
    :: before < L -> admit(); goto done   /* :34 fits: fast-path admit */
    :: else                         /* :36 before >= L: slow path */
    fi;
    start = ts;                     /* :38 load timestamp: one step */
    t = now;                        /* :39 rl_clock_now: one step */
    if
    :: t - start < I -> goto done   /* :40 window open: reject */
    :: else
    fi;
    /* :43 CAS(ts, start -> t), seq_cst: compare and swap in one step */
    if
    :: d_step { ts == start -> ts = t }   /* :43 CAS wins */
    :: else -> goto done            /* :45 lost the CAS: reject */
    fi;
    /* :46 RL_RACE_POINT: first window, others admit on the wrapped count */
    count = 1;                      /* :47 store count = n: one step */
    admit();                        /* :48 return RL_ADMIT */
done: skip
}

init { d_step { start_first(); now = T0; started = true } }
