# sharded.gp — tb_sharded's batch k swept (the sharded suite): left, what a
# batch buys: million calls a second on the admit path at each k, tb_cas and
# the faa floor beside it; right, what it costs: each k's admit-path
# throughput against the most its recorded overload runs admitted in a
# window of I (÷ L), with the bound the promise allows for that k. Points are
# medians of repetitions, whiskers min–max. faa does not depend on k: how far
# its medians swing across k is this machine's noise, and the figure says
# so; a hollow tb_sharded point's min–max overlaps tb_cas's at that k.
# Data: `mops` (summarize.awk by=algo,slots value=mops on the admit path:
# "algo k median min max noise", noise.awk's flag against tb_cas) and `data` (render.sh: "algo k mops_median
# mops_min mops_max sliding_median sliding_min sliding_max bound", sliding
# and bound ÷ L).
load 'plots/common.gp'
set multiplot layout 1, 2 margins 0.07, 0.97, 0.11, 0.84 spacing 0.08 \
    title "tb_sharded: per-thread caches refilled k tokens at a time from tb_cas's word, 2 threads\n(median of repetitions; whiskers: min–max)" font ',14'
set grid xtics ytics
set bars small
set key inside left top reverse Left noopaque nobox font ',10' samplen 2

set title 'what a batch buys: the admit path (a limit no run reaches)'
set xlabel 'k, tokens a refill takes (S, --slots)'
set ylabel 'million calls a second (all threads)'
set logscale x 2
set logscale y 10
set format y '%g'
stats mops using 2 nooutput
set xrange [STATS_min / 1.5:STATS_max * 1.5]
stats mops using 4 nooutput
ylo = STATS_min
stats mops using 5 nooutput
set yrange [ylo / 1.5:STATS_max * 1.5]
# faa's own swing across k, which k cannot cause: the noise to read the
# other lines against
stats mops using (strcol(1) eq 'faa' ? $3 : NaN) nooutput
faa_lo = STATS_min; faa_hi = STATS_max
stats mops using (strcol(1) eq 'faa' ? $4 : NaN) nooutput
faa_min = STATS_min
stats mops using (strcol(1) eq 'faa' ? $5 : NaN) nooutput
faa_max = STATS_max
set label 2 sprintf("faa does not depend on k: its medians range %.0f–%.0f\nand its runs %.0f–%.0f million a second across k,\nthis machine's noise, not an effect of k", faa_lo, faa_hi, faa_min, faa_max) \
    at graph 0.97, graph 0.14 right font ',9' tc rgb '#555555' front
plot for [a in 'tb_sharded tb_cas faa'] mops using (strcol(1) eq a ? $2 : NaN):3:4:5 \
         with yerrorbars lw 1 lc rgb (a eq 'tb_sharded' ? ls_color[1] : a eq 'tb_cas' ? ls_color[2] : '#888888') ps 0 notitle, \
     for [a in 'tb_sharded tb_cas faa'] mops using (strcol(1) eq a ? $2 : NaN):3 \
         with linespoints ls (a eq 'tb_sharded' ? 1 : a eq 'tb_cas' ? 2 : 7) title (a eq 'faa' ? 'faa (one shared fetch-add)' : a), \
     mops using (strcol(1) eq 'tb_sharded' && $6 == 1 ? $2 : $0 == 0 ? 1e-9 : NaN):3 with points pt 7 ps 0.45 lc rgb 'white' notitle, \
     keyentry with points pt 6 ps 1 lc rgb ls_color[1] title 'hollow: within noise of tb_cas (min–max overlap)'
unset label 2

set title "what it costs: max_sliding ÷ L, recorded under overload at the suite's L,\nagainst the admit path's throughput; open marks: each k's bound"
set xlabel 'million calls a second on the admit path'
set ylabel 'max_sliding ÷ L'
unset logscale y
set format y '%.2f'
set autoscale xy   # stats keeps to the current ranges
stats data using 4 nooutput
xlo = STATS_min
stats data using 5 nooutput
set xrange [xlo / 1.3:STATS_max * 1.3]
stats data using 7 nooutput
ylo = STATS_min
stats data using 9 nooutput
yhi = STATS_max
stats data using 8 nooutput
yhi = STATS_max > yhi ? STATS_max : yhi
set yrange [ylo - (yhi - ylo) * 0.15 - 0.01:yhi + (yhi - ylo) * 0.15 + 0.01]
set key inside left top
set label 1 "Under steady overload a refill finds the bucket\nnearly empty and takes what is there, so caches\nseldom hold much: the maxima stay at tb_cas's.\nThe bound is reached when caches sit full while\nthe bucket refills (bursty traffic: docs/threads.md)." \
    at graph 0.03, graph 0.72 left font ',9' tc rgb '#555555'
plot data using (strcol(1) eq 'tb_sharded' ? $3 : NaN):6:4:5:7:8 with xyerrorbars lw 1 lc rgb ls_color[1] ps 0 notitle, \
     data using (strcol(1) eq 'tb_sharded' ? $3 : NaN):6 with points ls 1 ps 1.2 title 'tb_sharded, measured', \
     data using (strcol(1) eq 'tb_sharded' ? $3 : NaN):9 with linespoints lc rgb ls_color[1] dt 2 pt 6 ps 1.2 title 'tb_sharded, bound (B + L + (k − 1)·threads) ÷ L', \
     data using (strcol(1) eq 'tb_sharded' ? $3 : NaN):9:('k='.strcol(2)) with labels offset 0, 1 font ',9' tc rgb ls_color[1] notitle, \
     data using (strcol(1) eq 'tb_cas' ? $3 : NaN):6:4:5:7:8 with xyerrorbars lw 1 lc rgb ls_color[2] ps 0 notitle, \
     data using (strcol(1) eq 'tb_cas' ? $3 : NaN):6 with points ls 2 ps 1.2 title 'tb_cas, measured (one point a plan)', \
     data using (strcol(1) eq 'tb_cas' ? $3 : NaN):9 with points lc rgb ls_color[2] pt 4 ps 1.2 title 'tb_cas, bound (B + L) ÷ L'
unset multiplot
