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
status=0
for page in "$@"; do
    [ -f "$page" ] || { echo "regen.sh: no page $page" >&2; exit 2; }
    mkdir -p "$work/tmp"
    if ! awk -v page="$page" -v work="$work/tmp" -v stale="$stale" -v root="$root" \
        -f "$root/docs/tools/regen.awk" "$page" > "$work/page.md"; then
        status=2
        continue
    fi
    rm -rf "$work/tmp"
    if [ "$mode" = write ] && ! cmp -s "$work/page.md" "$page"; then
        cat "$work/page.md" > "$page"
        echo "regen.sh: $page rewritten"
    fi
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
