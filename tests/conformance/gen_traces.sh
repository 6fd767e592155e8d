#!/bin/sh
# gen_traces.sh — the seeded random traces conformance runs on.
#   tests/conformance/gen_traces.sh RATELAB OUT COUNT SEED [--unit-cost]
# writes OUT/tNNN.csv (a trace, t_ns,key,n) and OUT/tNNN.cfg ("L I_ns B
# kind", kind sorted or backwards) for NNN = 1..COUNT. The same SEED gives
# the same files on every machine. The configurations span L from 1 to
# 1000, I from 1 ms to 60 s (whole ms), B from 1 to 2L, costs 1, 1–3 and
# above B, 1–5 keys, every workload, long idle gaps (onoff). Traces 3, 7,
# 11, … (a quarter) have times that go back a little (neighbouring attempts
# swapped, as when threads read the clock and then call the limiter): the
# third is one so that make test's quick run (3 traces) has one.
# --unit-cost (a peer that decides single events: linux/gen.sh) makes every
# cost 1 and leaves every other draw as it is. Each trace is kept to at most
# ~4000 attempts so that slow peers (a JVM, a real server) keep up.
set -eu
ratelab=$1 out=$2 count=$3 seed=$4
unit_cost=0
if [ $# -ge 5 ]; then
    [ "$5" = --unit-cost ] || { echo "gen_traces.sh: unknown option $5" >&2; exit 2; }
    unit_cost=1
fi
mkdir -p "$out"

# One configuration per line: "i L I_ns B workload keys cost duration_ns rate kind", from a
# 64-bit LCG in awk's doubles kept below 2^53 (a 48-bit LCG, as drand48).
awk -v count="$count" -v seed="$seed" -v unit_cost="$unit_cost" '
function next_u() { state = (state * 25214903917 + 11) % 281474976710656; return state / 281474976710656 }
function pick(n) { return int(next_u() * n) }
BEGIN {
    state = (seed * 7919 + 12345) % 281474976710656
    split("1 2 3 5 10 20 50 100 200 500 1000", limits, " ")
    split("1000000 3000000 10000000 100000000 250000000 1000000000 7000000000 60000000000", intervals, " ")
    split("uniform poisson onoff boundary flash", workloads, " ")
    for (i = 1; i <= count; i++) {
        L = limits[1 + pick(11)]
        I = intervals[1 + pick(8)]
        B = 1 + pick(2 * L)                       # 1 .. 2L
        w = workloads[1 + pick(5)]
        keys = 1 + pick(5)
        c = pick(4)
        cost = c == 0 || c == 1 ? "1" : c == 2 ? "1-3" : "1-" (B + 2)  # above B sometimes
        if (unit_cost) cost = "1"
        # About 4000 attempts: a rate of 1..4 times L per I, over as many
        # intervals as that allows (at least 3).
        per_interval = L * (1 + pick(4))
        intervals_n = int(4000 / per_interval)
        if (intervals_n < 3) intervals_n = 3
        if (intervals_n > 40) intervals_n = 40
        duration = intervals_n * I
        rate = per_interval * 1e9 / I               # attempts per second
        kind = i % 4 == 3 ? "backwards" : "sorted"
        printf "%d %d %.0f %d %s %d %s %.0f %.9g %s\n", i, L, I, B, w, keys, cost, duration, rate, kind
    }
}' >"$out/configs.txt"

while read -r i L I B w keys cost duration rate kind; do
    name=$(printf 't%03d' "$i")
    extra="--rate $rate"
    case "$w" in
    onoff) extra="$extra --on $((I / 2))ns --off $((I * 3))ns" ;; # idle gaps of three intervals
    flash) extra="$extra --at $((duration / 3))ns --spike ${I}ns" ;;
    boundary) extra="" ;; # L each side of the edges: no rate (ratelab refuses one)
    esac
    # shellcheck disable=SC2086 # extra is a list of words
    "$ratelab" trace --workload "$w" --limit "$L" --interval "${I}ns" --burst "$B" --keys "$keys" \
        --cost "$cost" --duration "${duration}ns" --seed "$((seed * 1000 + i))" \
        $extra --out "$out/$name.csv" >/dev/null 2>&1 ||
        "$ratelab" trace --workload "$w" --limit "$L" --interval "${I}ns" --burst "$B" --keys "$keys" \
            --cost "$cost" --duration "${duration}ns" --seed "$((seed * 1000 + i))" \
            $extra --out "$out/$name.csv" # again, to show why it failed
    if [ "$kind" = backwards ]; then
        # Swap the times of every 7th attempt and its successor: a late
        # stamp, as from a thread preempted between reading the clock and
        # calling the limiter.
        awk -F, -v OFS=, 'NR == 1 {print; next}
            {line[NR] = $0; t[NR] = $1} END {
                for (r = 2; r <= NR; r++) {
                    if (r % 7 == 0 && r < NR) {tmp = t[r]; t[r] = t[r + 1]; t[r + 1] = tmp}
                    split(line[r], f, ","); f[1] = t[r]; print f[1], f[2], f[3]
                }
            }' "$out/$name.csv" >"$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name.csv"
    fi
    echo "$L $I $B $kind" >"$out/$name.cfg"
done <"$out/configs.txt"
