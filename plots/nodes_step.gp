# nodes_step.gp — the step response of many nodes sharing one limit
# (docs/nodes.md): demand steps from L to 10 L at 5 s for 2 s (T = 100 ms);
# for each strategy against N (log scale): left, the most admitted in an
# aligned window from the step on / L; right, the seconds from the step
# until every later window held at most 1.05 L (0: none went over).
# Data: nodes.awk part=step, one block a strategy (strategy, N, ratio, s).
# Call: gnuplot -e "data='F.dat'; out='F.png'" plots/nodes_step.gp
load 'plots/common.gp'
blocks = int(system("awk 'NF == 0 {b++} END {print int(b / 2)}' ".data))
name(i) = system(sprintf("awk -v want=%d 'NF == 0 {b++; next} int(b / 2) == want {print $1; exit}' %s", i, data))
set multiplot layout 1,2 title 'A demand step from L to 10 L at 5 s for 2 s (T = 100 ms, RTT 1 ms)'
set logscale x 10
set xrange [5:2000]
set xlabel 'nodes N (log)'
set tmargin 4
set logscale y 2
set yrange [0.5:16]
set ylabel 'most admitted in a window from the step on / L (log)'
set key inside right bottom maxrows 4 box opaque
plot for [i=0:blocks-1] data index i using 2:3 with linespoints ls (i % 8 + 1) title name(i)
unset logscale y
set yrange [0:*]
set ylabel 'seconds until every aligned window of 1 s held <= 1.05 L'
set key off
plot for [i=0:blocks-1] data index i using 2:4 with linespoints ls (i % 8 + 1) title name(i)
unset multiplot
