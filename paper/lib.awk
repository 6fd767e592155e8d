# lib.awk — what the paper's table scripts share (paper/tables.sh loads it
# before each table's own awk): a CSV reader that honours quotes, LaTeX
# escaping, number formats and the median. POSIX awk (Debian's mawk).

# csv_split(LINE, F): the fields of one CSV line into F[1..n], quotes and
# doubled quotes as RFC 4180 writes them (no newline inside a field);
# returns n.
function csv_split(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
                else q = 0
            } else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}

# header(F, N): remember the column names of a header line: col[name] = i.
function header(f, n,    i) {
    for (i = 1; i <= n; i++) { sub(/\r$/, "", f[i]); col[f[i]] = i }
}

# get(F, NAME): the named field of the current row, "" when the file has
# no such column (older files lack load_1m and runnable).
function get(f, name) { return (name in col) ? f[col[name]] : "" }

# tex(S): S as LaTeX text. The few non-ASCII characters ratelab writes
# become commands; any other non-ASCII byte becomes "?" (pdflatex without
# CJK fonts cannot set it) and is counted in tex_lost.
function tex(s,    out, i, c, n) {
    gsub(/\\/, "\001", s)
    gsub(/[{}$&#%_]/, "\\\\&", s)
    gsub(/\^/, "\\\\^{}", s)
    gsub(/~/, "\\\\textasciitilde{}", s)
    gsub(/\001/, "\\\\textbackslash{}", s)
    gsub(/--/, "-{}-", s)                  # an option, not an en dash
    gsub(/≤/, "$\\\\le$", s); gsub(/≥/, "$\\\\ge$", s)
    gsub(/·/, "$\\\\cdot$", s); gsub(/−/, "$-$", s); gsub(/×/, "$\\\\times$", s)
    gsub(/÷/, "$\\\\div$", s); gsub(/τ/, "$\\\\tau$", s); gsub(/→/, "$\\\\to$", s)
    gsub(/…/, "\\\\ldots{}", s); gsub(/—/, "---", s); gsub(/–/, "--", s)
    gsub(/’/, "'", s); gsub(/“/, "``", s); gsub(/”/, "''", s)
    gsub(/µ/, "\\\\textmu{}", s); gsub(/é/, "\\\\'e", s); gsub(/ı/, "{\\\\i}", s)
    # what is left above ASCII: drop the continuation bytes, mark the rest
    out = ""
    n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c > "~") {
            if (c >= "\200" && c < "\300") continue
            out = out "?"; tex_lost++
        } else out = out c
    }
    return out
}

# tt(S): S in the typewriter font, breakable after underscores.
function tt(s) {
    s = tex(s); gsub(/\\_/, "\\\\_\\\\allowbreak{}", s)
    # straight quotes, as a shell needs them when the text is copied
    gsub(/'/, "\\textquotesingle{}", s); gsub(/`/, "\\textasciigrave{}", s)
    return "\\texttt{" s "}"
}

# num(X, D): X with D decimals; "--" when X is empty.
function num(x, d) { return x == "" ? "--" : sprintf("%." d "f", x) }

# ns(X): a duration in ns with its unit, three significant figures.
function ns(x) {
    if (x == "") return "--"
    x += 0
    if (x < 1000) return sprintf("%.0f\\,ns", x)
    if (x < 1e6) return sig(x / 1e3) "\\,\\textmu{}s"
    if (x < 1e9) return sig(x / 1e6) "\\,ms"
    return sig(x / 1e9) "\\,s"
}
function sig(v) { return v < 10 ? sprintf("%.2f", v) : v < 100 ? sprintf("%.1f", v) : sprintf("%.0f", v) }

# count(X): an integer with thin spaces between thousands.
function count(x,    s, out) {
    s = sprintf("%d", x); out = ""
    while (length(s) > 3) { out = "\\," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
    return s out
}

# sci(X): a count for math mode: 1\,000 below a million, 4\times10^{9}
# (or 10^{6}) above.
function sci(x,    e, m) {
    x += 0
    if (x < 1e6) return count(x)
    e = 0; m = x
    while (m >= 10) { m /= 10; e++ }
    return (m == 1 ? "" : sprintf("%g", m) "\\times") "10^{" e "}"
}

# pow10(X): 10^{e} when X is a power of ten, else count(X); for math mode.
function pow10(x,    e, m) {
    x += 0; e = 0; m = x
    while (m >= 10 && m % 10 == 0) { m /= 10; e++ }
    return (m == 1 && e > 0) ? "10^{" e "}" : count(x)
}

# human_ns(X): an interval as the tables name it: 100 ms, 1 s.
function human_ns(x) {
    if (x >= 1e9 && x % 1e9 == 0) return (x / 1e9) "\\,s"
    if (x >= 1e6 && x % 1e6 == 0) return (x / 1e6) "\\,ms"
    if (x >= 1e3 && x % 1e3 == 0) return (x / 1e3) "\\,\\textmu{}s"
    return x "\\,ns"
}

# median(LIST): the median of the numbers in a space-separated list; sets
# med_lo and med_hi to its extremes.
function median(list,    a, n, i, j, t) {
    n = split(list, a, " ")
    if (n == 0) { med_lo = med_hi = ""; return "" }
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    med_lo = a[1]; med_hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# held(V): a verdict as a table cell.
function held(v) { return v == "yes" ? "\\vy" : v == "no" ? "\\vn" : "\\vna" }

# def(KEY, VALUE): one number or phrase for the prose, \rl{KEY} in the
# paper (printed to the macros file the caller names in `macros`).
function def(key, value) { printf "\\rldef{%s}{%s}\n", key, value >> macros }
