# latency.awk — a latency file (`replay --latency-out`, or the latency-*.csv
# a bench suite with replays writes) as CDF lines: "workload algo
# latency_ns one_in", one_in = 1/(1 − percentile/100), the scale a tail is
# read on (2 = p50, 1000 = p99.9; the max sits at the run's count). The
# first repetition of each run only; a blank line between runs so gnuplot
# draws each as its own line.
BEGIN { FS = "," }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["rep"]) == 1 {
    run = $(col["workload"]) SUBSEP $(col["algo"]) SUBSEP $(col["threads"]) SUBSEP $(col["speed"])
    if (run != last && NR > 2) print ""
    last = run
    print $(col["workload"]), $(col["algo"]), $(col["latency_ns"]), $(col["one_in"])
}
