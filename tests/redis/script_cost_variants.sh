#!/bin/sh
# script_cost_variants.sh — what the server charges (INFO commandstats, µs
# per call) for a no-op and for one in-script GET, called as EVALSHA with
# and without a #!lua shebang and as FCALL: the by-hand measurement behind
# docs/performance.md "Third pass on item 3" (noop and script on the same
# mechanism, never one against the other's). A private redis-server on a
# Unix socket in a temporary folder, stopped and removed however this ends.
#   sh tests/redis/script_cost_variants.sh [ROUNDS] [CALLS]   (7, 20000)
# Run it under flock /tmp/ratelab-bench.lock: it is a timing.
set -eu
rounds=${1:-7} calls=${2:-20000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/rl-script-cost.XXXXXX")
sock=$dir/redis.sock
redis-server --port 0 --unixsocket "$sock" --dir "$dir" --save '' --appendonly no \
    --logfile "$dir/redis.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
cli() { redis-cli -s "$sock" "$@"; }
i=0
until cli ping > /dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -lt 100 ] || { echo "redis-server did not start" >&2; exit 1; }
    sleep 0.05
done
cli set k 0123456789abcdef > /dev/null
packed=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx # 56 bytes, as 7 doubles
noop=$(cli script load 'return 1')
noop_shebang=$(cli script load "$(printf '#!lua\nreturn 1')")
noop_nowrites=$(cli script load "$(printf '#!lua flags=no-writes\nreturn 1')")
get=$(cli script load "redis.call('GET', KEYS[1]) return 0")
get_shebang=$(cli script load "$(printf "#!lua\nredis.call('GET', KEYS[1]) return 0")")
get_nowrites=$(cli script load "$(printf "#!lua flags=no-writes\nredis.call('GET', KEYS[1]) return 0")")
cli function load "$(printf '%s\n' '#!lua name=rlcost' \
    "redis.register_function('noop', function(keys, args) return 1 end)" \
    "redis.register_function('get', function(keys, args) redis.call('GET', keys[1]) return 0 end)")" > /dev/null
# name, then the command redis-benchmark repeats
run() {
    name=$1; shift
    cli config resetstat > /dev/null
    redis-benchmark -s "$sock" -n "$calls" -c 1 "$@" > /dev/null
    cli info commandstats | tr -d '\r' |
        awk -F'[:=,]' -v n="$name" '/^cmdstat_(evalsha|fcall):/ { printf "%s %.3f\n", n, $5 / $3 }'
}
r=0
while [ "$r" -lt "$rounds" ]; do
    run evalsha_noop EVALSHA "$noop" 1 k
    run evalsha_noop_shebang EVALSHA "$noop_shebang" 1 k
    run evalsha_noop_nowrites EVALSHA "$noop_nowrites" 1 k
    run evalsha_get EVALSHA "$get" 1 k "$packed" 60000
    run evalsha_get_shebang EVALSHA "$get_shebang" 1 k "$packed" 60000
    run evalsha_get_nowrites EVALSHA "$get_nowrites" 1 k "$packed" 60000
    run fcall_noop FCALL noop 1 k
    run fcall_get FCALL get 1 k "$packed" 60000
    r=$((r + 1))
done | sort -k1,1 -k2,2n | awk '
    { v[$1] = v[$1] " " $2; c[$1]++; all[$1, c[$1]] = $2 }
    END { for (k in c) printf "%-22s us a call: least %s, median %s; every round:%s\n",
                              k, all[k, 1], all[k, int((c[k] + 1) / 2)], v[k] }' | sort
