#!/bin/sh
# allocator_check.sh — a binary's result rows name the malloc it runs on.
#
#   sh tests/allocator_check.sh [--preload LIB] BIN EXPECT
#
# Runs a 10 ms `BIN stress --format csv` (with LIB in LD_PRELOAD when given)
# and checks that every row's allocator column is EXPECT or starts with
# "EXPECT " (jemalloc's version follows its name). Exit 0 when it does, 1
# with one line saying what was found when it does not, 2 for bad usage.
set -eu

preload=
if [ "${1-}" = --preload ]; then
    preload=${2?--preload needs a library}
    shift 2
fi
if [ $# -ne 2 ]; then
    echo "usage: allocator_check.sh [--preload LIB] BIN EXPECT" >&2
    exit 2
fi
bin=$1 expect=$2
what=$bin${preload:+ (LD_PRELOAD=$preload)}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! env ${preload:+LD_PRELOAD=$preload} "$bin" stress --algo null --threads 1 \
    --duration 10ms --reps 1 --format csv >"$out"; then
    echo "allocator_check: $what stress failed" >&2
    exit 1
fi
found=$(awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") col = i; next }
    col && NF >= col { print $col }' "$out" | sort -u)
case $found in
"$expect" | "$expect "*)
    if [ "$(printf '%s\n' "$found" | wc -l)" -eq 1 ]; then
        echo "allocator_check: $what: $found"
        exit 0
    fi
    ;;
esac
echo "allocator_check: $what reports allocator '${found:-nothing}', expected $expect" >&2
exit 1
