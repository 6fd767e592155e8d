# latency.gp — the whole decision-latency distribution of `replay` runs,
# counted from each attempt's due time (no coordinated omission), one panel
# a workload, one line an algorithm, from the exact minimum to the exact
# maximum. The y axis is 1/(1 − p) on a log scale, so each decade is one
# more nine and the tail gets as much room as the body. Data: latency.awk
# → `data`.
load 'plots/common.gp'
workloads = system("awk 'NF {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
top = system("awk 'NF && $4 > m {m = $4} END {print m}' ".data)
set multiplot layout 1, words(workloads) title "Open-loop decision latency from the due time (replay; each line ends at the run's max)" font ',14'
set logscale x 10
set logscale y 10
set xrange [5:*] # ns: below the first tic, so it is drawn
set xtics ('10ns' 1e1, '1us' 1e3, '100us' 1e5, '10ms' 1e7, '1s' 1e9)
set mxtics 10
set xlabel 'decision latency'
set ylabel 'percentile'
set yrange [1:top * 1.5]
set ytics ('0' 1, '50' 2, '90' 10, '99' 100, '99.9' 1000, '99.99' 1e4, '99.999' 1e5, '99.9999' 1e6)
set key inside right bottom noopaque nobox font ',9'
do for [w in workloads] {
    set title w
    algos = system("awk -v w=".w." '$1 == w {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    plot for [i = 1:words(algos)] data using (strcol(1) eq w && strcol(2) eq word(algos, i) ? $3 : NaN):4 \
        with lines ls (i - 1) % 8 + 1 title word(algos, i)
}
unset multiplot
