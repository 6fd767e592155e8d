# nodes.gp — the frontier of many nodes sharing one limit (docs/nodes.md):
# for N nodes, each strategy's overshoot against its store calls per
# decision (x, log scale; strategies with no store call sit at the left
# edge, 1e-4), one curve a strategy joined in order of the sync interval T
# (each point labelled with T in ms). Left: the most admitted in any
# sliding window / L (filled marks), with the strategy's derived bound / L
# at the same T (open marks, dashed); right: the p99 of admitted / L over
# the aligned windows. Bounds above the panel are listed under it.
# Data: nodes.awk part=frontier, one block a strategy.
# Call: gnuplot -e "data='F.dat'; out='F.png'; nodes=10" plots/nodes.gp
load 'plots/common.gp'
top = 8
blocks = int(system("awk 'NF == 0 {b++} END {print int(b / 2)}' ".data))
name(i) = system(sprintf("awk -v want=%d 'NF == 0 {b++; next} int(b / 2) == want {print $1; exit}' %s", i, data))
off = system(sprintf("awk -v top=%d '$5 != \"NaN\" && $5 > top && !($1 in s) {s[$1] = 1; m[++n] = $1} $5 != \"NaN\" && $5 > top && $5 > b[$1] {b[$1] = $5} END {for (i = 1; i <= n; i++) printf \"%%s%%s up to %%.4g L\", (i > 1 ? \", \" : \"\"), m[i], b[m[i]]}' %s", top, data))
lowest(x) = x > 0 ? x : 1e-4
set multiplot layout 1,2 title sprintf('%d nodes share L: overshoot against store calls per decision, T = 10, 50, 100, 500 ms (labels: T in ms)', nodes)
set logscale x 10
set logscale y 2
set xrange [5e-5:100]
set format x '%g'
set yrange [0.5:top]
set xlabel 'store calls per decision (log; none drawn at 1e-4)'
set key inside left top box opaque
set ylabel 'max admitted in any window / L (dashed: derived bound)'
if (strlen(off) > 0) { set label 1 'largest bounds, above the panel: '.off at graph 0.02, graph 0.04 font ',8' }
plot for [i=0:blocks-1] data index i using (lowest($3)):4 with linespoints ls (i % 8 + 1) title name(i), \
     for [i=0:blocks-1] data index i using (lowest($3)):5 with linespoints ls (i % 8 + 1) dt 2 pt 6 notitle, \
     for [i=0:blocks-1] data index i using (lowest($3)):4:(sprintf('%g', $2)) with labels offset 0,0.7 font ',8' notitle
unset label 1
set ylabel 'p99 of admitted / L over aligned windows'
set key off
plot for [i=0:blocks-1] data index i using (lowest($3)):6 with linespoints ls (i % 8 + 1) title name(i)
unset multiplot
