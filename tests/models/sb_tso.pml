/* sb_tso.pml — the store-buffering litmus on a TSO (x86-like) machine.
 *
 *     thread 0: x = 1; r1 = y      thread 1: y = 1; r2 = x
 *
 * Under sequential consistency r1 = r2 = 0 is impossible: whichever load
 * runs last comes after both stores. Under TSO each thread's stores go
 * into its own FIFO store buffer; a drainer moves the oldest entry to
 * memory at any moment (nondeterministically); a load reads its own
 * buffer first (newest store to that address) and memory otherwise. Both
 * loads can then run while both stores still sit in the buffers.
 *
 * Property: assert(!(r1 == 0 && r2 == 0)), checked once both are done.
 * Expected: violated here; verified with FENCE defined (sb_tso_fence.pml),
 * where an mfence after each store waits until the own buffer is empty.
 *
 * Atomicity: a store (buffer append), an mfence (wait for empty), one
 * drain (dequeue + memory write) and one load (buffer lookup + memory
 * read) are each a single step, as the hardware performs each as one
 * event.
 */
#define X 0
#define Y 1
#define NBUF 2

byte mem[2];                       /* main memory: x, y */
chan buf[2] = [NBUF] of { byte, byte };  /* per-thread FIFO: (addr, val) */
byte r1, r2;
byte done;

/* load: own buffer first. The litmus stores at most once per address and
 * thread, so the one matching entry is the newest; <..> polls without
 * removing it. */
inline load(id, a, dst) {
    atomic {
        if
        :: buf[id] ?? [eval(a), _] -> buf[id] ?? <eval(a), dst>  /* load from own buffer */
        :: else -> dst = mem[a]                                /* load from memory */
        fi
    }
}

/* the drainers: each moves its buffer's oldest entry to memory at any time */
active [2] proctype drain() {
    byte a, v;
end: do
    :: atomic { buf[_pid]?a, v -> mem[a] = v }   /* drain: oldest store reaches memory */
    od
}

/* the two threads, written out so the trail reads as the litmus */
active proctype P0() {
    buf[0]!X, 1;                   /* x = 1 (into P0's buffer) */
#ifdef FENCE
    empty(buf[0]);                 /* mfence: wait until P0's buffer is empty */
#endif
    load(0, Y, r1);                /* r1 = y */
    done++
}

active proctype P1() {
    buf[1]!Y, 1;                   /* y = 1 (into P1's buffer) */
#ifdef FENCE
    empty(buf[1]);                 /* mfence */
#endif
    load(1, X, r2);                /* r2 = x */
    done++
}

/* the final-state check, once both threads are done */
active proctype check() {
    (done == 2);
    assert(!(r1 == 0 && r2 == 0))
}
