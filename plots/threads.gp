# threads.gp — closed-loop throughput against threads: one column a path
# (the reject path under overload, the admit path with a limit never
# reached; a file with one path draws one column), one row a design
# (families of one design share a row), each algorithm's median with its
# min–max over repetitions, the faa floor (one shared fetch-add) in every
# group, thread counts above the host's CPUs shaded. Points of one thread
# count stand side by side in its group, as bars would. A hollow point's
# min–max overlaps the same algorithm's at the thread count before (within
# noise: the runs show no change).
# Data: `data` rows "limit row family algo threads median min max noise"
# (mops; noise.awk's flag),
# `rej` rows "limit algo threads median min max" (rejects/attempts),
# `paths` (paths.awk: "limit interval_ns path percent label..."); `cpus`.
load 'plots/common.gp'
limits = system("awk '{print $1}' ".paths." | tr '\n' ' '")
np = words(limits)
designs = system("awk '$2 != \"baseline\" {print $2}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
nd = words(designs)
height = 160 + 300 * nd
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1500,height dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1500,height noenhanced font 'DejaVu Sans,12'
}
set output out
label_of(l) = system("awk '$1 == \"".l."\" {$1 = $2 = $3 = $4 = \"\"; sub(/^ +/, \"\"); print}' ".paths)
path_of(l) = system("awk '$1 == \"".l."\" {print $3}' ".paths)
counts = system("awk '{print $5}' ".data." | sort -n | uniq | tr '\n' ' '")
group(t) = sum [i = 1:words(counts)] (word(counts, i) + 0 == t ? i - 1 : 0)
most = word(counts, words(counts)) + 0
edge = (sum [i = 1:words(counts)] (word(counts, i) + 0 <= cpus ? 1 : 0)) - 0.5

# fw_trylock's false rejects: on the admit path every reject is false.
admit_l = ''
do for [l in limits] { if (path_of(l) eq 'admit') { admit_l = l } }
trylock_rej = (admit_l eq '') ? '' : system("awk '$1 == \"".admit_l."\" && $2 == \"fw_trylock\" && $3 > 1 {printf \"%s%.0f%% at %s threads\", (n++ ? \", \" : \"\"), 100 * $4, $3}' ".rej)
has_trylock = system("awk '$4 == \"fw_trylock\" {print 1; exit}' ".data) eq '1'
note = has_trylock ? "fw_trylock rejects when its lock is taken instead of waiting for it: under contention most of its calls return at once, without looking\nat the window — cheap rejects, and false ones whenever the window had room (docs/threads.md: Trylock rejects under contention)" : ''
if (has_trylock && trylock_rej ne '') {
    note = note.".\nOn the admit path, where every reject is false, the median share of its calls rejected was ".trylock_rej."."
}

# One log y scale for every panel, from the data, so that panels compare.
stats data using 7 nooutput
ylo = STATS_min
stats data using 8 nooutput
yhi = STATS_max
set yrange [ylo / 1.4:yhi * 1.4]
set logscale y 10
set format y '%g'
set xrange [-0.5:words(counts) - 0.5]
set xtics () scale 0
do for [i = 1:words(counts)] { set xtics add (word(counts, i) i - 1) }
set grid noxtics ytics mytics
set mytics 10

top_px = 175.0
bottom_px = has_trylock ? 150.0 : 70.0
right = 0.82
set multiplot layout nd, np margins 0.07, right, bottom_px / height, 1 - top_px / height spacing 0.07, 0.055 \
    title "Closed-loop throughput against threads (median of repetitions; whiskers: min–max; grey dashes: faa, one shared fetch-add, its min–max at the right end;\n".\
          "hollow: min–max overlaps the same algorithm's at the thread count before, within noise".\
          (cpus < most ? sprintf(";\nshaded: more threads than the host's %d CPUs, oversubscribed points, not scaling: a thread's time includes time descheduled)", cpus) : ")") font ',14'
load 'plots/oversubscribed.gp'
set bars small
# Column heads: the path each column shows, in paths.awk's words.
c = 0
do for [l in limits] {
    c = c + 1
    x0 = 0.07 + (right - 0.07) * (c - 0.5) / np
    set label 10 + c label_of(l) at screen x0, screen 1 - 117.0 / height center font ',12' front
}
if (note ne '') {
    set label 20 note at screen 0.07, screen 62.0 / height left font ',10' tc rgb '#333333'
}
r = 0
do for [d in designs] {
    r = r + 1
    algos = system("awk '$2 == \"".d."\" && $3 != \"baseline\" {print $4}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    fams = system("awk '$2 == \"".d."\" {print $3}' ".data." | awk '!seen[$0]++' | tr '\n' ' '")
    fams = system("echo '".fams."' | sed 's/ *$//; s/ /, /g'")
    n = words(algos)
    w = 0.7 / n
    x(t, j) = group(t) - 0.35 + (j - 0.5) * w
    c = 0
    do for [l in limits] {
        c = c + 1
        set title fams font ',11' offset 0, -0.4
        set ylabel (c == 1 ? 'million calls a second' : '')
        set xlabel (r == nd ? 'threads' : '')
        if (c == np) {
            set key at screen right + 0.015, graph 1 left top Left reverse noopaque nobox font ',10' samplen 3 spacing 1.1
        } else {
            unset key
        }
        plot for [j = 1:n] data using (strcol(1) eq l && strcol(4) eq word(algos, j) ? x($5, j) : NaN):6:7:8 \
                 with yerrorbars lw 1 lc rgb ls_color[(j - 1) % 8 + 1] ps 0 notitle, \
             for [j = 1:n] data using (strcol(1) eq l && strcol(4) eq word(algos, j) ? x($5, j) : NaN):6 \
                 with linespoints ls ((j - 1) % 8 + 1) lw 1.2 ps 1 title word(algos, j), \
             for [j = 1:n] data using (strcol(1) eq l && strcol(4) eq word(algos, j) && $9 == 1 ? x($5, j) : $0 == 0 ? -1e3 : NaN):6 \
                 with points pt 7 ps 0.45 lc rgb 'white' notitle, \
             data using (strcol(1) eq l && strcol(4) eq 'faa' ? group($5) - 0.45 : NaN):6:(0.9):(0) \
                 with vectors nohead lw 3 dt 2 lc rgb '#888888' title 'faa', \
             data using (strcol(1) eq l && strcol(4) eq 'faa' ? group($5) + 0.45 : NaN):7:(0):($8 - $7) \
                 with vectors nohead lw 1.5 lc rgb '#888888' notitle
        # screen labels: the first panel draws them, the others would again
        do for [h = 1:np] { unset label 10 + h }
        unset label 20
    }
}
unset multiplot
