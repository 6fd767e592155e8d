# keys.gp — the keyed container: memory per key and throughput against the
# number of keys. Data: summarize.awk by=algo,keys value=bytes_per_key →
# `bytes`, and by=algo,keys value=mops → `mops` (both threads=1 rows).
load 'plots/common.gp'
algos = system("awk '{print $1}' ".bytes." | awk '!seen[$0]++' | tr '\n' ' '")
set multiplot layout 1, 2 title "Keyed container (4 shards a CPU, hash table behind a mutex), 1 thread" font ',14'
set logscale x 10
set xlabel 'keys'
set key inside left top noopaque nobox font ',9'
set title 'memory per key (RSS growth ÷ live keys)'
set ylabel 'bytes a key'
set yrange [0:*]
plot for [a in algos] bytes using (strcol(1) eq a ? $2 : NaN):3 with linespoints lw 2 pt 7 title a
set title 'throughput'
set ylabel 'Mops/s'
set logscale y 10
set yrange [*:*]
plot for [a in algos] mops using (strcol(1) eq a ? $2 : NaN):3 with linespoints lw 2 pt 7 title a
unset multiplot
