#!/bin/sh
# tables.sh — every table of the paper and every number its prose uses,
# from the results CSVs, as LaTeX in OUTDIR:
#
#   sh paper/tables.sh RATELAB OUTDIR [RESULTS]
#
# RESULTS (default results/) holds reference/*.csv, conformance.csv,
# conformance-speed.csv and, once the registry exists,
# reference/claims.csv. RATELAB gives the algorithm table (`list --format
# csv`). Writes OUTDIR/tab-*.tex, each a whole tabular (or xltabular, which
# may break across pages; paper/ratelab.tex captions it), and OUTDIR/macros.tex:
# \rldef{KEY}{VALUE}, which the prose uses as \rl{KEY}. Each table file
# starts with "% columns: N" (and "% numeric: A-B", the columns that hold
# numbers) for paper/check_tables.sh. A missing input file gives a table
# that says so, not a failure: the paper builds, and says what it lacks.
# Nothing here types a number: each comes from a CSV.
set -eu
ratelab=$1 out=$2 res=${3:-results}
ref=$res/reference
here=$(dirname "$0")
lib=$here/lib.awk
macros=$out/macros.tex
mkdir -p "$out/awk"
: > "$macros"
export LC_ALL=C

# run_awk PROGRAM-FILE ARGS...: lib.awk, then the program(s), macros set.
run_awk() {
    prog=$1
    shift
    awk -v macros="$macros" -f "$lib" -f "$prog" "$@"
}
# prog NAME: the awk program on standard input, saved for run_awk.
prog() { cat > "$out/awk/$1.awk"; }

# missing FILE TABLE: a table body that says the file is not there.
missing() {
    echo "tables: $1 not found: $(basename "$2") says so" >&2
    printf '%% columns: 0\n\\emph{Not generated: \\texttt{%s} does not exist.}\n' "$1" > "$2"
}

# ---- provenance: host, revision and date of every file ------------------
prog provenance <<'EOF'
# one row a file: rows, hosts, revisions, dates, CPUs, model and compiler
# (the distinct values, joined), and \rl{src/NAME} for the captions
FNR == 1 {
    if (file != "") emit()
    file = FILENAME; rows = 0
    split("", seen); split("", vals); split("", col)
    n = csv_split($0, f); header(f, n); next
}
{
    n = csv_split($0, f); rows++
    for (k = 1; k <= nk; k++) {
        v = get(f, keys[k])
        if (keys[k] == "date") v = substr(v, 1, 10)
        if (v != "" && !((keys[k], v) in seen)) {
            seen[keys[k], v] = 1
            vals[keys[k]] = vals[keys[k]] (vals[keys[k]] == "" ? "" : "; ") v
        }
    }
}
function cell(k) { return vals[k] == "" ? "--" : tex(vals[k]) }
function emit(   name, short, rv, hv, dv, r, h, d) {
    name = file; sub(/.*\//, "", name); sub(/\.csv$/, "", name)
    short = file; sub(/^.*results\//, "results/", short)
    printf "%s & %d & %s & %s & %s & %s & %s \\\\\n", tt(short), rows, cell("host"), cell("git_rev"), cell("date"),
        cell("cpus"), cell("cpu_model") (vals["compiler"] == "" ? "" : ", " tex(vals["compiler"])) >> table
    def("src/" name, "\\texttt{" tex(short) "}: host " (vals["host"] == "" ? "not recorded" : tex(vals["host"])) \
        ", revision " cell("git_rev") ", " (vals["date"] == "" ? "date not recorded" : tex(vals["date"])))
    nfiles++
    split(vals["git_rev"], rv, "; ")
    for (r in rv) if (!(rv[r] in allrev)) { allrev[rv[r]] = 1; nrev++; revlist = revlist (revlist == "" ? "" : ", ") "\\texttt{" tex(rv[r]) "}" }
    split(vals["host"], hv, "; ")
    for (h in hv) if (!(hv[h] in allhost)) { allhost[hv[h]] = 1; nhost++; hostlist = hostlist (hostlist == "" ? "" : ", ") tex(hv[h]) }
    if (vals["date"] != "") {
        split(vals["date"], dv, "; ")
        for (d in dv) { if (first == "" || dv[d] < first) first = dv[d]; if (dv[d] > last) last = dv[d] }
    }
    if (vals["cpus"] != "") cpus = vals["cpus"]
    if (vals["cpu_model"] != "") model = vals["cpu_model"]
    if (vals["compiler"] != "") compiler = vals["compiler"]
}
BEGIN { nk = split("host git_rev date cpus cpu_model compiler", keys, " ") }
END {
    emit()
    def("prov/files", nfiles); def("prov/nrev", nrev); def("prov/revs", revlist); def("prov/hosts", hostlist)
    def("prov/first", first); def("prov/last", last)
    def("prov/cpus", tex(cpus)); def("prov/model", tex(model)); def("prov/compiler", tex(compiler))
    when = (first == last) ? "on " first : "from " first " to " last
    if (nrev == 1)
        s = "one revision, " revlist ", on host " hostlist ", " when
    else
        s = nrev " revisions (" revlist ") on host " hostlist ", " when
    def("prov/summary", s)
}
EOF
files=""
for f in "$ref"/*.csv "$res/conformance.csv" "$res/conformance-speed.csv"; do
    [ -f "$f" ] && files="$files $f"
done
cat > "$out/tab-provenance.tex" <<'TEX'
% columns: 7
% numeric: 2
\begin{tabular}{@{}l r l l l r l@{}}
\toprule
file & rows & host & revision & date & CPUs & CPU, compiler \\
\midrule
TEX
# shellcheck disable=SC2086 # a list of paths without spaces
run_awk "$out/awk/provenance.awk" -v table="$out/tab-provenance.tex" $files
printf '\\bottomrule\n\\end{tabular}\n' >> "$out/tab-provenance.tex"

# ---- the algorithms: ratelab list --------------------------------------
prog algorithms <<'EOF'
NR == 1 { n = csv_split($0, f); header(f, n); next }
{
    n = csv_split($0, f)
    o = tex(get(f, "orders")); gsub(/[+\/]/, "&\\allowbreak{}", o)
    printf "%s & %s & %s & %s & %s & %s \\\\\n", tt(get(f, "name")), tex(get(f, "family")), tex(get(f, "promise")),
        tex(get(f, "runs")), o, tex(get(f, "summary"))
    total++; by[get(f, "promise")]++; runs[get(f, "runs")]++
    if (get(f, "family") != "baseline") limiters++
}
END {
    def("alg/count", total); def("alg/limiters", limiters)
    for (p in by) def("alg/promise/" p, by[p])
    for (r in runs) def("alg/runs/" r, runs[r])
}
EOF
{
    cat <<'TEX'
% columns: 6
\begin{xltabular}{\linewidth}{@{}l l l l l >{\raggedright\arraybackslash}X@{}}
\toprule
algorithm & family & promise & runs & orders & summary \\
\midrule
\endfirsthead
\toprule
algorithm & family & promise & runs & orders & summary \\
\midrule
\endhead
\bottomrule
\endfoot
TEX
    "$ratelab" list --format csv | run_awk "$out/awk/algorithms.awk"
    printf '%s\n' '\end{xltabular}'
} > "$out/tab-algorithms.tex"

# ---- accuracy: sim rows, every algorithm on every workload ---------------
prog accuracy <<'EOF'
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f) }
get(f, "mode") == "sim" {
    a = get(f, "algo"); w = get(f, "workload"); L = get(f, "limit")
    if (!(a in seen)) { seen[a] = 1; order[++na] = a; prom[a] = get(f, "promise") }
    if (!(w in wseen)) { wseen[w] = 1; word[++nw] = w }
    sl[a, w] = get(f, "max_sliding") / L; al[a, w] = get(f, "max_aligned") / L
    hv[a, w] = get(f, "promise_held"); ut[a, w] = get(f, "utilization")
    fa[a, w] = get(f, "false_admits"); fr[a, w] = get(f, "false_rejects")
    limit = L; ivl = get(f, "interval_ns"); burst = get(f, "burst")
    if (a == "null") load[w] = get(f, "attempts") / (L * get(f, "duration_ns") / ivl)
    p = get(f, "promise")
    if (p == "strong" || p == "weak" || p == "window" || p == "bucket") { judged++; verdict[get(f, "promise_held")]++ }
    def("acc/" a "/" w "/sliding", sprintf("%.3f", sl[a, w]))
    def("acc/" a "/" w "/aligned", sprintf("%.3f", al[a, w]))
    if (ut[a, w] != "") def("acc/" a "/" w "/util", sprintf("%.3f", ut[a, w]))
    def("acc/" a "/" w "/held", tex(hv[a, w]))
}
get(f, "mode") == "replay" { replays++ }
END {
    # the workloads in the order the file has them
    printf "%% columns: %d\n%% numeric: 3-%d\n", nw + 2, nw + 2 > table
    printf "\\begin{tabular}{@{}l l *{%d}{r}@{}}\n\\toprule\n", nw > table
    printf "algorithm & promise" > table
    for (j = 1; j <= nw; j++) printf " & %s", tex(word[j]) > table
    printf " \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = order[i]
        printf "%s & %s", tt(a), tex(prom[a]) > table
        for (j = 1; j <= nw; j++)
            printf " & %s", ((a, word[j]) in sl) ? sprintf("%.3f", sl[a, word[j]]) held(hv[a, word[j]]) : "--" > table
        printf " \\\\\n" > table
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    # the false decisions on one workload (poisson when there is one)
    fw = ("poisson" in wseen) ? "poisson" : word[1]
    printf "%% columns: 8\n%% numeric: 3-7\n\\begin{tabular}{@{}l l *{5}{r} l@{}}\n\\toprule\n" > table2
    printf " & & \\multicolumn{2}{c}{most admitted} & \\multicolumn{2}{c}{against the exact log} & & \\\\\n" > table2
    printf "\\cmidrule(lr){3-4}\\cmidrule(lr){5-6}\n" > table2
    printf "algorithm & promise & sliding/$L$ & aligned/$L$ & false admits & false rejects & utilization & held \\\\\n\\midrule\n" > table2
    for (i = 1; i <= na; i++) {
        a = order[i]
        if (prom[a] == "none" || prom[a] == "concurrency" || !((a, fw) in sl)) continue
        printf "%s & %s & %.3f & %.3f & %s & %s & %s & %s \\\\\n", tt(a), tex(prom[a]), sl[a, fw], al[a, fw],
            count(fa[a, fw]), count(fr[a, fw]), num(ut[a, fw], 3), tex(hv[a, fw]) > table2
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table2
    def("acc/falseworkload", tex(fw))
    def("acc/L", count(limit)); def("acc/I", human_ns(ivl)); def("acc/B", count(burst))
    def("acc/workloads", nw); def("acc/algos", na)
    def("acc/load", sprintf("%.0f", load[fw]))
    def("acc/judged", judged + 0); def("acc/yes", verdict["yes"] + 0); def("acc/no", verdict["no"] + 0)
    def("acc/replays", replays + 0)
}
EOF
if [ -f "$ref/accuracy.csv" ]; then
    run_awk "$out/awk/accuracy.awk" -v table="$out/tab-accuracy.tex" -v table2="$out/tab-false.tex" "$ref/accuracy.csv"
else
    missing "$ref/accuracy.csv" "$out/tab-accuracy.tex"
    missing "$ref/accuracy.csv" "$out/tab-false.tex"
fi

# ---- replay rows of the accuracy run: latency and accuracy -------------
prog replay <<'EOF'
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f) }
get(f, "mode") == "replay" && get(f, "rep") + 0 <= 1 {
    L = get(f, "limit")
    printf "%s & %s & %s & %s & %s & %s & %s & %.3f & %s \\\\\n", tt(get(f, "algo")), tex(get(f, "workload")),
        ns(get(f, "lat_p50_ns")), ns(get(f, "lat_p99_ns")), ns(get(f, "lat_max_ns")), ns(get(f, "svc_p99_ns")),
        ns(get(f, "late_p99_ns")), get(f, "max_sliding") / L, tex(get(f, "promise_held"))
    threads = get(f, "threads"); rows++
    late = get(f, "late_p99_ns") + 0; lat = get(f, "lat_p99_ns") + 0
    if (lat > 0 && late / lat >= 0.5) lateheavy++
    if (get(f, "svc_p99_ns") + 0 > maxsvc + 0) maxsvc = get(f, "svc_p99_ns") + 0
    if (lat > maxp99 + 0) maxp99 = lat
    if (get(f, "stamp_uncertainty_ns") + 0 > maxunc + 0) maxunc = get(f, "stamp_uncertainty_ns") + 0
    if (get(f, "promise_held") == "no") broken++
}
END {
    def("rep/threads", threads); def("rep/rows", rows + 0); def("rep/lateheavy", lateheavy + 0)
    def("rep/maxsvc", ns(maxsvc)); def("rep/maxp99", ns(maxp99)); def("rep/maxunc", ns(maxunc))
    def("rep/broken", broken + 0)
}
EOF
if [ -f "$ref/accuracy.csv" ]; then
    {
        cat <<'TEX'
% columns: 9
% numeric: 3-8
\begin{tabular}{@{}l l *{6}{r} l@{}}
\toprule
 & & \multicolumn{3}{c}{latency from the due time} & call & late & & \\
\cmidrule(lr){3-5}
algorithm & workload & p50 & p99 & max & p99 & p99 & sliding/$L$ & held \\
\midrule
TEX
        run_awk "$out/awk/replay.awk" "$ref/accuracy.csv"
        printf '\\bottomrule\n\\end{tabular}\n'
    } > "$out/tab-replay.tex"
else
    missing "$ref/accuracy.csv" "$out/tab-replay.tex"
fi

# ---- stress runs: medians over repetitions -------------------------------
# One program for threads, memory orders, clocks, keys and Redis: it
# collects ns_per_op (and other columns) by (algo, limit, threads, clock,
# recorded, keys); each table's own END block lays them out. Which path a
# limit's runs took comes from plots/paths.awk, as in the figures.
prog stress_common <<'EOF'
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f) }
get(f, "mode") == "stress" {
    a = get(f, "algo"); t = get(f, "threads"); L = get(f, "limit"); r = get(f, "recorded")
    c = get(f, "clock"); K = get(f, "keys")
    k = a SUBSEP L SUBSEP t SUBSEP c SUBSEP r SUBSEP K
    if (!(a in aseen)) { aseen[a] = 1; algos[++na] = a; fam[a] = get(f, "family"); ord[a] = get(f, "orders"); prom[a] = get(f, "promise") }
    if (!(t in tseen)) { tseen[t] = 1; tl[++nt] = t }
    if (!(L in lseen)) { lseen[L] = 1; ll[++nl] = L; ivl[L] = get(f, "interval_ns") }
    if (!(c in cseen)) { cseen[c] = 1; cl[++nc] = c }
    if (!(K in kseen)) { kseen[K] = 1; kl[++nkeys] = K }
    nsop[k] = nsop[k] " " get(f, "ns_per_op")
    mops[k] = mops[k] " " get(f, "mops")
    if (get(f, "attempts") + 0 > 0) rej[k] = rej[k] " " get(f, "rejects") / get(f, "attempts")
    if (get(f, "max_sliding") != "") slid[k] = slid[k] " " get(f, "max_sliding") / L
    if (get(f, "bytes_per_key") != "") bpk[k] = bpk[k] " " get(f, "bytes_per_key")
    if (get(f, "ratio_redis_noop") != "") xnoop[k] = xnoop[k] " " get(f, "ratio_redis_noop")
    if (r == "yes") { heldv[a, get(f, "promise_held")]++; errs[a] += get(f, "errors") }
    if (get(f, "rep") + 0 > reps + 0) reps = get(f, "rep") + 0
    cpus = get(f, "cpus")
}
# sort thread counts, limits and key counts numerically (few: insertion)
function sortnum(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
function key(a, L, t, c, r, K) { return a SUBSEP L SUBSEP t SUBSEP c SUBSEP r SUBSEP K }
# med(LIST, D): the median with D decimals, "--" when there is none
function med(list, d,    m) { m = median(list); return m == "" ? "--" : sprintf("%." d "f", m) }
# nsmed(LIST): a time per call, one decimal below 1000 ns, none above
function nsmed(list,    m) { m = median(list); return m == "" ? "--" : m + 0 < 1000 ? sprintf("%.1f", m) : sprintf("%.0f", m) }
# spread(LIST, D): the median of a cell with its min--max below it,
# \rg{MEDIAN}{MIN}{MAX} (paper/ratelab.tex), D decimals or "ns" (as nsmed);
# one run shows the number alone; "--" when there is none. Counts the runs
# behind each cell for runs_n().
function fmtv(v, d) { return d == "ns" ? (v + 0 < 1000 ? sprintf("%.1f", v) : sprintf("%.0f", v)) : sprintf("%." d "f", v) }
function spread(list, d,    m, n, x) {
    m = median(list)
    if (m == "") return "--"
    n = split(list, x, " ")
    if (nmin == "" || n < nmin + 0) nmin = n
    if (n > nmax + 0) nmax = n
    return n == 1 ? fmtv(m, d) : "\\rg{" fmtv(m, d) "}{" fmtv(med_lo, d) "}{" fmtv(med_hi, d) "}"
}
# runs_n(): how many runs the cells' spreads are over: "3", or "1--3"
function runs_n() { return nmin == "" ? 0 : nmin == nmax ? nmin : nmin "--" nmax }
# noise(A, B): "\nz" when the two lists' min--max intervals overlap (the
# difference is within noise), "" when they do not or one is empty
function noise(a, b,    alo, ahi) {
    if (median(a) == "") return ""
    alo = med_lo; ahi = med_hi
    if (median(b) == "") return ""
    nzcount++
    if (ahi + 0 < med_lo + 0 || med_hi + 0 < alo + 0) { nzcount--; return "" }
    return "\\nz"
}
# over(T): the oversubscription mark for a thread count above the CPUs
function over(t) { return (cpus != "" && t + 0 > cpus + 0) ? "$^\\dagger$" : "" }
# pathsort(): pth[1..np], the limits with the reject path first, as the figures
function pathsort(   pass, i) {
    np = 0
    for (pass = 1; pass <= 2; pass++) for (i = 1; i <= nl; i++)
        if ((pathof[ll[i]] == "reject") == (pass == 1)) pth[++np] = ll[i]
}
# plots/paths.awk's lines "limit interval path pct label...", joined by ";"
BEGIN {
    npl = split(paths, pl, ";")
    for (i = 1; i <= npl; i++) { split(pl[i], w, " "); pathof[w[1]] = w[3]; pctof[w[1]] = w[4] }
}
EOF

# threads.csv: ns per call at each thread count, both paths
prog threads <<'EOF'
END {
    sortnum(tl, nt); sortnum(ll, nl); pathsort()
    c = cl[1]; K = kl[1]
    printf "%% columns: %d\n%% numeric: 2-%d\n", 1 + np * nt, 1 + np * nt > table
    printf "\\begin{tabular}{@{}l *{%d}{r}@{}}\n\\toprule\n", np * nt > table
    for (p = 1; p <= np; p++)
        printf " & \\multicolumn{%d}{c}{%s path: $L = %s$ per %s}", nt, pathof[pth[p]], sci(pth[p]), human_ns(ivl[pth[p]]) > table
    printf " \\\\\n" > table
    for (p = 1; p <= np; p++) printf "\\cmidrule(lr){%d-%d}", 2 + (p - 1) * nt, 1 + p * nt > table
    printf "\nthreads" > table
    for (p = 1; p <= np; p++) for (j = 1; j <= nt; j++) printf " & %s%s", tl[j], over(tl[j]) > table
    printf " \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = algos[i]
        printf "%s", tt(a) > table
        for (p = 1; p <= np; p++) for (j = 1; j <= nt; j++) {
            k = key(a, pth[p], tl[j], c, "no", K)
            # within noise of the same algorithm one thread count down
            printf " & %s%s", spread(nsop[k], "ns"), (j > 1 ? noise(nsop[k], nsop[key(a, pth[p], tl[j - 1], c, "no", K)]) : "") > table
            if (nsop[k] != "") def("thr/" a "/" pathof[pth[p]] "/" tl[j], nsmed(nsop[k]))
            if (nsop[k] != "" && j == 2) def("thr/" a "/" pathof[pth[p]] "/second/range", sprintf("%.1f--%.1f", med_lo, med_hi))
            if (rej[k] != "") {
                def("thr/" a "/" pathof[pth[p]] "/" tl[j] "/rejpct", sprintf("%.0f", 100 * median(rej[k])))
                # the same by rank, for prose that must not name a count
                if (j == 2) def("thr/" a "/" pathof[pth[p]] "/second/rejpct", sprintf("%.0f", 100 * median(rej[k])))
                if (j == nt) def("thr/" a "/" pathof[pth[p]] "/max/rejpct", sprintf("%.0f", 100 * median(rej[k])))
            }
        }
        printf " \\\\\n" > table
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    list = ""
    for (j = 1; j <= nt; j++) list = list (j == 1 ? "" : j == nt ? " and " : ", ") tl[j]
    def("thr/n", runs_n())
    over_list = ""
    for (j = 1; j <= nt; j++) if (over(tl[j]) != "") over_list = over_list (over_list == "" ? "" : j == nt ? " and " : ", ") tl[j]
    def("thr/over", over_list == "" ? "none" : over_list)
    def("thr/threads", list); def("thr/maxthreads", tl[nt]); def("thr/second", tl[2]); def("thr/first", tl[1]); def("thr/reps", reps); def("thr/cpus", cpus)
    def("thr/algos", na)
    for (p = 1; p <= np; p++) {
        def("thr/" pathof[pth[p]] "/L", sci(pth[p])); def("thr/" pathof[pth[p]] "/I", human_ns(ivl[pth[p]]))
        def("thr/" pathof[pth[p]] "/pct", sprintf("%.2f", pctof[pth[p]]))
    }
}
EOF

# memory-order.csv: the steps at each order, both paths, and the recorder's cost
prog memorder <<'EOF'
END {
    sortnum(tl, nt); sortnum(ll, nl); pathsort()
    c = cl[1]; K = kl[1]; rejL = pth[1]
    printf "%% columns: %d\n%% numeric: 3-%d\n", 3 + np * nt, 3 + np * nt > table
    printf "\\begin{tabular}{@{}l l *{%d}{r}@{}}\n\\toprule\n", 1 + np * nt > table
    printf " & " > table
    for (p = 1; p <= np; p++) printf " & \\multicolumn{%d}{c}{%s path, threads}", nt, pathof[pth[p]] > table
    printf " & recorded \\\\\n" > table
    for (p = 1; p <= np; p++) printf "\\cmidrule(lr){%d-%d}", 3 + (p - 1) * nt, 2 + p * nt > table
    printf "\nalgorithm & orders" > table
    for (p = 1; p <= np; p++) for (j = 1; j <= nt; j++) printf " & %s%s", tl[j], over(tl[j]) > table
    printf " & $\\div$ not \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = algos[i]
        printf "%s & %s", tt(a), tex(ord[a]) > table
        # the same step at a stronger order: fw_cas_acqrel against fw_cas,
        # tb_cas_relaxed against tb_cas (the name less its order suffix)
        base = a; sub(/_(acqrel|relaxed)$/, "", base)
        if (!(base in aseen)) base = a
        for (p = 1; p <= np; p++) for (j = 1; j <= nt; j++) {
            k = key(a, pth[p], tl[j], c, "no", K)
            nz = base != a ? noise(nsop[k], nsop[key(base, pth[p], tl[j], c, "no", K)]) : ""
            printf " & %s%s", spread(nsop[k], "ns"), nz > table
            if (base != a && nsop[k] != "") { mopairs++; if (nz != "") monoisy++ }
            if (nsop[k] != "") {
                def("mo/" a "/" pathof[pth[p]] "/" tl[j], nsmed(nsop[k]))
                def("mo/" a "/" pathof[pth[p]] "/" tl[j] "/range", sprintf("%.1f--%.1f", med_lo, med_hi))
            }
        }
        u = median(nsop[key(a, rejL, tl[1], c, "no", K)]); rr = median(nsop[key(a, rejL, tl[1], c, "yes", K)])
        ratio = (u != "" && rr != "" && u + 0 > 0) ? sprintf("%.2f", rr / u) : "--"
        printf " & %s \\\\\n", ratio > table
        if (ratio != "--") def("mo/" a "/recratio", ratio)
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    def("mo/n", runs_n()); def("mo/pairs", mopairs + 0); def("mo/noisy", monoisy + 0)
    def("mo/threads", tl[1] "--" tl[nt]); def("mo/reps", reps); def("mo/rejL", sci(rejL)); def("mo/rejI", human_ns(ivl[rejL]))
    # ratios the prose quotes: the mutex over CAS on the reject path at two threads, CAS over faa on the admit path
    if (nt > 1) {
        m = median(nsop[key("fw_mutex", rejL, tl[2], c, "no", K)]); cs = median(nsop[key("fw_cas", rejL, tl[2], c, "no", K)])
        if (m != "" && cs != "") def("mo/mutexovercas", sprintf("%.1f", m / cs))
        def("mo/second", tl[2])
    }
    fa = median(nsop[key("faa", pth[np], tl[1], c, "no", K)]); cs = median(nsop[key("fw_cas", pth[np], tl[1], c, "no", K)])
    if (fa != "" && cs != "") def("mo/casoverfaa", sprintf("%.1f", cs / fa))
}
EOF

# clocks.csv: per clock, ns per call (unrecorded) and sliding/L (recorded), one thread
prog clocks <<'EOF'
END {
    sortnum(tl, nt)
    t = tl[1]; L = ll[1]; K = kl[1]
    printf "%% columns: %d\n%% numeric: 2-%d\n", 1 + 2 * nc, 1 + 2 * nc > table
    printf "\\begin{tabular}{@{}l *{%d}{r}@{}}\n\\toprule\n", 2 * nc > table
    for (j = 1; j <= nc; j++) printf " & \\multicolumn{2}{c}{\\texttt{%s}}", tex(cl[j]) > table
    printf " \\\\\n" > table
    for (j = 1; j <= nc; j++) printf "\\cmidrule(lr){%d-%d}", 2 * j, 2 * j + 1 > table
    printf "\nalgorithm" > table
    for (j = 1; j <= nc; j++) printf " & ns/call & sliding/$L$" > table
    printf " \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = algos[i]
        printf "%s", tt(a) > table
        for (j = 1; j <= nc; j++) {
            u = key(a, L, t, cl[j], "no", K); r = key(a, L, t, cl[j], "yes", K)
            # within noise of the same algorithm on the first clock
            printf " & %s%s & %s", spread(nsop[u], "ns"), (j > 1 ? noise(nsop[u], nsop[key(a, L, t, cl[1], "no", K)]) : ""),
                (prom[a] == "none") ? "--" : med(slid[r], 3) > table
            if (nsop[u] != "") def("clk/" a "/" cl[j], nsmed(nsop[u]))
            if (slid[r] != "" && prom[a] != "none") def("clk/" a "/" cl[j] "/sliding", med(slid[r], 3))
        }
        printf " \\\\\n" > table
    }
    printf "\\midrule\nthe read" > table
    for (j = 1; j <= nc; j++) {
        cf = median(nsop[key("clock_faa", L, t, cl[j], "no", K)]); fa = median(nsop[key("faa", L, t, cl[j], "no", K)])
        d = (cf != "" && fa != "") ? sprintf("%.1f", cf - fa) : "--"
        printf " & %s & --", d > table
        if (d != "--") def("clk/read/" cl[j], d)
    }
    printf " \\\\\n\\bottomrule\n\\end{tabular}\n" > table
    def("clk/threads", t); def("clk/reps", reps); def("clk/n", runs_n()); def("clk/first", "\\texttt{" tex(cl[1]) "}")
}
EOF

# keys.csv: bytes per key and million calls a second at each key count, one thread
prog keys <<'EOF'
END {
    sortnum(kl, nkeys); sortnum(tl, nt)
    t = tl[1]; L = ll[1]; c = cl[1]
    printf "%% columns: %d\n%% numeric: 2-%d\n", 1 + 2 * nkeys, 1 + 2 * nkeys > table
    printf "\\begin{tabular}{@{}l *{%d}{r}@{}}\n\\toprule\n", 2 * nkeys > table
    printf " & \\multicolumn{%d}{c}{bytes per key} & \\multicolumn{%d}{c}{million calls a second} \\\\\n", nkeys, nkeys > table
    printf "\\cmidrule(lr){2-%d}\\cmidrule(lr){%d-%d}\n", 1 + nkeys, 2 + nkeys, 1 + 2 * nkeys > table
    printf "keys" > table
    for (m = 1; m <= 2; m++) for (j = 1; j <= nkeys; j++) printf " & $%s$", pow10(kl[j]) > table
    printf " \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = algos[i]
        printf "%s", tt(a) > table
        for (j = 1; j <= nkeys; j++) {
            k = key(a, L, t, c, "no", kl[j])
            printf " & %s", med(bpk[k], 0) > table
            if (bpk[k] != "") def("keys/" a "/" kl[j] "/bytes", med(bpk[k], 0))
        }
        for (j = 1; j <= nkeys; j++) {
            k = key(a, L, t, c, "no", kl[j])
            # within noise of the same algorithm at the key count before
            printf " & %s%s", spread(mops[k], 1), (j > 1 ? noise(mops[k], mops[key(a, L, t, c, "no", kl[j - 1])]) : "") > table
            if (mops[k] != "") def("keys/" a "/" kl[j] "/mops", med(mops[k], 1))
        }
        printf " \\\\\n" > table
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    def("keys/threads", t); def("keys/min", "$" pow10(kl[1]) "$"); def("keys/max", "$" pow10(kl[nkeys]) "$")
    def("keys/maxkeys", kl[nkeys]); def("keys/reps", reps); def("keys/n", runs_n())
}
EOF

# redis.csv: µs per call and × redis_noop at each client count
prog redis <<'EOF'
END {
    sortnum(tl, nt)
    L = ll[1]; c = cl[1]; K = kl[1]
    printf "%% columns: %d\n%% numeric: 2-%d\n", 2 + 2 * nt, 1 + 2 * nt > table
    printf "\\begin{tabular}{@{}l *{%d}{r} l@{}}\n\\toprule\n", 2 * nt > table
    for (j = 1; j <= nt; j++) printf " & \\multicolumn{2}{c}{%s %s%s}", tl[j], tl[j] == 1 ? "client" : "clients", over(tl[j]) > table
    printf " & \\\\\n" > table
    for (j = 1; j <= nt; j++) printf "\\cmidrule(lr){%d-%d}", 2 * j, 2 * j + 1 > table
    printf "\nalgorithm" > table
    for (j = 1; j <= nt; j++) printf " & \\textmu{}s/call & $\\times$ noop" > table
    printf " & held \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = algos[i]
        if (a !~ /^redis_/) continue
        printf "%s", tt(a) > table
        for (j = 1; j <= nt; j++) {
            k = key(a, L, tl[j], c, "no", K)
            m = median(nsop[k])
            # µs from ns: each run's time ÷ 1000, then its spread
            us = ""; nv = split(nsop[k], runv, " ")
            for (q = 1; q <= nv; q++) us = us " " runv[q] / 1000
            # × noop within noise: the script's time overlaps the empty one's
            nz = a == "redis_noop" ? "" : noise(nsop[k], nsop[key("redis_noop", L, tl[j], c, "no", K)])
            printf " & %s & %s%s", spread(us, 1), med(xnoop[k], 2), nz > table
            if (a != "redis_noop" && m != "") { pairs++; if (nz != "") noisy++ }
            if (m != "") def("redis/" a "/" tl[j] "/us", sprintf("%.1f", m / 1000))
            if (xnoop[k] != "") def("redis/" a "/" tl[j] "/xnoop", med(xnoop[k], 2))
        }
        # the recorded runs' verdicts: yes when every one held
        v = heldv[a, "no"] ? "no" : heldv[a, "yes"] ? "yes" : "n/a"
        printf " & %s \\\\\n", tex(v) > table
        if (heldv[a, "no"]) broken++
        allerrs += errs[a]
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    rates = ""
    for (j = 1; j <= nt; j++) {
        k = key("redis_noop", L, tl[j], c, "no", K)
        if (mops[k] == "") continue
        r = count(sprintf("%.0f", median(mops[k]) * 1e6))
        def("redis/noop/rate/" tl[j], r)
        rates = rates (rates == "" ? "" : j == nt ? " and " : ", ") r " a second to " tl[j] (tl[j] == 1 ? " client" : " clients")
    }
    def("redis/noop/rates", rates == "" ? "--" : rates)
    list = ""
    for (j = 1; j <= nt; j++) list = list (j == 1 ? "" : j == nt ? " and " : ", ") tl[j]
    def("redis/threads", list); def("redis/maxthreads", tl[nt]); def("redis/minthreads", tl[1])
    def("redis/broken", broken + 0); def("redis/errors", allerrs + 0); def("redis/reps", reps); def("redis/n", runs_n())
    over_list = ""
    for (j = 1; j <= nt; j++) if (over(tl[j]) != "") over_list = over_list (over_list == "" ? "" : " and ") tl[j]
    def("redis/over", over_list == "" ? "none" : over_list)
    def("redis/cpus", cpus); def("redis/pairs", pairs + 0); def("redis/noisy", noisy + 0)
}
EOF

stress_table() { # stress_table CSV NAME PROGRAM
    if [ -f "$1" ]; then
        paths=$(awk -F, -f plots/paths.awk "$1" | tr '\n' ';')
        : > "$out/tab-$2.tex"
        run_awk "$out/awk/stress_common.awk" -v table="$out/tab-$2.tex" -v paths="$paths" \
            -f "$out/awk/$3.awk" "$1"
    else
        missing "$1" "$out/tab-$2.tex"
    fi
}
stress_table "$ref/threads.csv" threads threads
stress_table "$ref/memory-order.csv" memorder memorder
stress_table "$ref/clocks.csv" clocks clocks
stress_table "$ref/keys.csv" keys keys
stress_table "$ref/redis.csv" redis redis

# pareto.csv: the accuracy/cost frontier, one row an algorithm at its
# cheapest clock, numbered as in plots/pareto.gp's figure (plots/pareto.awk
# computes both: the points, the frontiers and the numbering)
prog pareto <<'EOF'
# inputs: labels (algo number ...), points (algo family clock ns lo hi
# sliding util), the two frontiers (ns value algo clock)
FILENAME ~ /labels/ { order[$2] = $1; if ($2 > n) n = $2; next }
FILENAME ~ /points/ && NF >= 8 {
    if (!($1 in cost) || $4 + 0 < cost[$1] + 0) { cost[$1] = $4; lo[$1] = $5; hi[$1] = $6; clk[$1] = $3; sl[$1] = $7; ut[$1] = $8 }
    next
}
FILENAME ~ /frontier-sliding/ { fs[$3] = 1; nfs++; next }
FILENAME ~ /frontier-util/ { fu[$3] = 1; nfu++; next }
END {
    printf "%% columns: 8\n%% numeric: 4-6\n" > table
    printf "\\begin{tabular}{@{}r l l r r r r l@{}}\n\\toprule\n" > table
    printf "\\# & algorithm & cheapest clock & ns & sliding$/L$ & utilization & ns min--max & on the frontier of \\\\\n\\midrule\n" > table
    for (i = 1; i <= n; i++) {
        a = order[i]
        f = (a in fs ? "sliding" : "") (a in fs && a in fu ? ", " : "") (a in fu ? "utilization" : "")
        printf "%d & %s & %s & %s & %s & %s & %s--%s & %s \\\\\n", i, tt(a), tex(clk[a]), num(cost[a], 1), num(sl[a], 2),
            num(ut[a], 2), num(lo[a], 1), num(hi[a], 1), (f == "" ? "--" : f) > table
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    def("pareto/algos", n); def("pareto/frontsliding", nfs + 0); def("pareto/frontutil", nfu + 0)
}
EOF
if [ -f "$ref/pareto.csv" ]; then
    pa=$out/pareto
    mkdir -p "$pa"
    for part in points frontier labels; do
        awk -F, -v part=$part -v metric=sliding -f "$here/../plots/pareto.awk" "$ref/pareto.csv" > "$pa/$part-sliding.dat"
    done
    awk -F, -v part=frontier -v metric=util -f "$here/../plots/pareto.awk" "$ref/pareto.csv" > "$pa/frontier-util.dat"
    run_awk "$out/awk/pareto.awk" -v table="$out/tab-pareto.tex" \
        "$pa/labels-sliding.dat" "$pa/points-sliding.dat" "$pa/frontier-sliding.dat" "$pa/frontier-util.dat"
else
    missing "$ref/pareto.csv" "$out/tab-pareto.tex"
fi

# ---- conformance against the peers' own code ---------------------------
prog conformance <<'EOF'
NR == 1 { n = csv_split($0, f); header(f, n); next }
{
    n = csv_split($0, f)
    x = get(f, "stale_extra_admits") + 0
    printf "%s & %s & %s & %s & %s & %s & %s & %s & %s & %s \\\\\n", tex(get(f, "peer")), tt(get(f, "algo")),
        get(f, "traces"), get(f, "skipped"), count(get(f, "attempts")), count(get(f, "identical")),
        count(get(f, "peer_rounding")), count(get(f, "peer_stale_time")), count(get(f, "semantic")),
        (x < 0 ? "$-$" count(-x) : count(x))
    att += get(f, "attempts"); same += get(f, "identical"); sem += get(f, "semantic"); pairs++
    round += get(f, "peer_rounding"); stale += get(f, "peer_stale_time")
    if (!(get(f, "peer") in peers)) { peers[get(f, "peer")] = 1; np++ }
    if (get(f, "attempts") + 0 > 0)
        def("conf/" get(f, "peer") "/" get(f, "algo") "/identical", sprintf("%.1f", 100 * get(f, "identical") / get(f, "attempts")))
    seed = get(f, "seed"); if (get(f, "traces") + 0 > traces + 0) traces = get(f, "traces") + 0
}
END {
    def("conf/attempts", count(att)); def("conf/identical", count(same))
    def("conf/identicalpct", att ? sprintf("%.1f", 100 * same / att) : "--")
    def("conf/semantic", count(sem)); def("conf/rounding", count(round)); def("conf/stale", count(stale))
    def("conf/pairs", pairs + 0); def("conf/peers", np + 0); def("conf/seed", seed); def("conf/traces", traces)
}
EOF
if [ -f "$res/conformance.csv" ]; then
    {
        cat <<'TEX'
% columns: 10
% numeric: 3-10
\begin{tabular}{@{}l l *{8}{r}@{}}
\toprule
 & & & & & & \multicolumn{3}{c}{mismatches} & stale \\
\cmidrule(lr){7-9}
peer & algorithm & traces & skipped & attempts & identical & rounding & stale time & semantic & extra \\
\midrule
TEX
        run_awk "$out/awk/conformance.awk" "$res/conformance.csv"
        printf '\\bottomrule\n\\end{tabular}\n'
    } > "$out/tab-conformance.tex"
else
    missing "$res/conformance.csv" "$out/tab-conformance.tex"
fi

prog confspeed <<'EOF'
# rng(LIST): median with min--max (\rg), as the stress tables' spread()
function rng(list,    m, n, x) {
    m = median(list)
    if (m == "") return "--"
    n = split(list, x, " ")
    return n == 1 ? sprintf("%.1f", m) : sprintf("\\rg{%.1f}{%.1f}{%.1f}", m, med_lo, med_hi)
}
# overlap(A, B): "\nz" when the lists' min--max intervals overlap
function overlap(a, b,    alo, ahi) {
    if (median(a) == "") return ""
    alo = med_lo; ahi = med_hi
    if (median(b) == "") return ""
    return (ahi + 0 < med_lo + 0 || med_hi + 0 < alo + 0) ? "" : "\\nz"
}
NR == 1 { n = csv_split($0, f); header(f, n); next }
{
    n = csv_split($0, f)
    i = get(f, "impl"); t = get(f, "threads")
    v[i, t] = v[i, t] " " get(f, "ns_per_op"); cpus = get(f, "cpus")
    if (!(i in iseen)) { iseen[i] = 1; impls[++ni] = i }
    if (!(t in tseen)) { tseen[t] = 1; tl[++nt] = t }
    L = get(f, "L"); I = get(f, "interval_ns")
    if (get(f, "rep") + 0 > reps + 0) reps = get(f, "rep") + 0
}
END {
    for (j = 1; j <= nt; j++) for (k = 1; k <= ni; k++) {
        p = impls[k]
        if (p == "tb_mutex" || p == "tb_cas") continue
        m = median(v[p, tl[j]]); mu = median(v["tb_mutex", tl[j]]); cs = median(v["tb_cas", tl[j]])
        # ratios whose two min--max intervals overlap are within noise
        nzmu = overlap(v[p, tl[j]], v["tb_mutex", tl[j]]); nzcs = overlap(v[p, tl[j]], v["tb_cas", tl[j]])
        printf "%s & %s%s & %s & %s & %s & %s%s & %s%s \\\\\n", tex(p), tl[j],
            (cpus != "" && tl[j] + 0 > cpus + 0 ? "$^\\dagger$" : ""), rng(v[p, tl[j]]), rng(v["tb_mutex", tl[j]]),
            rng(v["tb_cas", tl[j]]), (mu + 0 > 0 ? sprintf("%.2f", m / mu) : "--"), nzmu,
            (cs + 0 > 0 ? sprintf("%.2f", m / cs) : "--"), nzcs
        def("speed/" p "/" tl[j], sprintf("%.1f", m))
        if (mu + 0 > 0) def("speed/" p "/" tl[j] "/overmutex", sprintf("%.2f", m / mu))
    }
    def("speed/L", count(L)); def("speed/I", human_ns(I)); def("speed/reps", reps); def("speed/first", tl[1])
    for (k = 1; k <= ni; k++) if (v[impls[k], tl[1]] != "" && v["tb_mutex", tl[1]] != "")
        def("speed/" impls[k] "/first/overmutex", sprintf("%.2f", median(v[impls[k], tl[1]]) / median(v["tb_mutex", tl[1]])))
}
EOF
if [ -f "$res/conformance-speed.csv" ]; then
    {
        cat <<'TEX'
% columns: 7
% numeric: 2-7
\begin{tabular}{@{}l *{6}{r}@{}}
\toprule
 & & \multicolumn{3}{c}{ns per call} & \multicolumn{2}{c}{peer $\div$} \\
\cmidrule(lr){3-5}\cmidrule(lr){6-7}
peer & threads & peer & \texttt{tb\_mutex} & \texttt{tb\_cas} & \texttt{tb\_mutex} & \texttt{tb\_cas} \\
\midrule
TEX
        run_awk "$out/awk/confspeed.awk" "$res/conformance-speed.csv"
        printf '\\bottomrule\n\\end{tabular}\n'
    } > "$out/tab-confspeed.tex"
else
    missing "$res/conformance-speed.csv" "$out/tab-confspeed.tex"
fi

# ---- Redis Cluster: decisions a second by shape and key pattern ----------
# cluster.csv: each Redis limiter at 10 threads on clusters of 1, 3 and 6
# primaries, one hot key and 1000 keys; floor-cluster.csv beside it (bench
# writes it): redis-benchmark's EVALSHA floor a shape. The ratio is the
# script's decisions a second ÷ redis_noop's in the same run (1 ÷
# ratio_redis_noop, which is a ratio of times).
prog cluster <<'EOF'
function fmtv(v, d) { return sprintf("%." d "f", v) }
# spread(LIST, D): median with min--max (\rg), as the stress tables'
function spread(list, d,    m, n, x) {
    m = median(list)
    if (m == "") return "--"
    n = split(list, x, " ")
    if (nmin == "" || n < nmin + 0) nmin = n
    if (n > nmax + 0) nmax = n
    return n == 1 ? fmtv(m, d) : "\\rg{" fmtv(m, d) "}{" fmtv(med_lo, d) "}{" fmtv(med_hi, d) "}"
}
function sortnum(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
FNR == 1 { floorfile = (FILENAME ~ /floor-[^\/]*$/); split("", col); n = csv_split($0, f); header(f, n); next }
floorfile { n = csv_split($0, f); fl[get(f, "primaries") "x" get(f, "replicas")] = get(f, "rps"); next }
{ n = csv_split($0, f) }
get(f, "mode") == "stress" && get(f, "algo") ~ /^redis_/ && get(f, "cluster") != "" {
    a = get(f, "algo"); s = get(f, "cluster"); K = get(f, "keys")
    if (!(a in aseen)) { aseen[a] = 1; algos[++na] = a }
    if (!(s in sseen)) { sseen[s] = 1; sl[++nsh] = s }
    if (!(K in kseen)) { kseen[K] = 1; kl[++nk] = K }
    kps[a, s, K] = kps[a, s, K] " " get(f, "mops") * 1000
    r = get(f, "ratio_redis_noop")
    if (r + 0 > 0 && a != "redis_noop") xn[a, s, K] = xn[a, s, K] " " 1 / r
    if (get(f, "rep") + 0 > reps + 0) reps = get(f, "rep") + 0
    cpus = get(f, "cpus"); threads = get(f, "threads"); errs += get(f, "errors")
}
END {
    sortnum(sl, nsh); sortnum(kl, nk)
    printf "%% columns: %d\n%% numeric: 2-%d\n", 1 + 2 * nsh, 1 + 2 * nsh > table
    printf "\\begin{tabular}{@{}l *{%d}{r}@{}}\n\\toprule\n", 2 * nsh > table
    for (j = 1; j <= nsh; j++) printf " & \\multicolumn{2}{c}{%s}", tex(sl[j]) > table
    printf " \\\\\n" > table
    for (j = 1; j <= nsh; j++) printf "\\cmidrule(lr){%d-%d}", 2 * j, 2 * j + 1 > table
    printf "\nalgorithm" > table
    for (j = 1; j <= nsh; j++) printf " & k/s & $\\div$ noop" > table
    printf " \\\\\n" > table
    for (q = 1; q <= nk; q++) {
        K = kl[q]
        printf "\\midrule\n\\multicolumn{%d}{@{}l}{\\emph{%s}} \\\\\n", 1 + 2 * nsh, K == 1 ? "one hot key" : count(K) " keys" > table
        for (i = 1; i <= na; i++) {
            a = algos[i]
            printf "%s", tt(a) > table
            for (j = 1; j <= nsh; j++) {
                s = sl[j]
                printf " & %s & %s", spread(kps[a, s, K], 1), a == "redis_noop" ? "--" : spread(xn[a, s, K], 2) > table
                if (kps[a, s, K] != "") def("cl/" a "/" s "/" K "/kps", sprintf("%.1f", median(kps[a, s, K])))
                if (xn[a, s, K] != "") {
                    m = median(xn[a, s, K])
                    def("cl/" a "/" s "/" K "/xnoop", sprintf("%.2f", m))
                    # the issue's goal: a script at 0.8 of redis_noop or more
                    scripts[s, K]++
                    if (m >= 0.8) { reach[s, K]++; rl[s, K] = rl[s, K] (rl[s, K] == "" ? "" : ", ") "\\algo{" tex(a) "}" }
                    if (lo[s, K] == "" || m < lo[s, K] + 0) lo[s, K] = m
                    if (hi[s, K] == "" || m > hi[s, K] + 0) hi[s, K] = m
                }
            }
            printf " \\\\\n" > table
        }
    }
    # redis-benchmark's floor: one run a shape, whatever the keys
    printf "\\midrule\n\\emph{floor} (redis-benchmark)" > table
    for (j = 1; j <= nsh; j++) printf " & %s & --", (sl[j] in fl) ? sprintf("%.1f", fl[sl[j]] / 1000) : "--" > table
    printf " \\\\\n\\bottomrule\n\\end{tabular}\n" > table
    shapes = ""; for (j = 1; j <= nsh; j++) shapes = shapes (j == 1 ? "" : j == nsh ? " and " : ", ") "$" tex(sl[j]) "$"
    gsub(/x/, "\\times{}", shapes)
    def("cl/shapes", shapes); def("cl/reps", reps + 0); def("cl/n", nmin == "" ? 0 : nmin == nmax ? nmin : nmin "--" nmax)
    def("cl/cpus", cpus); def("cl/threads", threads); def("cl/errors", errs + 0)
    def("cl/keys", kl[nk]); def("cl/first", sl[1]); def("cl/last", sl[nsh])
    # redis_noop's and the floor's medians over the shapes: from -- to
    for (q = 1; q <= nk; q++) {
        K = kl[q]; nlo = nhi = ""
        for (j = 1; j <= nsh; j++) {
            m = median(kps["redis_noop", sl[j], K])
            if (m == "") continue
            if (nlo == "" || m < nlo + 0) nlo = m
            if (nhi == "" || m > nhi + 0) nhi = m
        }
        if (nlo != "") def("cl/noop/" K "/range", sprintf("%.0f--%.0f", nlo, nhi))
        for (j = 1; j <= nsh; j++) {
            s = sl[j]
            def("cl/" s "/" K "/reach", (reach[s, K] + 0) " of " (scripts[s, K] + 0))
            def("cl/" s "/" K "/reachlist", rl[s, K] == "" ? "none" : rl[s, K])
            if (lo[s, K] != "") def("cl/" s "/" K "/xrange", sprintf("%.2f--%.2f", lo[s, K], hi[s, K]))
        }
    }
    flo = fhi = ""
    for (s in fl) {
        if (flo == "" || fl[s] + 0 < flo + 0) flo = fl[s]
        if (fhi == "" || fl[s] + 0 > fhi + 0) fhi = fl[s]
    }
    def("cl/floor/range", flo == "" ? "--" : sprintf("%.0f--%.0f", flo / 1000, fhi / 1000))
}
EOF
if [ -f "$ref/cluster.csv" ]; then
    floors=""
    [ -f "$ref/floor-cluster.csv" ] && floors=$ref/floor-cluster.csv
    # shellcheck disable=SC2086 # one path or none
    run_awk "$out/awk/cluster.awk" -v table="$out/tab-cluster.tex" "$ref/cluster.csv" $floors
    printf '%s\n' '\rldef{cl/exists}{1}' >> "$macros"
else
    missing "$ref/cluster.csv" "$out/tab-cluster.tex"
    printf '%s\n' '\rldef{cl/exists}{0}' >> "$macros"
fi

# cluster-faults.csv: each fault for three limiters on a fresh 3x1
# cluster, repeated: outage, lost admits and errors as median (min--max)
# over the runs, and the verdicts
prog clfaults <<'EOF'
function spread(list, d,    m, n, x) {
    m = median(list)
    if (m == "") return "--"
    n = split(list, x, " ")
    return med_lo == med_hi ? sprintf("%." d "f", m) : "\\rg{" sprintf("%." d "f", m) "}{" sprintf("%." d "f", med_lo) "}{" sprintf("%." d "f", med_hi) "}"
}
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f) }
get(f, "mode") == "stress" && get(f, "fault") != "" {
    a = get(f, "algo"); ft = get(f, "fault")
    # the fault's kinds without their times, for the macros' names
    kind = ft; gsub(/@[^+]*/, "", kind)
    k = ft SUBSEP a
    if (!(k in runs)) { order[++nr] = k; fault[k] = ft; algo[k] = a; kindof[k] = kind }
    if (!(kind in kseen)) { kseen[kind] = 1; kinds[++nkinds] = kind }
    runs[k]++
    o = get(f, "outage_ms"); la = get(f, "lost_admits"); e = get(f, "errors")
    out_[k] = out_[k] " " o; lost[k] = lost[k] " " la; err[k] = err[k] " " e
    hv[k, get(f, "promise_held")]++
    all_out[kind] = all_out[kind] " " o; all_lost[kind] = all_lost[kind] " " la; all_err[kind] = all_err[kind] " " e
    kh[kind, get(f, "promise_held")]++; kr[kind]++
    L = get(f, "limit"); I = get(f, "interval_ns"); threads = get(f, "threads"); shape = get(f, "cluster")
}
END {
    for (i = 1; i <= nr; i++) {
        k = order[i]
        h = ""
        split("yes no n/a uncertain", vv, " ")
        for (j = 1; j <= 4; j++) if (hv[k, vv[j]]) h = h (h == "" ? "" : ", ") hv[k, vv[j]] "\\," tex(vv[j])
        f1 = tex(fault[k]); gsub(/\+/, "+\\allowbreak{}", f1)
        printf "\\texttt{%s} & %s & %d & %s & %s & %s & %s \\\\\n", f1, tt(algo[k]), runs[k],
            spread(out_[k], 0), spread(lost[k], 0), spread(err[k], 0), h >> table
        if (nmin == "" || runs[k] < nmin + 0) nmin = runs[k]
        if (runs[k] > nmax + 0) nmax = runs[k]
        def("cf/" kindof[k] "/" algo[k] "/lost", sprintf("%.0f", median(lost[k])))
        def("cf/" kindof[k] "/" algo[k] "/outage", sprintf("%.0f", median(out_[k])))
    }
    for (i = 1; i <= nkinds; i++) {
        kd = kinds[i]
        median(all_out[kd]); def("cf/" kd "/outage/range", sprintf("%.0f--%.0f", med_lo, med_hi))
        median(all_lost[kd]); def("cf/" kd "/lost/range", med_lo == med_hi ? sprintf("%.0f", med_lo) : sprintf("%.0f--%.0f", med_lo, med_hi))
        def("cf/" kd "/lost/max", sprintf("%.0f", med_hi))
        median(all_err[kd]); def("cf/" kd "/errors/range", med_lo == med_hi ? sprintf("%.0f", med_lo) : sprintf("%.0f--%.0f", med_lo, med_hi))
        def("cf/" kd "/runs", kr[kd])
        h = ""
        split("yes no n/a uncertain", vv, " ")
        for (j = 1; j <= 4; j++) if (kh[kd, vv[j]]) h = h (h == "" ? "" : ", ") kh[kd, vv[j]] " \\emph{" tex(vv[j]) "}"
        def("cf/" kd "/held", h)
    }
    def("cf/n", nmin == "" ? 0 : nmin == nmax ? nmin : nmin "--" nmax)
    def("cf/L", count(L)); def("cf/I", human_ns(I)); def("cf/threads", threads); s = tex(shape); sub(/x/, "\\times{}", s); def("cf/shape", "$" s "$")
    def("cf/kinds", nkinds + 0)
}
EOF
if [ -f "$ref/cluster-faults.csv" ]; then
    {
        cat <<'TEX'
% columns: 7
% numeric: 3-6
\begin{tabular}{@{}>{\raggedright\arraybackslash}p{3.2cm} l *{4}{r} l@{}}
\toprule
fault & algorithm & runs & outage ms & lost admits & errors & held \\
\midrule
TEX
    } > "$out/tab-cluster-faults.tex"
    run_awk "$out/awk/clfaults.awk" -v table="$out/tab-cluster-faults.tex" "$ref/cluster-faults.csv"
    printf '\\bottomrule\n\\end{tabular}\n' >> "$out/tab-cluster-faults.tex"
    printf '%s\n' '\rldef{cf/exists}{1}' >> "$macros"
else
    missing "$ref/cluster-faults.csv" "$out/tab-cluster-faults.tex"
    printf '%s\n' '\rldef{cf/exists}{0}' >> "$macros"
fi

# ---- many nodes, one limit: the nodes suite (simulated) ----------------
# nodes.csv: every coordination strategy on the grid T x N x spread at
# twice L; the frontier table at T = 100 ms, N = 10 and 1000, even spread
# (max and p99 of admitted / L, the derived bound, store calls per
# decision); a second table a strategy: DRL's 7:3 split, the step at the
# largest N, and the I after a node's death; the speed rows' wall time.
prog nodes <<'EOF'
function r2(v) { return v == "" ? "--" : sprintf("%.2f", v) }
function calls(v) { return v == "" ? "--" : v + 0 == 0 ? "0" : v < 0.1 ? sprintf("%.3f", v) : sprintf("%.2f", v) }
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f); e = get(f, "experiment"); c = get(f, "coord"); N = get(f, "nodes"); runs++; dec += get(f, "attempts") }
e == "grid" || e == "drl73" || e == "step" || e == "death" { if (!(c in cseen) && c !~ /:/) { cseen[c] = 1; coords[++nc] = c } }
e == "grid" && get(f, "spread") == "even" && get(f, "sync_ns") == 100000000 && (N == 10 || N == 1000) {
    mx[c, N] = get(f, "max_sliding_ratio"); p99[c, N] = get(f, "window_p99_ratio")
    bd[c, N] = get(f, "bound_ratio"); cpd[c, N] = get(f, "store_calls_per_decision")
    L = get(f, "limit"); I = get(f, "interval_ns"); rtt = get(f, "rtt_ns")
}
e == "grid" { gruns++; if (!(N in nseen)) { nseen[N] = 1; ns_ = ns_ (ns_ == "" ? "" : ", ") N } }
e == "drl73" { share[c] = get(f, "node0_admit_share"); dmx[c] = get(f, "max_sliding_ratio") }
e == "step" && N + 0 >= stepN + 0 { stepN = N }
e == "step" { smx[c, N] = get(f, "step_max_ratio"); conv[c, N] = get(f, "converge_ns") }
e == "death" { dw[c] = get(f, "death_window_ratio"); st[c] = get(f, "stranded"); fr[c] = get(f, "freed_ns"); dN = N }
e == "speed" { sp[c] = get(f, "wall_s"); spdec = get(f, "attempts"); spN = N }
END {
    printf "%% columns: 9\n%% numeric: 2-9\n" > table
    printf "\\begin{tabular}{@{}l *{8}{r}@{}}\n\\toprule\n" > table
    printf " & \\multicolumn{4}{c}{$N = 10$} & \\multicolumn{4}{c}{$N = 1000$} \\\\\n\\cmidrule(lr){2-5}\\cmidrule(lr){6-9}\n" > table
    printf "strategy & max & p99 & bound & calls & max & p99 & bound & calls \\\\\n\\midrule\n" > table
    for (i = 1; i <= nc; i++) {
        c = coords[i]
        printf "%s", tt(c) > table
        for (k = 1; k <= 2; k++) {
            N = k == 1 ? 10 : 1000
            printf " & %s & %s & %s & %s", r2(mx[c, N]), r2(p99[c, N]), r2(bd[c, N]), calls(cpd[c, N]) > table
            def("nodes/" c "/" N "/max", r2(mx[c, N])); def("nodes/" c "/" N "/calls", calls(cpd[c, N]))
            def("nodes/" c "/" N "/p99", r2(p99[c, N]))
        }
        printf " \\\\\n" > table
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table
    printf "%% columns: 7\n%% numeric: 2-7\n" > table2
    printf "\\begin{tabular}{@{}l *{6}{r}@{}}\n\\toprule\n" > table2
    printf " & \\multicolumn{2}{c}{DRL 7:3} & \\multicolumn{2}{c}{step, $N = %s$} & \\multicolumn{2}{c}{node dies, $N = %s$} \\\\\n", stepN, dN > table2
    printf "\\cmidrule(lr){2-3}\\cmidrule(lr){4-5}\\cmidrule(lr){6-7}\n" > table2
    printf "strategy & share & max & max & settle s & admitted & stranded \\\\\n\\midrule\n" > table2
    for (i = 1; i <= nc; i++) {
        c = coords[i]
        printf "%s & %s & %s & %s & %s & %s & %s \\\\\n", tt(c), share[c] == "" ? "--" : sprintf("%.3f", share[c]), r2(dmx[c]),
            r2(smx[c, stepN]), conv[c, stepN] == "" ? "--" : sprintf("%.1f", conv[c, stepN] / 1e9), r2(dw[c]), st[c] == "" ? "--" : st[c] > table2
        if (share[c] != "") def("nodes/drl/" c, sprintf("%.3f", share[c]))
    }
    c = "lease:k=250"
    if (c in dw) {
        printf "%s & -- & -- & -- & -- & %s & %s \\\\\n", tt(c), r2(dw[c]), st[c] > table2
        def("nodes/death/big/stranded", st[c]); def("nodes/death/big/admitted", r2(dw[c]))
        def("nodes/death/big/freed", sprintf("%.0f", fr[c] / 1e6))
    }
    printf "\\bottomrule\n\\end{tabular}\n" > table2
    def("nodes/runs", count(runs)); def("nodes/decisions", sprintf("%.1f", dec / 1e6)); def("nodes/gridruns", count(gruns))
    def("nodes/Ns", ns_); def("nodes/L", count(L)); def("nodes/I", human_ns(I)); def("nodes/rtt", human_ns(rtt))
    def("nodes/stepN", stepN); def("nodes/deathN", dN)
    def("nodes/speed/decisions", sprintf("%.1f", spdec / 1e6)); def("nodes/speed/nodes", count(spN))
    def("nodes/speed/central", sprintf("%.1f", sp["central"])); def("nodes/speed/report", sprintf("%.1f", sp["report"]))
}
EOF
if [ -f "$ref/nodes.csv" ]; then
    run_awk "$out/awk/nodes.awk" -v table="$out/tab-nodes.tex" -v table2="$out/tab-nodes-more.tex" "$ref/nodes.csv"
    printf '%s\n' '\rldef{nodes/exists}{1}' >> "$macros"
else
    missing "$ref/nodes.csv" "$out/tab-nodes.tex"
    missing "$ref/nodes.csv" "$out/tab-nodes-more.tex"
    printf '%s\n' '\rldef{nodes/exists}{0}' >> "$macros"
fi

# ---- shaping: every shaper's distance from the ideal and its cost --------
# shaping.csv: distance rows (sim, six workloads, check --promise shape)
# and cost rows (the shape call without the sleep, 1 thread; tb_cas's
# admit path as the floor). A row a shaper: the worst late p50/p99/max
# over the workloads in ms, the workloads whose output left the curve, the
# median ns per decision.
prog shaping <<'EOF'
function ms(v) { return sprintf("%.0f", v / 1e6) }
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f); e = get(f, "experiment"); a = get(f, "algo") }
e == "distance" {
    if (!(a in w)) order[++na] = a
    w[a]++; L = get(f, "limit"); B = get(f, "burst")
    if (get(f, "late_p50_ns") + 0 > p50[a]) p50[a] = get(f, "late_p50_ns") + 0
    if (get(f, "late_p99_ns") + 0 > p99[a]) p99[a] = get(f, "late_p99_ns") + 0
    if (get(f, "late_max_ns") + 0 > mx[a]) mx[a] = get(f, "late_max_ns") + 0
    if (get(f, "curve_violations") + 0 > 0 || get(f, "noncausal") + 0 > 0) broken[a]++
}
e == "cost" { cost[a] = get(f, "ns_per_decision") }
END {
    printf "%% columns: 6\n%% numeric: 2-6\n" > table
    printf "\\begin{tabular}{@{}l *{5}{r}@{}}\n\\toprule\n" > table
    printf "shaper & late p50 & p99 & max & curve left & ns/decision \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) {
        a = order[i]
        printf "%s & %s & %s & %s & %d & %s \\\\\n", tt(a), ms(p50[a]), ms(p99[a]), ms(mx[a]), broken[a], sig(cost[a]) > table
    }
    printf "\\midrule\n%s & -- & -- & -- & -- & %s \\\\\n", tt("tb_cas"), sig(cost["tb_cas"]) > table
    printf "\\bottomrule\n\\end{tabular}\n" > table
    def("shaping/L", count(L)); def("shaping/B", count(B)); def("shaping/shapers", count(na))
    def("shaping/floor", sig(cost["tb_cas"])); def("shaping/spacer/ns", sig(cost["gcra_spacer"]))
    def("shaping/uber/late", ms(mx["pacer_uber"])); def("shaping/warmup/late", ms(mx["guava_warmup"]))
    def("shaping/nginx/ns", sig(cost["nginx_delay"]))
    def("shaping/bug/broken", count(broken["pacer_uber_idle_bug"] + 0))
}
EOF
if [ -f "$ref/shaping.csv" ]; then
    run_awk "$out/awk/shaping.awk" -v table="$out/tab-shaping.tex" "$ref/shaping.csv"
    printf '%s\n' '\rldef{shaping/exists}{1}' >> "$macros"
else
    missing "$ref/shaping.csv" "$out/tab-shaping.tex"
    printf '%s\n' '\rldef{shaping/exists}{0}' >> "$macros"
fi

# ---- linearizable: recorded 2-thread histories judged per algorithm -----
# linearizable.csv (bench --suite linearizable): a row an algorithm, the
# kept run's operations, threads, verdict, mode, overshoot score, false
# rejects, check time and the run kept. perf.csv's two linearizable goal
# rows, when there: witness mode ÷ check --promise (ratio) and search mode's
# seconds on 10^5 operations (ratio × 10 s).
prog linearizable <<'EOF'
function verdict(v) { return v == "linearizable" ? "yes" : v == "not linearizable" ? "\\textbf{no}" : v == "no concurrent history" ? "no concurrent run" : "unknown" }
NR == 1 { n = csv_split($0, f); header(f, n); next }
{
    n = csv_split($0, f); na++
    a = get(f, "algo"); v = get(f, "verdict"); o = get(f, "overshoot")
    L = get(f, "limit"); I = get(f, "interval_ns"); M = get(f, "history_max"); T = get(f, "tries") + 0
    if (get(f, "runs") + 0 > R) R = get(f, "runs") + 0
    row[na] = sprintf("%s & %s & %s & %s & %s & %s & %s & %s & %s", tt(a), count(get(f, "operations")),
        get(f, "threads"), verdict(v), get(f, "check_mode"), o == "" ? "--" : o,
        get(f, "false_rejects") == "" ? "--" : (get(f, "false_rejects_exact") == "no" ? "$\\le$" : "") get(f, "false_rejects"),
        sprintf("%.1f", get(f, "check_s") * 1000), T)
    nv[v]++
    if (a == "fw_atomic_naive") { nav = v; nao = o; nat = T }
}
END {
    printf "%% columns: 9\n%% numeric: 2-3\n" > table
    printf "\\begin{tabular}{@{}l r r l l r r r r@{}}\n\\toprule\n" > table
    printf "algorithm & ops & threads & linearizable & mode & overshoot & false rej. & check ms & run \\\\\n\\midrule\n" > table
    for (i = 1; i <= na; i++) printf "%s \\\\\n", row[i] > table
    printf "\\bottomrule\n\\end{tabular}\n" > table
    def("lin/algos", count(na)); def("lin/yes", count(nv["linearizable"] + 0))
    def("lin/no", count(nv["not linearizable"] + 0)); def("lin/unknown", count(nv["unknown"] + 0))
    def("lin/L", count(L)); def("lin/I/us", count(I / 1000)); def("lin/max", count(M)); def("lin/runs", count(R))
    def("lin/naive/verdict", nav == "" ? "not run" : nav); def("lin/naive/overshoot", nao == "" ? "--" : nao)
    def("lin/naive/run", count(nat + 0))
}
EOF
prog linperf <<'EOF'
NR == 1 { n = csv_split($0, f); header(f, n); next }
{ n = csv_split($0, f); g = get(f, "goal") }
g ~ /^linearizable witness/ { w = get(f, "ratio"); have++ }
g ~ /^linearizable search/ { s = get(f, "ratio") * 10; have++ }
END {
    def("linperf/exists", have == 2 ? 1 : 0)
    if (have == 2) { def("linperf/witness", sprintf("%.2f", w)); def("linperf/search/s", sig(s)) }
}
EOF
if [ -f "$ref/linearizable.csv" ]; then
    run_awk "$out/awk/linearizable.awk" -v table="$out/tab-linearizable.tex" "$ref/linearizable.csv"
    printf '%s\n' '\rldef{lin/exists}{1}' >> "$macros"
else
    missing "$ref/linearizable.csv" "$out/tab-linearizable.tex"
    printf '%s\n' '\rldef{lin/exists}{0}' >> "$macros"
fi
if [ -f "$ref/perf.csv" ]; then
    run_awk "$out/awk/linperf.awk" "$ref/perf.csv"
else
    printf '%s\n' '\rldef{linperf/exists}{0}' >> "$macros"
fi
# the smallest counterexample of fw_atomic_naive (docs/examples, teaching.md
# lesson 7) as the checker prints it, for a verbatim figure (check exits 1:
# not linearizable)
{
    printf '%s\n' '\begin{verbatim}'
    { "$ratelab" check --linearizable --algo fw_atomic_naive --limit 2 --interval 20us \
        --events docs/examples/fw_atomic_naive.history.csv || true; } | sed -n '/^counterexample/,$p' | sed 's/ ! no order lets.*/ !/'
    printf '%s\n' '\end{verbatim}'
} > "$out/lin-counter.tex"

# ---- noise: what the machine was doing when each run started -----------
prog noise <<'EOF'
# stress and replay rows: how many carry load_1m and runnable, how many
# started on a busy machine (both above the CPUs: results/README.md)
FNR == 1 {
    if (file != "") emit()
    file = FILENAME; runs = 0; rec = 0; busy = 0; maxr = ""; maxl = ""; cpus = ""
    split("", col); n = csv_split($0, f); header(f, n); hasload = ("runnable" in col); next
}
{
    n = csv_split($0, f)
    m = get(f, "mode")
    if (m != "stress" && m != "replay") next
    runs++; cpus = get(f, "cpus")
    r = get(f, "runnable"); l = get(f, "load_1m")
    if (r == "" || l == "") next
    rec++
    if (r + 0 > cpus + 0 && l + 0 > cpus + 0) busy++
    if (maxr == "" || r + 0 > maxr + 0) maxr = r
    if (maxl == "" || l + 0 > maxl + 0) maxl = l
}
function emit(   name) {
    if (runs == 0) return
    name = file; sub(/.*\//, "", name); sub(/\.csv$/, "", name)
    if (hasload)
        printf "%s & %d & %s & %d & %d & %s & %s \\\\\n", tt(name ".csv"), runs, cpus, rec, busy,
            (maxr == "" ? "--" : maxr), (maxl == "" ? "--" : maxl) >> table
    else
        printf "%s & %d & %s & \\multicolumn{4}{l}{\\emph{not recorded: written before the columns existed}} \\\\\n",
            tt(name ".csv"), runs, cpus >> table
    def("noise/" name "/runs", runs); def("noise/" name "/busy", hasload ? busy : "--")
    def("noise/" name "/recorded", hasload ? rec : 0)
    if (hasload) {
        withload++; allbusy += busy; allrec += rec
        loadfiles = loadfiles (loadfiles == "" ? "" : ", ") "\\texttt{" tex(name) ".csv}"
        if (maxl != "") def("noise/" name "/maxload", maxl)
        if (maxr != "") def("noise/" name "/maxrunnable", maxr)
    } else without++
    allruns += runs
}
END {
    emit()
    def("noise/withload", withload + 0); def("noise/without", without + 0); def("noise/busy", allbusy + 0)
    def("noise/recorded", allrec + 0); def("noise/runs", allruns + 0)
    def("noise/loadfiles", loadfiles == "" ? "none" : loadfiles)
}
EOF
cat > "$out/tab-noise.tex" <<'TEX'
% columns: 7
% numeric: 2-7
\begin{tabular}{@{}l *{6}{r}@{}}
\toprule
 & timed & & load & started & \multicolumn{2}{c}{most at a start} \\
\cmidrule(lr){6-7}
file & runs & CPUs & recorded & busy & runnable & \texttt{load\_1m} \\
\midrule
TEX
noisefiles=""
for f in "$ref"/*.csv; do
    case $(basename "$f") in latency-* | claims.csv) continue ;; esac
    noisefiles="$noisefiles $f"
done
# shellcheck disable=SC2086
run_awk "$out/awk/noise.awk" -v table="$out/tab-noise.tex" $noisefiles
printf '\\bottomrule\n\\end{tabular}\n' >> "$out/tab-noise.tex"

# ---- the claims registry -------------------------------------------------
# reference/claims.csv: one row a claim of a source, the experiment that
# checks it, its verdict. A claim's source is cited by the BibTeX entry
# whose url the row's url is or contains, or whose `claims` field names the
# claim (paper/ratelab.bib); otherwise by org and year.
prog claims <<'EOF'
FNR == 1 { bib = (FILENAME ~ /\.bib$/) }
bib && /^@/ { k = $0; sub(/^@[a-zA-Z]*\{/, "", k); sub(/,.*/, "", k); next }
bib && /^[ \t]*url[ \t]*=/ { u = $0; sub(/^[^{]*\{/, "", u); sub(/\}.*$/, "", u); sub(/\/$/, "", u); keyof[u] = k; next }
bib && /^[ \t]*claims[ \t]*=/ { c = $0; sub(/^[^{]*\{/, "", c); sub(/\}.*$/, "", c); nc = split(c, cl, /[ ,]+/); for (i = 1; i <= nc; i++) keyofid[cl[i]] = k; next }
bib { next }
FNR == 1 { n = csv_split($0, f); header(f, n); next }
{
    n = csv_split($0, f)
    u = get(f, "url"); sub(/\/$/, "", u)
    # org and year as the row gives them, less the "not found" placeholders
    org = get(f, "source_org"); yr = get(f, "year")
    if (org ~ /^(author )?not found/) org = "unattributed"
    if (yr ~ /^not (found|checked)/) yr = "undated"
    # the bib entry whose url the row names, alone or inside a note such as
    # "URL not found (original); republished copy: URL", or that names the
    # claim in its `claims` field (a source without a URL)
    key = (u in keyof) ? keyof[u] : ""
    if (key == "") for (bu in keyof) if (bu != "" && index(u, bu)) key = keyof[bu]
    if (key == "" && get(f, "id") in keyofid) key = keyofid[get(f, "id")]
    src = key != "" ? "\\cite{" key "}" : tex(org ", " yr)
    v = get(f, "verdict"); s = get(f, "seconds")
    # an id may break after an underscore: one word wider than its column
    # would run into the next
    id = tex(get(f, "id")); gsub(/\\_/, "\\_\\allowbreak{}", id)
    printf "%s & %s & %s & \\verdict{%s} & %s \\\\\n", id, src, tex(get(f, "claim")), tex(v),
        tex(get(f, "condition")) >> table
    # a command may break after a comma too: a long printf argument has
    # neither space nor underscore
    cmd = tt(get(f, "command")); gsub(/,/, ",\\allowbreak{}", cmd)
    printf "%s & %s & %s & %s & %s \\\\\n", tex(get(f, "id")), tex(get(f, "experiment")), cmd,
        tex(get(f, "deterministic")), (s == "" ? "--" : s + 0 < 10 ? sprintf("%.1f", s) : sprintf("%.0f", s)) >> table2
    total++; by[v]++
    if (!(v in vseen)) { vseen[v] = 1; vl[++nv] = v }
    if (get(f, "git_rev") != "" && !(get(f, "git_rev") in rseen)) { rseen[get(f, "git_rev")] = 1; revs = revs (revs == "" ? "" : ", ") "\\texttt{" tex(get(f, "git_rev")) "}" }
    if (get(f, "host") != "" && !(get(f, "host") in hseen)) { hseen[get(f, "host")] = 1; hosts = hosts (hosts == "" ? "" : ", ") tex(get(f, "host")) }
    d = substr(get(f, "date"), 1, 10); if (d != "" && (first == "" || d < first)) first = d; if (d > last) last = d
}
END {
    def("claims/count", total + 0)
    s = ""
    for (i = 1; i <= nv; i++) s = s (i == 1 ? "" : i == nv ? " and " : ", ") by[vl[i]] " \\emph{" tex(vl[i]) "}"
    def("claims/verdicts", s == "" ? "none" : s)
    def("claims/src", "\\texttt{results/reference/claims.csv}: host " (hosts == "" ? "--" : hosts) ", revision " (revs == "" ? "--" : revs) ", " (first == last ? first : first " to " last))
}
EOF
claims_head() { # claims_head COLUMN-SPEC HEADER
    printf '%% columns: 5\n'
    printf '\\begin{xltabular}{\\linewidth}{%s}\n' "$1"
    printf '\\toprule\n%s \\\\\n\\midrule\n\\endfirsthead\n' "$2"
    printf '\\toprule\n%s \\\\\n\\midrule\n\\endhead\n\\bottomrule\n\\endfoot\n' "$2"
}
if [ -f "$ref/claims.csv" ]; then
    # The source and id are bounded too: an l column takes its widest cell,
    # and a long source name would leave the claim a sliver.
    claims_head '@{}>{\raggedright\arraybackslash}p{2.3cm} >{\raggedright\arraybackslash}p{2.2cm} >{\raggedright\arraybackslash}X l >{\raggedright\arraybackslash}X@{}' \
        'id & source & claim & verdict & condition' > "$out/tab-claims.tex"
    {
        claims_head '@{}l >{\raggedright\arraybackslash}p{3.5cm} >{\raggedright\arraybackslash}X l r@{}' \
            'id & experiment & command & deterministic & seconds'
        printf '%s\n' '% numeric: 5'
    } > "$out/tab-claims-cmd.tex"
    run_awk "$out/awk/claims.awk" -v table="$out/tab-claims.tex" -v table2="$out/tab-claims-cmd.tex" \
        "$here/ratelab.bib" "$ref/claims.csv"
    printf '%s\n' '\end{xltabular}' >> "$out/tab-claims.tex"
    printf '%s\n' '\end{xltabular}' >> "$out/tab-claims-cmd.tex"
    printf '%s\n' '\rldef{claims/exists}{1}' >> "$macros"
else
    echo "tables: $ref/claims.csv not found: the claims table says it is not yet generated" >&2
    printf '%s\n' '\rldef{claims/exists}{0}' >> "$macros"
    for t in claims claims-cmd; do
        printf '%% columns: 0\n\\emph{Not yet generated: the claims registry \\texttt{%s} does not exist yet.}\n' \
            "$ref/claims.csv" > "$out/tab-$t.tex"
    done
fi

# ---- the commands that made the reference runs ---------------------------
# From results/README.md's "Reference runs" table: one item a command.
prog commands <<'EOF'
/^\| `reference\// {
    n = split($0, cell, "|")
    files = cell[2]; cmd = cell[3]
    gsub(/^[ \t]*`|`[ \t]*$/, "", cmd)
    gsub(/`/, "", files); gsub(/^[ \t]+|[ \t]+$/, "", files)
    # the command is the cell's first code span; the rest is a note, its
    # Markdown links as their text and code spans as typewriter
    note = ""
    if (match(cmd, /`/)) { note = substr(cmd, RSTART + 1); cmd = substr(cmd, 1, RSTART - 1) }
    gsub(/\[[^]]*\]\([^)]*\)/, "\001&", note)
    while (match(note, /\001\[[^]]*\]\([^)]*\)/)) {
        link = substr(note, RSTART + 2, RLENGTH - 2); sub(/\].*/, "", link)
        note = substr(note, 1, RSTART - 1) link substr(note, RSTART + RLENGTH)
    }
    gsub(/^[ \t]+|[ \t]+$/, "", note)
    rest = ""
    while (match(note, /`[^`]*`/)) {
        rest = rest tex(substr(note, 1, RSTART - 1)) tt(substr(note, RSTART + 1, RLENGTH - 2))
        note = substr(note, RSTART + RLENGTH)
    }
    rest = rest tex(note)
    printf "\\item[%s] %s%s\n", tt(files), tt(cmd), (rest == "" ? "" : " " rest)
    items++
}
END { if (!items) print "\\item[] \\emph{No command found in results/README.md.}" }
EOF
{
    printf '%s\n' '% columns: 0'
    printf '%s\n' '\begin{description}[font=\normalfont,style=nextline,leftmargin=1.5em]'
    if [ -f "$res/README.md" ]; then
        run_awk "$out/awk/commands.awk" "$res/README.md"
    else
        printf '%s\n' '\item[] \emph{results/README.md not found.}'
    fi
    printf '%s\n' '\end{description}'
} > "$out/tab-commands.tex"

# ---- the build itself ----------------------------------------------------
# The revision the paper is built from; the committed PDF itself does not
# make it dirty (rebuilding overwrites it).
rev=$(git describe --always 2>/dev/null || echo unknown)
git diff --quiet HEAD -- . ':!paper/ratelab.pdf' 2>/dev/null || rev="$rev-dirty"
printf '\\rldef{build/rev}{%s}\n' "$rev" >> "$macros"
