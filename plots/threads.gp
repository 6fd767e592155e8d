# threads.gp — throughput against threads, one panel per family, with the
# faa floor (one atomic fetch-add) drawn in every panel and the thread
# counts above the host's CPUs shaded.
# Data: summarize.awk by=family,algo,threads value=mops → `data`; `cpus`.
load 'plots/common.gp'
# Taller than the default: seven panels, each with its own key.
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1400,1100 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1400,1100 noenhanced font 'DejaVu Sans,12'
}
set output out
families = system("awk '$1 != \"baseline\" {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
nf = words(families)
cols = 3
rows = int((nf + cols - 1) / cols)
stats data using 3 nooutput
most = STATS_max
set xrange [STATS_min / 2 ** 0.3:most * 2 ** 0.3]
edge = cpus   # oversubscribed.gp: on a threads axis the band starts at cpus
# Fixed margins give every panel the same plot area, its key in the gap
# to its right.
set multiplot layout rows, cols margins 0.07, 0.89, 0.06, 0.92 spacing 0.15, 0.1 \
    title "Closed-loop throughput against threads (median of repetitions; grey dashes: faa".\
          (cpus < most ? sprintf("; shaded: more threads than the host's %d CPUs)", cpus) : ")") font ',14'
set logscale x 2
set logscale y 10
set xlabel 'threads'
set key at graph 1.04, graph 1 left top Left reverse noopaque nobox font ',9' samplen 3
load 'plots/oversubscribed.gp'
k = 0
do for [f in families] {
    set title f
    set ylabel (k % cols == 0 ? 'Mops/s (all threads)' : '')   # first column only: keys need the gap
    k = k + 1
    algos = system("awk '$1 == \"".f."\" {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    # Each line's points a little aside (a few % of a doubling), so equal
    # values stay visible as distinct markers.
    aside(t, i) = t * 2 ** (0.05 * (i - (words(algos) + 1) / 2.0))
    plot for [i = 1:words(algos)] data using (strcol(2) eq word(algos, i) ? aside($3, i) : NaN):4 \
             with linespoints ls ((i - 1) % 8 + 1) title word(algos, i), \
         data using (strcol(2) eq 'faa' ? $3 : NaN):4 with lines dt 2 lw 2 lc rgb '#888888' title 'faa'
}
unset multiplot
