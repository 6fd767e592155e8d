/* step3.pml — the C++ article's step 3, algorithms/windows/fw_cas.c
 * (fw_cas_acquire_ordered in fw_article.h, all seq_cst): CAS-claimed reset
 * plus the first-window fix.
 *
 * Start: FIRST or STEADY, chosen nondeterministically by init, so one run
 * covers both the first window and a later one. Bounds: L = 2, 3 threads,
 * 1 attempt each, one window in the time domain (fw_common.pml).
 * Expected: verified (no assertion fails).
 */
#ifndef L
#define L 2
#endif
#ifndef NT
#define NT 3
#endif
#include "fw_common.pml"

active [NT] proctype T() {
    int before, taken; byte start, t;
    (started);
    fetch_add(before);              /* fw_article.h:90 fetch_add */
    if
    :: before < L -> admit(); goto done   /* :91 fits: fast-path admit */
    :: else                         /* :93 before >= L: slow path */
    fi;
    start = ts;                     /* :96 load timestamp: one step */
    t = now;                        /* :97 rl_clock_now: one step */
    if
    :: t - start < I -> goto done   /* :98 window open: reject */
    :: else
    fi;
    /* :100 CAS(ts, start -> t), seq_cst: compare and swap in one step */
    if
    :: d_step { ts == start -> ts = t }   /* :100 CAS wins */
    :: else -> goto done            /* :102 lost the CAS: reject */
    fi;
    /* :103 RL_RACE_POINT */
    if
    :: start == 0 ->                /* :104 first window: one more ticket */
        fetch_add(taken);           /* :105 fetch_add */
        if
        :: taken < L -> admit()     /* :106 admit if it fits */
        :: else
        fi
    :: else ->
        count = 1;                  /* :108 store count = n: one step */
        admit()                     /* :109 return RL_ADMIT */
    fi;
done: skip
}

init {
    if                              /* which window the run starts in */
    :: d_step { start_first();  now = T0; started = true }
    :: d_step { start_steady(); now = T0; started = true }
    fi
}
