# paths.awk — which path the stress runs of each (limit, interval) took,
# from the counts alone: "reject" when some run made more attempts than the
# limit could ever admit in it (L·(⌊duration/I⌋ + 1)), so that most calls
# are rejects; "admit" when no run could reach the limit, so that every call
# takes the admit path and every reject is a false one. One line a limit:
#
#   limit interval_ns path percent_rejected label...
#
# percent_rejected is over the rate limiters' unrecorded stress rows (baselines
# and the concurrency limiter, which do not limit a rate, left out); label is
# the words a figure titles the path with, numbers from the CSV.
#   awk -F, -f plots/paths.awk results/reference/threads.csv
function human_ns(ns) {
    if (ns >= 1e9 && ns % 1e9 == 0) return (ns / 1e9) " s"
    if (ns >= 1e6 && ns % 1e6 == 0) return (ns / 1e6) " ms"
    if (ns >= 1e3 && ns % 1e3 == 0) return (ns / 1e3) " us"
    return ns " ns"
}
function human_count(n,    s) {
    if (n < 1e6) return n
    s = sprintf("%.3g", n)
    sub(/e\+0*/, "e", s)
    return s
}
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["mode"]) == "stress" && $(col["recorded"]) == "no" && $(col["family"]) != "baseline" && $(col["family"]) != "concurrency" {
    L = $(col["limit"]); I = $(col["interval_ns"])
    k = L SUBSEP I
    if (!(k in att)) { order[++n] = k; lim[k] = L; ivl[k] = I }
    att[k] += $(col["attempts"]); rej[k] += $(col["rejects"])
    if ($(col["attempts"]) + 0 > L * (int($(col["duration_ns"]) / I) + 1)) reached[k] = 1
}
END {
    # the reject path first, then the admit path, as the figures draw them
    for (pass = 1; pass <= 2; pass++)
        for (j = 1; j <= n; j++) {
            k = order[j]
            if ((pass == 1) != (k in reached)) continue
            pct = att[k] ? 100 * rej[k] / att[k] : 0
            per = "L = " human_count(lim[k]) " per " human_ns(ivl[k])
            if (k in reached)
                label = sprintf("reject path: %s, %.2f%% of calls rejected", per, pct)
            else
                label = sprintf("admit path: %s, never reached (every reject a false one)", per)
            print lim[k], ivl[k], (k in reached ? "reject" : "admit"), sprintf("%.4f", pct), label
        }
}
