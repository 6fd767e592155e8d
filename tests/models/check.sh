#!/bin/sh
# tests/models/check.sh [SCRATCH] — run every Promela model with SPIN and
# assert its verdict. One line per model: the property, then
# "violated (trail: …)" with the interleaving underneath, or
# "verified (N states)". Exits non-zero when a verdict is not the expected
# one or a tool fails. Scratch files go under SCRATCH (build/models).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/models}
mkdir -p "$out" && out=$(cd "$out" && pwd)
for tool in spin gcc; do
    command -v $tool >/dev/null 2>&1 || { echo "check.sh: $tool not found (make model-check installs it)" >&2; exit 2; }
done

fail=0

# The spin -t -p trail, one line per step: the process, its statements,
# and the model line's comment (which names the C line) when it has one.
readable() { # model dir
    (cd "$2" && spin -t -p "$1.pml") | awk -v dir="$2" '
    function comment(file, line,   s, i, n) {
        i = 0; s = ""
        while ((getline s < (dir "/" file)) > 0) { if (++i == line) break }
        close(dir "/" file)
        if (i != line || match(s, /\/\* .* \*\//) == 0) return ""
        return substr(s, RSTART + 3, RLENGTH - 6)
    }
    /^ *[0-9]+:\tproc / {
        step = $1; sub(/:$/, "", step)
        if ($0 !~ /\t\[.*\]$/) next           # end-of-trail lines
        pid = $3; name = $4; gsub(/[()]/, "", name)
        if (name ~ /^:init:/) next
        sub(/:[0-9]+$/, "", name)
        st = $0; sub(/^[^[]*\[/, "", st); sub(/\]$/, "", st)
        if (st ~ /^(else|\(1\)|\(started\)|sub-sequence|assert\(.*|done = .*|\(\(done==2\)\))$/) next
        gsub(/\( \(\(count==255\)\) -> \(0\) : \(\(count\+1\)\) \)/, "count+1 (wraps)", st)
        gsub(/admitted = \(admitted\+1\)/, "admitted++", st)
        loc = $5; split(loc, lf, ":"); c = comment(lf[1], lf[2])
        key = step " " pid
        if (key == last) { text = text "; " st; if (c != "" && note == "") note = c; next }
        flush(); last = key; who = (name == "T" || name == "drain") ? name pid : name; text = st; note = c
    }
    function flush() { if (last != "") printf "      %-8s %-44s %s\n", who, text, (note == "" ? "" : "-- " note) }
    END { flush() }'
}

run() { # model expect property
    m=$1 expect=$2 prop=$3 d="$out/$1"
    rm -rf "$d" && mkdir -p "$d" && cp "$here"/*.pml "$d"/
    if ! (cd "$d" && spin -a "$m.pml" >spin.log 2>&1 && gcc -O2 -DSAFETY -o pan pan.c 2>gcc.log && ./pan >pan.out 2>&1); then
        printf '%-17s %s: ERROR (see %s)\n' "$m.pml" "$prop" "$d"; fail=1; return
    fi
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$d/pan.out")
    states=$(awk '/states, stored/ {print $1; exit}' "$d/pan.out")
    if [ -z "$errors" ] || [ -z "$states" ]; then
        printf '%-17s %s: ERROR (no verdict in %s/pan.out)\n' "$m.pml" "$prop" "$d"; fail=1; return
    fi
    if [ "$errors" -gt 0 ]; then got=violated; else got=verified; fi
    mark=""; [ "$got" = "$expect" ] || { mark="   <-- expected $expect"; fail=1; }
    if [ "$got" = violated ]; then
        printf '%-17s %s: violated (trail: %s)%s\n' "$m.pml" "$prop" "${d#$PWD/}/$m.pml.trail" "$mark"
        readable "$m" "$d"
    else
        printf '%-17s %s: verified (%s states)%s\n' "$m.pml" "$prop" "$states" "$mark"
    fi
}

run step1        violated "step 1 fw_atomic_naive, expired full window, L=1, 2 threads: <= L admitted per window"
run step2        violated "step 2 fw_cas_nofirst, first window, L=1, 2 threads: <= L admitted per window"
run step3        verified "step 3 fw_cas, first or expired window, L=2, 3 threads x 1 attempt, I=2 ticks: <= L admitted per window"
run sb_tso       violated "SB litmus on TSO store buffers: not (r1=0 and r2=0)"
run sb_tso_fence verified "SB litmus on TSO, mfence after each store: not (r1=0 and r2=0)"

if [ $fail -ne 0 ]; then echo "model-check: FAILED" >&2; exit 1; fi
echo "model-check: all 5 verdicts as expected"
