# keys.gp — the keyed container: memory per key and throughput at each
# number of keys, one group a key count with the algorithms side by side in
# it (the tick names the group, not a position on a scale), each point the
# median of repetitions with its min–max. Memory on a log axis: at few keys
# the sliding log's per-key log takes tens of times the others' state.
# A hollow throughput point's min–max overlaps the same algorithm's at the
# key count before: within noise.
# Data: summarize.awk by=algo,keys value=bytes_per_key → `bytes`, and
# by=algo,keys value=mops → `mops` ("algo keys median min max", threads=1;
# mops adds noise.awk's flag).
load 'plots/common.gp'
algos = system("awk '{print $1}' ".bytes." | awk '!seen[$0]++' | tr '\n' ' '")
counts = system("awk '{print $2}' ".bytes." | sort -n | uniq | tr '\n' ' '")
n = words(algos)
group(k) = sum [i = 1:words(counts)] (word(counts, i) + 0 == k ? i - 1 : 0)
w = 0.8 / n
x(k, j) = group(k) - 0.4 + (j - 0.5) * w
# 1000 → 1k, 1000000 → 1M, from the counts themselves
name(k) = k >= 1e6 ? sprintf('%gM keys', k / 1e6) : k >= 1e3 ? sprintf('%gk keys', k / 1e3) : sprintf('%g keys', k)

set multiplot title "Keyed container (4 shards a CPU, open addressing, no lock on a key's call), 1 thread: median of repetitions, whiskers min–max" font ',14'
set xrange [-0.5:words(counts) - 0.5]
set xtics () scale 0
do for [i = 1:words(counts)] { set xtics add (name(word(counts, i) + 0) i - 1) }
do for [i = 1:words(counts) - 1] {
    set arrow i from first i - 0.5, graph 0 to first i - 0.5, graph 1 nohead lc rgb '#dddddd' back
}
set grid noxtics ytics
set bars small
set tmargin at screen 0.84
set bmargin at screen 0.1
set key at screen 0.5, screen 0.915 center center horizontal maxrows 1 reverse Left noopaque nobox font ',11' samplen 1 width 2

set lmargin at screen 0.08
set rmargin at screen 0.47
set title 'memory per key (RSS growth ÷ live keys)'
set ylabel 'bytes a key (log scale)'
set logscale y 10
set format y '%g'
stats bytes using 4 nooutput
ylo = STATS_min
stats bytes using 5 nooutput
set yrange [ylo / 1.5:STATS_max * 1.5]
plot for [j = 1:n] bytes using (strcol(1) eq word(algos, j) ? x($2, j) : NaN):3:4:5 \
         with yerrorbars lw 1 lc rgb ls_color[(j - 1) % 8 + 1] ps 0 notitle, \
     for [j = 1:n] bytes using (strcol(1) eq word(algos, j) ? x($2, j) : NaN):3 \
         with points ls ((j - 1) % 8 + 1) ps 1.2 title word(algos, j)

unset key
set lmargin at screen 0.57
set rmargin at screen 0.97
set title 'throughput (hollow: within noise of the key count before)'
set ylabel 'million calls a second'
unset logscale y
set yrange [0:*]
plot for [j = 1:n] mops using (strcol(1) eq word(algos, j) ? x($2, j) : NaN):3:4:5 \
         with yerrorbars lw 1 lc rgb ls_color[(j - 1) % 8 + 1] ps 0 notitle, \
     for [j = 1:n] mops using (strcol(1) eq word(algos, j) ? x($2, j) : NaN):3 \
         with points ls ((j - 1) % 8 + 1) ps 1.2 notitle, \
     for [j = 1:n] mops using (strcol(1) eq word(algos, j) && $6 == 1 ? x($2, j) : $0 == 0 ? -1e3 : NaN):3 \
         with points pt 7 ps 0.55 lc rgb 'white' notitle
unset multiplot
