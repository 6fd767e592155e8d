# threads.gp — throughput against threads, one panel per family, with the
# faa floor (one atomic fetch-add) drawn in every panel.
# Data: summarize.awk by=family,algo,threads value=mops → `data`.
load 'plots/common.gp'
families = system("awk '$1 != \"baseline\" {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
nf = words(families)
cols = 3
rows = int((nf + cols - 1) / cols)
set multiplot layout rows, cols title "Closed-loop throughput against threads (median of repetitions; dashed: faa)" font ',14'
set logscale x 2
set logscale y 10
set xlabel 'threads'
set ylabel 'Mops/s (all threads)'
set key outside right top noopaque nobox font ',8' samplen 1
do for [f in families] {
    set title f
    algos = system("awk '$1 == \"".f."\" {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    plot for [a in algos] data using (strcol(2) eq a ? $3 : NaN):4 with linespoints lw 2 pt 7 ps 0.6 title a, \
         data using (strcol(2) eq 'faa' ? $3 : NaN):4 with lines dt 2 lw 2 lc rgb '#555555' title 'faa'
}
unset multiplot
