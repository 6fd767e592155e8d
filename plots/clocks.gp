# clocks.gp — one algorithm of each design on each clock: what a call costs
# (top row, unrecorded runs) and the most it admitted in a sliding window
# of length I (bottom row, recorded runs), one column per thread count.
# Bars are medians over repetitions, whiskers min–max; black dashes mark the
# bound each promise allows on sliding windows. A hollow cost bar's min–max
# overlaps the same algorithm's on the first clock: within noise.
# Data: pivot.awk tables `stem`-cost-T.dat ("algo", then median min max a
# clock, of ns_per_op) and `stem`-sliding-T.dat ("algo promise burst limit",
# then the same of max_sliding/limit), T in `counts`; `cpus`.
load 'plots/common.gp'
clocks = system("head -1 ".stem.'-cost-'.word(counts, 1).'.dat'." | cut -c3-")
nc = words(clocks)
array clock_color[4] = ['#0072b2', '#e69f00', '#009e73', '#cc79a7']
paint(c) = clock_color[(c - 1) % 4 + 1]
w = 0.8 / nc
x(c) = $0 - 0.4 + (c - 0.5) * w
# The bound on max_sliding as accuracy.awk reads a promise; weak bounds
# aligned windows only.
bound(p, b, l) = p eq 'strong' ? 1 : p eq 'window' ? 2 : p eq 'bucket' ? (b + l) / l : NaN
set multiplot layout 2, words(counts) \
    title "Clocks: cost and accuracy of one algorithm of each design (median of repetitions; whiskers: min–max;\nhollow: cost within noise of the first clock's, their min–max overlap;\nblack dashes: the bound each promise sets on sliding windows, none for weak, which bounds aligned ones)" font ',13'
set style fill solid 0.9 border -1
set grid noxtics ytics
set xtics scale 0 font ',10'
set key inside center top horizontal noopaque nobox font ',10' samplen 2
threads_(t) = t.' thread'.(t + 0 > 1 ? 's' : '').(t + 0 > cpus ? ' (oversubscribed)' : '')
do for [t in counts] {
    f = stem.'-cost-'.t.'.dat'
    tallest = 0
    set autoscale y   # stats keeps to the current range
    do for [c = 1:nc] { stats f using (column(3 * c + 1)) nooutput; tallest = (STATS_max > tallest ? STATS_max : tallest) }
    set yrange [0:tallest * 1.2]
    set title 'cost: ns per call, '.threads_(t).', unrecorded'
    set ylabel 'ns per call (per thread)'
    # within noise of clock 1: the two min–max intervals overlap
    noisy(c) = c > 1 && !(column(3 * c + 1) < column(3) || column(4) < column(3 * c))
    plot for [c = 1:nc] f using (x(c)):(column(3 * c - 1)):(w) with boxes lc rgb paint(c) title word(clocks, c), \
         for [c = 2:nc] f using (noisy(c) ? x(c) : $0 == 0 ? -1e3 : NaN):(column(3 * c - 1)):(w * 0.6) with boxes fs solid 1.0 noborder lc rgb 'white' notitle, \
         for [c = 1:nc] f using (x(c)):(column(3 * c - 1)):(column(3 * c)):(column(3 * c + 1)) \
             with yerrorbars pt 7 ps 0.4 lw 1 lc rgb 'black' notitle, \
         f using 0:(0):xtic(1) with points ps 0 notitle
}
do for [t in counts] {
    f = stem.'-sliding-'.t.'.dat'
    tallest = 0
    set autoscale y   # stats keeps to the current range
    do for [c = 1:nc] { stats f using (column(3 * c + 4)) nooutput; tallest = (STATS_max > tallest ? STATS_max : tallest) }
    set yrange [0:tallest * 1.25]
    set title 'accuracy: max_sliding / L, '.threads_(t).', recorded'
    set ylabel 'max_sliding ÷ L'
    plot for [c = 1:nc] f using (x(c)):(column(3 * c + 2)):(w) with boxes lc rgb paint(c) title word(clocks, c), \
         for [c = 1:nc] f using (x(c)):(column(3 * c + 2)):(column(3 * c + 3)):(column(3 * c + 4)) \
             with yerrorbars pt 7 ps 0.4 lw 1 lc rgb 'black' notitle, \
         f using ($0 - 0.45):(bound(strcol(2), $3, $4)):(0.9):(0) with vectors nohead lw 3 lc rgb 'black' title 'bound', \
         f using 0:(0):xtic(strcol(1).' ('.strcol(2).')') with points ps 0 notitle
}
unset multiplot
