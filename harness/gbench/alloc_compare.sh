#!/bin/sh
# alloc_compare.sh — the allocation-heavy configurations under glibc's malloc
# and under jemalloc, in one run, with the ratios of throughput and memory.
#
#   sh harness/gbench/alloc_compare.sh GLIBC_BIN JEMALLOC_BIN     (make alloc-compare)
#
# Each stress configuration runs as its own process, once per binary and
# round, the two binaries back to back in ABBA order (glibc then jemalloc,
# then jemalloc then glibc, …), so a machine that drifts favours neither.
# Throughput is the median Mops/s over every repetition of every round, and
# beside it the spread of those repetitions, (max − min) ÷ median, the larger
# of the two sides: a ratio within the spread is not a difference. Peak RSS
# is the largest over the rounds of the process's maximum resident set, from
# GNU time (/usr/bin/time -f %M, Debian package `time`). `keys` works in
# virtual time and its memory figures repeat exactly, so it runs once per
# binary. The allocator column of the rows is checked, so a binary that is
# not on the malloc it should be stops the run.
#
# ALLOC_COMPARE_DURATION (default 300ms), ALLOC_COMPARE_REPS (default 3) and
# ALLOC_COMPARE_ROUNDS (default 2) set every stress run's --duration and
# --reps and the processes per binary. Exit 1 when a run fails, 2 for bad
# usage.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: alloc_compare.sh GLIBC_BIN JEMALLOC_BIN" >&2
    exit 2
fi
glibc_bin=$1 jemalloc_bin=$2
duration=${ALLOC_COMPARE_DURATION:-300ms}
reps=${ALLOC_COMPARE_REPS:-3}
rounds=${ALLOC_COMPARE_ROUNDS:-2}
case $rounds in
'' | *[!0-9]* | 0)
    echo "alloc_compare: ALLOC_COMPARE_ROUNDS must be a positive integer, not '$rounds'" >&2
    exit 2
    ;;
esac
timer=/usr/bin/time
if ! "$timer" -f %M -o /dev/null true 2>/dev/null; then
    echo "alloc_compare: needs GNU time as $timer (Debian package 'time': make deps)" >&2
    exit 1
fi
for bin in "$glibc_bin" "$jemalloc_bin"; do
    if [ ! -x "$bin" ]; then
        echo "alloc_compare: no binary $bin (make alloc-compare builds both)" >&2
        exit 2
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# ---- the runs -------------------------------------------------------------
# One configuration a line: an id, then ratelab's arguments. Stress runs get
# --duration, --reps and --format csv added.
cat >"$tmp/runs" <<'EOF'
sl stress --algo sliding_log --threads 1,2 --keys 10000
sls stress --algo sliding_log_sweeper --threads 1,2 --keys 10000
never stress --algo tb_cas --threads 2 --keys 100000 --interval 10ms --expiry never
lazy stress --algo tb_cas --threads 2 --keys 100000 --interval 10ms --expiry lazy
sweeper stress --algo tb_cas --threads 2 --keys 100000 --interval 10ms --expiry sweeper
rec stress --algo null,fw_cas --threads 2 --record
keys keys --algo fw_cas --keys 100000,1000000
EOF
configs=$(wc -l <"$tmp/runs")
stress_configs=$(grep -c ' stress ' "$tmp/runs")
total=$(((stress_configs * rounds + configs - stress_configs) * 2))

# run ID ALLOCATOR ROUND ARGS…: stdout to $tmp/ID.ALLOCATOR.ROUND.out, peak
# KiB (the last line GNU time writes) to .rss
step=0
run() {
    id=$1 alloc=$2 round=$3
    shift 3
    if [ "$alloc" = glibc ]; then bin=$glibc_bin; else bin=$jemalloc_bin; fi
    if [ "$1" = stress ]; then set -- "$@" --duration "$duration" --reps "$reps" --format csv; fi
    step=$((step + 1))
    echo "alloc-compare [$step/$total] $alloc: $*" >&2
    base=$tmp/$id.$alloc.$round
    if ! "$timer" -f %M -o "$base.rss" "$bin" "$@" </dev/null >"$base.out" 2>"$base.err"; then
        echo "alloc_compare: $bin $* failed:" >&2
        tail -n 5 "$base.err" >&2
        exit 1
    fi
}

flip=0
while read -r id args; do
    n=$rounds
    case $args in stress*) ;; *) n=1 ;; esac
    r=1
    while [ "$r" -le "$n" ]; do
        # shellcheck disable=SC2086 # the arguments are meant to split
        if [ $flip -eq 0 ]; then
            run "$id" glibc $r $args
            run "$id" jemalloc $r $args
        else
            run "$id" jemalloc $r $args
            run "$id" glibc $r $args
        fi
        flip=$((1 - flip))
        r=$((r + 1))
    done
    # every round's rows in one file (one CSV header), and the largest peak
    for alloc in glibc jemalloc; do
        awk 'FNR > 1 || NR == 1' "$tmp/$id.$alloc".*.out >"$tmp/$id.$alloc.out"
        for f in "$tmp/$id.$alloc".*.rss; do tail -n 1 "$f"; done | sort -n | tail -n 1 \
            >"$tmp/$id.$alloc.rss"
    done
done <"$tmp/runs"

# ---- reading the results --------------------------------------------------
# A CSV splitter that honours quotes, shared by the awk programs below.
csv_awk='
function csv_split(line, f,    n, i, c, quoted, field) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field c; i++ }
            else if (c == "\"") quoted = 0
            else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}'

# column FILE NAME: every row's value of column NAME, one a line
column() {
    awk -v want="$2" "$csv_awk"'
        NR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) if (h[i] == want) col = i; next }
        col { csv_split($0, f); print f[col] }' "$1"
}

# mops FILE ALGO THREADS RECORDED: "median min max count" of those rows' Mops/s
mops() {
    awk -v algo="$2" -v threads="$3" -v recorded="$4" "$csv_awk"'
        NR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) c[h[i]] = i; next }
        { csv_split($0, f) }
        f[c["algo"]] == algo && f[c["threads"]] == threads && f[c["recorded"]] == recorded {
            v[++k] = f[c["mops"]] + 0
        }
        END {
            if (k == 0) { print "- - - 0"; exit }
            for (i = 2; i <= k; i++)
                for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            print ((k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2), v[1], v[k], k
        }' "$1"
}

# bytes_per_key FILE KEYS: the keys command's bytes_per_key at KEYS keys
bytes_per_key() {
    awk -v keys="$2" '/bytes_per_key/ { table = 1; next }
        table && NF == 2 && $1 == keys { print $2; exit }
        table && NF != 2 { exit }' "$1"
}

# churn_mib FILE EXPIRY: RSS growth (MiB) at the end of the keys command's churn
churn_mib() {
    awk -v expiry="$2" '$1 == expiry {
        for (i = 2; i <= NF; i++) if ($i == "created") { print $(i - 1); exit } }' "$1"
}

# peak_mib ID ALLOCATOR: the process's peak RSS in MiB
peak_mib() {
    awk '{ printf "%.1f", $1 / 1024 }' "$tmp/$1.$2.rss"
}

line_format='  %-34s %-15s %10s %10s %7s %7s\n'

# row LABEL METRIC FORMAT GLIBC JEMALLOC [SPREAD]: one line of the table;
# FORMAT is a printf format or "mops"
row() {
    awk -v label="$1" -v metric="$2" -v fmt="$3" -v g="$4" -v j="$5" -v spread="${6:-}" \
        -v line="$line_format" 'BEGIN {
        gv = number(g, fmt); jv = number(j, fmt)
        ratio = (gv == "-" || jv == "-" || g + 0 == 0) ? "-" : sprintf("%.2f", j / g)
        out = sprintf(line, label, metric, gv, jv, ratio, spread)
        sub(/ +\n$/, "\n", out)
        printf "%s", out
    }
    # Mops/s with three decimals as ratelab prints them, five when below 0.1
    function number(v, fmt) {
        if (v == "" || v == "-") return "-"
        if (fmt == "mops") fmt = v + 0 < 0.1 ? "%.5f" : "%.3f"
        return sprintf(fmt, v)
    }'
}

# stress_row ID ALGO THREADS RECORDED LABEL
stress_row() {
    # shellcheck disable=SC2046 # "median min max count", split on purpose
    set -- "$5" $(mops "$tmp/$1.glibc.out" "$2" "$3" "$4") $(mops "$tmp/$1.jemalloc.out" "$2" "$3" "$4")
    spread=$(awk -v gm="$2" -v gl="$3" -v gh="$4" -v gk="$5" -v jm="$6" -v jl="$7" -v jh="$8" \
        -v jk="$9" 'BEGIN {
        if (gm + 0 <= 0 || jm + 0 <= 0 || gk < 2 || jk < 2) { print "-"; exit }
        a = (gh - gl) / gm; b = (jh - jl) / jm
        printf "%.0f%%", 100 * (a > b ? a : b) }')
    row "$1" Mops/s mops "$2" "$6" "$spread"
}

peak_row() { # ID
    row "peak RSS of the process" MiB %.1f "$(peak_mib "$1" glibc)" "$(peak_mib "$1" jemalloc)"
}

command_of() { # ID
    awk -v id="$1" '$1 == id { $1 = ""; sub(/^ /, ""); print; exit }' "$tmp/runs"
}

# ---- the table ------------------------------------------------------------
for alloc in glibc jemalloc; do
    found=$(column "$tmp/sl.$alloc.out" allocator | sort -u)
    case $alloc:$found in
    glibc:glibc | jemalloc:"jemalloc "*) ;;
    *)
        echo "alloc_compare: the $alloc binary reports allocator '$found'" >&2
        exit 1
        ;;
    esac
    eval "name_$alloc=\$found"
done
host=$(column "$tmp/sl.glibc.out" host | head -n 1)
cores=$(column "$tmp/sl.glibc.out" cores | head -n 1)

# shellcheck disable=SC2154 # name_glibc and name_jemalloc are set by eval
printf '\nalloc-compare on %s (%s cores): %s (%s) against\n  %s (%s)\n' \
    "$host" "$cores" "$name_glibc" "$glibc_bin" "$name_jemalloc" "$jemalloc_bin"
printf 'stress runs: --duration %s --reps %s, %s rounds (ABBA); Mops/s: median over all reps;\n' \
    "$duration" "$reps" "$rounds"
printf 'spread: (max - min) / median of those reps, the larger side; ratio = jemalloc / glibc\n'
printf '(Mops/s above 1: jemalloc faster; MiB and bytes/key below 1: jemalloc smaller)\n\n'
# shellcheck disable=SC2059 # the format is ours
printf "$line_format" configuration metric glibc jemalloc ratio spread

for id in sl sls; do
    command_of $id
    algo=$(awk -v id=$id '$1 == id { print $4 }' "$tmp/runs")
    for t in 1 2; do stress_row $id "$algo" $t no "$algo x$t"; done
    peak_row $id
done
for id in never lazy sweeper; do
    command_of $id
    stress_row $id tb_cas 2 no "tb_cas x2, expiry $id"
    peak_row $id
done
command_of rec
for algo in null fw_cas; do
    stress_row rec $algo 2 no "$algo x2"
    stress_row rec $algo 2 yes "$algo x2 recorded"
done
peak_row rec
command_of keys
for k in 100000 1000000; do
    row "fw_cas, $k keys" bytes/key %.1f "$(bytes_per_key "$tmp/keys.glibc.out" $k)" \
        "$(bytes_per_key "$tmp/keys.jemalloc.out" $k)"
done
for expiry in never lazy sweeper; do
    row "churn, expiry $expiry, at the end" "RSS growth MiB" %.1f \
        "$(churn_mib "$tmp/keys.glibc.out" $expiry)" "$(churn_mib "$tmp/keys.jemalloc.out" $expiry)"
done
peak_row keys
