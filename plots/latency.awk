# latency.awk — replay rows of a results CSV as points of a latency CDF:
# "workload algo latency_us nines" for p50, p90, p99, p99.9 and max, where
# nines = −log10(1 − fraction): 0.3, 1, 2, 3, and 4 standing for the max
# (replay keeps those, not the whole histogram), one blank line between
# algorithms so gnuplot draws each as its own line.
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["mode"]) == "replay" {
    if (n++) print ""
    w = $(col["workload"]); a = $(col["algo"])
    print w, a, $(col["lat_p50_ns"]) / 1000, 0.30103
    print w, a, $(col["lat_p90_ns"]) / 1000, 1
    print w, a, $(col["lat_p99_ns"]) / 1000, 2
    print w, a, $(col["lat_p999_ns"]) / 1000, 3
    print w, a, $(col["lat_max_ns"]) / 1000, 4
}
