#!/bin/sh
# gen.sh — the traces Guava's shaper conformance runs on (run.sh calls it
# instead of gen_traces.sh):
#   tests/conformance/guava_wait/gen.sh RATELAB OUT COUNT SEED
# writes t000, Guava #3552's case (create(10/s, 500 ms), i.e. L = 10,
# I = 1 s, B = 5; tryAcquire() every 120 ms, 100 polls), then gen_traces.sh's
# COUNT traces with a max_wait_ns column drawn per attempt from the seed:
# a third empty (acquire), a third 0 (tryAcquire with no timeout), a third
# a whole number of µs up to 3·I/L (tryAcquire(n, timeout)).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ratelab=$1 out=$2 count=$3 seed=$4
sh "$here/../gen_traces.sh" "$ratelab" "$out" "$count" "$seed" >/dev/null
awk 'BEGIN {print "t_ns,key,n,max_wait_ns"; for (i = 0; i < 100; i++) printf "%.0f,k,1,0\n", i * 120000000}' \
    >"$out/t000.csv"
echo "10 1000000000 5 sorted" >"$out/t000.cfg"
for cfg in "$out"/t[0-9]*.cfg; do
    name=$(basename "$cfg" .cfg)
    [ "$name" = t000 ] && continue
    read -r L I _ <"$cfg"
    awk -F, -v OFS=, -v seed="$seed" -v name="$name" -v top="$((3 * I / L / 1000))" '
        function u() { state = (state * 25214903917 + 11) % 281474976710656; return state / 281474976710656 }
        BEGIN { state = (seed * 7919 + substr(name, 2) * 104729 + 77) % 281474976710656 }
        NR == 1 { print $0, "max_wait_ns"; next }
        { c = int(u() * 3); w = c == 0 ? "" : c == 1 ? 0 : sprintf("%.0f", int(u() * (top + 1)) * 1000); print $0, w }' \
        "$out/$name.csv" >"$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name.csv"
done
