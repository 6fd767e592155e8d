# cluster_faults.gp — each fault on a private 3x1 cluster, per limiter: the
# outage (fault to every slot served again) and the admits a fault gave
# away beyond the promise (lost_admits), as the median with whiskers
# min–max over the runs, in two panels side by side.
# Data: `outage` and `lost` ("fault algo median min max", summarize.awk
# by=fault,algo value=outage_ms / lost_admits where=mode=stress).
load 'plots/common.gp'
faults = system("awk '$2 ~ /^redis_/ && $2 != \"redis_noop\" {print $1}' ".outage." | awk '!seen[$0]++' | tr '\n' ' '")
algos = system("awk '$2 ~ /^redis_/ && $2 != \"redis_noop\" {print $2}' ".outage." | awk '!seen[$0]++' | tr '\n' ' '")
n = words(algos)
group(f) = sum [i = 1:words(faults)] (word(faults, i) eq f ? i - 1 : 0)
w = 0.8 / n
x(f, j) = group(f) - 0.4 + (j - 0.5) * w
set bmargin 6
set multiplot layout 1, 2 title "Faults on a private 3x1 Redis Cluster (2 client threads, one key, L = 2000 per 20 s; median, whiskers min–max over the runs)" font ',12'
set xrange [-0.5:words(faults) - 0.5]
set xtics () scale 0 rotate by -20 font ',9'
do for [i = 1:words(faults)] { set xtics add (word(faults, i) i - 1) }
set grid noxtics ytics
set style fill solid 0.9 border -1
set yrange [0:*]
set key inside top left opaque box font ',10'
set title 'outage: ms from the fault until every slot is served (wait_ok)'
set ylabel 'ms'
plot for [j = 1:n] outage using (strcol(2) eq word(algos, j) ? x(strcol(1), j) : NaN):3:(w) \
         with boxes lc rgb ls_color[(j - 1) % 8 + 1] title word(algos, j), \
     for [j = 1:n] outage using (strcol(2) eq word(algos, j) ? x(strcol(1), j) : NaN):4:(0):($5 - $4) \
         with vectors nohead lw 1.5 lc rgb 'black' notitle
set title 'lost_admits: admitted beyond the promise (the checker)'
set ylabel 'admits'
plot for [j = 1:n] lost using (strcol(2) eq word(algos, j) ? x(strcol(1), j) : NaN):3:(w) \
         with boxes lc rgb ls_color[(j - 1) % 8 + 1] title word(algos, j), \
     for [j = 1:n] lost using (strcol(2) eq word(algos, j) ? x(strcol(1), j) : NaN):4:(0):($5 - $4) \
         with vectors nohead lw 1.5 lc rgb 'black' notitle
unset multiplot
