# pareto.gp — what accuracy each nanosecond buys: every in-process limiter on
# every clock, its cost per decision (x, log scale: closed loop, 1 thread,
# overload, median of repetitions with min–max whiskers) against, on top,
# the most it admitted in a sliding window of length I ÷ L and, below, its
# utilization against the exact sliding log, both from the boundary
# workload replayed by 2 threads on the same clock. Colour is the clock,
# the marker the design; each algorithm is numbered at its cheapest point
# (its other clocks lie to the right at about the same height), the numbers
# placed clear of every point and of each other (pareto.awk) and named in
# the column on the left. The dashed staircase is the Pareto frontier (no point both cheaper and closer to 1,
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
# the clocks in the suite's order, each in its colour in clocks.gp
clocks = system("awk '!seen[$2]++ {print $2}' ".floors." | tr '\n' ' '")
nc = words(clocks)
colour(name) = name eq 'monotonic' ? '#0072b2' : name eq 'coarse' ? '#e69f00' : \
               name eq 'tsc' ? '#009e73' : name eq 'cached' ? '#cc79a7' : '#555555'
paint(c) = colour(word(clocks, c))
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
set style textbox opaque noborder margins 4, 4

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
    n_labels = system('wc -l < '.labels) + 0
    # the legend column: number and name, top to bottom in number order
    legend_y(i) = high - (i - 0.5) * (high - low) / n_labels
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
    # the frontier in words, in the empty band under the buckets' points
    unset label
    frontier_text = ''
    do for [k = 1:system('wc -l < '.frontier) + 0] {
        line = system('sed -n '.k.'p '.frontier)
        frontier_text = frontier_text.sprintf("\n%s on %s: %.1f ns, %.2f", word(line, 3), word(line, 4), real(word(line, 1)), real(word(line, 2)))
    }
    # pareto.awk keeps the numbers out of this box's area
    set label 1 "Pareto frontier, cheapest first (ns per decision, ".(panel == 1 ? 'max_sliding ÷ L' : 'utilization')."):".frontier_text \
        at graph 0.2, graph (panel == 1 ? 0.36 : 0.40) left front boxed font ',10'
    # each floor named just above the panel, at two heights so that near
    # ones stay apart
    do for [c = 1:nc] {
        f = real(system("awk '$1 == \"clock_faa\" && $2 == \"".word(clocks, c)."\" {print $3}' ".floors))
        set label 10 + c word(clocks, c) at first f, graph (c % 2 ? 1.015 : 0.975) center font ',9' tc rgb paint(c)
    }
    plot points using 4:column_y:5:6 with xerrorbars pt -1 lw 1 lc rgb '#b0b0b0' notitle, \
         for [c = 1:nc] floors using (strcol(1) eq 'clock_faa' && strcol(2) eq word(clocks, c) ? $3 : NaN):(low):(0):(high - low) \
             with vectors nohead dt 3 lw 2 lc rgb paint(c) notitle, \
         floors using (strcol(1) eq 'faa' && strcol(2) eq word(clocks, 1) ? $3 : NaN):(low):(0):(high - low) \
             with vectors nohead dt 2 lw 1 lc rgb 'black' notitle, \
         labels using ($7 == 1 ? $3 : NaN):4:($5 - $3):($6 - $4) with vectors nohead lw 0.8 lc rgb '#777777' notitle, \
         labels using (label_x):(legend_y($2)):(sprintf('%2d  %s', $2, strcol(1))) with labels left font ',10' notitle, \
         for [c = 1:nc] for [d = 1:4] points \
             using (strcol(3) eq word(clocks, c) && design(strcol(2)) == d ? $4 : NaN):column_y \
             with points pt design_point[d] ps 1.3 lc rgb paint(c) notitle, \
         frontier using 1:2 with steps lw 1.5 dt 2 lc rgb 'black' notitle, \
         frontier using 1:2 with points pt 6 ps 2.2 lw 1.5 lc rgb 'black' notitle, \
         for [c = 1:nc] NaN with points pt 7 ps 1.3 lc rgb paint(c) title word(clocks, c), \
         for [d = 1:4] NaN with points pt design_point[d] ps 1.3 lc rgb 'black' title word(designs, d), \
         NaN with linespoints pt 6 ps 1.5 dt 2 lw 1.5 lc rgb 'black' title 'Pareto frontier', \
         NaN with lines dt 3 lw 2 lc rgb 'black' title 'clock_faa (the clock’s floor)', \
         NaN with lines dt 2 lw 1 lc rgb 'black' title 'faa', \
         labels using 5:6:(sprintf('%d', $2)) with labels center boxed font ',9' notitle
}
unset multiplot
