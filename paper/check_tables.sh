#!/bin/sh
# check_tables.sh — the generated tables parse, without LaTeX:
#
#   sh paper/check_tables.sh [OUTDIR [PAPER.tex]]   (default paper/out, paper/ratelab.tex)
#
# For every OUTDIR/tab-*.tex that paper/tables.sh wrote:
#   - it declares "% columns: N" (0: not a table, e.g. "not generated");
#   - \begin and \end balance, and braces balance on every line;
#   - every row (a line ending in \\) has N cells: unescaped & plus one,
#     a \multicolumn{k} counting k;
#   - in the body (after \midrule), the columns "% numeric: A-B" names hold
#     numbers: digits with \, thousands, a decimal point, $-$, a unit
#     (ns, \textmu{}s, ms, s), a verdict mark (\vy \vn \vna), $10^{k}$,
#     "--" for not measured, or a median with its spread, \rg{M}{MIN}{MAX}
#     (each a number), with a within-noise mark \nz after it.
# And OUTDIR/macros.tex defines each key once, and defines every \rl{KEY}
# PAPER.tex uses (except those it guards: claims/*, when the registry is
# missing). Prints each problem; exit 1 if there is one.
set -eu
out=${1:-paper/out}
paper=${2:-$(dirname "$0")/ratelab.tex}
export LC_ALL=C
[ -d "$out" ] || { echo "check_tables: $out: no such folder (sh paper/tables.sh build/ratelab $out first)"; exit 1; }
set -- "$out"/tab-*.tex
[ -f "$1" ] || { echo "check_tables: no tab-*.tex in $out"; exit 1; }

awk '
function problem(msg) { printf "check_tables: %s:%d: %s\n", FILENAME, FNR, msg; bad = 1 }
# cells(LINE): cells of a row, \multicolumn{k} counted as k
function cells(line,    s, n, k, m) {
    s = line
    gsub(/\\\\/, "", s)            # the row end and any escaped backslash pair
    gsub(/\\&/, "", s)             # escaped ampersands are text
    n = gsub(/&/, "&", s) + 1
    while (match(s, /\\multicolumn\{[0-9]+\}/)) {
        m = substr(s, RSTART, RLENGTH); gsub(/[^0-9]/, "", m)
        n += m - 1
        s = substr(s, RSTART + RLENGTH)
    }
    return n
}
function isnum(c,    t, part) {
    t = c
    gsub(/^[ \t]+|[ \t]+$/, "", t)
    if (t == "--" || t == "\\multicolumn") return 1
    sub(/\\nz$/, "", t)
    if (match(t, /^\\rg\{[^{}]*\}\{[^{}]*\}\{[^{}]*\}$/)) {
        split(substr(t, 5, length(t) - 5), part, /\}\{/)
        return isnum(part[1]) && isnum(part[2]) && isnum(part[3])
    }
    sub(/\\v(y|n|na)$/, "", t)
    sub(/\\,(ns|\\textmu\{\}s|ms|s)$/, "", t)
    sub(/^\$-\$/, "", t)
    gsub(/\\,/, "", t)
    if (t ~ /^\$(10\^\{[0-9]+\}|[0-9.]+\\times10\^\{[0-9]+\})\$$/) return 1
    return t ~ /^-?[0-9]+(\.[0-9]+)?$/
}
FNR == 1 {
    if (NR > 1) finish()
    prev = FILENAME
    cols = -1; lo = 0; hi = 0; body = 0; begins = 0; ends = 0; rows = 0
}
/^% columns: [0-9]+$/ { cols = $3 + 0; next }
/^% numeric: [0-9]+(-[0-9]+)?$/ { split($3, r, "-"); lo = r[1] + 0; hi = (2 in r) ? r[2] + 0 : lo; next }
/^%/ { next }
{
    line = $0
    o = gsub(/\{/, "{", line); c = gsub(/\}/, "}", line)
    e = gsub(/\\[{}]/, "", line)
    if (o != c) problem("unbalanced braces")
    begins += gsub(/\\begin\{/, "&", line); ends += gsub(/\\end\{/, "&", line)
}
/\\midrule/ { body = 1 }
/\\endhead|\\endfirsthead/ { body = 0 }
/\\endfoot/ { body = 1 }
/\\\\[ \t]*$/ && cols > 0 && $0 !~ /\\caption/ {
    rows++
    n = cells($0)
    if (n != cols) problem("row has " n " cells, the table " cols)
    else if (body && lo > 0 && $0 !~ /\\multicolumn/) {
        row = $0; sub(/\\\\[ \t]*$/, "", row)
        gsub(/\\&/, "\001", row)
        split(row, cell, "&")
        for (i = lo; i <= hi; i++) {
            v = cell[i]; gsub(/\001/, "\\\\\\&", v)
            if (!isnum(v)) problem("column " i " is not a number: \"" v "\"")
        }
    }
}
function finish() {
    if (cols < 0) { printf "check_tables: %s: no \"%% columns: N\" line\n", prev; bad = 1 }
    if (begins != ends) { printf "check_tables: %s: %d \\begin, %d \\end\n", prev, begins, ends; bad = 1 }
    if (cols > 0 && rows == 0) { printf "check_tables: %s: a table without rows\n", prev; bad = 1 }
    checked++
}
END {
    finish()
    if (!bad) printf "check_tables: %d tables in %s parse\n", checked, dir
    exit bad
}' dir="$out" "$@" || bad=1

# Every key defined once; every key the paper uses defined.
macros=$out/macros.tex
[ -f "$macros" ] || { echo "check_tables: $macros: missing"; exit 1; }
dups=$(sed -n 's/^\\rldef{\([^}]*\)}.*/\1/p' "$macros" | sort | uniq -d)
[ -z "$dups" ] || { echo "check_tables: defined twice in $macros: $(echo "$dups" | tr '\n' ' ')"; bad=1; }
bad_values=$(awk '/^\\rldef\{/ { v = $0; sub(/^\\rldef\{[^}]*\}\{/, "", v); sub(/\}$/, "", v); if (v == "" || v ~ /nan|inf/) print $0 }' "$macros")
[ -z "$bad_values" ] || { echo "check_tables: empty or non-finite values:"; echo "$bad_values"; bad=1; }
if [ -f "$paper" ]; then
    claims=$(sed -n 's/^\\rldef{claims\/exists}{\(.*\)}$/\1/p' "$macros")
    # the Redis Cluster, many-nodes and shaping sections' numbers exist only with
    # their reference files
    cl=$(sed -n 's/^\\rldef{cl\/exists}{\(.*\)}$/\1/p' "$macros")
    cf=$(sed -n 's/^\\rldef{cf\/exists}{\(.*\)}$/\1/p' "$macros")
    nodes=$(sed -n 's/^\\rldef{nodes\/exists}{\(.*\)}$/\1/p' "$macros")
    shaping=$(sed -n 's/^\\rldef{shaping\/exists}{\(.*\)}$/\1/p' "$macros")
    lin=$(sed -n 's/^\\rldef{lin\/exists}{\(.*\)}$/\1/p' "$macros")
    linperf=$(sed -n 's/^\\rldef{linperf\/exists}{\(.*\)}$/\1/p' "$macros")
    used=$(sed 's/^%.*//; s/\([^\\]\)%.*/\1/' "$paper" | grep -o '\\rl{[^}]*}' | sed 's/^\\rl{//; s/}$//' | sort -u)
    undefined=""
    for k in $used; do
        case $k in
        claims/*) [ "$claims" = 1 ] || continue ;;
        cl/* | src/cluster) [ "$cl" = 1 ] || continue ;;
        cf/* | src/cluster-faults) [ "$cf" = 1 ] || continue ;;
        nodes/exists) ;;
        nodes/* | src/nodes) [ "$nodes" = 1 ] || continue ;;
        shaping/exists) ;;
        shaping/* | src/shaping) [ "$shaping" = 1 ] || continue ;;
        lin/exists | linperf/exists) ;;
        lin/* | src/linearizable) [ "$lin" = 1 ] || continue ;;
        linperf/*) [ "$linperf" = 1 ] || continue ;;
        esac
        grep -qF "\\rldef{$k}{" "$macros" || undefined="$undefined $k"
    done
    [ -z "$undefined" ] || { echo "check_tables: $paper uses keys $macros does not define:$undefined"; bad=1; }
fi
exit "${bad:-0}"
