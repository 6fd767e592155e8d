#!/bin/sh
# verify.sh — checks the Guava driver's bracketing on seeded random traces.
#   tests/conformance/guava/verify.sh RATELAB WORK COUNT SEED
# builds the driver into WORK/bin, then for each trace set (one per
# workload, plus "backwards": any workload with every 7th attempt's time
# swapped with the next one's) writes COUNT traces with `RATELAB trace`
# (L 1..1000 and I 1 ms..60 s, both log-uniform, I in whole ns; 1-6 keys;
# costs 1-K with K ≥ 2; onoff with idle gaps of 2-10 intervals) and runs
# each through real, port-rounded and port-exact, under both creation
# policies (--created-at first-seen, the default, and epoch), and through
# `RATELAB sim --algo tb_debt --unsorted`. Prints, per set and policy:
# attempts, how many real and ratelab decide alike, on how many traces
# port-rounded ≢ real (must be 0) and port-exact ≢ ratelab (must be 0 with
# epoch; with first-seen it may differ, but only on keys first seen after
# t = 0, whose ratelab limiter has been storing permits since the epoch:
# "early" counts the mismatches on keys first seen at t = 0, which must be
# 0). Exits 1 when any of these fails. This is a development check, not part of
# `make conformance` (that one uses tests/conformance/gen_traces.sh).
set -eu
if [ $# -ne 4 ]; then
    echo "usage: verify.sh RATELAB WORK COUNT SEED" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
ratelab=$1 work=$2 count=$3 seed=$4
mkdir -p "$work"
sh "$here/build.sh" "$work/bin" >/dev/null
drv=$work/bin/driver

admits_sorted() { tail -n +2 "$1" | sort -s -t, -k1,1n | cut -d, -f4; }
# differ A B: attempts whose decisions differ (after a stable sort by time,
# as ratelab's decision log is sorted).
differ() {
    admits_sorted "$1" >"$work/a.tmp"
    admits_sorted "$2" >"$work/b.tmp"
    paste -d' ' "$work/a.tmp" "$work/b.tmp" | awk '$1 != $2 || NF != 2 {n++} END {print n + 0}'
}
# early TRACE A B: attempts that differ between A and B on keys whose first
# attempt (in file order) is at t = 0.
early() {
    tail -n +2 "$2" | sort -s -t, -k1,1n | cut -d, -f2,4 >"$work/a.tmp"
    tail -n +2 "$3" | sort -s -t, -k1,1n | cut -d, -f2,4 >"$work/b.tmp"
    paste -d, "$work/a.tmp" "$work/b.tmp" | awk -F, -v trace="$1" '
        BEGIN { while ((getline line < trace) > 0) if (++r > 1) { split(line, f, ","); if (!(f[2] in first)) first[f[2]] = f[1] } }
        $2 != $4 && first[$1] == 0 {n++} END {print n + 0}'
}

status=0
printf '%-9s %-10s %6s %8s %12s %6s %6s %6s\n' set created traces attempts real=ratelab 'PR!=P' 'PX!=R' early
setno=0
for set in uniform poisson onoff boundary flash backwards; do
    setno=$((setno + 1))
    dir=$work/$set
    mkdir -p "$dir"
    rm -f "$dir/results.txt" "$dir/per_trace.txt"
    awk -v count="$count" -v seed="$seed" -v setno="$setno" '
    function u() { s = (s * 25214903917 + 11) % 281474976710656; return s / 281474976710656 }
    BEGIN {
        s = (seed * 104729 + setno * 7919 + 1) % 281474976710656
        split("uniform poisson onoff boundary flash", ws, " ")
        for (i = 1; i <= count; i++) {
            L = int(exp(u() * log(1000)) + 0.5); if (L < 1) L = 1; if (L > 1000) L = 1000
            I = int(exp(log(1e6) + u() * (log(6e10) - log(1e6))))
            k = u(); K = k < 0.25 ? 2 : k < 0.5 ? 3 : k < 0.75 ? L + 2 : 2 * L + 1
            keys = 1 + int(u() * 6)
            per = L * (0.5 + 3.5 * u())                 # attempts per interval
            n_int = int(4000 / per); if (n_int < 4) n_int = 4; if (n_int > 60) n_int = 60
            w = ws[1 + int(u() * 5)]
            printf "%d %d %d 1-%d %d %.0f %.9g %s %d\n", i, L, I, K, keys, n_int * I, per * 1e9 / I, w, 2 + int(u() * 9)
        }
    }' >"$dir/configs.txt"
    while read -r i L I cost keys duration rate w gap; do
        [ "$set" = backwards ] || w=$set
        extra="--rate $rate"
        case "$w" in
        onoff) extra="$extra --on $((I / 2 > 0 ? I / 2 : 1))ns --off $((I * gap))ns" ;;
        flash) extra="$extra --at $((duration / 3))ns --spike ${I}ns" ;;
        boundary) extra="" ;; # no rate: ratelab refuses one for boundary
        esac
        t=$dir/t$i
        # shellcheck disable=SC2086 # extra is a list of words
        "$ratelab" trace --workload "$w" --limit "$L" --interval "${I}ns" --keys "$keys" \
            --cost "$cost" --duration "${duration}ns" --seed "$((seed * 1000 + setno * 100 + i))" \
            $extra --out "$t.csv" >/dev/null 2>"$t.err" || { cat "$t.err" >&2; exit 1; }
        if [ "$set" = backwards ]; then
            awk -F, -v OFS=, 'NR == 1 {print; next} {line[NR] = $0; t[NR] = $1} END {
                for (r = 2; r <= NR; r++) {
                    if (r % 7 == 0 && r < NR) {x = t[r]; t[r] = t[r + 1]; t[r + 1] = x}
                    split(line[r], f, ","); print t[r], f[2], f[3]
                }}' "$t.csv" >"$t.tmp" && mv "$t.tmp" "$t.csv"
        fi
        echo "$L $I $cost $keys $w" >"$t.cfg"
        "$ratelab" sim --algo tb_debt --trace "$t.csv" --unsorted --limit "$L" --interval "${I}ns" \
            --decisions "$t.ratelab.csv" --format csv >/dev/null
        for created in first-seen epoch; do
            for mode in real port-rounded port-exact; do
                "$drv" --mode "$mode" --limit "$L" --interval-ns "$I" --burst "$L" \
                    --created-at "$created" "$t.csv" >"$t.$created.$mode.csv"
            done
            n=$(($(wc -l <"$t.csv") - 1))
            pr=$(differ "$t.$created.real.csv" "$t.ratelab.csv")
            rp=$(differ "$t.$created.port-rounded.csv" "$t.$created.real.csv")
            xr=$(differ "$t.$created.port-exact.csv" "$t.ratelab.csv")
            ex=$(early "$t.csv" "$t.$created.port-exact.csv" "$t.ratelab.csv")
            echo "$created $n $pr $rp $xr $ex" >>"$dir/results.txt"
            echo "t$i $created $n $pr $rp $xr $ex" >>"$dir/per_trace.txt"
        done
    done <"$dir/configs.txt"
    for created in first-seen epoch; do
        awk -v set="$set" -v c="$created" '$1 == c {t++; n += $2; same += $2 - $3; rp += $4 > 0; xr += $5 > 0; ex += $6}
            END {printf "%-9s %-10s %6d %8d %12d %6d %6d %6d\n", set, c, t, n, same, rp, xr, ex
                 exit (rp + ex > 0 || (c == "epoch" && xr > 0))}' "$dir/results.txt" || status=1
    done
    rm -f "$dir/results.txt"
done
rm -f "$work/a.tmp" "$work/b.tmp"
exit $status
