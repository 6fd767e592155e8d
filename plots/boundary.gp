# boundary.gp — the .NET article's picture from real `ratelab sim`
# decisions, zoomed on the window edges where the bursts are: one row an
# algorithm (a fixed window, the exact sliding log, a token bucket), one
# column a case (the workload's default burst of L each side of an edge,
# and the article's own 7 each side at L = 10). Every edge of the run is
# overlaid on one axis of ms from the edge. Each admit stands at the cost
# admitted in the trailing interval (t − I, t]; rejects are grey crosses
# at what the window held when they came.
# Data: `stem`-CASE-ALGO.dat (boundary.awk: "ms_from_edge held admitted
# edge_s") and `stem`-CASE-ALGO-row.dat ("algo promise L B I max_sliding",
# from the run's results row); `cases`, `algos`.
load 'plots/common.gp'
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1400,1000 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1400,1000 noenhanced font 'DejaVu Sans,12'
}
set output out
nc = words(cases); na = words(algos)
f(c, a) = stem.'-'.c.'-'.a.'.dat'
row(c, a) = stem.'-'.c.'-'.a.'-row.dat'
field(c, a, i) = system("awk '{print $".i."}' ".row(c, a))
L(c, a) = field(c, a, 3) + 0
bound(c, a) = field(c, a, 2) eq 'window' ? 2 * L(c, a) : field(c, a, 2) eq 'bucket' ? field(c, a, 4) + L(c, a) : L(c, a)
bound_name(p) = p eq 'window' ? '2L (window bound)' : p eq 'bucket' ? 'B + L (bucket bound)' : ''
per(c) = field(c, word(algos, 1), 5) / 1e9
edges(c) = system("awk '!seen[$4]++ {printf \"%s%g s\", (n++ ? \", \" : \"\"), $4}' ".f(c, word(algos, 1)))
# attempts each side of the first edge, from the trace as decided
first_edge(c) = system("awk 'NR == 1 {print $4}' ".f(c, word(algos, 1)))
side(c, s) = system("awk -v e=".first_edge(c)." '$4 == e && ($1 < 0) == ".s." {n++} END {print n + 0}' ".f(c, word(algos, 1))) + 0

# One scale for every panel: x the span of attempts around an edge, y up to
# the highest count or bound.
xlo = 0; xhi = 0; ytop = 0
do for [c in cases] {
    do for [a in algos] {
        stats f(c, a) using 1:2 nooutput
        xlo = STATS_min_x < xlo ? STATS_min_x : xlo
        xhi = STATS_max_x > xhi ? STATS_max_x : xhi
        ytop = STATS_max_y > ytop ? STATS_max_y : ytop
        ytop = bound(c, a) > ytop ? bound(c, a) : ytop
    }
}
pad = (xhi - xlo) * 0.06
away = xhi + 10 * (xhi - xlo + 1)   # off the axis
set xrange [xlo - pad:xhi + pad]
set yrange [0:ytop * 1.15]
array color[3] = ['#cc3311', '#009988', '#0077bb']

set multiplot layout na, nc margins 0.06, 0.83, 0.07, 0.84 spacing 0.06, 0.08 \
    title sprintf("The boundary workload at L = %d per %g s, zoomed on the window edges (every edge of the run overlaid: %s),\nfrom real ratelab sim decisions: each admit at the cost admitted in the trailing %g s", \
                  L(word(cases, 1), word(algos, 1)), per(word(cases, 1)), edges(word(cases, 1)), per(word(cases, 1))) font ',13'
set ylabel sprintf('admitted in (t − %g s, t]', per(word(cases, 1)))
set key at screen 0.845, graph 1 left top Left reverse noopaque nobox font ',10' samplen 2 spacing 1.15
set arrow 1 from first 0, graph 0 to first 0, graph 1 nohead lc rgb '#999999' dt 3
k = 0
do for [i = 1:na] {
    a = word(algos, i)
    do for [j = 1:nc] {
        c = word(cases, j)
        k = k + 1
        p = field(c, a, 2)
        if (i == 1) {
            head = (c eq 'L') \
                ? sprintf("the workload as it comes: %d attempts just before each edge, %d just after", side(c, 1), side(c, 0)) \
                : sprintf("the .NET article's case (3 + 7 | 7 + 3): %d just before, %d just after", side(c, 1), side(c, 0))
            set label 10 head at graph 0.5, graph 1.32 center font ',12'
        } else {
            unset label 10
        }
        set xlabel (i == na ? 'ms from the window edge' : '')
        set title sprintf('%s (%s): at most %d in any %g s', a, p, field(c, a, 6) + 0, per(c)) font ',11'
        if (j < nc) { unset key } else { set key }
        # admits are moved off the axis, not made NaN: a panel without
        # rejects would warn of a file with no valid points
        nrej = system("awk '$3 == 0 {n++} END {print n + 0}' ".f(c, a)) + 0
        plot f(c, a) using ($3 == 1 ? $1 : NaN):2 with impulses lw 2 lc rgb color[i] title 'admitted', \
             f(c, a) using ($3 == 1 ? $1 : NaN):2 with points pt 7 ps 0.6 lc rgb color[i] notitle, \
             f(c, a) using ($3 == 0 ? $1 : away):2 with points pt 2 ps 0.8 lc rgb '#777777' title (nrej ? 'rejected' : 'rejected: none'), \
             L(c, a) with lines dt 2 lw 1.5 lc rgb 'black' title 'L', \
             (bound(c, a) != L(c, a) ? bound(c, a) : 1/0) with lines dt 3 lw 1.5 lc rgb 'black' title bound_name(p)
    }
}
unset multiplot
