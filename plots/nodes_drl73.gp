# nodes_drl73.gp — DRL's two-limiter experiment (docs/nodes.md): two nodes,
# demand 7:3, T = 50 ms; for each strategy the loaded node's share of the
# admits (bars), against the demand's own split (0.7, dashed) and an even
# one (0.5, dotted); each bar labelled with the strategy's max_sliding / L.
# Data: nodes.awk part=drl73 (strategy, share, max_sliding / L).
# Call: gnuplot -e "data='F.dat'; out='F.png'" plots/nodes_drl73.gp
load 'plots/common.gp'
set title "DRL's two limiters at demand 7:3 (T = 50 ms): the loaded node's share of the admits"
set style data histograms
set style fill solid 0.7 border -1
set boxwidth 0.7
set yrange [0:1]
set ylabel "loaded node's share of the admits (labels: max admitted in a window / L)"
set key inside right top box opaque
set xtics rotate by 0
plot data using 2:xtic(1) lc rgb ls_color[1] title "loaded node's share", \
     0.7 with lines dt 2 lw 2 lc rgb ls_color[2] title 'demand 7:3 (0.7)', \
     0.5 with lines dt 3 lw 2 lc rgb ls_color[3] title 'even split (0.5)', \
     data using 0:($2 + 0.03):(sprintf('%.2f L', $3)) with labels font ',10' notitle
