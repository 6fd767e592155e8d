#!/bin/sh
# check.sh — nginx's own conformance check, with the evidence for its clock:
#   tests/conformance/nginx/check.sh RATELAB [COUNT [SEED]]
# builds the driver, generates gen.sh's traces (at most 60), sets B = 0
# (nginx's default) on every third, and for each trace runs real nginx, then
# `ratelab sim --algo leaky_nginx` and both ports on the realised trace
# ($connection_time, limit_req's ms clock), and `ratelab sim` once more on
# the same decisions timed by $msec (the wall clock). Prints the counts;
# exits 1 when real nginx and leaky_nginx differ on any attempt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ratelab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
count=${2:-60} seed=${3:-1}
work=${CONFORMANCE_WORK:-build/conformance}/nginx-check
rm -rf "$work"
mkdir -p "$work/bin"
sh "$here/build.sh" "$work/bin"
"$here/gen.sh" "$ratelab" "$work/traces" "$count" "$seed"

admitted() { tail -n +2 "$1" | cut -d, -f4; }
differ() { admitted "$1" >"$work/a" && admitted "$2" >"$work/b" &&
    paste -d' ' "$work/a" "$work/b" | awk '$1 != $2 {n++} END {print n + 0}'; }

traces=0 skipped=0 attempts=0 mismatch=0 msec_mismatch=0 msec_traces=0 port_diff=0 ports_apart=0
started=$(date +%s)
for trace in "$work"/traces/t*.csv; do
    name=$(basename "$trace" .csv)
    read -r L I B _ <"$work/traces/$name.cfg"
    i=$(echo "${name#t}" | sed "s/^0*//")
    [ $((i % 3)) -eq 1 ] && B=0
    d="$work/$name"
    mkdir -p "$d"
    burst=""
    [ "$B" -gt 0 ] && burst="--burst $B"
    rc=0
    # shellcheck disable=SC2086
    RL_NGINX_MSEC_OUT="$d/msec.csv" "$work/bin/driver" --mode real --limit "$L" --interval-ns "$I" \
        $burst "$trace" >"$d/real.csv" 2>"$d/real.err" || rc=$?
    if [ "$rc" -eq 3 ]; then skipped=$((skipped + 1)); continue; fi
    [ "$rc" -eq 0 ] || { echo "nginx check: $name: driver failed: $(head -n 1 "$d/real.err")"; exit 1; }
    cut -d, -f1-3 "$d/real.csv" >"$d/trace.csv"
    cut -d, -f1-3 "$d/msec.csv" >"$d/trace_msec.csv"
    for t in trace trace_msec; do
        # shellcheck disable=SC2086
        "$ratelab" sim --algo leaky_nginx --trace "$d/$t.csv" --limit "$L" --interval "${I}ns" \
            $burst --decisions "$d/ratelab_$t.csv" --format csv >/dev/null
    done
    # shellcheck disable=SC2086
    "$work/bin/driver" --mode port-rounded --limit "$L" --interval-ns "$I" $burst "$d/trace.csv" >"$d/rounded.csv"
    # shellcheck disable=SC2086
    "$work/bin/driver" --mode port-exact --limit "$L" --interval-ns "$I" $burst "$d/trace.csv" >"$d/exact.csv"
    n=$(($(wc -l <"$d/real.csv") - 1))
    m=$(differ "$d/real.csv" "$d/ratelab_trace.csv")
    w=$(differ "$d/real.csv" "$d/ratelab_trace_msec.csv")
    p=$(differ "$d/real.csv" "$d/rounded.csv")
    cmp -s "$d/rounded.csv" "$d/exact.csv" || ports_apart=$((ports_apart + 1))
    traces=$((traces + 1)) attempts=$((attempts + n)) mismatch=$((mismatch + m))
    msec_mismatch=$((msec_mismatch + w)) port_diff=$((port_diff + p))
    [ "$w" -gt 0 ] && msec_traces=$((msec_traces + 1))
    [ "$m" -gt 0 ] && echo "nginx check: $name (L=$L I=$I B=$B): $m of $n differ, see $d"
done
echo "nginx check: $traces traces ($skipped skipped), $attempts attempts, $(($(date +%s) - started)) s"
echo "  real nginx vs leaky_nginx, \$connection_time (limit_req's clock): $((attempts - mismatch)) identical, $mismatch differ"
echo "  real nginx vs port-rounded: $port_diff differ; port-rounded vs port-exact outputs differ on $ports_apart traces"
echo "  real nginx vs leaky_nginx, \$msec (wall clock): $msec_mismatch differ, on $msec_traces traces"
[ "$mismatch" -eq 0 ]
