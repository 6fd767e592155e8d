#!/bin/sh
# gbench_check.sh — the same limiters timed twice on one thread, by Google
# Benchmark (ratelab-gbench) and by `ratelab stress`, with the ratio of their
# ns/op. The two should agree within 20%.
#
#   sh harness/gbench_check.sh [GBENCH_BIN [RATELAB_BIN]]     (make gbench-check)
#
# GBENCH_CHECK_ALGOS (comma-separated) replaces the default set. Each tool
# runs every algorithm 3 times, about 1 s each, and the medians are compared.
# `null` (an acquire that does nothing) times the two harness loops alone;
# its difference is the one part of any other difference that is the tools'.
#
# A disagreement is printed as DISAGREE with the cause this script can tell
# apart (noise, when the fastest runs agree; the loops' own difference, when
# the gap is no larger than null's); it is not a failure. Exit status: 0 when
# both tools measured every algorithm, 1 when a run failed or left one out,
# 2 for bad usage.
set -u

gbench=${1:-build/ratelab-gbench}
ratelab=${2:-build/ratelab}
algos=${GBENCH_CHECK_ALGOS:-null,faa,clock_faa,fw_cas,fw_mutex,tb_cas,gcra_cas,sliding_log}
reps=3
tolerance=0.20

for bin in "$gbench" "$ratelab"; do
    if [ ! -x "$bin" ]; then
        echo "gbench_check: $bin is not an executable (run make gbench first)" >&2
        exit 2
    fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# Exactly these names at one thread: "fw_cas/" never matches fw_cas_acqrel.
filter="^($(printf '%s' "$algos" | tr ',' '|'))/real_time/threads:1\$"
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown; }

echo "gbench-check: one thread, the default limiter (L=1000 per 100ms), $reps runs of about 1 s each"
echo "  \$ $gbench --benchmark_filter='$filter' --benchmark_repetitions=$reps --benchmark_min_time=1 --benchmark_format=csv"
echo "  \$ $ratelab stress --algo $algos --threads 1 --reps $reps --format csv"
load_before=$(load)
if ! "$gbench" --benchmark_filter="$filter" --benchmark_repetitions=$reps --benchmark_min_time=1 \
    --benchmark_format=csv >"$tmp/gbench.csv" 2>"$tmp/gbench.err"; then
    echo "gbench_check: ratelab-gbench failed:" >&2
    cat "$tmp/gbench.err" >&2
    exit 1
fi
if ! "$ratelab" stress --algo "$algos" --threads 1 --reps $reps --format csv \
    >"$tmp/stress.csv" 2>"$tmp/stress.err"; then
    echo "gbench_check: ratelab stress failed:" >&2
    cat "$tmp/stress.err" >&2
    exit 1
fi
echo "  load average $load_before before, $(load) after, on $(getconf _NPROCESSORS_ONLN) CPUs"

# Both files become "tool algo ns_per_op" lines, one per run. Google
# Benchmark's per-run rows are named "ALGO/real_time/threads:1" (its
# aggregates carry a suffix and are skipped); its time is in time_unit.
awk -F, '
    function column(name,   i) { for (i = 1; i <= NF; i++) if ($i == name) return i; return 0 }
    /^name,/ { name_col = column("name"); time_col = column("real_time");
               unit_col = column("time_unit"); error_col = column("error_occurred"); next }
    name_col == 0 { next }
    {
        name = $name_col; gsub(/"/, "", name)
        if (name !~ /\/real_time\/threads:1$/) next
        algo = name; sub(/\/.*/, "", algo)
        if ($error_col == "true") { print "gbench", algo, "error"; next }
        scale = $unit_col == "us" ? 1e3 : $unit_col == "ms" ? 1e6 : $unit_col == "s" ? 1e9 : 1
        print "gbench", algo, $time_col * scale
    }' "$tmp/gbench.csv" >"$tmp/runs"
awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "algo") a = i; if ($i == "ns_per_op") t = i }; next }
    { print "stress", $a, $t }' "$tmp/stress.csv" >>"$tmp/runs"

# Per algorithm and tool: median and min-max over the runs, the ratio of
# the medians, and for a disagreement the cause that the numbers show.
printf '%s\n' "$algos" | tr ',' '\n' | awk -v tolerance="$tolerance" -v runs="$tmp/runs" '
    function summarize(tool, algo,   n, i, j, x, v) {
        n = count[tool, algo]
        for (i = 1; i <= n; i++) v[i] = value[tool, algo, i]
        for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        median[tool, algo] = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        least[tool, algo] = v[1]
        return sprintf("%7.1f (%.1f-%.1f)", median[tool, algo], v[1], v[n])
    }
    function within(ratio) { return ratio >= 1 - tolerance && ratio <= 1 + tolerance }
    function abs(x) { return x < 0 ? -x : x }
    BEGIN {
        while ((getline line < runs) > 0) {
            split(line, f, " ")
            if (f[3] == "error") errors[f[1], f[2]] = 1
            else value[f[1], f[2], ++count[f[1], f[2]]] = f[3]
        }
    }
    NF { order[++algos] = $1 }
    END {
        printf "\n%-12s %-22s %-22s %6s\n", "algo", "gbench ns/op (min-max)", "stress ns/op (min-max)", "ratio"
        for (k = 1; k <= algos; k++) {
            algo = order[k]
            if (count["gbench", algo] == 0 || count["stress", algo] == 0) {
                missing[algo] = sprintf("%-12s missing from %s%s", algo,
                                        count["gbench", algo] == 0 ? "ratelab-gbench" : "ratelab stress",
                                        errors["gbench", algo] ? " (it reported an error)" : "")
                failed = 1
                continue
            }
            row[algo] = sprintf("%-12s %-22s %-22s %6.2f", algo, summarize("gbench", algo),
                                 summarize("stress", algo), median["gbench", algo] / median["stress", algo])
        }
        loop_gap = ("null" in row) ? median["stress", "null"] - median["gbench", "null"] : ""
        for (k = 1; k <= algos; k++) {
            algo = order[k]
            if (algo in missing) { print missing[algo]; continue }
            g = median["gbench", algo]; s = median["stress", algo]
            if (algo == "null")
                verdict = sprintf("the loops alone: stress - gbench = %+.1f ns a call", loop_gap)
            else if (within(g / s))
                verdict = "agree"
            else if (within(least["gbench", algo] / least["stress", algo]))
                verdict = sprintf("DISAGREE: noise, the fastest runs agree (%.2f)",
                                  least["gbench", algo] / least["stress", algo])
            else if (loop_gap != "" && abs(g - s) <= abs(loop_gap) + 0.5)
                verdict = sprintf("DISAGREE: the gap (%.1f ns) is no more than the loops differ by (null: %.1f ns)",
                                  s - g, loop_gap)
            else
                verdict = "DISAGREE: not explained here (docs/gbench.md)"
            print row[algo] "  " verdict
        }
        printf "\nratio: Google Benchmark median ÷ ratelab stress median; within %.0f%% is agreement.\n", tolerance * 100
        exit failed
    }'
