#!/bin/sh
# gen.sh — the traces nginx_delay's conformance runs on (run.sh calls it
# instead of gen_traces.sh):
#   tests/conformance/nginx_delay/gen.sh RATELAB OUT COUNT SEED
# writes OUT/tNNN.csv and OUT/tNNN.cfg ("L I_ns B sorted [--slots D]"), at
# most 40 whatever COUNT says (a real server runs each in real time). Every
# configuration is one nginx can express and whose delays stay short: rate=
# 20–100 r/s (or 5 per 100 ms), burst 1–20 with delay= D from 0 (nginx's
# default, --slots left out) to B (nodelay), so a delay is at most
# (B − D)/rate ≤ 1 s and at most 60 requests wait at once (traces 1, 5, 9, …
# have D = 0; 2, 6, … 0 < D < B; 3, 7, … D = B; the rest any); 1–3 keys, cost 1,
# 0.8 s of uniform, Poisson, on/off, flash or clumped arrivals at 2–4 times
# the rate (60–400/s: a loaded nginx reads a request in a later ms). nginx's clock is monotonic: traces are sorted.
set -eu
ratelab=$1 out=$2 count=$3 seed=$4
[ "$count" -gt 40 ] && count=40
mkdir -p "$out"

awk -v count="$count" -v seed="$seed" '
function next_u() { state = (state * 25214903917 + 11) % 281474976710656; return state / 281474976710656 }
function pick(n) { return int(next_u() * n) }
function one(list,   a, n) { n = split(list, a, " "); return a[1 + pick(n)] }
BEGIN {
    state = (seed * 7919 + 5151) % 281474976710656
    for (i = 1; i <= count; i++) {
        if (pick(5) == 0) { L = 5; I = 100000000 } else { L = one("20 30 50 100"); I = 1000000000 }
        per_s = L * 1e9 / I
        top = per_s < 20 ? per_s : 20
        B = 1 + pick(top)
        c = (i - 1) % 4                           # the quick run (3) has each kind
        D = c == 0 ? 0 : c == 1 ? (B > 1 ? 1 + pick(B - 1) : 0) : c == 2 ? B : pick(B + 1)
        R = per_s * (2 + pick(3)); if (R > 400) R = 400; if (R < 60) R = 60
        printf "%d %d %.0f %d %d %s %d %d\n", i, L, I, B, D, one("uniform poisson onoff flash clumps"), 1 + pick(3), int(R)
    }
}' >"$out/configs.txt"

while read -r i L I B D w keys rate; do
    name=$(printf 't%03d' "$i")
    s=$((seed * 1000 + i))
    if [ "$w" = clumps ]; then
        # clumps of 1–8 attempts at one instant, 2–40 ms apart
        awk -v seed="$s" -v keys="$keys" 'BEGIN {
            srand(seed); print "t_ns,key,n"; t = 0
            while (t < 800000000) {
                m = 1 + int(rand() * 8)
                for (j = 0; j < m; j++) printf "%d,k%d,1\n", t, int(rand() * keys)
                t += 2000000 + int(rand() * 38000000)
            }
        }' >"$out/$name.csv"
    else
        extra="--rate $rate"
        case "$w" in
        onoff) extra="$extra --on 100ms --off 150ms" ;;
        flash) extra="$extra --at 300ms --spike 100ms" ;;
        esac
        lg=$((rate / 10)); [ "$lg" -lt 1 ] && lg=1
        # shellcheck disable=SC2086 # extra is a list of words
        set -- trace --workload "$w" --limit "$lg" --interval 100ms --keys "$keys" \
            --duration 800ms --seed "$s" $extra --out "$out/$name.csv"
        "$ratelab" "$@" >/dev/null 2>&1 || "$ratelab" "$@" # again, to show why it failed
    fi
    slots=""
    [ "$D" -gt 0 ] && slots=" --slots $D"
    echo "$L $I $B sorted$slots" >"$out/$name.cfg"
done <"$out/configs.txt"
