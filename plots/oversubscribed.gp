# oversubscribed.gp — shade the thread counts above the host's CPUs in the
# next panel: `load` it with `cpus` (render.sh, from the data's cpus column),
# `most` (the panel's largest thread count) and `edge` (where on the x axis
# the counts above cpus begin: cpus itself on a threads axis) set.
# Per-thread times there include time spent descheduled, not only the call.
unset object 1; unset arrow 1; unset label 1
if (cpus < most) {
    set object 1 rect from first edge, graph 0 to graph 1, graph 1 behind fc rgb '#ececec' fs solid noborder
    set arrow 1 from first edge, graph 0 to first edge, graph 1 nohead dt 2 lc rgb '#888888'
    set label 1 'oversubscribed →' at first edge, graph 1 offset 0.5, -0.8 left font ',9' tc rgb '#555555' front
}
