# nodes.gp — the frontier of many nodes sharing one limit (docs/nodes.md):
# for N nodes, each strategy's overshoot (max_sliding / L, filled markers,
# joined in order of the sync interval T, each point labelled with T)
# against its store calls per decision (x, log scale; strategies with no
# store call sit at the left edge), and its derived bound / L at the same T
# (open markers, dashed). Data: nodes.awk's output, one block a strategy.
# Call: gnuplot -e "data='F.dat'; out='F.png'; nodes=10" plots/nodes.gp
load 'plots/common.gp'
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1100,700 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1100,700 noenhanced font 'DejaVu Sans,12'
}
set output out
set title sprintf('%d nodes share L: overshoot against store calls per decision (T = 10, 50, 100, 500 ms)', nodes)
set xlabel 'store calls per decision (log; 0 drawn at 1e-4)'
set ylabel 'max admitted in a window / L'
set logscale x 10
set logscale y 2
set key outside right
lowest(x) = x > 0 ? x : 1e-4
blocks = int(system("awk 'NF == 0 {b++} END {print int(b / 2)}' ".data))
name(i) = system(sprintf("awk -v want=%d 'NF == 0 {b++; next} int(b / 2) == want {print $1; exit}' %s", i, data))
plot for [i=0:blocks-1] data index i using (lowest($3)):4 with linespoints lw 2 pt 7 lc i+1 title name(i), \
     for [i=0:blocks-1] data index i using (lowest($3)):5 with linespoints dt 2 pt 6 lc i+1 notitle, \
     for [i=0:blocks-1] data index i using (lowest($3)):4:(sprintf('%g', $2)) with labels offset 0,0.8 font ',9' notitle
