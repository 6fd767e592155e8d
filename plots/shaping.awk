# shaping.awk — one line a shaper from a `bench --suite shaping` CSV: its
# cost per decision (the cost row: median ns, min, max) joined with its
# distance from the ideal schedule over the six workloads (the largest
# late_p50, late_p99 and late_max, in ms) and how many of them broke the
# curve (curve_violations or noncausal > 0; rejects are counted apart, not
# as a break: nginx_delay refuses beyond its burst by rule). tb_cas's cost row (no distance) prints last, as the
# floor, with distance NaN. For plots/shaping.gp and docs/accuracy.md.
#   awk -F, -f plots/shaping.awk results/reference/shaping.csv
# Output: algo ns ns_min ns_max p50_ms p99_ms max_ms broken workloads label
# label: the shaper's number in the figure, or the numbers of shapers whose
# points coincide (labelled on the same side: within 1.5 ns and 40 ms),
# "2,4", on the first of them and "-" on the others, so that two labels
# never run together into one number.
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$(c["experiment"]) == "cost" {
    a = $(c["algo"])
    if (!(a in ns)) order[++n] = a
    ns[a] = $(c["ns_per_decision"]); lo[a] = $(c["ns_min"]); hi[a] = $(c["ns_max"])
}
$(c["experiment"]) == "distance" {
    a = $(c["algo"]); w[a]++
    if ($(c["late_p50_ns"]) > p50[a]) p50[a] = $(c["late_p50_ns"])
    if ($(c["late_p99_ns"]) > p99[a]) p99[a] = $(c["late_p99_ns"])
    if ($(c["late_max_ns"]) > mx[a]) mx[a] = $(c["late_max_ns"])
    if ($(c["curve_violations"]) > 0 || $(c["noncausal"]) > 0) broken[a]++
}
END { # the shapers first (numbered from 1 in the figure), the floor last
    for (i = 1; i <= n; i++)
        if (w[order[i]]) shaper[++m] = order[i]
    for (k = 1; k <= m; k++) { # labels alternate above and below: join a side's neighbours
        a = shaper[k]; label[k] = k
        for (j = k - 2; j >= 1; j -= 2) {
            b = shaper[j]
            if (label[j] != "-" && near(ns[a], ns[b], 1.5) && near(mx[a] / 1e6, mx[b] / 1e6, 40)) {
                label[j] = label[j] "," k; label[k] = "-"; break
            }
        }
    }
    for (k = 1; k <= m; k++) {
        a = shaper[k]
        printf "%s %.1f %.1f %.1f %.1f %.1f %.1f %d %d %s\n", a, ns[a], lo[a], hi[a], p50[a] / 1e6, p99[a] / 1e6, mx[a] / 1e6, broken[a], w[a], label[k]
    }
    for (i = 1; i <= n; i++) {
        a = order[i]
        if (!w[a]) printf "%s %.1f %.1f %.1f NaN NaN NaN 0 0 -\n", a, ns[a], lo[a], hi[a]
    }
}
function near(x, y, d) { return x - y < d && y - x < d }
