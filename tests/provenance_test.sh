#!/bin/sh
# provenance_test.sh — make reference-check's own test: on scratch copies,
# the check passes on the tree as committed and fails when a reference CSV,
# a figure or a .src is changed behind its back; the revision check fails
# on mixed or dirty revisions and passes on one clean one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
prov="sh $here/provenance.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ratelab-provenance.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fails=0

expect() { # expect pass|fail WHAT CMD...: the check's verdict, its output kept when wrong
    want=$1 what=$2
    shift 2
    if "$@" > "$scratch/out" 2>&1; then got=pass; else got=fail; fi
    if [ "$got" = "$want" ]; then
        echo "  ok: $what ($got)"
    else
        echo "  WRONG: $what: the check said $got, expected $want:"
        sed 's/^/    /' "$scratch/out"
        fails=$((fails + 1))
    fi
}

# ---- the committed tree, copied: a CSV touched makes it fail -------------
tree=$scratch/tree
mkdir -p "$tree"
(cd "$root" && tar cf - results plots paper/ratelab.pdf paper/ratelab.pdf.src paper/ratelab.tex paper/ratelab.bib \
    paper/tables.sh paper/lib.awk paper/check_tables.sh paper/build.sh 2>/dev/null) | (cd "$tree" && tar xf -)
rm -rf "$tree/plots/out"
expect pass "committed tree" $prov check "$tree"
echo "x" >> "$tree/results/reference/pareto.csv"
expect fail "committed tree, pareto.csv touched" $prov check "$tree"
# the MANIFEST rewritten to match: the figure and the paper are now older
$prov manifest "$tree"
expect fail "committed tree, pareto.csv touched and the MANIFEST rewritten" $prov check "$tree"

# ---- a fixture of one CSV and one figure ---------------------------------
fx=$scratch/fx
mkdir -p "$fx/results/reference" "$fx/plots/reference"
csv=$fx/results/reference/a.csv
printf 'algo,git_rev,host,date\nx,1111111,h,2026-01-01T00:00:00Z\ny,1111111,h,2026-01-01T00:00:00Z\n' > "$csv"
echo "png" > "$fx/plots/reference/a.png"
echo "# script" > "$fx/plots/a.gp"
$prov manifest "$fx"
$prov record "$fx/plots/reference/a.png" "$fx/plots/reference/a.png.src" "$csv" -- "$fx/plots/a.gp"
expect pass "fixture as made" $prov check "$fx"
expect pass "fixture, one clean revision" $prov revisions "$fx"

cp "$csv" "$scratch/a.csv"
sed -i 's/^y,/z,/' "$csv"
expect fail "fixture, a.csv edited" $prov check "$fx"
cp "$scratch/a.csv" "$csv"

echo "more" >> "$fx/plots/reference/a.png"
expect fail "fixture, the figure replaced by hand" $prov check "$fx"
echo "png" > "$fx/plots/reference/a.png"

echo "# changed" >> "$fx/plots/a.gp"
expect fail "fixture, its script changed" $prov check "$fx"
echo "# script" > "$fx/plots/a.gp"

sed -i 's/^revisions .*/revisions 2222222/' "$fx/plots/reference/a.png.src"
expect fail "fixture, the figure names another revision" $prov check "$fx"
$prov record "$fx/plots/reference/a.png" "$fx/plots/reference/a.png.src" "$csv" -- "$fx/plots/a.gp"

echo "png" > "$fx/plots/reference/b.png"
expect fail "fixture, a figure without .src" $prov check "$fx"
rm "$fx/plots/reference/b.png"

printf 'algo,git_rev\nq,2222222\n' > "$fx/results/reference/b.csv"
expect fail "fixture, a CSV the MANIFEST lacks" $prov check "$fx"
$prov manifest "$fx"
expect pass "fixture, b.csv in the MANIFEST" $prov check "$fx"
expect fail "fixture, two revisions" $prov revisions "$fx"
printf 'algo,git_rev\nq,1111111-dirty\n' > "$fx/results/reference/b.csv"
$prov manifest "$fx"
expect fail "fixture, a dirty revision" $prov revisions "$fx"

# a docs block: no artefact hash, its CSVs and revision only
$prov record - "$fx/block.md.src" "$csv"
expect pass "fixture, a docs block's record" $prov check "$fx"
sed -i 's/^x,/w,/' "$csv"
$prov manifest "$fx"
expect fail "fixture, the docs block's CSV changed" $prov check "$fx"

[ $fails -eq 0 ] || { echo "provenance_test: $fails wrong"; exit 1; }
echo "provenance_test: every case as expected"
