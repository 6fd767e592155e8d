# summarize.awk — the median (with min and max) of one column of a ratelab
# results CSV, grouped by other columns, as whitespace-separated rows for
# gnuplot. Columns are named, as in results/README.md:
#
#   awk -F, -v by=family,algo,threads -v value=mops \
#       -v where=mode=stress,recorded=no -f plots/summarize.awk results/threads-vm.csv
#
# prints "family algo threads median min max" per group, in first-seen order.
# value may be a ratio of two columns, value=max_sliding/limit, taken row by
# row. Rows with an empty value are skipped. Fields hold no commas (ratelab
# writes none into the columns used here).
function median_of(list, n,    i, j, t, a) {
    split(list, a, " ")
    for (i = 2; i <= n; i++)            # insertion sort: groups are small
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    nby = split(by, bycols, ",")
    for (i = 1; i <= nby; i++) if (!(bycols[i] in col)) { print "no column " bycols[i] > "/dev/stderr"; exit 2 }
    if ((nvalue = split(value, vcols, "/")) > 2) { print "value: one / at most" > "/dev/stderr"; exit 2 }
    for (i = 1; i <= nvalue; i++) if (!(vcols[i] in col)) { print "no column " vcols[i] > "/dev/stderr"; exit 2 }
    nwhere = split(where, conds, ",")
    for (i = 1; i <= nwhere; i++) { split(conds[i], kv, "="); wcol[i] = kv[1]; wval[i] = kv[2] }
    next
}
{
    for (i = 1; i <= nwhere; i++) if ($(col[wcol[i]]) != wval[i]) next
    v = $(col[vcols[1]])
    if (v == "") next
    if (nvalue == 2) { if ($(col[vcols[2]]) == "" || $(col[vcols[2]]) == 0) next; v /= $(col[vcols[2]]) }
    key = $(col[bycols[1]])
    for (i = 2; i <= nby; i++) key = key " " $(col[bycols[i]])
    if (!(key in count)) order[++groups] = key
    values[key] = values[key] " " v
    count[key]++
}
END {
    for (g = 1; g <= groups; g++) {
        k = order[g]
        m = median_of(values[k], count[k])
        print k, m, lo, hi
    }
}
