# memory_order.gp — seq_cst against acq_rel against relaxed (and a mutex)
# for the same algorithms: ns per call against threads, on the reject path
# (overload) and on the admit path (a limit never reached).
# Data: summarize.awk by=limit,algo,threads value=ns_per_op → `data`.
load 'plots/common.gp'
limits = system("awk '{print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
set multiplot layout 1, words(limits) title "Memory orders: ns per call against threads (median of repetitions)" font ',14'
set logscale x 2
set xlabel 'threads'
set ylabel 'ns per call (per thread)'
set key inside left top noopaque nobox font ',9'
do for [l in limits] {
    set title (l + 0 >= 1e9 ? 'admit path (limit never reached)' : 'overload: mostly rejects, L = '.l)
    algos = system("awk '$1 == \"".l."\" {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    plot for [a in algos] data using (strcol(1) eq l && strcol(2) eq a ? $3 : NaN):4 with linespoints lw 2 pt 7 ps 0.7 title a
}
unset multiplot
