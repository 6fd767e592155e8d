# keys.gp — the keyed container: memory per key and throughput against the
# number of keys. Data: summarize.awk by=algo,keys value=bytes_per_key →
# `bytes`, and by=algo,keys value=mops → `mops` (both threads=1 rows).
load 'plots/common.gp'
algos = system("awk '{print $1}' ".bytes." | awk '!seen[$0]++' | tr '\n' ' '")
set multiplot layout 1, 2 title "Keyed container (4 shards a CPU, hash table behind a mutex), 1 thread (median of repetitions)" font ',14'
# Both axes logarithmic: at few keys the sliding log's per-key log takes
# tens of times the others' state, which a linear axis would flatten to the
# floor. The x axis
# spans the key counts measured, with room for the markers, which stand a
# little aside each (a few % of a decade) so that equal values stay visible.
set logscale xy 10
stats bytes using 2 nooutput
set xrange [STATS_min / 10 ** 0.08:STATS_max * 10 ** 0.08]
aside(k, i) = k * 10 ** (0.025 * (i - (words(algos) + 1) / 2.0))
set format x '%.0s%c'
set xlabel 'keys'
set key inside right top noopaque nobox font ',9' samplen 3
set title 'memory per key (RSS growth ÷ live keys)'
set ylabel 'bytes a key'
plot for [i = 1:words(algos)] bytes using (strcol(1) eq word(algos, i) ? aside($2, i) : NaN):3 \
         with linespoints ls ((i - 1) % 8 + 1) title word(algos, i)
set title 'throughput'
set ylabel 'Mops/s'
plot for [i = 1:words(algos)] mops using (strcol(1) eq word(algos, i) ? aside($2, i) : NaN):3 \
         with linespoints ls ((i - 1) % 8 + 1) title word(algos, i)
unset multiplot
