# accuracy.awk — sim rows of a results CSV as one line an (algorithm,
# workload): max_sliding ÷ L on one scale for every promise, and the most
# the promise allows it to reach, from the row's own L and B:
#
#   index algo promise workload sliding/L utilization held judged metric bound/L
#
# bound: strong 1; window 2; bucket (B + L) ÷ L; weak 2 (a weak limiter
# may admit 2L in a sliding window: Proposition weak2l). The verdict
# (promise_held) is judged on the metric named (results/README.md: weak on
# max_aligned ÷ L). approx promises nothing checkable: judged 0, no bound.
# index numbers the algorithms in
# first-seen order (the x position), metric names the measure for a tic
# label. Algorithms that promise no rate (baselines, the concurrency
# limiter) are left out: they would only flatten the scale.
#   awk -F, -f plots/accuracy.awk results/reference/accuracy.csv
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["mode"]) == "sim" && $(col["promise"]) != "none" && $(col["promise"]) != "concurrency" {
    L = $(col["limit"]); B = $(col["burst"]); p = $(col["promise"])
    sliding = $(col["max_sliding"]); aligned = $(col["max_aligned"])
    judged = 1
    # v: max_sliding ÷ L for every promise (one scale); bound: what the
    # promise allows max_sliding ÷ L to reach (weak: 2, Proposition weak2l)
    v = sliding / L
    if (p == "strong")      { bound = 1;           metric = "sliding/L" }
    else if (p == "window") { bound = 2;           metric = "sliding/2L" }
    else if (p == "bucket") { bound = (B + L) / L; metric = "sliding/(B+L)" }
    else if (p == "weak")   { bound = 2;           metric = "aligned/L" }
    else                    { bound = "NaN";       metric = "sliding/L"; judged = 0 }
    a = $(col["algo"])
    if (!(a in index_of)) index_of[a] = n++
    u = $(col["utilization"]); if (u == "") u = "NaN"
    print index_of[a], a, p, $(col["workload"]), v, u, $(col["promise_held"]), judged, metric, bound
}
