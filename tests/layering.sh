#!/bin/sh
# layering.sh — every #include "…" goes down the layers, never up.
# The harness is layered cli → experiments → run → keyed → report → check
# → io; sys (clocks, processes, build facts) and workloads/ serve the layers
# above them; algorithms/ (a folder per family) includes only algorithms/. Prints each include that goes up
# and exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2

# The harness's layers, bottom up: the one list (the Makefile reads it with
# `sh tests/layering.sh --layers` to find the library's sources).
LAYERS="io sys check report keyed run experiments cli"
if [ "${1:-}" = "--layers" ]; then
    echo "$LAYERS"
    exit 0
fi

# allowed FOLDER: the folders a file in FOLDER may include from.
allowed() {
    case "$1" in
    algorithms | algorithms/*) echo "$(find algorithms -type d | sort | tr '\n' ' ')" ;;
    harness/io) echo "harness/io" ;;
    workloads) echo "workloads harness/io" ;;
    harness/sys) echo "harness/sys harness/io algorithms" ;;
    harness/check) echo "harness/check harness/io" ;;
    harness/report) echo "harness/report harness/check harness/sys harness/io algorithms" ;;
    harness/keyed) echo "harness/keyed harness/sys harness/io algorithms" ;;
    harness/run) echo "harness/run harness/keyed harness/report harness/check harness/sys harness/io workloads algorithms algorithms/coord" ;;
    harness/experiments) echo "harness/experiments harness/run harness/keyed harness/report harness/check harness/sys harness/io workloads algorithms algorithms/coord" ;;
    harness/cli) echo "harness/cli harness/experiments harness/run harness/keyed harness/report harness/check harness/sys harness/io workloads algorithms algorithms/coord" ;;
    harness/gbench | tests | tests/*) echo "*" ;;
    *) echo "" ;;
    esac
}

bad=0
files=$(find algorithms workloads harness tests -name '*.[ch]' -o -name '*.cc' | sort)
for f in $files; do
    dir=$(dirname "$f")
    ok=$(allowed "$dir")
    if [ -z "$ok" ]; then
        echo "layering: $f: folder $dir is not a known layer"
        bad=1
        continue
    fi
    [ "$ok" = "*" ] && continue
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        case "$inc" in
        */*) target=$(dirname "$inc") ;;
        *) target=$dir ;; # a bare name is the file's own folder
        esac
        case " $ok " in
        *" $target "*) ;;
        *)
            echo "layering: $f includes $inc: $dir may include only from: $ok"
            bad=1
            ;;
        esac
    done
done
[ $bad -eq 0 ] && echo "layering: every include goes down ($(echo "$files" | wc -l) files)"
exit $bad
