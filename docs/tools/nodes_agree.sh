#!/bin/sh
# nodes_agree.sh — the simulator against real node processes (docs/nodes.md,
# Real runs): for each strategy named, the same N, T and traffic run by
# `ratelab sim --nodes` (RTT 200 us, about loopback's) and by `ratelab stress
# --nodes` on a private one-node Redis Cluster (started and stopped by
# ratelab), and whether the real run's overshoot (max_sliding/L) and store
# calls per decision are within the stated tolerance of the simulated ones.
# Prints the simulated figures, which are exact (deterministic), and the
# judgements, so that its output is the same on every run that agrees; the
# real figures vary from run to run (their illustration is on the page).
#   sh docs/tools/nodes_agree.sh [STRATEGY ...]   (default: central lease report)
# Exits 1 when a real run fails or does not keep its bound.
#   sh docs/tools/nodes_agree.sh --sim-spread [STRATEGY ...]
# prints instead how far the simulator alone moves the two figures when
# its messages take what real calls take here (RTT 50 us to 3 ms, jitter 0
# or 2 ms): the basis of the tolerance.
set -eu
bin=${RATELAB_BIN:-build/ratelab}
traffic="--nodes 4 --sync 50ms --limit 200 --interval 500ms --workload poisson --rate 800 --duration 2s"
# the tolerance, derived on the page: twice what the simulator's own
# message times (RTT 50 us to 3 ms, jitter 0 to 2 ms) move these figures
overshoot_tol=0.05
calls_tol=0.20
spread=no
[ "${1-}" = --sim-spread ] && { spread=yes; shift; }
[ $# -gt 0 ] || set -- central lease report
if [ $spread = yes ]; then
    printf '%-8s %-22s %s\n' coord "sim max/L: min-max" "sim calls/dec: min-max"
    for coord in "$@"; do
        for rtt in 50us 200us 1ms 3ms; do
            for jitter in 0ms 2ms; do
                "$bin" sim $traffic --coord "$coord" --rtt $rtt --jitter $jitter --format csv |
                    awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR==2{print $c["max_sliding_ratio"], $c["store_calls_per_decision"]}'
            done
        done | awk -v coord="$coord" 'NR==1{lo=hi=$1; clo=chi=$2}
            {if($1<lo)lo=$1; if($1>hi)hi=$1; if($2<clo)clo=$2; if($2>chi)chi=$2}
            END{printf "%-8s %.3f-%.3f (%.3f L)    %.4f-%.4f (%.1f%%)\n", coord, lo, hi, hi-lo, clo, chi, 100*(chi-clo)/clo}'
    done
    exit 0
fi
printf '%-8s %9s %9s %15s %15s %10s\n' coord sim_max/L sim_calls "real max/L" "real calls" "real held"
status=0
for coord in "$@"; do
    sim=$("$bin" sim $traffic --coord "$coord" --rtt 200us --format csv |
        awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR==2{print $c["max_sliding_ratio"], $c["store_calls_per_decision"]}')
    real=$("$bin" stress $traffic --coord "$coord" --redis-cluster 1x0 2>/dev/null |
        sed -n 's/^global: max_sliding [0-9]* = \([0-9.]*\) L .*: \([a-z\/]*\); \([0-9.]*\) store calls.*/\1 \3 \2/p') || true
    if [ -z "$real" ]; then
        echo "nodes_agree.sh: the real run of $coord failed" >&2
        status=1
        continue
    fi
    echo "$coord $sim $real" | awk -v ot="$overshoot_tol" -v ct="$calls_tol" '{
        d = $4 - $2; if (d < 0) d = -d
        r = ($3 > 0) ? ($5 - $3) / $3 : $5; if (r < 0) r = -r
        printf "%-8s %9.3f %9.4f %15s %15s %10s\n", $1, $2, $3,
            (d <= ot ? "within " ot : "OFF by " d), (r <= ct ? "within " ct * 100 "%" : "OFF"), $6
    }'
    [ "$(echo "$real" | cut -d' ' -f3)" = yes ] || status=1
done
exit $status
