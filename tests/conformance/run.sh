#!/bin/sh
# run.sh — conformance of ratelab's algorithms against the peers' own code
# (README.md beside this file says how a peer plugs in and what each class
# means).
#   tests/conformance/run.sh RATELAB OUT.csv COUNT SEED [PEER...]
# installs each peer's Debian packages when missing, builds its driver,
# generates COUNT seeded traces (gen_traces.sh, or the peer's own gen.sh),
# runs every trace through the peer and `ratelab sim --unsorted`, and
# classifies every mismatch. Writes one summary row per peer × algorithm to
# OUT.csv (whole or not at all) and prints it. Exits 1 when any mismatch is
# semantic or a peer could not be built, 0 otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ratelab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out_csv=$2 count=$3 seed=$4
shift 4
peers=${*:-go guava linux nginx}
work=${CONFORMANCE_WORK:-build/conformance}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# ---- packages ---------------------------------------------------------------
# CONFORMANCE_INSTALLED_ONLY=1 (make test's quick subset): a peer whose
# packages are missing is skipped, and said so, instead of installed.
missing=""
kept=""
for peer in $peers; do
    lacking=""
    for pkg in $(grep -v '^#' "$here/$peer/deps.txt" 2>/dev/null || true); do
        dpkg -s "$pkg" >/dev/null 2>&1 || lacking="$lacking $pkg"
    done
    if [ -n "$lacking" ] && [ "${CONFORMANCE_INSTALLED_ONLY:-0}" = 1 ]; then
        echo "conformance: $peer SKIPPED: missing$lacking (make conformance installs them)"
        continue
    fi
    missing="$missing$lacking"
    kept="$kept $peer"
done
peers=$kept
if [ -n "$missing" ]; then
    echo "conformance: installing$missing"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing \
        >/dev/null
fi

# ---- one trace through one pair ---------------------------------------------
# compare A B: "same" when the admitted column of two decision files agrees
# line by line after a stable sort by time (ratelab's log is stably sorted
# by its checker); otherwise the number of differing lines.
sorted_admits() {
    tail -n +2 "$1" | sort -s -t, -k1,1n | cut -d, -f4
}
differ() {
    sorted_admits "$1" >"$work/a.tmp"
    sorted_admits "$2" >"$work/b.tmp"
    if [ "$(wc -l <"$work/a.tmp")" -ne "$(wc -l <"$work/b.tmp")" ]; then
        echo 999999999
        return
    fi
    paste -d' ' "$work/a.tmp" "$work/b.tmp" | awk '$1 != $2 {n++} END {print n + 0}'
}
admits() { tail -n +2 "$1" | awk -F, '$4 == 1 {n++} END {print n + 0}'; }

status=0
rows="$work/rows.csv"
: >"$rows"
started=$(date +%s)
for peer in $peers; do
    bin="$work/$peer/bin"
    mkdir -p "$bin"
    if ! sh "$here/$peer/build.sh" "$bin" >"$work/$peer/build.log" 2>&1; then
        echo "conformance: $peer: build failed: $(tail -n 1 "$work/$peer/build.log")"
        status=1
        continue
    fi
    traces="$work/$peer/traces"
    rm -rf "$traces"
    if [ -x "$here/$peer/gen.sh" ]; then
        "$here/$peer/gen.sh" "$ratelab" "$traces" "$count" "$seed" >/dev/null
    else
        sh "$here/gen_traces.sh" "$ratelab" "$traces" "$count" "$seed"
    fi
    for algo in $(grep -v '^#' "$here/$peer/pairs.txt"); do
        n_traces=0 skipped=0 attempts=0 identical=0 rounding=0 stale=0 semantic=0 extra=0
        example=""
        for trace in "$traces"/t*.csv; do
            name=$(basename "$trace" .csv)
            read -r L I B kind <"$traces/$name.cfg"
            d="$work/$peer/$algo/$name"
            mkdir -p "$d"
            args="--limit $L --interval-ns $I --burst $B"
            # shellcheck disable=SC2086 # args is a list of words
            rc=0
            "$bin/driver" --mode real $args "$trace" >"$d/real.csv" 2>"$d/real.err" || rc=$?
            if [ "$rc" -ne 0 ]; then
                if [ "$rc" -eq 3 ]; then
                    skipped=$((skipped + 1))
                    continue
                fi
                echo "conformance: $peer $name: driver failed ($rc): $(head -n 1 "$d/real.err")"
                status=1
                continue
            fi
            # The trace as the peer saw it (its own times, when it has them).
            cut -d, -f1-3 "$d/real.csv" >"$d/trace.csv"
            burst="--burst $B" # B = 0: the algorithm's default (nginx's burst 0)
            [ "$B" -eq 0 ] && burst=""
            # shellcheck disable=SC2086
            "$ratelab" sim --algo "$algo" --trace "$d/trace.csv" --unsorted --limit "$L" \
                --interval "${I}ns" $burst --decisions "$d/ratelab.csv" --format csv \
                >/dev/null 2>"$d/ratelab.err" || {
                echo "conformance: $peer $algo $name: ratelab sim failed: $(head -n 1 "$d/ratelab.err")"
                status=1
                continue
            }
            n_traces=$((n_traces + 1))
            total=$(($(wc -l <"$d/real.csv") - 1))
            attempts=$((attempts + total))
            diff_pr=$(differ "$d/real.csv" "$d/ratelab.csv")
            identical=$((identical + total - diff_pr))
            [ "$diff_pr" -eq 0 ] && continue
            # shellcheck disable=SC2086
            "$bin/driver" --mode port-rounded $args "$d/trace.csv" >"$d/rounded.csv"
            # shellcheck disable=SC2086
            "$bin/driver" --mode port-exact $args "$d/trace.csv" >"$d/exact.csv"
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
                status=1
            fi
        done
        echo "$peer,$algo,$n_traces,$skipped,$attempts,$identical,$rounding,$stale,$semantic,$extra" \
            >>"$rows"
        [ -n "$example" ] &&
            echo "conformance: $peer vs $algo: semantic mismatches, e.g. $example (real.csv, ratelab.csv, rounded.csv, exact.csv)"
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
exit $status
