#!/bin/sh
# run.sh SECONDS TARGET... — runs each libFuzzer target build/fuzz/TARGET
# (make fuzz-build) for SECONDS over its committed seeds
# tests/fuzz/corpus/NAME/ (TARGET is fuzz_NAME), with tests/fuzz/NAME.dict
# when there is one. New inputs go to build/fuzz/found/NAME/ (read again by
# the next run), reproducers to build/fuzz/crashes/NAME/, the whole output to
# build/fuzz/TARGET.log. Prints each target's executions (libFuzzer's
# "Done N runs") and exits 1 when any target crashed, naming the reproducer.
cd "$(dirname "$0")/../.." || exit 2
[ $# -ge 2 ] || {
    echo "usage: $0 SECONDS TARGET..." >&2
    exit 2
}
seconds=$1
shift

# Every UBSan report aborts (the build says so too), with its stack.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

failed=0
summary=""
for target in "$@"; do
    name=${target#fuzz_}
    bin=build/fuzz/$target
    corpus=tests/fuzz/corpus/$name
    found=build/fuzz/found/$name
    crashes=build/fuzz/crashes/$name
    log=build/fuzz/$target.log
    if [ ! -x "$bin" ] || [ ! -d "$corpus" ]; then
        echo "fuzz: $target: missing $bin or $corpus" >&2
        failed=1
        summary="$summary
  $target: not run"
        continue
    fi
    mkdir -p "$found" "$crashes"
    dict=tests/fuzz/$name.dict
    [ -f "$dict" ] && dict_arg="-dict=$dict" || dict_arg=""
    echo "fuzz: $target for ${seconds}s over $corpus ($(ls "$corpus" | wc -l) seeds), new inputs in $found"
    # The first folder receives new inputs; the committed corpus is only read.
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" $dict_arg "$found" "$corpus" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
    [ -n "$runs" ] || runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    if [ $rc -eq 0 ] && grep -q '^Done ' "$log"; then
        echo "fuzz: $target: $(grep '^Done ' "$log" | tail -n 1)"
        summary="$summary
  $target: ${runs} runs in ${seconds}s, no crash"
    else
        failed=1
        reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        echo "fuzz: $target FAILED (exit $rc) after ${runs:-?} runs; the end of $log:"
        tail -n 60 "$log" | sed 's/^/    /'
        echo "fuzz: $target: reproducer ${reproducer:-(none written)}"
        [ -n "$reproducer" ] && echo "fuzz: $target: replay with: $bin $reproducer"
        summary="$summary
  $target: CRASH after ${runs:-?} runs, reproducer ${reproducer:-(none)}"
    fi
done
echo "fuzz: summary (FUZZ_SECONDS=$seconds):$summary"
exit $failed
