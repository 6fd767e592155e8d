# shaping.gp — every shaper's distance from the ideal schedule against its
# cost per decision (bench --suite shaping, docs/accuracy.md): x the shape
# call's ns per decision (1 thread, admit path, no sleep; median with
# min–max whiskers), y how late its releases are behind the greedy
# shaper's (GCRA virtual scheduling), the worst of six workloads: p99 as a
# filled mark, max as a hollow one, joined by a line. tb_cas's admit path
# is the dotted vertical: a bucket that answers at once. A shaper that
# left the curve B + L·u/I on some workload is marked in red with the count.
# Data (shaping.awk): algo ns ns_min ns_max p50_ms p99_ms max_ms broken workloads label.
load 'plots/common.gp'
set output out
set title "Shapers: distance from the ideal schedule against cost per decision\nL = 100 per 1 s, B = L, six workloads in sim (worst shown); cost: the shape call alone, 1 thread" font ',13'
set xlabel 'ns per decision (shape without the sleep, median, min–max)'
set ylabel 'release behind the ideal, ms (worst workload)'
floor = real(system("awk '$1 == \"tb_cas\" {print $2}' ".data))
stats data using 4 nooutput
set xrange [0:STATS_max * 1.25 > floor * 1.25 ? STATS_max * 1.25 : floor * 1.25]
stats data using ($7 == $7 ? $7 : 0) nooutput
set yrange [-0.08 * (STATS_max > 1 ? STATS_max : 1):(STATS_max > 1 ? STATS_max : 1) * 1.25]
set key inside left top box opaque
set arrow 1 from floor, graph 0 to floor, graph 1 nohead dt 3 lw 2 lc rgb 'black'
set label 1 'tb_cas admit path' at floor, graph 1.02 center font ',10'
# each shaper numbered at its point (above and below in turn, so close ones
# stay apart), named in a box on the right with its broken count
n_rows = system('wc -l < '.data) + 0
legend = ''
do for [k = 1:n_rows] {
    line = system('sed -n '.k.'p '.data)
    if (word(line, 5) ne 'NaN') {
        legend = legend.sprintf("\n%d  %s%s", k, word(line, 1), word(line, 8) + 0 > 0 ? sprintf('  (curve left on %s of %s)', word(line, 8), word(line, 9)) : '')
    }
}
set label 2 'shapers:'.legend at graph 0.02, graph 0.74 left front boxed font ',10'
set style textbox opaque noborder margins 2, 2
plot data using ($5 == $5 ? $2 : NaN):6:3:4 with xerrorbars pt 7 ps 1.4 lc rgb '#0072b2' title 'late p99', \
     data using ($5 == $5 ? $2 : NaN):7 with points pt 6 ps 2.2 lw 2 lc rgb '#0072b2' title 'late max', \
     data using ($5 == $5 ? $2 : NaN):6:(0):($7 - $6) with vectors nohead lc rgb '#0072b2' notitle, \
     data using ($5 == $5 && $8 > 0 ? $2 : NaN):6 with points pt 7 ps 1.4 lc rgb '#d55e00' title 'left B + L·u/I on some workload', \
     data using ($5 == $5 && int($0) % 2 == 0 && strcol(10) ne '-' ? $2 : NaN):($7):(strcol(10)) with labels center offset 0, 1.4 font ',10' tc rgb '#333333' notitle, \
     data using ($5 == $5 && int($0) % 2 == 1 && strcol(10) ne '-' ? $2 : NaN):($7):(strcol(10)) with labels center offset 0, -1.4 font ',10' tc rgb '#333333' notitle
