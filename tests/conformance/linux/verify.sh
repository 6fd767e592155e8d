#!/bin/bash
# verify.sh DRIVER RATELAB COUNT [FIRST_SEED] — seeded random traces through
# the Linux driver (real, port-rounded, port-exact) and `ratelab sim`
# (fw_trylock and fw_expiry), compared decision by decision.
#
# Each seed draws a workload (uniform, poisson, onoff, boundary, flash), L in
# 1..1000, I in 1 ms..60 s (whole ms), 1..8 keys, and often a second trace
# appended after an idle gap of 0..6·I plus a few ms. Every trace is run in
# four variants:
#   ms      times floored to whole ms, HZ=1000 (whole jiffies);
#   back    the same, with 1 in 8 times moved back up to 2·I (--unsorted);
#   ns      the raw times, HZ=1000 (not whole jiffies: rounding);
#   hz250   whole ms at HZ=250 (I rounded up to 4 ms; ms are not whole ticks).
# Per variant it counts traces (and attempts) where P = real agrees with
# R = fw_trylock, with fw_expiry, PR = port-rounded with P, and PX =
# port-exact with R. `ratelab sim --decisions` writes decisions sorted by
# time (stably), so the driver's lines are stably sorted by time to match.
# Writes the first trace where fw_expiry admitted and the kernel refused to
# $EXAMPLE (default /tmp/linux-expiry-example.csv).
set -u
[ $# -ge 3 ] || { echo "usage: verify.sh DRIVER RATELAB COUNT [FIRST_SEED]" >&2; exit 2; }
driver=$1 ratelab=$2 count=$3 first=${4:-1}
example=${EXAMPLE:-/tmp/linux-expiry-example.csv}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
declare -A tr_same tr_diff at_diff
attempts_total=0
skipped=0
have_example=0

# Adds one comparison: name, file A, file B (4 columns each, same order).
compare() {
    local name=$1 d
    d=$(paste -d, "$2" "$3" | awk -F, '$4 != $8 {d++} END {print d + 0}')
    if [ "$d" -eq 0 ]; then
        tr_same[$name]=$((${tr_same[$name]:-0} + 1))
    else
        tr_diff[$name]=$((${tr_diff[$name]:-0} + 1))
        at_diff[$name]=$((${at_diff[$name]:-0} + d))
    fi
}

# run_variant NAME TRACE L I_NS HZ SIMFLAGS
run_variant() {
    local v=$1 t=$2 l=$3 ins=$4 hz=$5 flags=$6 m rc
    for m in real port-rounded port-exact; do
        "$driver" --mode "$m" --limit "$l" --interval-ns "$ins" --burst "$l" --hz "$hz" "$t" \
            >"$work/$m.out" 2>"$work/err"
        rc=$?
        if [ $rc -eq 3 ]; then
            skipped=$((skipped + 1))
            return
        fi
        [ $rc -eq 0 ] || { echo "driver $m failed on $t: $(cat "$work/err")" >&2; exit 1; }
        tail -n +2 "$work/$m.out" | sort -s -t, -k1,1n >"$work/$m"
    done
    for a in fw_trylock fw_expiry; do
        # shellcheck disable=SC2086
        "$ratelab" sim --algo $a --trace "$t" --limit "$l" --interval "${ins}ns" $flags \
            --decisions "$work/$a.csv" >/dev/null 2>"$work/err" ||
            { echo "ratelab sim $a failed on $t: $(cat "$work/err")" >&2; exit 1; }
        tail -n +2 "$work/$a.csv" | cut -d, -f1-4 >"$work/$a"
    done
    compare "$v P=R(fw_trylock)" "$work/real" "$work/fw_trylock"
    compare "$v P=R(fw_expiry)" "$work/real" "$work/fw_expiry"
    compare "$v PR=P" "$work/port-rounded" "$work/real"
    compare "$v PX=R(fw_trylock)" "$work/port-exact" "$work/fw_trylock"
    if [ "$v" = ms ]; then
        attempts_total=$((attempts_total + $(wc -l <"$work/real")))
        if [ $have_example -eq 0 ] &&
            paste -d, "$work/real" "$work/fw_expiry" | awk -F, '$4 == 0 && $8 == 1 {f=1} END {exit !f}'; then
            cp "$t" "$example"
            echo "example: seed $seed ($wl, $keys keys) L=$l I=${ins}ns, $(paste -d, "$work/real" "$work/fw_expiry" |
                awk -F, '$4 == 0 && $8 == 1 {print "t_ns=" $1 " key=" $2 ": kernel refused, fw_expiry admitted"; exit}') -> $example"
            have_example=1
        fi
    fi
}

workloads=(uniform poisson onoff boundary flash)
for ((seed = first; seed < first + count; seed++)); do
    # shellcheck disable=SC2046
    read -r w l ims keys windows gap on off < <(awk -v s="$seed" 'BEGIN {
        srand(s); w = int(rand() * 5)
        l = int(exp(rand() * log(1001))); if (l < 1) l = 1; if (l > 1000) l = 1000
        i = int(exp(rand() * log(60001))); if (i < 1) i = 1; if (i > 60000) i = 60000
        keys = 1 + int(rand() * 8); win = 3 + int(rand() * 10)
        if (l * win * 4 > 60000) win = int(60000 / (4 * l)) + 2   # keep traces small
        gap = rand() < 0.6 ? int(rand() * 6 * i) + int(rand() * 5) : -1
        on = 1 + int(rand() * 2 * i); off = 1 + int(rand() * 8 * i)
        print w, l, i, keys, win, gap, on, off }')
    wl=${workloads[$w]}
    dur=$((ims * windows))
    extra=()
    case $wl in
    onoff) extra=(--on "${on}ms" --off "${off}ms") ;;
    flash) extra=(--at "$((dur / 3))ms" --spike "${ims}ms") ;;
    esac
    base=(--workload "$wl" --limit "$l" --interval "${ims}ms" --keys "$keys" --duration "${dur}ms")
    "$ratelab" trace "${base[@]}" "${extra[@]}" --seed "$seed" --out "$work/a.csv" >/dev/null 2>&1 ||
        exit 1
    if [ "$gap" -ge 0 ]; then
        "$ratelab" trace "${base[@]}" "${extra[@]}" --seed "$((seed + 1000000))" \
            --out "$work/b.csv" >/dev/null 2>&1 || exit 1
        awk -F, -v shift_ns="$(((dur + gap) * 1000000))" 'FNR == 1 {next}
            FILENAME == ARGV[1] {print; next} {printf "%.0f,%s,%s\n", $1 + shift_ns, $2, $3}' \
            "$work/a.csv" "$work/b.csv" >"$work/body"
    else
        tail -n +2 "$work/a.csv" >"$work/body"
    fi
    { echo t_ns,key,n; cat "$work/body"; } >"$work/ns.csv"
    { echo t_ns,key,n; awk -F, '{printf "%.0f,%s,%s\n", int($1 / 1000000) * 1000000, $2, $3}' \
        "$work/body"; } >"$work/ms.csv"
    { echo t_ns,key,n; awk -F, -v s="$seed" -v back="$((2 * ims))" 'BEGIN {srand(s)}
        {t = int($1 / 1000000); if (rand() < 0.125) {t -= int(rand() * back); if (t < 0) t = 0}
         printf "%.0f,%s,%s\n", t * 1000000, $2, $3}' "$work/body"; } >"$work/back.csv"
    run_variant ms "$work/ms.csv" "$l" "$((ims * 1000000))" 1000 ""
    run_variant back "$work/back.csv" "$l" "$((ims * 1000000))" 1000 --unsorted
    run_variant ns "$work/ns.csv" "$l" "$((ims * 1000000))" 1000 ""
    run_variant hz250 "$work/ms.csv" "$l" "$(((ims + 3) / 4 * 4 * 1000000))" 250 ""
done
echo "seeds $first..$((first + count - 1)); ms variant: $attempts_total attempts; skipped: $skipped"
printf '%-26s %8s %8s %10s\n' comparison "same" "differ" "attempts"
for v in ms back ns hz250; do
    for c in "P=R(fw_trylock)" "P=R(fw_expiry)" "PR=P" "PX=R(fw_trylock)"; do
        k="$v $c"
        printf '%-26s %8d %8d %10d\n' "$k" "${tr_same[$k]:-0}" "${tr_diff[$k]:-0}" "${at_diff[$k]:-0}"
    done
done
