#!/bin/sh
# gen.sh RATELAB OUT COUNT SEED — the shapers' traces (go_wait and juju):
# the shared seeded traces (../gen_traces.sh: every workload, idle gaps,
# costs past B, a quarter with time going back) with a fourth column,
# max_wait_ns, drawn per attempt from the same seed: empty (no deadline:
# ReserveN, Take) 15 %, 0 (no wait: AllowN-like) 25 %, a whole number of
# token periods T = I/L up to 2B, give or take a ns (where rounding shows)
# 30 %, anything up to 2B·T 30 %; at most a day (sim's limit).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 4 ] || { echo "usage: gen.sh RATELAB OUT COUNT SEED" >&2; exit 2; }
out=$2 seed=$4
sh "$here/../gen_traces.sh" "$@"
for cfg in "$out"/t*.cfg; do
    name=${cfg%.cfg}
    read -r L I B kind <"$cfg"
    i=$(basename "$name" | sed 's/^t0*//')
    awk -F, -v OFS=, -v L="$L" -v I="$I" -v B="$B" -v s="$((seed * 1000 + i))" '
        BEGIN { srand(s); T = I / L; day = 86400e9 }
        NR == 1 { print $0, "max_wait_ns"; next }
        {
            u = rand()
            if (u < 0.15) w = ""
            else if (u < 0.40) w = 0
            else if (u < 0.70) { w = int(rand() * 2 * B) * T + int(rand() * 3) - 1; if (w < 0) w = 0 }
            else w = rand() * 2 * B * T
            if (w != "" && w > day) w = day
            print $0, (w == "" ? "" : sprintf("%.0f", w))
        }' "$name.csv" >"$name.tmp"
    mv "$name.tmp" "$name.csv"
done
