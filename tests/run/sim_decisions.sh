#!/bin/sh
# sim_decisions.sh — every in-process algorithm's sim decisions on every
# workload, in two configurations, one file each: what a refactor must not
# change. `make decisions-check` (part of make test) compares their digests
# with the committed tests/run/sim_decisions.sha256; a change that means to
# alter decisions rewrites it with `make decisions-update` and says why in
# its commit. Comparing two builds directly:
#   tests/run/sim_decisions.sh OLD/ratelab /tmp/old && tests/run/sim_decisions.sh build/ratelab /tmp/new
#   diff -r /tmp/old /tmp/new && echo identical
set -eu
bin=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
for a in $("$bin" list | awk '$1 !~ /^redis_/ {print $1}'); do
    for w in uniform poisson onoff boundary flash; do
        "$bin" sim --algo "$a" --workload "$w" --limit 10 --interval 1s --duration 5s --keys 3 \
            --cost 1-3 --seed 7 --decisions "$out/$a-$w.csv" --format table >/dev/null
        # an algorithm that cannot keep B = 150 refuses it: its refusal is the log
        "$bin" sim --algo "$a" --workload "$w" --limit 100 --interval 100ms --burst 150 \
            --duration 2s --seed 3 --decisions "$out/$a-$w-b.csv" --format table >/dev/null \
            2>"$out/refusal" || mv "$out/refusal" "$out/$a-$w-b.csv"
        rm -f "$out/refusal"
    done
done
echo "sim_decisions: $(ls "$out" | wc -l) decision logs in $out"
