# boundary.awk — a decision log (t_ns,key,n,admitted,thread) as "t_seconds
# admitted_in_trailing_window" for each admit: how many admits the window
# (t − I, t] holds, I given as -v interval_ns=.
NR == 1 { next }
$4 == 1 {
    t[++n] = $1
    while (t[first + 1] <= $1 - interval_ns) first++
    printf "%.6f %d\n", $1 / 1e9, n - first
}
