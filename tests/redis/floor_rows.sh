#!/bin/sh
# floor_rows.sh — the redis perf goal re-posed against each script's floor
# (docs/performance.md, "Redis against its floor"): one run of
# `bench --suite perf --goal redis --reps 1` must give, for each of the five
# scripts, on the private server and on the private cluster, a row
# "redis server|cluster SCRIPT / its floor" with a ratio and a yes or no,
# and its "redis server|cluster SCRIPT" row (÷ redis_noop) must name the
# floor measured in the same run. What it checks is the rows' presence and shape,
# never a figure: the bench itself refuses to run when a script's refusal
# path issues other commands than its floor (perf_redis.c, in_step).
#   sh tests/redis/floor_rows.sh [RATELAB]   (build/ratelab)
# It starts a private redis-server and cluster (removed however it ends) and
# times them: run it under flock /tmp/ratelab-bench.lock.
set -eu
bin=${1:-build/ratelab}
dir=$(mktemp -d "${TMPDIR:-/tmp}/rl-floor-rows.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
"$bin" bench --suite perf --goal redis --reps 1 --out "$dir/perf.csv" > "$dir/out" 2>&1 || {
    cat "$dir/out" >&2
    echo "floor_rows: the redis goal failed" >&2
    exit 1
}
failed=0
for s in redis_gcra redis_token_bucket redis_fixed_window redis_sliding_counter redis_sliding_log; do
    for where in server cluster; do
        # goal,ratio,op,target,met,detail,...: a ratio, <= 1.5, and yes or no
        if ! grep -Eq "^redis $where $s / its floor,[0-9.]+,<=,1\.5,(yes|no)," "$dir/perf.csv"; then
            echo "floor_rows: no measured row 'redis $where $s / its floor' (target 1.5)" >&2
            failed=1
        fi
        if ! grep -Eq "^redis $where $s,[0-9.]+,<=,[0-9.]+,(yes|no),\"[^\"]*its floor \([A-Z+]+ alone\) [0-9.]+ x noop, same run" \
            "$dir/perf.csv"; then
            echo "floor_rows: the row 'redis $where $s' does not give its floor measured in the same run" >&2
            failed=1
        fi
    done
done
[ "$failed" -eq 0 ] && echo "floor_rows: the five scripts' floor rows as expected, server and cluster"
exit "$failed"
