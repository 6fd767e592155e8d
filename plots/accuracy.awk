# accuracy.awk — sim rows of a results CSV as "workload algo sliding/L
# aligned/L bound/L", where bound is what the promise allows on the measure
# it is judged by (strong, window, bucket: sliding; weak: aligned), NaN when
# nothing is promised. Algorithms that promise no rate (baselines, the
# concurrency limiter) are left out: they would only flatten the scale.
#   awk -F, -f plots/accuracy.awk results/reference/accuracy.csv
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["mode"]) == "sim" && $(col["promise"]) != "none" && $(col["promise"]) != "concurrency" {
    L = $(col["limit"]); p = $(col["promise"])
    bound = "NaN"
    if (p == "strong" || p == "weak") bound = 1
    if (p == "window") bound = 2
    if (p == "bucket") bound = ($(col["burst"]) + L) / L
    print $(col["workload"]), $(col["algo"]), $(col["max_sliding"]) / L, $(col["max_aligned"]) / L, bound
}
