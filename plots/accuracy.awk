# accuracy.awk — sim rows of a results CSV as one line an (algorithm,
# workload), each promise judged on the metric its promise_held is judged
# on (results/README.md), as a fraction of its bound from the row's own L
# and B:
#
#   index algo promise workload measured/bound utilization held judged metric
#
# strong: max_sliding ÷ L; window: max_sliding ÷ 2L; bucket: max_sliding ÷
# (B + L); weak: max_aligned ÷ L. approx promises nothing checkable: its
# max_sliding ÷ L is given with judged 0. index numbers the algorithms in
# first-seen order (the x position), metric names the measure for a tic
# label. Algorithms that promise no rate (baselines, the concurrency
# limiter) are left out: they would only flatten the scale.
#   awk -F, -f plots/accuracy.awk results/reference/accuracy.csv
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["mode"]) == "sim" && $(col["promise"]) != "none" && $(col["promise"]) != "concurrency" {
    L = $(col["limit"]); B = $(col["burst"]); p = $(col["promise"])
    sliding = $(col["max_sliding"]); aligned = $(col["max_aligned"])
    judged = 1
    if (p == "strong")      { v = sliding / L;       metric = "sliding/L" }
    else if (p == "window") { v = sliding / (2 * L); metric = "sliding/2L" }
    else if (p == "bucket") { v = sliding / (B + L); metric = "sliding/(B+L)" }
    else if (p == "weak")   { v = aligned / L;       metric = "aligned/L" }
    else                    { v = sliding / L;       metric = "sliding/L"; judged = 0 }
    a = $(col["algo"])
    if (!(a in index_of)) index_of[a] = n++
    u = $(col["utilization"]); if (u == "") u = "NaN"
    print index_of[a], a, p, $(col["workload"]), v, u, $(col["promise_held"]), judged, metric
}
