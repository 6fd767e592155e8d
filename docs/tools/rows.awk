# rows.awk — chosen columns of the matching rows of a ratelab results CSV, as
# an aligned text table: how a docs page shows a timing run from a committed
# reference CSV instead of pasting one machine's output.
#
#   awk -F, -v cols=algo,threads,ns_per_op,max_sliding/limit \
#       -v where='mode=stress,recorded=yes,algo=fw_cas|fw_mutex' \
#       -f docs/tools/rows.awk results/reference/memory-order.csv
#
# cols: column names (results/README.md); a/b prints that ratio row by row
# with 3 decimals. where: name=value conditions, all must hold; a value may
# list alternatives with |. Rows print in file order; a column name that the
# CSV lacks is an error (exit 2).
function cell(i,    v) {
    if (den[i]) return $den[i] == 0 ? "-" : sprintf("%.3f", $num[i] / $den[i])
    v = $num[i]
    return v == "" ? "-" : v
}
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    ncols = split(cols, names, ",")
    for (i = 1; i <= ncols; i++) {
        n = split(names[i], parts, "/")
        for (j = 1; j <= n; j++)
            if (!(parts[j] in col)) { print "rows.awk: no column " parts[j] > "/dev/stderr"; bad = 1; exit 2 }
        num[i] = col[parts[1]]
        den[i] = n == 2 ? col[parts[2]] : 0
        width[i] = length(names[i])
    }
    nwhere = split(where, conds, ",")
    for (i = 1; i <= nwhere; i++) {
        split(conds[i], kv, "=")
        if (!(kv[1] in col)) { print "rows.awk: no column " kv[1] > "/dev/stderr"; bad = 1; exit 2 }
        wcol[i] = col[kv[1]]
        wval[i] = "|" kv[2] "|"
    }
    next
}
{
    for (i = 1; i <= nwhere; i++) if (index(wval[i], "|" $wcol[i] "|") == 0) next
    nrows++
    for (i = 1; i <= ncols; i++) {
        out[nrows, i] = cell(i)
        if (length(out[nrows, i]) > width[i]) width[i] = length(out[nrows, i])
    }
}
END {
    if (bad) exit 2
    for (r = 0; r <= nrows; r++) {
        line = ""
        for (i = 1; i <= ncols; i++) {
            v = r == 0 ? names[i] : out[r, i]
            line = line (i == 1 ? sprintf("%-" width[i] "s", v) : sprintf("  %" width[i] "s", v))
        }
        print line
    }
}
