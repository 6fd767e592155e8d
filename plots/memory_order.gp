# memory_order.gp — seq_cst against acq_rel against relaxed (and a mutex)
# for the same algorithms, as bars side by side at each thread count: one
# column per design, one row per path (rejects under overload; admits, with
# a limit never reached). The faa and clock_faa floors are marked in each
# group, thread counts above the host's CPUs shaded.
# A hollow bar's min–max overlaps that of the same step at the stronger
# order (fw_cas for fw_cas_acqrel, tb_cas for tb_cas_relaxed): within noise.
# Data: summarize.awk by=limit,family,algo,threads,orders value=ns_per_op →
# `data` (limit family algo threads orders median min max noise, the last
# noise.awk's flag); paths.awk →
# `paths` (which path each limit's runs took); `cpus`.
load 'plots/common.gp'
# Each algorithm's order is the CSV's `orders` column (its rl_algo says it).
# fw_atomic_naive and fw_cas_nofirst, the article's broken steps 1 and 2,
# are seq_cst like fw_cas and compare no order: they are left to the threads
# figure. Baselines are drawn as floors, not bars.
orders = system("awk '$2 != \"baseline\" && $3 != \"fw_atomic_naive\" && $3 != \"fw_cas_nofirst\" {print $3, $5}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
order_of(a, i) = i > words(orders) / 2 ? '' : word(orders, 2 * i - 1) eq a ? word(orders, 2 * i) : order_of(a, i + 1)
color(o) = o eq 'seq_cst' ? 0x0072b2 : o eq 'acq_rel' ? 0xd55e00 : o eq 'relaxed' ? 0x009e73 : 0x555555
# GCRA is the token bucket on one TAT word (gcra_cas.c): it shares the
# bucket's column, in a paler shade of its order's colour.
pale(c) = (((c >> 16) + 255) / 2 << 16) | ((((c >> 8) & 255) + 255) / 2 << 8) | ((c & 255) + 255) / 2
design(f) = f eq 'gcra' ? 'token_bucket' : f
limits = system("awk '{print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
counts = system("awk '{print $4}' ".data." | sort -n | uniq | tr '\n' ' '")
designs = system("awk '$2 != \"baseline\" {print ($2 == \"gcra\" ? \"token_bucket\" : $2)}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
group(t) = sum [i = 1:words(counts)] (word(counts, i) + 0 == t ? i - 1 : 0)
most = word(counts, words(counts)) + 0
edge = (sum [i = 1:words(counts)] (word(counts, i) + 0 <= cpus ? 1 : 0)) - 0.5
set multiplot layout words(limits), words(designs) margins 0.075, 0.98, 0.07, 0.84 spacing 0.08, 0.12 \
    title "Memory orders: ns per call at each thread count (median of repetitions; whiskers: min–max;\n".\
          "hollow bars: min–max overlaps the same step's at the stronger order, within noise".\
          (cpus < most ? sprintf(";\nshaded: above the host's %d CPUs, oversubscribed points, not scaling)", cpus) : ")") font ',13'
set xlabel 'threads'
set ylabel 'ns per call (per thread)'
set xrange [-0.5:words(counts) - 0.5]
set xtics () scale 0
do for [i = 1:words(counts)] { set xtics add (word(counts, i) i - 1) }
set grid noxtics ytics
set style fill solid 0.9 border -1
load 'plots/oversubscribed.gp'
# The key in the top row only: both rows draw the same bars.
set key inside left top opaque box lc rgb '#cccccc' font ',9' samplen 2 spacing 1.1
do for [l in limits] {
    # One y scale across a row, so the designs compare.
    set autoscale y   # stats keeps to the current range
    stats data using (strcol(1) eq l ? $8 : NaN) nooutput
    set yrange [0:STATS_max * 1.15]
    # the path as paths.awk found it from the counts
    path = system("awk '$1 == \"".l."\" {print ($3 == \"admit\" ? \"admit path (limit never reached)\" : sprintf(\"reject path (%.2f%% rejects, L = %s)\", $4, $1))}' ".paths)
    do for [d in designs] {
        set title d.', '.path
        algos = system("awk '$1 == \"".l."\" {print $2, $3}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
        own = ''; other = ''
        do for [i = 1:words(algos) / 2] {
            f = word(algos, 2 * i - 1); a = word(algos, 2 * i)
            if (order_of(a, 1) ne '' && f eq d) { own = own.' '.a }
            if (order_of(a, 1) ne '' && f ne d && design(f) eq d) { other = other.' '.a }
        }
        shown = own.other
        n = words(shown)
        w = 0.8 / n
        x(t, j) = group(t) - 0.4 + (j - 0.5) * w
        bar(a) = a.' ('.order_of(a, 1).')'
        paint(j) = j <= words(own) ? color(order_of(word(shown, j), 1)) : pale(color(order_of(word(shown, j), 1)))
        plot for [j = 1:n] data using (strcol(1) eq l && strcol(3) eq word(shown, j) ? x($4, j) : NaN):6:(w) \
                 with boxes lc rgb paint(j) title bar(word(shown, j)), \
             for [j = 1:n] data using (strcol(1) eq l && strcol(3) eq word(shown, j) && $9 == 1 ? x($4, j) : $0 == 0 ? -1e3 : NaN):6:(w * 0.7) \
                 with boxes fs solid 1.0 noborder lc rgb 'white' notitle, \
             for [j = 1:n] data using (strcol(1) eq l && strcol(3) eq word(shown, j) ? x($4, j) : NaN):6:7:8 \
                 with yerrorbars pt 7 ps 0.4 lw 1 lc rgb 'black' notitle, \
             data using (strcol(1) eq l && strcol(3) eq 'faa' ? group($4) - 0.45 : NaN):6:(0.9):(0) \
                 with vectors nohead lw 3 lc rgb 'black' title 'faa (floor: one shared fetch-add)', \
             data using (strcol(1) eq l && strcol(3) eq 'clock_faa' ? group($4) - 0.45 : NaN):6:(0.9):(0) \
                 with vectors nohead lw 3 dt 3 lc rgb 'black' title 'clock_faa (fetch-add + clock read)'
    }
    unset key
}
unset multiplot
