#!/bin/sh
# tables.sh — the Markdown tables of docs/conformance.md, from the results:
#   sh tests/conformance/tables.sh [results/conformance.csv [results/conformance-speed.csv]]
set -eu
summary=${1:-results/conformance.csv} speed=${2:-results/conformance-speed.csv}
awk -F, 'NR == 1 {
    print "| peer | algorithm | traces | skipped | attempts | identical | peer_rounding | peer_stale_time | semantic | stale extra admits |"
    print "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
    next
}
{printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}
END {printf "\n(seed %s, git %s, %s)\n", $11, $12, $13}' "$summary"
[ -f "$speed" ] || exit 0
echo
awk -F, 'NR > 1 {v[$1 "," $2] = v[$1 "," $2] " " $4; host = $7; rev = $9; cpus = $8}
function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {t = a[j]; a[j] = a[j - 1]; a[j - 1] = t}
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
    print "| peer | threads | ns per call | ÷ tb_mutex | ÷ tb_cas |"
    print "|---|--:|--:|--:|--:|"
    for (t = 1; t <= 2; t++) for (p = 1; p <= 2; p++) {
        peer = p == 1 ? "go" : "guava"
        m = median(v[peer "," t]); mu = median(v["tb_mutex," t]); cas = median(v["tb_cas," t])
        printf "| %s | %d | %.1f | %.2f | %.2f |\n", peer, t, m, m / mu, m / cas
    }
    printf "\n(medians of the repetitions; tb_mutex %.1f / %.1f ns and tb_cas %.1f / %.1f ns at 1 / 2 threads; host %s, %s CPUs, git %s)\n", \
        median(v["tb_mutex,1"]), median(v["tb_mutex,2"]), median(v["tb_cas,1"]), median(v["tb_cas,2"]), host, cpus, rev
}' "$speed"
