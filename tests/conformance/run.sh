#!/bin/sh
# run.sh — conformance of ratelab's algorithms against the peers' own code
# (README.md beside this file says how a peer plugs in and what each class
# means).
#   tests/conformance/run.sh RATELAB OUT.csv COUNT SEED [PEER...]
# installs each peer's Debian packages when missing, builds its driver,
# generates COUNT seeded traces (gen_traces.sh, or the peer's own gen.sh),
# runs every trace through the peer and `ratelab sim --unsorted`, and
# classifies every mismatch. Writes one summary row per peer × algorithm to
# OUT.csv (whole or not at all) and prints it. Exits 1, naming each reason
# on a line of its own and last "conformance: FAILED", when a peer could not
# be built, a driver failed or skipped a trace (exit 3: the generator must
# not produce what the peer cannot express), a mismatch is semantic, or a
# peer × algorithm compared fewer traces or attempts than caps.txt requires
# or excused (peer_rounding + peer_stale_time) a larger share of its
# attempts than caps.txt allows; 0 otherwise.
# CONFORMANCE_PEERS_DIR (default: this folder) holds the peer folders and
# caps.txt; selftest.sh points it at fake peers.
# Shapers (README.md, "Shapers"): a .cfg may carry further options for both
# sides; releases are compared within the peer's release_tolerance.txt if it
# has one; the driver finds the algorithm it stands for in CONFORMANCE_ALGO.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
peers_dir=$(cd "${CONFORMANCE_PEERS_DIR:-$here}" && pwd)
ratelab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out_csv=$2 count=$3 seed=$4
shift 4
peers=${*:-go guava linux nginx go_wait juju guava_wait nginx_delay}
work=${CONFORMANCE_WORK:-build/conformance}
mkdir -p "$work"
work=$(cd "$work" && pwd)
caps="$peers_dir/caps.txt"
[ -r "$caps" ] || { echo "conformance: $caps missing" >&2; exit 2; }

# Every reason the run fails, one line each; said again at the end.
problems="$work/problems.txt"
: >"$problems"
fail() {
    echo "conformance: $*"
    echo "$*" >>"$problems"
}

# ---- packages ---------------------------------------------------------------
# Every peer named is compared, so its packages are installed when missing
# (make test's quick run included: a peer left out would compare nothing).
missing=""
for peer in $peers; do
    [ -d "$peers_dir/$peer" ] || { echo "conformance: no peer $peer in $peers_dir" >&2; exit 2; }
    for pkg in $(grep -v '^#' "$peers_dir/$peer/deps.txt" 2>/dev/null || true); do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
done
if [ -n "$missing" ]; then
    echo "conformance: installing$missing"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    # shellcheck disable=SC2086 # one package a word
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing \
        >/dev/null
fi

# ---- what each peer must reach (caps.txt) -----------------------------------
# need PEER: sets min_traces, min_attempts and cap_pct from caps.txt's row for
# PEER and this run's COUNT; without one (another COUNT), at least one trace
# and one attempt a trace, and the peer's loosest cap, said so.
need() {
    row=$(awk -v p="$1" -v c="$count" '$1 == p && $2 == c {print $3, $4, $5; exit}' "$caps")
    if [ -z "$row" ]; then
        loosest=$(awk -v p="$1" '$1 == p && ($5 + 0 > m + 0 || m == "") {m = $5} END {print m}' "$caps")
        [ -n "$loosest" ] || { fail "$1: no row in $caps"; loosest=0; }
        echo "conformance: $1: caps.txt has no row for $count traces: at least 1 trace, 1 attempt a trace, excused ≤ $loosest %"
        row="1 0 $loosest"
    fi
    # shellcheck disable=SC2086 # three words
    set -- $row
    min_traces=$1 min_attempts=$2 cap_pct=$3
}

# ---- one trace through one pair ---------------------------------------------
# differ A B: the number of lines where two decision files disagree after a
# stable sort by time (ratelab's log is stably sorted by its checker): the
# admitted column, and the release_ns column too when both files have one
# (a shaper's peer and ratelab shaping: the release time must agree). With
# a tolerance "LOW HIGH" (ns, the peer's release_tolerance.txt: a peer timed
# on a real clock), two releases also agree when both or neither are the
# attempt's own time (released at once) and A's minus B's lies in [LOW,
# HIGH]; those not equal are counted in $work/noise.tmp ("count lowest
# highest").
sorted_admits() {
    awk -F, -v rel="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "release_ns") r = i; next}
        {print $1 "," $4 (rel ? "," $r : "")}' "$1" | sort -s -t, -k1,1n
}
has_release() { head -n 1 "$1" | tr ',' '\n' | grep -qx release_ns; }
differ() {
    echo "0 0 0" >"$work/noise.tmp"
    rel=""
    has_release "$1" && has_release "$2" && rel=1
    sorted_admits "$1" "$rel" >"$work/a.tmp"
    sorted_admits "$2" "$rel" >"$work/b.tmp"
    if [ "$(wc -l <"$work/a.tmp")" -ne "$(wc -l <"$work/b.tmp")" ]; then
        echo 999999999
        return
    fi
    paste -d, "$work/a.tmp" "$work/b.tmp" | awk -F, -v rel="$rel" -v tol="${tolerance:-}" \
        -v noise="$work/noise.tmp" '
        BEGIN {if (tol != "") {split(tol, w, " "); lo = w[1]; hi = w[2]}}
        {
            same = rel ? $2 == $5 && $3 == $6 : $2 == $4
            if (rel && !same && tol != "" && $2 == $5 && $3 != "" && $6 != "" && ($3 == $1) == ($6 == $4)) {
                d = $3 - $6
                if (d >= lo && d <= hi) {same = 1; k++; if (d < low) low = d; if (d > high) high = d}
            }
            if (!same) n++
        }
        END {print k + 0, low + 0, high + 0 >noise; print n + 0}'
}
admits() { tail -n +2 "$1" | awk -F, '$4 == 1 {n++} END {print n + 0}'; }

rows="$work/rows.csv"
: >"$rows"
started=$(date +%s)
for peer in $peers; do
    bin="$work/$peer/bin"
    mkdir -p "$bin"
    need "$peer"
    if ! sh "$peers_dir/$peer/build.sh" "$bin" >"$work/$peer/build.log" 2>&1; then
        fail "$peer: build failed: $(tail -n 1 "$work/$peer/build.log")"
        continue
    fi
    traces="$work/$peer/traces"
    rm -rf "$traces"
    mkdir -p "$traces"
    gen="sh $here/gen_traces.sh"
    [ -x "$peers_dir/$peer/gen.sh" ] && gen=$peers_dir/$peer/gen.sh
    if ! $gen "$ratelab" "$traces" "$count" "$seed" >/dev/null; then
        fail "$peer: its trace generator failed"
        continue
    fi
    generated=$(find "$traces" -name 't*.csv' | wc -l)
    [ "$generated" -gt 0 ] || fail "$peer: its generator wrote no trace"
    algos=$(grep -v '^#' "$peers_dir/$peer/pairs.txt" || true)
    [ -n "$algos" ] || fail "$peer: pairs.txt names no algorithm"
    tolerance=""
    [ -r "$peers_dir/$peer/release_tolerance.txt" ] &&
        tolerance=$(grep -v '^#' "$peers_dir/$peer/release_tolerance.txt" | head -n 1)
    for algo in $algos; do
        noisy=0 noise_low=0 noise_high=0
        CONFORMANCE_ALGO=$algo
        export CONFORMANCE_ALGO
        n_traces=0 skipped=0 attempts=0 identical=0 rounding=0 stale=0 semantic=0 extra=0
        example="" skip_example=""
        for trace in $(find "$traces" -name 't*.csv' | sort); do
            name=$(basename "$trace" .csv)
            more="" # further words: options for both the driver and ratelab sim
            read -r L I B kind more <"$traces/$name.cfg"
            d="$work/$peer/$algo/$name"
            mkdir -p "$d"
            args="--limit $L --interval-ns $I --burst $B $more"
            rc=0
            # shellcheck disable=SC2086 # args is a list of words
            "$bin/driver" --mode real $args "$trace" >"$d/real.csv" 2>"$d/real.err" || rc=$?
            if [ "$rc" -ne 0 ]; then
                if [ "$rc" -eq 3 ]; then
                    skipped=$((skipped + 1))
                    [ -z "$skip_example" ] && skip_example="$name: $(head -n 1 "$d/real.err")"
                    continue
                fi
                fail "$peer $name: driver failed ($rc): $(head -n 1 "$d/real.err")"
                continue
            fi
            # The trace as the peer saw it (its own times, when it has them),
            # with the trace's per-attempt max wait when it has one (shapers).
            cut -d, -f1-3 "$d/real.csv" >"$d/trace.csv"
            if head -n 1 "$trace" | grep -q ',max_wait_ns$'; then
                cut -d, -f4 "$trace" | paste -d, "$d/trace.csv" - >"$d/trace.tmp"
                mv "$d/trace.tmp" "$d/trace.csv"
            fi
            burst="--burst $B" # B = 0: the algorithm's default (nginx's burst 0)
            [ "$B" -eq 0 ] && burst=""
            # shellcheck disable=SC2086
            "$ratelab" sim --algo "$algo" --trace "$d/trace.csv" --unsorted --limit "$L" \
                --interval "${I}ns" $burst $more --decisions "$d/ratelab.csv" --format csv \
                >/dev/null 2>"$d/ratelab.err" || {
                fail "$peer $algo $name: ratelab sim failed: $(head -n 1 "$d/ratelab.err")"
                continue
            }
            n_traces=$((n_traces + 1))
            total=$(($(wc -l <"$d/real.csv") - 1))
            attempts=$((attempts + total))
            diff_pr=$(differ "$d/real.csv" "$d/ratelab.csv")
            identical=$((identical + total - diff_pr))
            read -r k low high <"$work/noise.tmp"
            noisy=$((noisy + k))
            [ "$low" -lt "$noise_low" ] && noise_low=$low
            [ "$high" -gt "$noise_high" ] && noise_high=$high
            [ "$diff_pr" -eq 0 ] && continue
            # shellcheck disable=SC2086
            "$bin/driver" --mode port-rounded $args "$d/trace.csv" >"$d/rounded.csv" 2>"$d/rounded.err" || {
                fail "$peer $name: driver failed in port-rounded: $(head -n 1 "$d/rounded.err")"
                continue
            }
            # shellcheck disable=SC2086
            "$bin/driver" --mode port-exact $args "$d/trace.csv" >"$d/exact.csv" 2>"$d/exact.err" || {
                fail "$peer $name: driver failed in port-exact: $(head -n 1 "$d/exact.err")"
                continue
            }
            if [ "$(differ "$d/real.csv" "$d/rounded.csv")" -eq 0 ] &&
                [ "$(differ "$d/exact.csv" "$d/ratelab.csv")" -eq 0 ]; then
                if [ "$kind" = backwards ]; then
                    stale=$((stale + diff_pr))
                    extra=$((extra + $(admits "$d/real.csv") - $(admits "$d/ratelab.csv")))
                else
                    rounding=$((rounding + diff_pr))
                fi
            else
                semantic=$((semantic + diff_pr))
                [ -z "$example" ] && example="$d"
            fi
        done
        echo "$peer,$algo,$n_traces,$skipped,$attempts,$identical,$rounding,$stale,$semantic,$extra" \
            >>"$rows"
        [ -n "$tolerance" ] &&
            echo "conformance: $peer vs $algo: $noisy of $identical identical have a release apart within the tolerance [$tolerance] ns (timing noise), from $noise_low to +$noise_high ns"
        [ -n "$example" ] &&
            fail "$peer vs $algo: $semantic semantic mismatches, e.g. $example (real.csv, ratelab.csv, rounded.csv, exact.csv)"
        [ "$skipped" -gt 0 ] &&
            fail "$peer vs $algo: $skipped of $generated traces skipped by the driver (exit 3), e.g. $skip_example; the peer's generator must not produce what the peer cannot express"
        [ "$n_traces" -lt "$generated" ] && [ "$skipped" -eq 0 ] &&
            fail "$peer vs $algo: compared $n_traces of $generated traces"
        [ "$n_traces" -lt "$min_traces" ] || [ "$n_traces" -eq 0 ] &&
            fail "$peer vs $algo: compared $n_traces traces, fewer than the $min_traces caps.txt requires"
        [ "$attempts" -lt "$min_attempts" ] || [ "$attempts" -lt "$n_traces" ] &&
            fail "$peer vs $algo: compared $attempts attempts, fewer than the $min_attempts caps.txt requires"
        # The excused share against the peer's cap, in hundredths of a percent.
        excused=$((rounding + stale))
        share=$(awk -v e="$excused" -v a="$attempts" 'BEGIN {printf "%.2f", a ? 100 * e / a : 0}')
        if awk -v s="$share" -v c="$cap_pct" 'BEGIN {exit !(s + 0 > c + 0)}'; then
            fail "$peer vs $algo: $excused of $attempts attempts excused ($share %: peer_rounding $rounding, peer_stale_time $stale), above the cap of $cap_pct % (caps.txt)"
        fi
    done
done
seconds=$(($(date +%s) - started))

# ---- the summary, written whole ---------------------------------------------
# The revision measured: results written by an earlier step of the same
# `make reference` do not make it dirty.
rev=$(git -C "$here" describe --always 2>/dev/null || echo unknown)
(cd "$here/../.." && git diff --quiet HEAD -- . ':!results') 2>/dev/null || rev="$rev-dirty"
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
host=$(hostname -s 2>/dev/null || hostname)
tmp="$out_csv.tmp.$$"
{
    echo "peer,algo,traces,skipped,attempts,identical,peer_rounding,peer_stale_time,semantic,stale_extra_admits,seed,git_rev,date,host"
    sed "s/\$/,$seed,$rev,$date,$host/" "$rows"
} >"$tmp" && mv "$tmp" "$out_csv"
echo "conformance: $count traces a peer (seed $seed), $seconds s; $out_csv:"
column -s, -t "$out_csv" | cut -c1-150
if [ -s "$problems" ]; then
    sed 's/^/conformance: /' "$problems"
    echo "conformance: FAILED ($(wc -l <"$problems") problems above; peers named: $peers)"
    exit 1
fi
# Last line: what was compared, peer by peer.
echo "conformance: passed, every peer compared: $(awk -F, '{printf "%s%s/%s %d traces %d attempts", (NR > 1 ? ", " : ""), $1, $2, $3, $5}' "$rows")"
exit 0
