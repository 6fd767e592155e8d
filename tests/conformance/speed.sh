#!/bin/sh
# speed.sh — the peers' own limiters beside ratelab's, in one run: ns per
# call of x/time/rate's Allow() and Guava's tryAcquire() on one shared
# limiter under overload, at 1 and 2 threads, against `ratelab stress` of
# tb_mutex and tb_cas on the same (L, I), repetitions interleaved. Prints
# the ratios (peer ÷ ratelab; above 1: the peer is slower) and writes the
# rows to OUT.csv.
#   tests/conformance/speed.sh RATELAB OUT.csv [REPS]
# The drivers are those `make conformance` builds (build/conformance/PEER/bin).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ratelab=$1 out_csv=$2 reps=${3:-3}
work=${CONFORMANCE_WORK:-build/conformance}
L=10 I=1000000000 duration=1000000000 # 10 per second: every call after the first ten is refused
for peer in go guava; do
    mkdir -p "$work/$peer/bin"
    sh "$here/$peer/build.sh" "$work/$peer/bin" >"$work/$peer/build.log" 2>&1 || {
        echo "speed: $peer: build failed: $(tail -n 1 "$work/$peer/build.log")"
        exit 1
    }
done
rows="$work/speed-rows.csv"
: >"$rows"
for rep in $(seq 1 "$reps"); do
    for threads in 1 2; do
        for peer in go guava; do
            line=$("$work/$peer/bin/driver" --mode bench --threads "$threads" --duration-ns "$duration" \
                --limit "$L" --interval-ns "$I" --burst "$L")
            echo "$peer,$threads,$rep,${line#ns_per_op=}" >>"$rows"
        done
        "$ratelab" stress --algo tb_mutex,tb_cas --threads "$threads" --reps 1 \
            --duration "${duration}ns" --limit "$L" --interval "${I}ns" --format csv |
            awk -F, -v t="$threads" -v rep="$rep" '
                NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
                $c["algo"] == "tb_mutex" || $c["algo"] == "tb_cas" {print $c["algo"] "," t "," rep "," $c["ns_per_op"]}' \
                >>"$rows"
    done
done
# The revision measured: results written by an earlier step of the same
# `make reference` do not make it dirty.
rev=$(git -C "$here" describe --always 2>/dev/null || echo unknown)
(cd "$here/../.." && git diff --quiet HEAD -- . ':!results') 2>/dev/null || rev="$rev-dirty"
host=$(hostname -s 2>/dev/null || hostname)
tmp="$out_csv.tmp.$$"
{
    echo "impl,threads,rep,ns_per_op,L,interval_ns,host,cpus,git_rev,date"
    sed "s/\$/,$L,$I,$host,$(nproc),$rev,$(date -u +%Y-%m-%dT%H:%M:%SZ)/" "$rows"
} >"$tmp" && mv "$tmp" "$out_csv"
# Medians over repetitions, then each peer ÷ each ratelab algorithm.
awk -F, 'NR > 1 {v[$1 "," $2] = v[$1 "," $2] " " $4}
function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {t = a[j]; a[j] = a[j - 1]; a[j - 1] = t}
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
    printf "%-8s %7s %10s %12s %10s\n", "peer", "threads", "ns/op", "÷ tb_mutex", "÷ tb_cas"
    for (t = 1; t <= 2; t++) for (p = 1; p <= 2; p++) {
        peer = p == 1 ? "go" : "guava"
        m = median(v[peer "," t]); mu = median(v["tb_mutex," t]); cas = median(v["tb_cas," t])
        printf "%-8s %7d %10.1f %12.2f %10.2f\n", peer, t, m, m / mu, m / cas
    }
    printf "(tb_mutex %s / %s ns, tb_cas %s / %s ns at 1 / 2 threads; medians of the repetitions)\n", \
        median(v["tb_mutex,1"]), median(v["tb_mutex,2"]), median(v["tb_cas,1"]), median(v["tb_cas,2"])
}' "$out_csv"
echo "speed: rows in $out_csv"
