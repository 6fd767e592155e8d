# boundary.gp — the .NET article's picture from real decisions: on the
# boundary workload (L = 10 per second), each admit of a fixed window, the
# sliding log and a token bucket, with the admits in the trailing second.
# Data: boundary.awk of `sim --decisions` logs → fixed, log, bucket.
load 'plots/common.gp'
set multiplot layout 3, 1 title "Boundary workload, L = 10 per second: admits in the second up to each admit (line: L)" font ',14'
set xlabel 'time (s)'
set ylabel 'admits in (t − 1 s, t]'
set yrange [0:21]
set xrange [0:6]
set key inside left top noopaque nobox
set title 'fw_expiry (fixed window: the .NET article'."'".'s cache counter)'
plot fixed using 1:2 with impulses lw 2 lc rgb '#cc3311' title 'admits', 10 with lines dt 2 lc rgb 'black' title 'L'
set title 'sliding_log (exact, strong)'
plot log using 1:2 with impulses lw 2 lc rgb '#009988' title 'admits', 10 with lines dt 2 lc rgb 'black' title 'L'
set title 'tb_mutex (token bucket, B = L: bound B + L)'
plot bucket using 1:2 with impulses lw 2 lc rgb '#0077bb' title 'admits', 10 with lines dt 2 lc rgb 'black' title 'L', 20 with lines dt 3 lc rgb 'black' title 'B + L'
unset multiplot
