#!/bin/sh
# orders_check.sh — part of make test: the memory order of every atomic
# operation in every algorithm (every .c under algorithms/, with the headers they
# inline), as the host gcc sees it after inlining and constant propagation
# (-O2 -fdump-tree-optimized: each __atomic_* builtin carries its order as a
# constant), compared with the committed list tests/asm/orders.expected.
# A changed order anywhere (an acquire made relaxed, a seq_cst store made
# release, a new atomic) fails here in seconds, on any host, with no cross
# compiler; make asm (CI, late) then says what the change costs on each
# machine. After an intended change: sh tests/asm/orders_check.sh --update,
# and say in the commit why the order is right.
#
#   sh tests/asm/orders_check.sh [--update] [OUTDIR]   (from the repository root)
set -eu

update=
if [ "${1:-}" = "--update" ]; then
    update=yes
    shift
fi
OUT=${1:-build/asm-orders}
EXPECTED=tests/asm/orders.expected
# gcc: the list is its view (another compiler names its builtins differently)
CC=${ORDERS_CC:-gcc}
mkdir -p "$OUT"

# One line per distinct (file, function, operation, order[/failure order]):
# the orders as C names. Duplicates are folded so that a compiler that
# unrolls or duplicates a loop differently does not change the list.
: >"$OUT/orders.all"
for src in algorithms/*.c algorithms/*/*.c; do
    dump="$OUT/$(basename "$src" .c).optimized"
    rm -f "$dump"
    "$CC" -O2 -std=c11 -D_GNU_SOURCE -pthread -I. -c "$src" -o /dev/null \
        -fdump-tree-optimized="$dump"
    [ -f "$dump" ] || continue # no function in this build (a teaching-only file)
    awk -v src="$src" '
        function order(a) {
            gsub(/[ )]/, "", a)
            if (a !~ /^[0-9]+$/) return "variable"
            a = a % 65536 # the memmodel bits; the rest are HLE hints
            return a == 0 ? "relaxed" : a == 1 ? "consume" : a == 2 ? "acquire" : \
                   a == 3 ? "release" : a == 4 ? "acq_rel" : a == 5 ? "seq_cst" : "model" a
        }
        /^;; Function / { fn = $3; gsub(/\.(part|constprop|isra|cold)\.[0-9]+/, "", fn); next }
        match($0, /(__atomic_[a-z_0-9]+|\.ATOMIC_[A-Z_]+|__sync_[a-z_0-9]+) \(.*\);/) {
            call = substr($0, RSTART, RLENGTH)
            op = call; sub(/ \(.*/, "", op)
            sub(/^__atomic_/, "", op); sub(/^\.ATOMIC_/, "", op); op = tolower(op)
            args = call; sub(/^[^(]*\(/, "", args); sub(/\);$/, "", args)
            n = split(args, a, ", ")
            if (op ~ /^__sync_/) o = "seq_cst"
            else if (op ~ /compare_exchange/) o = order(a[n - 1]) "/" order(a[n])
            else o = order(a[n])
            print src, fn, op, o
        }' "$dump" >>"$OUT/orders.all"
done
sort -u "$OUT/orders.all" >"$OUT/orders.got"

if [ -n "$update" ]; then
    {
        echo "# tests/asm/orders.expected — written by tests/asm/orders_check.sh --update:"
        echo "# file, function, atomic operation (gcc's builtin, after inlining), memory"
        echo "# order (success/failure for a CAS). make test fails when the code differs."
        cat "$OUT/orders.got"
    } >"$EXPECTED"
    echo "orders-check: $EXPECTED rewritten ($(wc -l <"$OUT/orders.got") operations)"
    exit 0
fi

grep -v '^#' "$EXPECTED" >"$OUT/orders.want"
if ! diff -u "$OUT/orders.want" "$OUT/orders.got" >"$OUT/orders.diff"; then
    sed -n '3,$p' "$OUT/orders.diff" >&2
    echo "orders-check FAILED: the memory orders above differ from $EXPECTED (- expected, + now);" \
        "if intended, run sh tests/asm/orders_check.sh --update and say why in the commit" >&2
    exit 1
fi
files=$(cut -d' ' -f1 "$OUT/orders.got" | sort -u | wc -l)
echo "orders-check: $(wc -l <"$OUT/orders.got") atomic operations in $files algorithm files, every order as $EXPECTED says"
