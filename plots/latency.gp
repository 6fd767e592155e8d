# latency.gp — decision latency from `replay`, counted from each attempt's
# due time (no coordinated omission), as a CDF through p50, p90, p99, p99.9
# and max; one panel a workload. Data: latency.awk → `data`.
load 'plots/common.gp'
workloads = system("awk 'NF {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
set multiplot layout 1, words(workloads) title "Open-loop decision latency from the due time: p50, p90, p99, p99.9, max" font ',14'
set logscale x 10
set xlabel 'latency (us)'
set ylabel 'percentile'
set yrange [0:4.2]
set ytics ('p50' 0.30103, 'p90' 1, 'p99' 2, 'p99.9' 3, 'max' 4)
set key inside right bottom noopaque nobox font ',9'
do for [w in workloads] {
    set title w
    algos = system("awk -v w=".w." '$1 == w {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    plot for [a in algos] data using (strcol(1) eq w && strcol(2) eq a ? $3 : NaN):4 with linespoints lw 2 pt 7 ps 0.7 title a
}
unset multiplot
