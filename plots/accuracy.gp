# accuracy.gp — for every algorithm and workload, max_sliding/L and
# max_aligned/L as bars, the promised bound marked (one panel a workload).
# Data: accuracy.awk split by workload → `stem`-WORKLOAD.dat (algo sliding
# aligned bound); `workloads` lists them.
load 'plots/common.gp'
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1400,1900 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1400,1900 noenhanced font 'DejaVu Sans,12'
}
set output out
set multiplot layout words(workloads), 1 title "Accuracy in sim: most admitted cost in any window, as a multiple of L; black dash: the promised bound" font ',14'
set style fill solid 0.85 border -1
set yrange [0:*]
set ylabel 'x L'
set xtics rotate by 40 right font ',9'
set key outside top center horizontal font ',10'
set lmargin 8
do for [w in workloads] {
    f = stem.'-'.w.'.dat'
    set title 'workload '.w
    plot f using ($0 - 0.2):2:(0.38) with boxes lc rgb '#4477aa' title 'sliding/L', \
         f using ($0 + 0.2):3:(0.38):xtic(1) with boxes lc rgb '#ee7733' title 'aligned/L', \
         f using ($0 - 0.45):4:(0.9):(0) with vectors nohead lw 3 lc rgb 'black' title 'promised bound'
}
unset multiplot
