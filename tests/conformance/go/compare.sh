#!/bin/bash
# compare.sh DIR DRIVER — runs the traces gen_traces.sh wrote in DIR through
# DRIVER's three modes and `ratelab sim` (tb_mutex, tb_cas, gcra_cas), and
# counts, attempt by attempt:
#   P  = --mode real, PR = --mode port-rounded, PX = --mode port-exact,
#   R  = ratelab sim (sorted traces; backwards ones too once sim takes
#        --unsorted).
# It prints, per pair, the attempts where P and R agree and differ and the
# traces by class (identical / peer_rounding / peer_stale_time / semantic),
# and checks the bracketing: PR ≡ P on every trace, PX ≡ R on every trace
# ratelab ran. Exits 1 when a bracket fails. The first differing attempt of
# each kind is shown (trace, line, configuration).
set -u
if [ $# -ne 2 ]; then
    echo "usage: compare.sh DIR DRIVER" >&2
    exit 2
fi
dir=$1 driver=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)
ratelab=${RATELAB:-$root/build/ratelab}
algos="tb_mutex tb_cas gcra_cas"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unsorted=""
if "$ratelab" sim --help 2>&1 | grep -q -- '--unsorted'; then
    unsorted=yes
fi

# diffs A B: how many decisions differ (files with the same attempts in the
# same order; the 4th column is the decision); the first difference's line
# goes to $work/first.
diffs() {
    awk -F, -v B="$2" -v FIRST="$work/first" '
        FNR == 1 { getline other < B; next }
        { if ((getline other < B) <= 0) { print "short" > "/dev/stderr"; exit 2 }
          split(other, o, ",")
          if ($1 != o[1] || $2 != o[2] || $3 != o[3]) { print "misaligned at line " FNR > "/dev/stderr"; exit 2 }
          if ($4 != o[4]) { d++; if (d == 1) print FNR ": " $0 " vs " other > FIRST } }
        END { print d + 0 }' "$1" || echo FAIL
}
# num VALUE: stops the run when a comparison could not be made
num() {
    [[ $1 =~ ^[0-9]+$ ]] || { echo "compare.sh: decisions do not line up with the trace" >&2; exit 1; }
}

declare -A same diff cls
attempts_sorted=0 attempts_back=0 traces=0 bad=0
pr_diff_sorted=0 pr_diff_back=0 px_diff=0 p_px_back=0
shown_round="" shown_stale=""
for cfgf in "$dir"/*.cfg; do
    i=$(basename "$cfgf" .cfg)
    read -r L I B wl < "$cfgf"
    for kind in sorted back; do
        trace="$dir/$i.csv"
        [ "$kind" = back ] && trace="$dir/${i}b.csv"
        [ -f "$trace" ] || continue
        traces=$((traces + 1))
        lines=$(($(wc -l < "$trace") - 1))
        if [ "$kind" = sorted ]; then attempts_sorted=$((attempts_sorted + lines)); else attempts_back=$((attempts_back + lines)); fi
        for m in real port-rounded port-exact; do
            if ! "$driver" --mode $m --limit "$L" --interval-ns "$I" --burst "$B" "$trace" > "$work/$m.csv" 2> "$work/err"; then
                echo "driver $m failed on $trace: $(head -n 1 "$work/err")" >&2
                exit 1
            fi
        done
        d=$(diffs "$work/real.csv" "$work/port-rounded.csv")
        num "$d"
        if [ "$d" != 0 ]; then
            echo "BRACKET FAILS: port-rounded differs from real on $trace (L=$L I=$I B=$B): $d attempts; first $(cat "$work/first")"
            bad=1
        fi
        if [ "$kind" = sorted ]; then pr_diff_sorted=$((pr_diff_sorted + d)); else pr_diff_back=$((pr_diff_back + d)); fi
        if [ "$kind" = back ] && [ -z "$unsorted" ]; then
            d=$(diffs "$work/real.csv" "$work/port-exact.csv")
            num "$d"
            p_px_back=$((p_px_back + d))
            if [ "$d" != 0 ] && [ -z "$shown_stale" ]; then
                shown_stale="$trace (L=$L I=$I B=$B): real vs port-exact, line $(cat "$work/first")"
            fi
            continue
        fi
        flag=""
        [ "$kind" = back ] && flag=--unsorted
        for a in $algos; do
            if ! "$ratelab" sim --algo "$a" --trace "$trace" $flag --limit "$L" --interval "${I}ns" \
                    --burst "$B" --decisions "$work/r.csv" --format csv > /dev/null 2> "$work/err"; then
                echo "ratelab sim $a failed on $trace: $(head -n 1 "$work/err")" >&2
                exit 1
            fi
            if [ "$kind" = back ]; then
                # sim writes its decisions sorted by time (stably): sort ours the same way
                for f in r real port-rounded port-exact; do
                    { head -n 1 "$work/$f.csv"; tail -n +2 "$work/$f.csv" | sort -s -t, -k1,1n; } > "$work/$f.sorted"
                done
                for f in real port-rounded port-exact; do cp "$work/$f.sorted" "$work/$f.cmp"; done
                cp "$work/r.sorted" "$work/r.csv"
            else
                for f in real port-rounded port-exact; do cp "$work/$f.csv" "$work/$f.cmp"; done
            fi
            x=$(diffs "$work/r.csv" "$work/port-exact.cmp")
            num "$x"
            if [ "$x" != 0 ]; then
                echo "BRACKET FAILS: port-exact differs from ratelab $a on $trace (L=$L I=$I B=$B): $x attempts; first $(cat "$work/first")"
                bad=1
            fi
            px_diff=$((px_diff + x))
            p=$(diffs "$work/real.cmp" "$work/r.csv")
            num "$p"
            first=$(cat "$work/first" 2>/dev/null)
            same[$a.$kind]=$(( ${same[$a.$kind]:-0} + lines - p ))
            diff[$a.$kind]=$(( ${diff[$a.$kind]:-0} + p ))
            if [ "$p" = 0 ]; then
                c=identical
            elif [ "$x" = 0 ] && [ "$(diffs "$work/real.cmp" "$work/port-rounded.cmp")" = 0 ]; then # PR ≡ P checked above
                if [ "$kind" = sorted ]; then c=peer_rounding; else c=peer_stale_time; fi
            else
                c=semantic
            fi
            cls[$a.$c]=$(( ${cls[$a.$c]:-0} + 1 ))
            if [ "$a" = tb_mutex ] && [ "$p" != 0 ]; then
                if [ "$kind" = sorted ] && [ -z "$shown_round" ]; then
                    shown_round="$trace (L=$L I=$I B=$B): real vs ratelab, line $first"
                elif [ "$kind" = back ] && [ -z "$shown_stale" ]; then
                    shown_stale="$trace (L=$L I=$I B=$B): real vs ratelab, line $first"
                fi
            fi
        done
        rm -f "$work/first"
    done
done

echo "traces: $traces; attempts: $attempts_sorted sorted, $attempts_back with time going back"
echo "port-rounded vs real: $pr_diff_sorted differ (sorted), $pr_diff_back differ (backwards)"
echo "port-exact vs ratelab (all algos, all traces ratelab ran): $px_diff differ"
for a in $algos; do
    for kind in sorted back; do
        [ -n "${same[$a.$kind]:-}" ] || continue
        echo "$a ($kind): real vs ratelab: ${same[$a.$kind]} identical, ${diff[$a.$kind]} differ"
    done
    echo "$a traces: identical ${cls[$a.identical]:-0}, peer_rounding ${cls[$a.peer_rounding]:-0}, peer_stale_time ${cls[$a.peer_stale_time]:-0}, semantic ${cls[$a.semantic]:-0}"
done
if [ -z "$unsorted" ]; then
    echo "(ratelab sim has no --unsorted yet: backwards traces compared only real vs ports; real vs port-exact differ on $p_px_back attempts)"
fi
[ -n "$shown_round" ] && echo "first rounding difference: $shown_round"
[ -n "$shown_stale" ] && echo "first stale-time difference: $shown_stale"
exit $bad
