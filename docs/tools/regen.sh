#!/bin/sh
# regen.sh — regenerates the command transcripts of the docs pages from the
# commands written in them, or checks that they are current.
#   sh docs/tools/regen.sh [--check] [PAGE.md ...]   (default: README.md docs/*.md)
#
# Markers (HTML comments, invisible when rendered):
#   <!-- run -->  or  <!-- run: a note -->, on the line before a ``` fence:
#       every line of the block starting with "$ " is a command; it is run
#       (sh, from the repository root) and the lines after it, up to the next
#       "$ " line or the closing fence, are replaced by its stdout.
#   <!-- run: $ COMMAND -->  ...  <!-- end run -->
#       the lines between are COMMAND's stdout, pasted raw (Markdown tables).
#   <!-- illustration: why -->, before a ``` fence: not re-run (timings of
#       one machine); the page must say visibly where and when it was run.
# A ``` block holding a "$ " line with neither marker is an error.
# "/tmp/" in a command stands for a private directory, so pages may name
# /tmp files without two runs colliding; a command exiting non-zero is an error.
# --check rewrites nothing: it names each stale block (page:line and command),
# prints the command that refreshes it, and exits 1.
set -eu
mode=write
[ "${1-}" = --check ] && { mode=check; shift; }
root=$(pwd)
[ -f "$root/docs/tools/regen.awk" ] || { echo "regen.sh: run from the repository root" >&2; exit 2; }
[ $# -gt 0 ] || set -- README.md docs/*.md
work=$(mktemp -d "${TMPDIR:-/tmp}/ratelab-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
stale=$work/stale.txt
: > "$stale"
# One page: re-run its blocks into $work/N/page.md; the pages run at once
# (a slow page, a long sim or the SPIN models, need not wait for the others).
one_page() {
    page=$1 dir=$2
    mkdir -p "$dir/tmp"
    if ! awk -v page="$page" -v work="$dir/tmp" -v stale="$dir/stale.txt" -v root="$root" \
        -f "$root/docs/tools/regen.awk" "$page" > "$dir/page.md"; then
        echo 2 > "$dir/rc"
        return
    fi
    if [ "$mode" = write ] && ! cmp -s "$dir/page.md" "$page"; then
        cat "$dir/page.md" > "$page"
        echo "regen.sh: $page rewritten"
    fi
    echo 0 > "$dir/rc"
}
n=0
for page in "$@"; do
    [ -f "$page" ] || { echo "regen.sh: no page $page" >&2; exit 2; }
done
for page in "$@"; do
    n=$((n + 1))
    mkdir "$work/$n"
    : > "$work/$n/stale.txt"
    one_page "$page" "$work/$n" &
done
wait
status=0
i=0
while [ $i -lt $n ]; do
    i=$((i + 1))
    [ "$(cat "$work/$i/rc" 2>/dev/null)" = 0 ] || status=2
    cat "$work/$i/stale.txt" >> "$stale"
done
if [ -s "$stale" ]; then
    if [ "$mode" = check ]; then
        sed 's/^/docs-check: out of date: /' "$stale" >&2
        pages=$(cut -d: -f1 "$stale" | sort -u | tr '\n' ' ')
        echo "docs-check: refresh with: sh docs/tools/regen.sh ${pages% }   (or: make docs)" >&2
        [ $status -ne 0 ] || status=1
    fi
fi
exit $status
