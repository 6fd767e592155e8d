# accuracy.gp — accuracy in sim, one column an algorithm, one marker a
# workload: top, each promise judged on its own metric as a fraction of its
# bound (≤ 1: kept; above the line: over-admission the promise forbids);
# bottom, utilization against the exact sliding log on a log scale (below 1:
# under-admission; above 1: admits a strict sliding window would refuse).
# Data: accuracy.awk → `data` ("index algo promise workload measured/bound
# utilization held judged metric").
load 'plots/common.gp'
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1400,1150 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1400,1150 noenhanced font 'DejaVu Sans,12'
}
set output out
workloads = system("awk '{print $4}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
nw = words(workloads)
na = system("awk '$1 + 1 > n {n = $1 + 1} END {print n}' ".data) + 0
w = 0.8 / nw
x(i, k) = i - 0.4 + (k - 0.5) * w
# Filled markers: a promise judged; open: approx, nothing promised; a red
# ring: a promise broken (promise_held = no).
array open_point[8] = [6, 4, 8, 10, 12, 6, 4, 8]

set multiplot title "Accuracy in sim (virtual time, one thread, every decision): each promise on its own metric, and utilization" font ',14'
set xrange [-0.6:na - 0.4]
set grid noxtics ytics
set key at screen 0.87, graph 1 left top vertical Left reverse noopaque nobox font ',10' samplen 1.5 spacing 1.2
set lmargin at screen 0.07
set rmargin at screen 0.86
do for [i = 1:na - 1] {
    set arrow i from first i - 0.5, graph 0 to first i - 0.5, graph 1 nohead lc rgb '#e4e4e4' back
}

# Top: max_sliding ÷ L on one scale, each column's bound as a short bar.
set tmargin at screen 0.91
set bmargin at screen 0.63
set title "Most admitted cost in any sliding window of length I, ÷ L; the bar over each column is what its promise allows\n(strong: L; window: 2L; bucket: B + L; weak: 2L in a sliding window, judged on aligned windows ≤ L; approx, open markers, shaded: no bound)" font ',11'
set ylabel 'max_sliding ÷ L'
set autoscale y
set xtics () scale 0
set format x ''
# approx columns: nothing promised, nothing judged; shaded behind.
do for [i = 0:na - 1] {
    if (system("awk '$1 == ".i." {print $8; exit}' ".data) eq '0') {
        set object 100 + i rect from first i - 0.5, graph 0 to first i + 0.5, graph 1 behind fc rgb '#ececec' fs solid noborder
    }
}
broken = system("awk '$7 == \"no\" {n++} END {print n + 0}' ".data) + 0
# kept promises are drawn below the axis, not made NaN: a plot without a
# valid point warns
slot(w) = sum [k = 1:nw] (w eq word(workloads, k) ? k : 0)
stats data using 5 nooutput
b_max = system("awk '$10 != \"NaN\" && $10 > m {m = $10} END {print m + 0}' ".data) + 0
top = STATS_max > b_max ? STATS_max : b_max
set yrange [0:(top > 1 ? top : 1) * 1.12]
set ytics 0.5
plot data using ($1 - 0.45):10:(0.9):(0) with vectors nohead lw 3 lc rgb 'black' title "the promise's bound", \
     for [k = 1:nw] data using (strcol(4) eq word(workloads, k) && $8 == 1 ? x($1, k) : NaN):5 \
         with points ls k ps 1.1 title word(workloads, k), \
     for [k = 1:nw] data using (strcol(4) eq word(workloads, k) && $8 == 0 ? x($1, k) : NaN):5 \
         with points ls k pt open_point[k] ps 1.1 notitle, \
     data using (x($1, slot(strcol(4)))):(strcol(7) eq 'no' ? $5 : -1) with points pt 6 ps 2.6 lw 2 lc rgb '#cc0000' \
         title (broken ? sprintf('promise broken (%d runs)', broken) : 'promise broken: none'), \
     keyentry with boxes fc rgb '#ececec' fs solid border lc rgb '#bbbbbb' title 'approx: not judged'
do for [i = 0:na - 1] { unset object 100 + i }

# Bottom: utilization, admitted ÷ what the exact sliding log admits.
set tmargin at screen 0.56
set bmargin at screen 0.27
set title "Utilization: admitted cost ÷ what the exact sliding log (the strong oracle) admits on the same attempts; below 1 under-admits, above 1 over-admits" font ',11'
set ylabel 'utilization (log scale)'
set logscale y 10
set autoscale y   # stats keeps to the current range
stats data using 6 nooutput
set yrange [STATS_min / 1.6:STATS_max * 1.6]
set ytics auto
set format y '%g'
set format x '%g'
set xtics () rotate by 40 right font ',9' scale 0
tic(i) = system("awk '$1 == ".i." {print $2 \" (\" $3 \")\"; exit}' ".data)
do for [i = 0:na - 1] { set xtics add (tic(i) i) }
set label 1 "sim decides one attempt at a time on one thread, so races cannot show here: the broken teaching steps (fw_plain, shared without synchronisation;\nfw_atomic_naive and fw_cas_nofirst, whose bugs need a second thread between two steps) decide exactly as the sound ones. Their failures show only\nin threaded runs (stress --record, replay). The Redis limiters run on the boundary workload only." at screen 0.07, screen 0.085 left font ',10' tc rgb '#333333'
plot 1 with lines lw 2 dt 2 lc rgb 'black' title 'the oracle', \
     for [k = 1:nw] data using (strcol(4) eq word(workloads, k) && $8 == 1 ? x($1, k) : NaN):6 \
         with points ls k ps 1.1 notitle, \
     for [k = 1:nw] data using (strcol(4) eq word(workloads, k) && $8 == 0 ? x($1, k) : NaN):6 \
         with points ls k pt open_point[k] ps 1.1 notitle
unset multiplot
