#!/bin/sh
# sim_decisions.sh — every in-process algorithm's sim decisions on every
# workload, in two configurations, one file each: what a refactor must not
# change. Compare two builds:
#   tests/sim_decisions.sh OLD/ratelab /tmp/old && tests/sim_decisions.sh build/ratelab /tmp/new
#   diff -r /tmp/old /tmp/new && echo identical
set -eu
bin=$1 out=$2
mkdir -p "$out"
for a in $("$bin" list | awk '$1 !~ /^redis_/ {print $1}'); do
    for w in uniform poisson onoff boundary flash; do
        "$bin" sim --algo "$a" --workload "$w" --limit 10 --interval 1s --duration 5s --keys 3 \
            --cost 1-3 --seed 7 --decisions "$out/$a-$w.csv" --format table >/dev/null
        "$bin" sim --algo "$a" --workload "$w" --limit 100 --interval 100ms --burst 150 \
            --duration 2s --seed 3 --decisions "$out/$a-$w-b.csv" --format table >/dev/null
    done
done
echo "sim_decisions: $(ls "$out" | wc -l) decision logs in $out"
