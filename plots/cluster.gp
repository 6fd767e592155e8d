# cluster.gp — the Redis limiters on private clusters of 1, 3 and 6
# primaries (one group a cluster shape), bars side by side per limiter,
# whiskers min–max over repetitions, redis_noop (the same empty script
# through ratelab's client) dashed and redis-benchmark --cluster's EVALSHA
# floor dotted in each group. One figure per key pattern (`keys`: 1000 keys,
# or one hot key).
# Data: summarize.awk by=cluster,algo value=mops where=mode=stress,recorded=no,keys=K
# → `data` ("cluster algo median min max"); `floor` ("primaries rps", or '');
# `cpus`, `keys`.
load 'plots/common.gp'
algos = system("awk '$2 ~ /^redis_/ && $2 != \"redis_noop\" {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
shapes = system("awk '$2 ~ /^redis_/ {print $1}' ".data." | sort -n | uniq | tr '\n' ' '")
reps = system("awk '$2 ~ /^redis_/ && $4 != $5 {n++} END {print n + 0}' ".data) + 0
n = words(algos)
group(s) = sum [i = 1:words(shapes)] (word(shapes, i) eq s ? i - 1 : 0)
primaries(s) = int(s)
w = 0.8 / n
x(s, j) = group(s) - 0.4 + (j - 0.5) * w
set title sprintf("Redis limiters on private Redis Clusters (loopback TCP), 10 client threads, %s: decisions a second\n(", keys == 1 ? "one hot key" : sprintf("%d keys", keys)).\
    (reps ? "median of repetitions, whiskers min–max" : "one run each").\
    "; dashes: redis_noop; dots: redis-benchmark's EVALSHA floor".\
    sprintf(";\n%d CPUs shared by every node and the clients: more primaries cannot add throughput here)", cpus) font ',12'
set xrange [-0.5:words(shapes) - 0.5]
set xtics () scale 0
do for [i = 1:words(shapes)] { set xtics add (word(shapes, i) i - 1) }
set xlabel 'cluster: primaries x replicas each'
set ylabel 'thousand decisions a second'
set yrange [0:*]
set grid noxtics ytics
set style fill solid 0.9 border -1
set rmargin at screen 0.75
set lmargin at screen 0.07
set key at screen 0.765, graph 1 left top Left reverse noopaque nobox font ',11' samplen 1.5 spacing 1.2
bars = 'for [j = 1:n] data using (strcol(2) eq word(algos, j) ? x(strcol(1), j) : NaN):($3 * 1000):(w) with boxes lc rgb ls_color[(j - 1) % 8 + 1] title word(algos, j), '.\
    'for [j = 1:n] data using (strcol(2) eq word(algos, j) ? x(strcol(1), j) : NaN):($4 * 1000):(0):(($5 - $4) * 1000) with vectors nohead lw 1.5 lc rgb "black" notitle, '.\
    'data using (strcol(2) eq "redis_noop" ? group(strcol(1)) - 0.45 : NaN):($3 * 1000):(0.9):(0) with vectors nohead lw 3 dt 2 lc rgb "#444444" title "redis_noop"'
# the floor file: "primaries rps", one line a shape (replicas 1)
floors = ', floor using (group(sprintf("%dx1", int($1))) - 0.45):($2 / 1000):(0.9):(0) with vectors nohead lw 3 dt 3 lc rgb "#882255" title "redis-benchmark floor"'
if (floor ne '') { eval('plot '.bars.floors) } else { eval('plot '.bars) }
