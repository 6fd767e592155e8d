#!/bin/sh
# selftest.sh — proves docs/tools/regen.sh catches what it must, on a copy of
# tests/docs/fixture.md: a current page passes; one changed output line fails
# --check (exit 1) naming the page and block; regen.sh restores the page byte
# for byte; an unmarked transcript and a failing command are errors (exit 2).
# Run from the repository root: sh tests/docs/selftest.sh
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/ratelab-docs-selftest.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
fails=0
fail() { echo "docs selftest: FAIL: $*" >&2; fails=$((fails + 1)); }
page=$dir/page.md
cp tests/docs/fixture.md "$page"

sh docs/tools/regen.sh --check "$page" 2>"$dir/err" || fail "the fixture as committed is reported stale: $(cat "$dir/err")"

# One output line of the first deterministic block changed.
sed 's/^two$/TWO/' "$page" > "$dir/broken.md" && cp "$dir/broken.md" "$page"
cmp -s "$page" tests/docs/fixture.md && fail "the fixture has no line 'two' to break"
sh docs/tools/regen.sh --check "$page" 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || fail "--check on a changed output line exited $rc, not 1"
grep -q "page.md:6: printf 'one" "$dir/err" || fail "--check did not name page.md:6 and its command: $(cat "$dir/err")"
grep -q 'refresh with: sh docs/tools/regen.sh' "$dir/err" || fail "--check did not print the refresh command"
cmp -s "$page" "$dir/broken.md" || fail "--check rewrote the page"

sh docs/tools/regen.sh "$page" >/dev/null 2>"$dir/err" || fail "regen.sh failed: $(cat "$dir/err")"
cmp -s "$page" tests/docs/fixture.md || fail "regen.sh did not restore the page byte for byte"

# A row of the rendered CSV block and of the raw table changed.
sed 's/^tb_cas        2       27.9/tb_cas        2       99.9/; s/^| tb_cas       27.9/| tb_cas       99.9/' tests/docs/fixture.md > "$page"
sh docs/tools/regen.sh --check "$page" 2>"$dir/err"
[ $? -eq 1 ] && [ "$(grep -c 'out of date' "$dir/err")" -eq 2 ] || fail "--check did not name both stale rendered blocks: $(cat "$dir/err")"

# The illustration is never re-run: its output may say anything.
sed 's/^Thu Jan  1/Fri Jan  2/' tests/docs/fixture.md > "$page"
sh docs/tools/regen.sh --check "$page" 2>"$dir/err" || fail "an illustration was checked: $(cat "$dir/err")"

# A transcript with no marker.
printf '```\n$ echo unmarked\nunmarked\n```\n' > "$page"
sh docs/tools/regen.sh --check "$page" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'no <!-- run -->' "$dir/err" || fail "an unmarked transcript gave exit $rc: $(cat "$dir/err")"

# A command that fails.
printf '<!-- run -->\n```\n$ false\n```\n' > "$page"
cp "$page" "$dir/before.md"
sh docs/tools/regen.sh "$page" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'exited with status 1' "$dir/err" || fail "a failing command gave exit $rc: $(cat "$dir/err")"
cmp -s "$page" "$dir/before.md" || fail "a failing command's page was rewritten"

[ $fails -eq 0 ] || exit 1
echo "docs selftest: regen.sh catches a changed line, restores it, refuses unmarked transcripts and failing commands"
