#!/bin/sh
# cost.sh — make asm, after the table: what the orders cost on this machine.
# Links tests/asm/cost.c with the host's orders.o that build.sh compiled (the
# functions the table shows), times each one on one thread and on two threads
# sharing one word, and writes build/asm/cost.md (also printed). The numbers
# are printed, never asserted; this fails only when the program does not build
# or run, or when a row or one of its numbers is missing. Run from the
# repository root, after tests/asm/build.sh.
set -eu

OUT=${1:-build/asm}
CALLS_1=30000000 # calls per measurement, 1 thread
CALLS_2=5000000  # calls per thread per measurement, 2 threads
CC=gcc
CFLAGS="-O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread"
ROWS="nop faa_relaxed faa_acquire faa_release faa_acq_rel faa_seq_cst store_release store_seq_cst load_acquire load_seq_cst"

fail() {
    echo "asm cost FAILED: $*" >&2
    exit 1
}

rm -f "$OUT/cost.md" "$OUT/cost.md.tmp" # never leave a stale table behind
[ -f "$OUT/x86-64/orders.o" ] || fail "no $OUT/x86-64/orders.o (run tests/asm/build.sh first)"
# shellcheck disable=SC2086
$CC $CFLAGS tests/asm/cost.c "$OUT/x86-64/orders.o" -o "$OUT/cost" || fail "tests/asm/cost.c does not build"
"$OUT/cost" "$OUT/x86-64" "$CALLS_1" "$CALLS_2" >"$OUT/cost.md.tmp" || fail "$OUT/cost exited with $?"

# Every row is there, with a positive number in both ns/call columns and,
# but for nop, in both ratio columns.
for fn in $ROWS; do
    awk -F'|' -v fn="$fn" '
        function num(s) { gsub(/ /, "", s); return s ~ /^[0-9]+(\.[0-9]+)?$/ && s + 0 > 0 }
        $2 == " `" fn "` " {
            seen++
            if (!num($5) || !num($6)) bad = 1
            if (fn != "nop" && (!num($7) || !num($8))) bad = 1
        }
        END { exit !(seen == 1 && !bad) }' "$OUT/cost.md.tmp" ||
        fail "row $fn is missing or lacks a number in $OUT/cost.md"
done

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
    cat "$OUT/cost.md.tmp"
    # shellcheck disable=SC2016 # the backquotes are Markdown
    printf '\nProduced by `make asm` (`sh tests/asm/cost.sh %s`: `%s %s tests/asm/cost.c %s/x86-64/orders.o -o %s/cost`, then `%s/cost %s/x86-64 %s %s`) with %s %s on %s (%s), nproc %s, %s.\n' \
        "$OUT" "$CC" "$CFLAGS" "$OUT" "$OUT" "$OUT" "$OUT" "$CALLS_1" "$CALLS_2" \
        "$CC" "$($CC -dumpfullversion 2>/dev/null || $CC -dumpversion)" \
        "${model:-unknown CPU}" "$(uname -m)" "$(nproc)" "$(date -u '+%Y-%m-%d %H:%M UTC')"
} >"$OUT/cost.md"
rm -f "$OUT/cost.md.tmp"
cat "$OUT/cost.md"
