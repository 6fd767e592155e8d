# pareto.gp — what accuracy each nanosecond buys: every in-process limiter on
# every clock, its cost per decision (x, log scale: closed loop, 1 thread,
# overload, median of repetitions with min–max whiskers) against, on top,
# the most it admitted in a sliding window of length I ÷ L and, below, its
# utilization against the exact sliding log, both from the boundary
# workload replayed by 2 threads on the same clock. Colour is the clock,
# the marker the design; each algorithm is named at its cheapest point
# (its other clocks lie to the right at about the same height). The dashed
# staircase is the Pareto frontier (no point both cheaper and closer to 1,
# the exact limiter's value); dotted verticals are each clock's floor,
# clock_faa (a read and a fetch-add), and the black one faa's.
# Data (pareto.awk): `points`, `floors`, and for sliding and util
# `labels_M`, `frontier_M` and `range_M` ("low high").
load 'plots/common.gp'
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1400,1300 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1400,1300 noenhanced font 'DejaVu Sans,12'
}
set output out
clocks = system("awk 'NF {print $3}' ".points." | awk '!seen[$0]++' | tr '\n' ' '")
nc = words(clocks)
array clock_color[4] = ['#0072b2', '#e69f00', '#009e73', '#cc79a7']
paint(c) = clock_color[(c - 1) % 4 + 1]
# One marker a design; the buckets (token, GCRA, leaky) share one, the
# sliding log and counter another, as in the threads figure.
designs = 'fixed_window bucket sliding time_wheel'
array design_point[4] = [7, 5, 9, 13]
design(f) = f eq 'fixed_window' ? 1 : f eq 'time_wheel' ? 4 : \
            (f eq 'sliding_log' || f eq 'sliding_counter') ? 3 : 2
# x: a label column left of the cheapest point, then the data.
stats points using 4 nooutput
cheapest = STATS_min
stats points using 6 nooutput
costliest = STATS_max
label_x = cheapest / 3.2
set logscale x 10
set xrange [label_x * 0.97:costliest * 1.3]
# no tic in the label column
set xtics format '%g'
set xtics ()
do for [t in '2 3 4 5 7 10 15 20 30 50 70 100'] { if (t + 0 >= cheapest * 0.9) { set xtics add (real(t)) } }
set grid noxtics ytics
set border 3

set multiplot title "What accuracy each nanosecond buys: every in-process limiter on every clock\ncost: 1 thread, closed loop under overload (median, min–max whiskers); accuracy: the boundary workload replayed by 2 threads on that clock" font ',13'
set lmargin at screen 0.07
set rmargin at screen 0.97
# one key for both panels, under the title: clocks, designs, the lines
set key at screen 0.5, screen 0.91 center center horizontal maxcols 6 nobox noopaque font ',11' samplen 1.5 width 0.5

do for [panel = 1:2] {
    column_y = panel == 1 ? 7 : 8
    labels = panel == 1 ? labels_sliding : labels_util
    frontier = panel == 1 ? frontier_sliding : frontier_util
    range = panel == 1 ? range_sliding : range_util
    low = real(system("awk '{print $1}' ".range))
    high = real(system("awk '{print $2}' ".range))
    set yrange [low:high]
    if (panel == 1) {
        set tmargin at screen 0.835
        set bmargin at screen 0.50
        set title 'max_sliding ÷ L: the most admitted in a window [t, t + I) (1 is exact; fixed windows allow 2 at an edge, buckets (B + L) ÷ L)' font ',11'
        set ylabel 'max_sliding ÷ L'
        set xlabel ''
    } else {
        set tmargin at screen 0.435
        set bmargin at screen 0.075
        set title 'utilization: admitted ÷ what the exact sliding log admits on the same attempts (1 is exact; above: over-admits; below: refuses what it could admit)' font ',11'
        set ylabel 'utilization'
        set xlabel 'ns per decision (log scale)'
        unset key
    }
    # each floor named just above the panel, faa's just below its top
    unset label
    do for [c = 1:nc] {
        f = real(system("awk '$1 == \"clock_faa\" && $2 == \"".word(clocks, c)."\" {print $3}' ".floors))
        set label 10 + c word(clocks, c) at first f, graph 1.015 center font ',9' tc rgb paint(c)
    }
    plot points using 4:column_y:5:6 with xerrorbars pt -1 lw 1 lc rgb '#b0b0b0' notitle, \
         for [c = 1:nc] floors using (strcol(1) eq 'clock_faa' && strcol(2) eq word(clocks, c) ? $3 : NaN):(low):(0):(high - low) \
             with vectors nohead dt 3 lw 2 lc rgb paint(c) notitle, \
         floors using (strcol(1) eq 'faa' && strcol(2) eq word(clocks, 1) ? $3 : NaN):(low):(0):(high - low) \
             with vectors nohead dt 2 lw 1 lc rgb 'black' notitle, \
         labels using 2:3:(label_x * 1.75 - $2):($4 - $3) with vectors nohead lw 0.5 lc rgb '#999999' notitle, \
         labels using (label_x * 1.75):4:(0):(0) with vectors nohead notitle, \
         labels using (label_x):4:1 with labels left font ',10' notitle, \
         for [c = 1:nc] for [d = 1:4] points \
             using (strcol(3) eq word(clocks, c) && design(strcol(2)) == d ? $4 : NaN):column_y \
             with points pt design_point[d] ps 1.3 lc rgb paint(c) notitle, \
         frontier using 1:2 with steps lw 1.5 dt 2 lc rgb 'black' notitle, \
         frontier using 1:2 with points pt 6 ps 2.2 lw 1.5 lc rgb 'black' notitle, \
         frontier using 1:2:3 with labels offset 0, -1.3 font ',9' notitle, \
         for [c = 1:nc] NaN with points pt 7 ps 1.3 lc rgb paint(c) title word(clocks, c), \
         for [d = 1:4] NaN with points pt design_point[d] ps 1.3 lc rgb 'black' title word(designs, d), \
         NaN with linespoints pt 6 ps 1.5 dt 2 lw 1.5 lc rgb 'black' title 'Pareto frontier', \
         NaN with lines dt 3 lw 2 lc rgb 'black' title 'clock_faa (the clock’s floor)', \
         NaN with lines dt 2 lw 1 lc rgb 'black' title 'faa'
}
unset multiplot
