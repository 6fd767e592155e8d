#!/bin/sh
# render.sh — draw ratelab's figures from results CSVs, PNG and SVG.
#
#   plots/render.sh OUTDIR RATELAB FILE.csv...
#
# Which figures a file makes follows from its suite, the start of its name
# (quick-, threads-, memory-order-, accuracy-, clocks-, pareto-, keys-,
# redis-, sharded-, latency-, cluster-, cluster-faults-, nodes-): accuracy bars from
# sim rows, latency CDFs from a latency file (what `bench` writes beside a
# suite with replays), throughput against threads, memory orders, clocks,
# cost against accuracy, keys, Redis, tb_sharded's batch, Redis on clusters
# of 1, 3 and 6 primaries (with the floor file bench writes beside it), and
# the faults' outage and lost admits, and many nodes' frontier, DRL split
# and step response.
# The boundary picture needs no file: it replays the boundary workload with
# RATELAB (sim is deterministic) and draws the decisions. Every number
# drawn comes from a CSV; none is typed here.
set -eu
out=$1 ratelab=$2
shift 2
data=$out/data
mkdir -p "$data"
here=$(dirname "$0")

draw() { # draw NAME SCRIPT GNUPLOT-ASSIGNMENTS; $inputs: the CSVs it reads
    for ext in png svg; do
        gnuplot -e "$3; out='$out/$1.$ext'" "$here/$2"
        # NAME.EXT.src: the CSVs and scripts it was drawn from, by sha256
        # (make reference-check compares them with today's)
        # shellcheck disable=SC2086 # paths without spaces
        [ ! -f "$out/$1.$ext" ] || sh "$here/../tests/provenance.sh" record "$out/$1.$ext" "$out/$1.$ext.src" \
            $inputs -- "$here/render.sh" "$here/common.gp" "$here/$2" "$here"/*.awk
    done
    echo "  $out/$1.png, .svg"
}

summarize() { # summarize FILE BY VALUE WHERE > out
    awk -F, -v by="$2" -v value="$3" -v where="$4" -f "$here/summarize.awk" "$1"
}

cpus_of() { # cpus_of FILE: the CPUs its stress rows ran on, for marking oversubscription
    # A file merged from several hosts is marked from the fewest; NaN marks nothing.
    summarize "$1" cpus cpus mode=stress | sort -n | awk -v f="$1" '
        NR == 1 { print $1 }
        END { if (!NR) print "NaN"; if (NR > 1) print "render: " f ": rows from hosts with different cpus" > "/dev/stderr" }'
}

for csv in "$@"; do
    [ -f "$csv" ] || { echo "render: $csv: no such file" >&2; exit 2; }
    inputs=$csv
    name=$(basename "$csv" .csv)
    case $name in
    quick* | accuracy*)
        awk -F, -f "$here/accuracy.awk" "$csv" > "$data/$name-accuracy.dat"
        if [ -s "$data/$name-accuracy.dat" ]; then
            draw "$name-accuracy" accuracy.gp "data='$data/$name-accuracy.dat'"
        fi
        ;;
    esac
    case $name in
    latency-pareto*) ;; # one replay an algorithm and clock, for accuracy: not drawn
    latency-*)
        awk -f "$here/latency.awk" "$csv" > "$data/$name.dat"
        # the results rows of the same replays, in the file bench wrote
        # beside it (latency-NAME.csv beside NAME.csv): percentiles of the
        # call alone, of the lateness and of the whole
        rows=""
        results=$(dirname "$csv")/${name#latency-}.csv
        if [ -f "$results" ]; then
            rows=$data/$name-rows.dat
            awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                     $(col["mode"]) == "replay" && $(col["rep"]) == 1 {
                         print $(col["workload"]), $(col["algo"]), $(col["svc_p50_ns"]), $(col["svc_p99_ns"]),
                               $(col["late_p99_ns"]), $(col["lat_p99_ns"]), $(col["lat_max_ns"]) }' "$results" > "$rows"
            [ -s "$rows" ] || rows=""
            [ -z "$rows" ] || inputs="$csv $results"
        fi
        draw "$name" latency.gp "data='$data/$name.dat'; rows='$rows'"
        ;;
    esac
    case $name in
    quick* | threads*)
        # in-process limiters only: Redis ones, 1000× slower, get their own
        # figure. One row a design: the buckets (token, GCRA, leaky) share
        # one, the sliding log and counter another.
        awk -F, -f "$here/paths.awk" "$csv" > "$data/$name-paths.dat"
        summarize "$csv" limit,family,algo,threads mops mode=stress,recorded=no,keys=1 \
            | awk '$2 != "concurrency" && $3 !~ /^redis_/ {
                   row = $2
                   if (row == "gcra" || row == "leaky_bucket") row = "token_bucket"
                   if (row == "sliding_counter") row = "sliding_log"
                   $1 = $1 " " row; print }' | awk -v x=5 -f "$here/noise.awk" > "$data/$name-threads.dat"
        summarize "$csv" limit,algo,threads rejects/attempts mode=stress,recorded=no,keys=1 \
            > "$data/$name-threads-rej.dat"
        draw "$name-threads" threads.gp "data='$data/$name-threads.dat'; rej='$data/$name-threads-rej.dat'; paths='$data/$name-paths.dat'; cpus=$(cpus_of "$csv")"
        ;;
    memory-order*)
        # flagged: within noise of the same step at the stronger order
        summarize "$csv" limit,family,algo,threads,orders ns_per_op mode=stress,recorded=no \
            | awk -v by=3 -v ignore=5 -v strip='_(acqrel|relaxed)$' -f "$here/noise.awk" > "$data/$name.dat"
        awk -F, -f "$here/paths.awk" "$csv" > "$data/$name-paths.dat"
        draw "$name" memory_order.gp "data='$data/$name.dat'; paths='$data/$name-paths.dat'; cpus=$(cpus_of "$csv")"
        ;;
    clocks*)
        # Cost from the unrecorded runs (recording adds clock reads around
        # every call), max_sliding/L from the recorded ones; a table a
        # thread count with one column triple a clock. Algorithms that
        # promise no rate are left out of accuracy, as in accuracy.awk.
        counts=$(summarize "$csv" threads threads mode=stress | awk '{printf "%s ", $1}')
        for t in $counts; do
            summarize "$csv" algo,clock ns_per_op mode=stress,recorded=no,threads="$t" \
                | awk -f "$here/pivot.awk" > "$data/$name-cost-$t.dat"
            summarize "$csv" algo,promise,burst,limit,clock max_sliding/limit mode=stress,recorded=yes,threads="$t" \
                | awk '$2 != "none" && $2 != "concurrency"' \
                | awk -v keys=4 -f "$here/pivot.awk" > "$data/$name-sliding-$t.dat"
        done
        draw "$name" clocks.gp "stem='$data/$name'; counts='$counts'; cpus=$(cpus_of "$csv")"
        ;;
    sharded*)
        # tb_sharded's batch k (the slots column) swept: Mops/s on the admit
        # path (the plans whose limit no run reaches: paths.awk says which)
        # and max_sliding/L of the recorded overload runs, joined by algo and
        # k, with each row's bound on max_sliding ÷ L: (B + L)/L for tb_cas,
        # (B + L + (min(k, B) − 1)·threads)/L for tb_sharded (tb_sharded.c).
        admit=$(awk -F, -f "$here/paths.awk" "$csv" | awk '$3 == "admit" {print $1; exit}')
        # flagged: within noise of tb_cas at the same k
        summarize "$csv" algo,slots mops mode=stress,recorded=no,limit="$admit" \
            | awk -v by=1 -v ref=tb_cas -f "$here/noise.awk" > "$data/$name-mops.dat"
        summarize "$csv" algo,slots,burst,limit,threads max_sliding/limit mode=stress,recorded=yes \
            | awk 'NR == FNR { mops[$1 " " $2] = $3 " " $4 " " $5; next }
                   $1 == "faa" || !(($1 " " $2) in mops) { next }
                   { k = $2 < $3 ? $2 : $3
                     bound = ($3 + $4 + ($1 == "tb_sharded" ? (k - 1) * $5 : 0)) / $4
                     print $1, $2, mops[$1 " " $2], $6, $7, $8, bound }' "$data/$name-mops.dat" - \
            > "$data/$name.dat"
        draw "$name" sharded.gp "data='$data/$name.dat'; mops='$data/$name-mops.dat'"
        ;;
    pareto*)
        # cost from the unrecorded 1-thread stress runs, accuracy and
        # utilization from the replays on the same clock (pareto.awk)
        for part in points floors; do
            awk -F, -v part=$part -f "$here/pareto.awk" "$csv" > "$data/$name-$part.dat"
        done
        for metric in sliding util; do
            for part in labels frontier range; do
                awk -F, -v part=$part -v metric=$metric -f "$here/pareto.awk" "$csv" \
                    > "$data/$name-$part-$metric.dat"
            done
        done
        stem=$data/$name
        draw "$name" pareto.gp "points='$stem-points.dat'; floors='$stem-floors.dat'; labels_sliding='$stem-labels-sliding.dat'; labels_util='$stem-labels-util.dat'; frontier_sliding='$stem-frontier-sliding.dat'; frontier_util='$stem-frontier-util.dat'; range_sliding='$stem-range-sliding.dat'; range_util='$stem-range-util.dat'"
        ;;
    keys*)
        summarize "$csv" algo,keys bytes_per_key mode=stress,threads=1 > "$data/$name-bytes.dat"
        summarize "$csv" algo,keys mops mode=stress,threads=1 | awk -v x=2 -f "$here/noise.awk" > "$data/$name-mops.dat"
        draw "$name" keys.gp "bytes='$data/$name-bytes.dat'; mops='$data/$name-mops.dat'"
        ;;
    esac
    case $name in
    cluster-faults*)
        summarize "$csv" fault,algo outage_ms mode=stress > "$data/$name-outage.dat"
        summarize "$csv" fault,algo lost_admits mode=stress > "$data/$name-lost.dat"
        if [ -s "$data/$name-outage.dat" ]; then
            draw "$name" cluster_faults.gp "outage='$data/$name-outage.dat'; lost='$data/$name-lost.dat'"
        fi
        ;;
    cluster*)
        # the floors bench wrote beside it (floor-NAME.csv): "primaries rps"
        floor=""
        floors=$(dirname "$csv")/floor-$name.csv
        if [ -f "$floors" ]; then
            floor=$data/$name-floor.dat
            inputs="$csv $floors"
            awk -F, 'NR > 1 { print $1, $5 }' "$floors" > "$floor"
        fi
        for keys in 1 1000; do
            summarize "$csv" cluster,algo mops mode=stress,recorded=no,keys=$keys \
                | awk '$2 ~ /^redis_/' > "$data/$name-$keys.dat"
            if [ -s "$data/$name-$keys.dat" ]; then
                draw "$name-keys$keys" cluster.gp \
                    "data='$data/$name-$keys.dat'; floor='$floor'; cpus=$(cpus_of "$csv"); keys=$keys"
            fi
        done
        ;;
    esac
    case $name in
    nodes*)
        # many nodes, one limit (docs/nodes.md): the frontier at N = 10 and
        # 1000, DRL's 7:3 split, the step response
        for n in 10 1000; do
            awk -v part=frontier -v nodes=$n -f "$here/nodes.awk" "$csv" > "$data/$name-frontier-$n.dat"
            if [ -s "$data/$name-frontier-$n.dat" ]; then
                draw "$name-frontier-$n" nodes.gp "data='$data/$name-frontier-$n.dat'; nodes=$n"
            fi
        done
        awk -v part=drl73 -f "$here/nodes.awk" "$csv" > "$data/$name-drl73.dat"
        [ ! -s "$data/$name-drl73.dat" ] || draw "$name-drl73" nodes_drl73.gp "data='$data/$name-drl73.dat'"
        awk -v part=step -f "$here/nodes.awk" "$csv" > "$data/$name-step.dat"
        [ ! -s "$data/$name-step.dat" ] || draw "$name-step" nodes_step.gp "data='$data/$name-step.dat'"
        ;;
    esac
    case $name in
    redis* | quick*)
        figure=$name
        case $name in quick*) figure=$name-redis ;; esac
        summarize "$csv" algo,threads mops mode=stress,recorded=no \
            | awk '$1 ~ /^redis_/' | awk -v by=1 -v ref=redis_noop -f "$here/noise.awk" > "$data/$figure.dat"
        # a quick run on a machine without redis-server has no Redis rows
        if [ -s "$data/$figure.dat" ]; then
            draw "$figure" redis.gp "data='$data/$figure.dat'; cpus=$(cpus_of "$csv")"
        fi
        ;;
    esac
done

# The .NET article's picture, from real decisions: the boundary workload
# as it comes (L attempts each side of every other window edge) and the
# article's own case (7 each side at L = 10: 3 + 7 | 7 + 3, 14 in one
# second). Each run's results row (--format csv) gives L, B, I and the
# promise the figure draws its bounds from.
cases=""
for size in L 7; do
    size_opt=""
    [ "$size" = L ] || size_opt="--size $size"
    for algo in fw_expiry sliding_log tb_mutex; do
        run=$data/boundary-$size-$algo
        # shellcheck disable=SC2086 # size_opt is empty or two words
        "$ratelab" sim --algo $algo --workload boundary --limit 10 --interval 1s --duration 6s \
            $size_opt --decisions "$run-decisions.csv" --format csv > "$run.csv"
        interval_ns=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                               { print $(col["interval_ns"]) }' "$run.csv")
        awk -F, -v interval_ns="$interval_ns" -f "$here/boundary.awk" "$run-decisions.csv" > "$run.dat"
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                 { print $(col["algo"]), $(col["promise"]), $(col["limit"]), $(col["burst"]),
                         $(col["interval_ns"]), $(col["max_sliding"]) }' "$run.csv" > "$run-row.dat"
    done
    cases="$cases$size "
done
inputs="" # the sims above read no CSV
draw boundary boundary.gp "stem='$data/boundary'; cases='$cases'; algos='fw_expiry sliding_log tb_mutex'"
