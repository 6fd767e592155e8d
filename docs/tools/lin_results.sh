#!/bin/sh
# lin_results.sh — the linearizability results table: each thread-safe
# in-process limiter (not the baselines, shapers or concurrency, which need
# release) recorded at 2 threads with `stress --history` and judged by
# `check --linearizable`. A race needs both threads at one instant, so each
# algorithm is recorded up to TRIES times: the row is the first history in
# which both threads ran that is not linearizable, else the last decided
# one in which both ran; "tries" says how many runs it took, "unknown" in how many
# 2-thread runs the search's budget ran out. A run in which one thread
# filled its window before the other got a core is not a 2-thread history
# and is run again.
# Usage: docs/tools/lin_results.sh [BIN] [TRIES]   (markdown on stdout)
set -eu
BIN=${1:-build/ratelab}
TRIES=${2:-20}
L=2
I=20us
MAX=5000
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT INT TERM
ALGOS="fw_atomic_naive fw_cas_nofirst fw_cas fw_cas_acqrel fw_mutex fw_expiry fw_trylock fw_aligned
tb_mutex tb_cas tb_cas_relaxed tb_sharded gcra_cas tb_debt leaky_nginx sliding_log
sliding_log_sweeper sliding_counter freq_ctr wheel wheel_atomic"
echo "| algorithm | operations | threads | verdict | mode | overshoot | false rejects | check time | tries | unknown |"
echo "|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
for a in $ALGOS; do
    try=0
    verdict=""
    kept=""
    kept_threads=""
    unknown=0
    while [ "$try" -lt "$TRIES" ]; do
        try=$((try + 1))
        "$BIN" stress --algo "$a" --threads 2 --duration 30ms --limit $L --interval $I \
            --history "$DIR/h.csv" --history-max $MAX > "$DIR/stress.out"
        "$BIN" check --linearizable --algo "$a" --limit $L --interval $I \
            --budget 10000000 --events "$DIR/h.csv" > "$DIR/check.out" 2>&1 || true
        verdict=$(sed -n 's/^verdict  *//p' "$DIR/check.out")
        threads=$(sed -n 's/.* operations, \([0-9]*\) threads.*/\1/p' "$DIR/check.out")
        # a 2-thread run replaces a 1-thread one, and a decided one an unknown
        if [ -z "$kept" ] || { [ "$threads" = 2 ] &&
            { [ "$kept_threads" != 2 ] || [ "$verdict" != unknown ]; }; }; then
            cp "$DIR/check.out" "$DIR/kept.out"
            kept=$try
            kept_threads=$threads
        fi
        [ "$threads" = 2 ] && [ "$verdict" = unknown ] && unknown=$((unknown + 1))
        [ "$threads" = 2 ] && [ "$verdict" = "not linearizable" ] && break
    done
    cp "$DIR/kept.out" "$DIR/check.out"
    verdict=$(sed -n 's/^verdict  *//p' "$DIR/check.out")
    threads=$(sed -n 's/.* operations, \([0-9]*\) threads.*/\1/p' "$DIR/check.out")
    ops=$(sed -n 's/^check --linearizable: \([0-9]*\) operations.*/\1/p' "$DIR/check.out")
    mode=$(sed -n 's/^mode  *\([a-z+]*\).*/\1/p' "$DIR/check.out")
    over=$(sed -n 's/^overshoot  *\([0-9a-z]*\).*/\1/p' "$DIR/check.out")
    fr=$(sed -n 's/^false_rejects  *\([0-9]*\).*/\1/p' "$DIR/check.out")
    t=$(sed -n 's/^time  *\([0-9.]* s\).*/\1/p' "$DIR/check.out")
    echo "| $a | $ops | $threads | $verdict | $mode | ${over:--} | ${fr:--} | $t | $kept | $unknown |"
done
