#!/bin/sh
# gen_traces.sh DIR COUNT [SEED] — seeded random traces for checking the Go
# driver by hand (compare.sh runs them). Deterministic for a given SEED.
#
# For each i < COUNT it writes DIR/i.cfg ("L I_ns B workload") and
# DIR/i.csv: a `ratelab trace` workload (uniform, poisson, onoff, boundary,
# flash, in turn) with L from 1 to 1000 (log-uniform), I from 1 ms to 60 s
# (round and odd values), B from 1 to 2L, 1–6 keys, costs from 1 up to past B,
# or (every sixth trace) a "grid" of attempts within a nanosecond of the
# exact token times k·I/L, where float rounding and the peer's
# sub-nanosecond truncation show. Every third sorted trace gets long idle
# gaps (hundreds of intervals, times kept sorted). Beside each it writes
# DIR/ib.csv: the same attempts with time going backwards a little
# (neighbouring lines' times swapped, some times pulled back by up to a
# few token periods).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: gen_traces.sh DIR COUNT [SEED]" >&2
    exit 2
fi
dir=$1 count=$2 seed=${3:-1}
root=$(cd "$(dirname "$0")/../../.." && pwd)
ratelab=${RATELAB:-$root/build/ratelab}
[ -x "$ratelab" ] || { echo "gen_traces.sh: $ratelab missing (make -j2 at the repo root)" >&2; exit 1; }
mkdir -p "$dir"

intervals="1000000 7000000 17000000 100000000 333333333 1000000000 1001000000 7777777777 60000000000"
workloads="uniform poisson onoff boundary flash"

i=0
while [ "$i" -lt "$count" ]; do
    s=$((seed * 100003 + i))
    # the configuration, drawn by awk from the seed
    set -- $(awk -v s="$s" -v ivs="$intervals" 'BEGIN {
        srand(s); n = split(ivs, iv, " ");
        L = int(exp(rand() * log(1001))); if (L < 1) L = 1; if (L > 1000) L = 1000;
        I = iv[1 + int(rand() * n)];
        B = 1 + int(rand() * 2 * L);
        keys = 1 + int(rand() * 6);
        hi = B + 1 + int(rand() * 3); if (rand() < 0.3) hi = 1 + int(rand() * B);
        if (hi > 50000) hi = 50000;
        # about 4L attempts per interval by default: keep traces near 20k attempts
        k = int(20000 / (4 * L)); if (k < 4) k = 4; if (k > 60) k = 60;
        under = rand() < 0.3;
        printf "%d %.0f %d %d %d %d %d %d\n", L, I, B, keys, hi, k, under, int(rand() * 1000000) }')
    L=$1 I=$2 B=$3 keys=$4 hi=$5 k=$6 under=$7 r=$8
    dur=$((I * k))
    if [ $((i % 6)) -eq 5 ]; then
        wl=grid
        awk -v L="$L" -v I="$I" -v keys="$keys" -v hi="$hi" -v s="$s" -v k="$k" 'BEGIN {
            srand(s); print "t_ns,key,n"; j = 0; t = 0;
            while (j < k * L && j < 20000) {
                j += (rand() < 0.7) ? 1 : 2;
                t0 = int(j * I / L); t = t0 + int(rand() * 3) - 1; if (t < 0) t = 0;
                key = "k" int(rand() * keys);
                n = (rand() < 0.8) ? 1 : 1 + int(rand() * hi);
                printf "%.0f,%s,%d\n", t, key, n;
                if (rand() < 0.3) printf "%.0f,%s,1\n", t, key;
            } }' | sort -t, -k1,1n -s > "$dir/$i.csv.tmp"
        { echo "t_ns,key,n"; grep -v '^t_ns' "$dir/$i.csv.tmp"; } > "$dir/$i.csv"
        rm -f "$dir/$i.csv.tmp"
    else
        idx=$((i % 5 + 1))
        wl=$(echo $workloads | cut -d' ' -f$idx)
        extra=""
        if [ "$under" = 1 ] && [ "$wl" != boundary ]; then
            # underload: about L/I attempts per second or less, so the bucket
            # refills (boundary takes no rate: ratelab refuses one)
            extra="--rate $(awk -v L="$L" -v I="$I" 'BEGIN { printf "%.6f", L * 1e9 / I * 0.8 }')"
        fi
        case $wl in
        onoff) extra="$extra --on $((I * 2))ns --off $((I * 5))ns" ;;
        flash) extra="$extra --at $((dur / 3))ns --spike ${I}ns" ;;
        esac
        "$ratelab" trace --workload "$wl" --seed "$s" --limit "$L" --interval "${I}ns" \
            --burst "$B" --keys "$keys" --cost "1-$hi" --duration "${dur}ns" $extra \
            --out "$dir/$i.csv" >"$dir/.log" 2>&1 ||
            { echo "gen_traces.sh: ratelab trace failed: $(head -n 1 "$dir/.log")" >&2; exit 1; }
    fi
    if [ $((i % 3)) -eq 2 ]; then
        # long idle gaps: from some lines on, everything later moves by 100–1000 intervals
        awk -F, -v OFS=, -v I="$I" -v s="$r" 'BEGIN { srand(s) }
            NR == 1 { print; next }
            { if (rand() < 0.01) off += I * (100 + int(rand() * 900)); $1 = sprintf("%.0f", $1 + off); print }' \
            "$dir/$i.csv" > "$dir/$i.csv.tmp" && mv "$dir/$i.csv.tmp" "$dir/$i.csv"
    fi
    # time going backwards a little
    awk -F, -v OFS=, -v T="$(awk -v L="$L" -v I="$I" 'BEGIN { printf "%.0f", int(I / L) }')" -v s="$r" '
        BEGIN { srand(s + 1) }
        NR == 1 { print; next }
        { t[NR] = $1; rest[NR] = $2 "," $3 }
        END {
            for (j = 2; j < NR; j++)
                if (rand() < 0.1) { x = t[j]; t[j] = t[j + 1]; t[j + 1] = x; j++ }
            for (j = 2; j <= NR; j++) {
                if (rand() < 0.05) { b = int(rand() * 3 * T); t[j] = t[j] > b ? t[j] - b : 0 }
                printf "%.0f,%s\n", t[j], rest[j]
            }
        }' "$dir/$i.csv" > "${dir}/${i}b.csv"
    echo "$L $I $B $wl" > "$dir/$i.cfg"
    i=$((i + 1))
done
rm -f "$dir/.log"
