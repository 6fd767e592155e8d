# redis.gp — Redis throughput against client threads, with the redis_noop
# ceiling (an EVALSHA that only returns). Data: summarize.awk
# by=algo,threads value=mops where=mode=stress,recorded=no → `data`.
load 'plots/common.gp'
algos = system("awk '$1 ~ /^redis_/ && $1 != \"redis_noop\" {print $1}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
set title "Redis limiters on a private redis-server (Unix socket): decisions a second against client threads"
set logscale x 10
set autoscale xfix # the thread counts run, not the decade around them
set xtics (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
set offsets graph 0.03, graph 0.03, 0, 0
set xlabel 'client threads'
set ylabel 'thousand decisions a second'
set yrange [0:*]
set key outside right top
plot for [i = 1:words(algos)] data using (strcol(1) eq word(algos, i) ? $2 : NaN):($3 * 1000) \
         with linespoints ls (i - 1) % 8 + 1 title word(algos, i), \
     data using (strcol(1) eq 'redis_noop' ? $2 : NaN):($3 * 1000) with lines dt 2 lw 3 lc rgb '#777777' title 'redis_noop (ceiling)'
