#!/bin/sh
# gen.sh — the traces nginx's conformance runs on (run.sh calls it instead of
# gen_traces.sh):
#   tests/conformance/nginx/gen.sh RATELAB OUT COUNT SEED
# writes OUT/tNNN.csv and OUT/tNNN.cfg ("L I_ns B sorted"), at most 60 of
# them whatever COUNT says (a real server runs each trace in real time).
# Every configuration is one nginx can express: rate= as whole r/s or r/m
# (L per I of 1 s, 100 ms, 10 ms, 1 ms; 60 s, 3 s, 4 s, 12 s, 20 s), rates
# above 1000 r/s, bursts small (1–5) and large (10–100), 1–5 keys, cost 1,
# 0.8 s of uniform, Poisson, on/off, boundary, flash or clumped (many
# attempts at one instant) arrivals; a third of the traces use B = 0,
# nginx's default (run.sh then leaves --burst unset, and leaky_nginx reads
# an unset burst as nginx's 0).
# nginx's clock is monotonic, so every realised trace is sorted.
set -eu
ratelab=$1 out=$2 count=$3 seed=$4
[ "$count" -gt 60 ] && count=60
mkdir -p "$out"

awk -v count="$count" -v seed="$seed" '
function next_u() { state = (state * 25214903917 + 11) % 281474976710656; return state / 281474976710656 }
function pick(n) { return int(next_u() * n) }
function one(list,   a, n) { n = split(list, a, " "); return a[1 + pick(n)] }
BEGIN {
    state = (seed * 7919 + 4242) % 281474976710656
    for (i = 1; i <= count; i++) {
        c = pick(6)
        if (c == 0)      { I = 1000000000; L = one("1 2 5 10 20 50 100 200 500 1000") }
        else if (c == 1) { I = one("100000000 10000000"); L = one("1 2 5 10") }
        else if (c == 2) { I = 60000000000; L = one("1 6 30 45 90 100 120 600 1000 3000") }
        else if (c == 3) { I = one("3000000000 4000000000 12000000000 20000000000"); L = one("1 2 5") }
        else if (c == 4) { s = one("2000/1000000000 5000/1000000000 20000/1000000000 3/1000000 50/10000000")
                           split(s, p, "/"); L = p[1]; I = p[2] }
        else             { I = 1000000000; L = one("5 20 100") }
        b = pick(3)
        B = c == 5 ? 10 + pick(91) : b == 0 ? 0 : b == 1 ? 10 + pick(91) : 1 + pick(5)
        per_s = L * 1e9 / I
        R = per_s * (1 + pick(6))
        floor_r = 40 + pick(200)
        if (R < floor_r) R = floor_r
        if (R > 3000) R = 3000
        printf "%d %d %.0f %d %s %d %d\n", i, L, I, B, one("uniform poisson onoff boundary flash clumps"), 1 + pick(5), int(R)
    }
}' >"$out/configs.txt"

while read -r i L I B w keys rate; do
    name=$(printf 't%03d' "$i")
    s=$((seed * 1000 + i))
    if [ "$w" = clumps ]; then
        # clumps of 1–12 attempts at one instant, 1–30 ms apart
        awk -v seed="$s" -v keys="$keys" 'BEGIN {
            srand(seed); print "t_ns,key,n"; t = 0
            while (t < 800000000) {
                m = 1 + int(rand() * 12)
                for (j = 0; j < m; j++) printf "%d,k%d,1\n", t, int(rand() * keys)
                t += 1000000 + int(rand() * 29000000)
            }
        }' >"$out/$name.csv"
    else
        extra="--rate $rate"
        case "$w" in
        onoff) extra="$extra --on 100ms --off 150ms" ;;
        flash) extra="$extra --at 300ms --spike 100ms" ;;
        boundary) extra="" ;; # no rate: ratelab refuses one for boundary
        esac
        lg=$((rate / 10)); [ "$lg" -lt 1 ] && lg=1
        # shellcheck disable=SC2086 # extra is a list of words
        set -- trace --workload "$w" --limit "$lg" --interval 100ms --keys "$keys" \
            --duration 800ms --seed "$s" $extra --out "$out/$name.csv"
        "$ratelab" "$@" >/dev/null 2>&1 || "$ratelab" "$@" # again, to show why it failed
    fi
    echo "$L $I $B sorted" >"$out/$name.cfg"
done <"$out/configs.txt"
