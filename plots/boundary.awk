# boundary.awk — a decision log (t_ns,key,n,admitted,thread) of the
# boundary workload, seen from the window edges: for every attempt near an
# edge (an odd multiple of I, where the workload puts its bursts),
#
#   ms_from_edge cost_in_window admitted edge_seconds
#
# cost_in_window is the cost admitted in (t − I, t], this attempt's
# included when it was admitted. The openers at even multiples of I are
# counted in the windows but not printed. I comes as -v interval_ns=.
NR == 1 { next }
{
    t = $1 + 0
    while (first < n && t_adm[first + 1] <= t - interval_ns) { held -= c_adm[first + 1]; first++ }
    if ($4 == 1) { t_adm[++n] = t; c_adm[n] = $3; held += $3 }
    k = int(t / interval_ns + 0.5)
    if (k % 2 == 1)
        printf "%.6f %d %d %g\n", (t - k * interval_ns) / 1e6, held, $4, k * interval_ns / 1e9
}
