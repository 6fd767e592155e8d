# redis.gp — Redis throughput at each number of client threads, as bars
# side by side (one group a thread count: three counts are three
# measurements, nothing between them), whiskers min–max over repetitions,
# the redis_noop ceiling (an EVALSHA that only returns) marked in each group,
# and the counts with more client threads than the host's CPUs shaded.
# The ceiling is drawn with its own spread, a grey band from redis_noop's
# min to its max, so a bar above the dashes is seen to stand inside the
# empty script's noise; a hollow bar's min–max overlaps redis_noop's.
# Data: summarize.awk by=algo,threads value=mops where=mode=stress,recorded=no
# → `data` ("algo threads median min max noise", noise.awk's flag against
# redis_noop); `cpus`.
load 'plots/common.gp'
algos = system("awk '$1 ~ /^redis_/ && $1 != \"redis_noop\" {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
counts = system("awk '$1 ~ /^redis_/ {print $2}' ".data." | sort -n | uniq | tr '\n' ' '")
reps = system("awk '$1 ~ /^redis_/ && $4 != $5 {n++} END {print n + 0}' ".data) + 0
n = words(algos)
group(t) = sum [i = 1:words(counts)] (word(counts, i) + 0 == t ? i - 1 : 0)
w = 0.8 / n
x(t, j) = group(t) - 0.4 + (j - 0.5) * w
most = word(counts, words(counts)) + 0
edge = (sum [i = 1:words(counts)] (word(counts, i) + 0 <= cpus ? 1 : 0)) - 0.5
set title "Redis limiters on a private redis-server (Unix socket): decisions a second at each number of client threads\n(".\
    (reps ? "median of repetitions, whiskers min–max" : "one run each").\
    "; dashes: redis_noop, an EVALSHA that only returns, grey band its min–max;\nhollow: the script's min–max overlaps redis_noop's, within noise".\
    (cpus < most ? sprintf(";\nshaded: more client threads than the host's %d CPUs, which the server shares: oversubscribed, not scaling)", cpus) : ")") font ',12'
set xrange [-0.5:words(counts) - 0.5]
set xtics () scale 0
do for [i = 1:words(counts)] { set xtics add (word(counts, i) i - 1) }
set xlabel 'client threads'
set ylabel 'thousand decisions a second'
set yrange [0:*]
set grid noxtics ytics
set style fill solid 0.9 border -1
set rmargin at screen 0.75
set lmargin at screen 0.07
set key at screen 0.765, graph 1 left top Left reverse noopaque nobox font ',11' samplen 1.5 spacing 1.2
load 'plots/oversubscribed.gp'
plot for [j = 1:n] data using (strcol(1) eq word(algos, j) ? x($2, j) : NaN):($3 * 1000):(w) \
         with boxes lc rgb ls_color[(j - 1) % 8 + 1] title word(algos, j), \
     for [j = 1:n] data using (strcol(1) eq word(algos, j) && $6 == 1 ? x($2, j) : $0 == 0 ? -1e3 : NaN):($3 * 1000):(w * 0.6) \
         with boxes fs solid 1.0 noborder lc rgb 'white' notitle, \
     data using (strcol(1) eq 'redis_noop' ? group($2) : NaN):($3 * 1000):(group($2) - 0.45):(group($2) + 0.45):($4 * 1000):($5 * 1000) \
         with boxxyerror fs transparent solid 0.3 noborder lc rgb '#555555' title 'redis_noop min–max', \
     for [j = 1:n] data using (strcol(1) eq word(algos, j) ? x($2, j) : NaN):($4 * 1000):(0):(($5 - $4) * 1000) \
         with vectors nohead lw 1.5 lc rgb 'black' notitle, \
     data using (strcol(1) eq 'redis_noop' ? group($2) - 0.45 : NaN):($3 * 1000):(0.9):(0) \
         with vectors nohead lw 3 dt 2 lc rgb '#444444' title 'redis_noop (ceiling)'
