#!/bin/sh
# nodes_agree.sh — the simulator against real node processes (docs/nodes.md,
# Real runs): for each strategy named, the same N, T and traffic run by
# `ratelab sim --nodes` (RTT 200 us, about loopback's) and by `ratelab stress
# --nodes` on a private one-node Redis Cluster (started and stopped by
# ratelab), and whether the real run's overshoot (max_sliding/L) and store
# calls per decision are within the stated tolerance of the simulated ones.
#
# The tolerance holds for a real run whose delays are within what the
# simulator's spread covers: every store call at most 10 ms, no attempt more
# than 10 ms late, no two ticks more than T + 10 ms apart. A run past that
# (a machine busy with other work) is not the configuration compared: it is
# run again, up to 3 times, and reported `busy` if none fits.
#
# Prints the simulated figures, which are exact (deterministic), and the
# judgements, so that its output is the same on every run that agrees; the
# real figures vary from run to run (their illustration is on the page).
#   sh docs/tools/nodes_agree.sh [STRATEGY ...]   (default: every strategy)
# Exits 1 when a real run fails or breaks its bound.
#   sh docs/tools/nodes_agree.sh --sim-spread [STRATEGY ...]
# prints instead how far the simulator alone moves the two figures when its
# messages take up to what a fitting real run's calls take (RTT 50 us to
# 10 ms, jitter 0 to 5 ms): the basis of the tolerance.
set -eu
bin=${RATELAB_BIN:-build/ratelab}
traffic="--nodes 4 --sync 50ms --limit 200 --interval 500ms --workload poisson --rate 800 --duration 2s"
# the tolerance, derived on the page: twice the most the simulator's own
# message times move these figures (--sim-spread)
overshoot_tol=0.14
calls_tol=0.51
spread=no
[ "${1-}" = --sim-spread ] && { spread=yes; shift; }
[ $# -gt 0 ] || set -- central split local lease report gtb grd fps
if [ $spread = yes ]; then
    printf '%-8s %-22s %s\n' coord "sim max/L: min-max" "sim calls/dec: min-max"
    for coord in "$@"; do
        for rtt in 50us 200us 1ms 3ms 10ms; do
            for jitter in 0ms 2ms 5ms; do
                "$bin" sim $traffic --coord "$coord" --rtt $rtt --jitter $jitter --format csv |
                    awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR==2{print $c["max_sliding_ratio"], $c["store_calls_per_decision"]}'
            done
        done | awk -v coord="$coord" 'NR==1{lo=hi=$1; clo=chi=$2}
            {if($1<lo)lo=$1; if($1>hi)hi=$1; if($2<clo)clo=$2; if($2>chi)chi=$2}
            END{printf "%-8s %.3f-%.3f (%.3f L)    %.4f-%.4f (%s)\n", coord, lo, hi, hi-lo, clo, chi, (clo > 0 ? sprintf("%.1f%%", 100*(chi-clo)/clo) : "no calls")}'
    done
    exit 0
fi
# A real run's figures: "max/L calls/dec held fits" (fits: its delays are
# within the simulator's spread), or nothing when it failed.
real_run() {
    "$bin" stress $traffic --coord "$1" --redis-cluster 1x0 2>/dev/null | awk '
        /^global:/ { for (i = 1; i <= NF; i++) {
                         if ($i == "=") max = $(i + 1)
                         if ($i == "store" && $(i + 1) == "calls") calls = $(i - 1) }
                     held = $0; sub(/.*\): /, "", held); sub(/;.*/, "", held) }
        /^real delays:/ { call = $6; late = $12; gap = $18 }
        END { if (max != "") print max, calls, held, (call <= 10 && late <= 10 && gap <= 60) ? "fits" : "busy" }'
}
printf '%-8s %9s %9s %15s %15s %10s\n' coord sim_max/L sim_calls "real max/L" "real calls" "real held"
status=0
for coord in "$@"; do
    sim=$("$bin" sim $traffic --coord "$coord" --rtt 200us --format csv |
        awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR==2{print $c["max_sliding_ratio"], $c["store_calls_per_decision"]}')
    real=
    for try in 1 2 3; do
        real=$(real_run "$coord") || real=
        [ -n "$real" ] || break
        [ "$(echo "$real" | cut -d' ' -f3)" != no ] || status=1
        [ "$(echo "$real" | cut -d' ' -f4)" = busy ] || break
    done
    if [ -z "$real" ]; then
        echo "nodes_agree.sh: the real run of $coord failed" >&2
        status=1
        continue
    fi
    echo "$coord $sim $real" | awk -v ot="$overshoot_tol" -v ct="$calls_tol" '{
        d = $4 - $2; if (d < 0) d = -d
        r = ($3 > 0) ? ($5 - $3) / $3 : $5; if (r < 0) r = -r
        busy = $7 == "busy"
        printf "%-8s %9.3f %9.4f %15s %15s %10s\n", $1, $2, $3,
            busy ? "busy" : (d <= ot ? "within " ot : "OFF by " d),
            busy ? "busy" : (r <= ct ? "within " ct * 100 "%" : "OFF"), $6
    }'
done
exit $status
