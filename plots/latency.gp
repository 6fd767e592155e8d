# latency.gp — the whole decision-latency distribution of `replay` runs,
# counted from each attempt's due time (no coordinated omission), one panel
# a workload, one line an algorithm, from the exact minimum to the exact
# maximum. The y axis is 1/(1 − p) on a log scale, so each decade is one
# more nine and the tail gets as much room as the body. Below, on the same
# latency axis, the same runs' percentiles taken apart (the results rows'
# svc_, late_ and lat_ columns): the call alone (service time), the
# harness's own lateness in sending, and the whole, so that a tail made of
# one stall of the sender is not read as the limiter's.
# Data: latency.awk → `data`; `rows` ("workload algo svc_p50 svc_p99
# late_p99 lat_p99 lat_max" from the results file beside the latency file,
# or '' when there is none).
load 'plots/common.gp'
parts = rows ne ''
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1400,(parts ? 1150 : 800) dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1400,(parts ? 1150 : 800) noenhanced font 'DejaVu Sans,12'
}
set output out
workloads = system("awk 'NF {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
nw = words(workloads)
top = system("awk 'NF && $4 > m {m = $4} END {print m}' ".data)
# one latency axis for both rows, from the data
lo = system("awk 'NF && (m == \"\" || $3 < m) {m = $3} END {print m}' ".data) + 0
hi = system("awk 'NF && $3 > m {m = $3} END {print m}' ".data) + 0
if (parts) {
    lo2 = system("awk '$3 < m || m == \"\" {m = $3} END {print m}' ".rows) + 0
    lo = lo2 < lo ? lo2 : lo
}
set multiplot layout (parts ? 2 : 1), nw margins 0.08, 0.98, (parts ? 0.12 : 0.09), (parts ? 0.9 : 0.87) spacing 0.07, 0.11 \
    title "Open-loop decision latency (replay, one run each: replays are not repeated)".(parts ? "\ntop: from each attempt's due time, the whole distribution to the run's max; bottom: the same runs taken apart" : "") font ',14'
set logscale x 10
set xrange [lo / 2:hi * 2]
# a label every other decade (the panels are narrow), a tick at each
set xtics ('1ns' 1, '100ns' 1e2, '10us' 1e4, '1ms' 1e6, '100ms' 1e8)
set xtics add ('' 1e1 1, '' 1e3 1, '' 1e5 1, '' 1e7 1, '' 1e9 1)
set grid xtics ytics
set xlabel 'decision latency'
set ylabel 'percentile'
set logscale y 10
set yrange [1:top * 1.5]
set ytics ('0' 1, '50' 2, '90' 10, '99' 100, '99.9' 1000, '99.99' 1e4, '99.999' 1e5, '99.9999' 1e6)
set key inside left top Left reverse noopaque nobox font ',9' samplen 2
do for [w in workloads] {
    set title w
    algos = system("awk -v w=".w." '$1 == w {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    plot for [i = 1:words(algos)] data using (strcol(1) eq w && strcol(2) eq word(algos, i) ? $3 : NaN):4 \
        with lines ls (i - 1) % 8 + 1 title word(algos, i)
}
if (parts) {
    unset logscale y
    set ylabel ''
    set xlabel 'ns (log scale)'
    set grid xtics noytics
set mxtics default
    unset key   # drawn once below, across the figure
    k = 0
    do for [w in workloads] {
        k = k + 1
        set title w.', taken apart' font ',11'
        algos = system("awk -v w=".w." '$1 == w {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
        na = words(algos)
        pos(a) = sum [i = 1:na] (word(algos, i) eq a ? na - i : 0)
        set yrange [-0.6:na - 0.4]
        set ytics () scale 0 font ',10'
        do for [i = 1:na] { set ytics add (word(algos, i) na - i) }
        plot rows using (strcol(1) eq w ? $3 : NaN):(pos(strcol(2))):($7 - $3):(0) with vectors nohead lw 1 lc rgb '#bbbbbb' notitle, \
             rows using (strcol(1) eq w ? $3 : NaN):(pos(strcol(2))) with points pt 7 ps 1.2 lc rgb '#0072b2' notitle, \
             rows using (strcol(1) eq w ? $4 : NaN):(pos(strcol(2))) with points pt 5 ps 1.2 lc rgb '#56b4e9' notitle, \
             rows using (strcol(1) eq w ? $5 : NaN):(pos(strcol(2))) with points pt 8 ps 2.2 lw 1.5 lc rgb '#d55e00' notitle, \
             rows using (strcol(1) eq w ? $6 : NaN):(pos(strcol(2))) with points pt 13 ps 1.3 lc rgb '#000000' notitle, \
             rows using (strcol(1) eq w ? $7 : NaN):(pos(strcol(2))) with points pt 6 ps 1.3 lw 1.5 lc rgb '#000000' notitle
    }
    # the key of the bottom row, in a strip of its own across the figure
    set lmargin at screen 0.08; set rmargin at screen 0.98
    set tmargin at screen 0.045; set bmargin at screen 0.005
    unset title; unset xlabel; unset ylabel; unset tics; unset border; unset grid
    unset logscale x; set xrange [0:1]; set yrange [0:1]
    set key center center horizontal maxrows 1 Left reverse noopaque nobox font ',11' samplen 1 width 2
    plot 2 notitle, \
         keyentry with points pt 7 ps 1.2 lc rgb '#0072b2' title 'the call alone (service time), p50', \
         keyentry with points pt 5 ps 1.2 lc rgb '#56b4e9' title 'the call alone, p99', \
         keyentry with points pt 8 ps 2.2 lw 1.5 lc rgb '#d55e00' title 'sent late by (the harness), p99', \
         keyentry with points pt 13 ps 1.3 lc rgb '#000000' title 'from the due time, p99', \
         keyentry with points pt 6 ps 1.3 lw 1.5 lc rgb '#000000' title 'from the due time, max'
}
unset multiplot
