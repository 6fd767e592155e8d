# rows.awk — chosen columns of the matching rows of a ratelab results CSV, as
# an aligned text table: how a docs page shows a timing run from a committed
# reference CSV instead of pasting one machine's output.
#
#   awk -v cols=algo,threads,ns_per_op,max_sliding/limit \
#       -v where='mode=stress,recorded=yes,algo=fw_cas|fw_mutex' \
#       -v fmt='ns_per_op=%.1f' -f docs/tools/rows.awk results/reference/memory-order.csv
#
# cols: column names (results/README.md); a/b prints that ratio row by row
# (3 decimals unless fmt says). where: conditions, all must hold: name=value
# (alternatives separated by |) or name~regex (no commas). fmt: name=printf
# pairs. Fields may be quoted ("a, b"), as perf.csv's are. Rows print in file order; numeric
# columns align right, others left; a column the CSV lacks is an error (exit 2).
function split_csv(line, f,    n, c, i, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur c; i++ }
            else if (c == "\"") q = 0
            else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}
function cell(i,    v) {
    if (den[i]) v = f[den[i]] == 0 ? "" : f[num[i]] / f[den[i]]
    else v = f[num[i]]
    if (v == "") return "-"
    if (names[i] in form) return sprintf(form[names[i]], v)
    return den[i] ? sprintf("%.3f", v) : v
}
function die(msg) { print "rows.awk: " msg > "/dev/stderr"; bad = 1; exit 2 }
BEGIN {
    nf = split(fmt, pairs, ",")
    for (i = 1; i <= nf; i++) { split(pairs[i], kv, "="); form[kv[1]] = kv[2] }
}
NR == 1 {
    sub(/\r$/, "")
    n = split_csv($0, f)
    for (i = 1; i <= n; i++) col[f[i]] = i
    ncols = split(cols, names, ",")
    if (ncols == 0) die("cols= names no column")
    for (i = 1; i <= ncols; i++) {
        np = split(names[i], parts, "/")
        for (j = 1; j <= np; j++) if (!(parts[j] in col)) die("no column " parts[j])
        num[i] = col[parts[1]]
        den[i] = np == 2 ? col[parts[2]] : 0
        width[i] = length(names[i])
        numeric[i] = 1
    }
    nwhere = split(where, conds, ",")
    for (i = 1; i <= nwhere; i++) {
        if (match(conds[i], /[=~]/) == 0) die("where: name=value or name~regex, not " conds[i])
        name = substr(conds[i], 1, RSTART - 1)
        if (!(name in col)) die("no column " name)
        wcol[i] = col[name]
        wre[i] = substr(conds[i], RSTART, 1) == "~"
        wval[i] = wre[i] ? substr(conds[i], RSTART + 1) : "|" substr(conds[i], RSTART + 1) "|"
    }
    next
}
{
    sub(/\r$/, "")
    split_csv($0, f)
    for (i = 1; i <= nwhere; i++)
        if (wre[i] ? f[wcol[i]] !~ wval[i] : index(wval[i], "|" f[wcol[i]] "|") == 0) next
    nrows++
    for (i = 1; i <= ncols; i++) {
        v = out[nrows, i] = cell(i)
        if (length(v) > width[i]) width[i] = length(v)
        if (v != "-" && v !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) numeric[i] = 0
    }
}
END {
    if (bad) exit 2
    for (r = 0; r <= nrows; r++) {
        line = ""
        for (i = 1; i <= ncols; i++) {
            v = r == 0 ? names[i] : out[r, i]
            cellf = numeric[i] ? "%" width[i] "s" : "%-" width[i] "s"
            line = line (i == 1 ? "" : "  ") sprintf(cellf, v)
        }
        sub(/ +$/, "", line)
        print line
    }
}
