# pivot.awk — summarize.awk's rows turned into one line a group, with one
# "median min max" triple a column value, for bars side by side:
#
#   awk -v keys=1 -f plots/pivot.awk     "algo clock median min max" lines
#
# prints "algo m1 lo1 hi1 m2 lo2 hi2 ..." with the columns in first-seen
# order (listed on a leading # line, which gnuplot skips) and NaN for a
# missing cell. keys (default 1) is how many leading fields name the group.
BEGIN { if (!keys) keys = 1 }
{
    k = $1
    for (i = 2; i <= keys; i++) k = k " " $i
    c = $(keys + 1)
    if (!(k in seen_k)) { seen_k[k] = 1; rows[++nr] = k }
    if (!(c in seen_c)) { seen_c[c] = 1; cols[++nc] = c }
    cell[k, c] = $(keys + 2) " " $(keys + 3) " " $(keys + 4)
}
END {
    line = "#"
    for (j = 1; j <= nc; j++) line = line " " cols[j]
    print line
    for (i = 1; i <= nr; i++) {
        line = rows[i]
        for (j = 1; j <= nc; j++) line = line " " ((rows[i], cols[j]) in cell ? cell[rows[i], cols[j]] : "NaN NaN NaN")
        print line
    }
}
