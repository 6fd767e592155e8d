#!/bin/sh
# soak.sh — long runs that must stay healthy: a recorded, keyed stress run
# with key churn, and the replay of a long trace, with the resident set
# sampled every 5 s; then the same runs, shorter, under AddressSanitizer's
# leak checker. Usage: tests/soak.sh RATELAB ASAN_RATELAB SECONDS
# (make soak SOAK_SECONDS=N builds both and calls this). Exits non-zero when
# a run fails or leaks; the RSS samples are printed for a person to read.
set -eu
bin=$1 asan=$2 seconds=$3
work=$(mktemp -d /tmp/ratelab-soak-XXXXXX)
trap 'rm -rf "$work"' EXIT

# Runs "$@" in the background and prints its VmRSS every 5 s: "t_s rss_MiB".
sampled() {
    label=$1
    shift
    "$@" >"$work/$label.out" 2>"$work/$label.err" &
    pid=$!
    t=0
    echo "$label: RSS every 5 s (s MiB)"
    while kill -0 "$pid" 2>/dev/null; do
        rss=$(awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$rss" ] && printf '  %5d %8s\n' "$t" "$rss"
        sleep 5
        t=$((t + 5))
    done
    if ! wait "$pid"; then
        echo "$label: FAILED"
        cat "$work/$label.err"
        return 1
    fi
    grep -v '^$' "$work/$label.err" | sed "s/^/  $label stderr: /" || true
}

# 10^6 keys hit uniformly, each idle longer than its expiry (L = 10 per
# 10 ms): entries are created, expire and are created again all run long.
churn="--algo tb_cas --threads 2 --keys 1000000 --limit 10 --interval 10ms --expiry lazy --reps 1"
# Four runs (tb_cas and the faa floor, each unrecorded and recorded): a
# quarter of the time each.
sampled stress "$bin" stress $churn --record --duration "$((seconds / 4 + 1))s" --format csv
awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
         {printf "  stress row: recorded %s, admits %s, dropped %s, keys_live %s, held %s\n",
                 $c["recorded"], $c["admits"], $c["dropped_events"], $c["keys_live"], $c["promise_held"]}' \
    "$work/stress.out"

# A long trace (about 20 000 attempts a second over 1000 keys), sent at 10x.
"$bin" trace --workload poisson --rate 20000 --keys 1000 --duration "$((seconds * 10))s" \
    --out "$work/long.csv"
echo "replay: $(($(wc -l <"$work/long.csv") - 1)) attempts"
sampled replay "$bin" replay --algo gcra_cas --trace "$work/long.csv" --speed 10 --threads 2 \
    --format csv

# The same, short, under ASan: LeakSanitizer fails the run on a leak.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
"$asan" stress $churn --record --duration 5s --format csv >/dev/null
"$bin" trace --workload poisson --rate 20000 --keys 1000 --duration 20s --out "$work/short.csv"
"$asan" replay --algo gcra_cas --trace "$work/short.csv" --speed 10 --threads 2 --format csv >/dev/null
"$asan" sim --algo sliding_log --trace "$work/short.csv" --decisions "$work/d.csv" >/dev/null
"$asan" check --limit 1000 --interval 100ms --events "$work/d.csv" >/dev/null
echo "soak: ASan leak checks passed (stress, replay, sim, check)"
