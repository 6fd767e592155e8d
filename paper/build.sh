#!/bin/sh
# build.sh — `make paper`'s recipe: paper/ratelab.pdf from the results.
#
#   sh paper/build.sh tools      installs what is missing (Debian packages,
#                                apt-get update first, as make deps does)
#   sh paper/build.sh tools      one line naming what is missing, exit 1
#   sh paper/build.sh RATELAB    figures, tables, check, LaTeX, the PDF
#
# Figures: plots/render.sh draws them from results/reference/*.csv into
# paper/out/figs. Its scripts pick SVG or PNG by file name; LaTeX takes
# neither SVG nor a vector PNG, so a copy of plots/ in paper/out/plots-pdf
# has its SVG terminal lines turned into pdfcairo at the same size, and
# that copy draws vector PDFs. When the copy cannot be made (the lines it
# rewrites changed) or draws less than it should, the figures are the
# PNGs plots/render.sh draws as it is, and the build says so
# (PAPER_FIGS=png asks for those).
# Tables and numbers: paper/tables.sh; checked by paper/check_tables.sh.
# Everything generated goes under paper/out/ (ignored); the PDF is copied
# to paper/ratelab.pdf.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$here/out

# ---- tools --------------------------------------------------------------
# command or LaTeX file, and the Debian package that brings it
TOOLS="pdflatex:texlive-latex-base latexmk:latexmk bibtex:texlive-binaries gnuplot:gnuplot-nox awk:mawk
kpsewhich:texlive-binaries pdftotext:poppler-utils sha256sum:coreutils"
STYLES="xltabular.sty:texlive-latex-extra pdflscape.sty:texlive-latex-recommended booktabs.sty:texlive-latex-recommended
enumitem.sty:texlive-latex-recommended xurl.sty:texlive-latex-extra microtype.sty:texlive-latex-recommended
natbib.sty:texlive-latex-recommended unsrtnat.bst:texlive-latex-recommended mathptmx.sty:texlive-latex-base
caption.sty:texlive-latex-recommended pifont.sty:texlive-latex-base placeins.sty:texlive-latex-extra
ptmr8t.tfm:texlive-fonts-recommended phvr8t.tfm:texlive-fonts-recommended pcrr8t.tfm:texlive-fonts-recommended
pzdr.tfm:texlive-fonts-recommended"
missing_tools() { # sets $missing (names) and $pkgs (their packages)
    missing="" pkgs=""
    for tp in $TOOLS; do
        command -v "${tp%%:*}" > /dev/null 2>&1 || { missing="$missing ${tp%%:*}"; pkgs="$pkgs ${tp#*:}"; }
    done
    if command -v kpsewhich > /dev/null 2>&1; then
        for sp in $STYLES; do
            [ -n "$(kpsewhich "${sp%%:*}" 2>/dev/null)" ] || { missing="$missing ${sp%%:*}"; pkgs="$pkgs ${sp#*:}"; }
        done
    fi
    # shellcheck disable=SC2086 # one word a package
    pkgs=$(printf '%s\n' $pkgs | grep . | sort -u | tr '\n' ' ' || true)
    pkgs=${pkgs% }
}
# Installs what is missing, as make deps does. The styles are looked up
# once kpsewhich is there, so a second round installs their packages.
install_tools() {
    for round in 1 2; do
        missing_tools
        [ -n "$missing" ] || return 0
        echo "make paper: missing:$missing; installing $pkgs (round $round)"
        if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
        # shellcheck disable=SC2086 # one word a package
        { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
            --no-install-recommends $pkgs > /dev/null; } || { echo "make paper: apt-get install $pkgs failed"; exit 1; }
    done
    missing_tools
    [ -z "$missing" ] || { echo "make paper: still missing after installing:$missing"; exit 1; }
}
if [ "${1:-}" = tools ]; then
    install_tools
    exit 0
fi
missing_tools
[ -z "$missing" ] || { echo "make paper: missing:$missing (sh paper/build.sh tools installs $pkgs)"; exit 1; }

ratelab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$ratelab" ] || { echo "make paper: $1 is not an executable ratelab"; exit 1; }
cd "$root"
mkdir -p "$out"
# A reproducible PDF: dates in it are the commit's, not the build's.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
FORCE_SOURCE_DATE=1
export SOURCE_DATE_EPOCH FORCE_SOURCE_DATE

# ---- figures --------------------------------------------------------------
csvs=""
for f in results/reference/*.csv; do
    case $(basename "$f") in claims.csv) continue ;; esac
    csvs="$csvs $root/$f"
done
FIGS="accuracy-accuracy boundary clocks keys latency-accuracy memory-order pareto redis threads-threads"
figs=$out/figs
rm -rf "$figs"
mkdir -p "$figs"

vector_copy() { # the copy of plots/ that draws PDF, or a failure
    vec=$out/plots-pdf
    rm -rf "$vec"
    mkdir -p "$vec/plots"
    cp plots/*.gp plots/*.awk plots/render.sh "$vec/plots/"
    # render.sh records each figure's sources with tests/provenance.sh
    mkdir -p "$vec/tests" "$vec/paper"
    cp tests/provenance.sh "$vec/tests/"
    cp paper/lib.awk "$vec/paper/"
    n_svg=$(cat plots/*.gp | grep -c "set terminal svg size .* dynamic noenhanced font" || true)
    [ "$n_svg" -gt 0 ] || return 1
    # 144 pixels an inch: pngcairo sets a point size about 1.5 times as large,
    # relative to the figure, as pdfcairo does at 96; this keeps the PNGs' look
    sed -i -e "s/set terminal svg size \([^,]*\),\(.*\) dynamic noenhanced font/set terminal pdfcairo size (\1)\/144.0,(\2)\/144.0 noenhanced font/" \
        -e "s/'\.svg'/'.pdf'/g" "$vec"/plots/*.gp
    # shellcheck disable=SC2016 # render.sh's own $out and $1, not ours
    sed -i -e 's/for ext in png svg; do/for ext in pdf; do/' -e 's/\$out\/\$1\.png, \.svg/$out\/$1.pdf/' "$vec/plots/render.sh"
    [ "$(cat "$vec"/plots/*.gp | grep -c 'set terminal pdfcairo')" -eq "$n_svg" ] || return 1
    grep -q 'for ext in pdf; do' "$vec/plots/render.sh" || return 1
    # shellcheck disable=SC2086 # paths without spaces
    (cd "$vec" && sh plots/render.sh "$figs" "$ratelab" $csvs) > "$out/render.log" 2>&1 || return 1
    for fig in $FIGS; do
        head -c 4 "$figs/$fig.pdf" 2>/dev/null | grep -q '%PDF' || return 1
    done
}
if [ "${PAPER_FIGS:-}" != png ] && gnuplot -e 'set terminal' 2>&1 | grep -q pdfcairo && vector_copy; then
    echo "  FIGS   $figs: $(echo "$FIGS" | wc -w) vector PDFs (plots/render.sh, pdfcairo copy)"
else
    [ "${PAPER_FIGS:-}" = png ] ||
        echo "paper: vector figures could not be drawn (see $out/render.log); using plots/render.sh's PNGs"
    rm -rf "$figs"
    mkdir -p "$figs"
    # shellcheck disable=SC2086
    sh plots/render.sh "$figs" "$ratelab" $csvs > "$out/render.log" 2>&1 || {
        echo "make paper: plots/render.sh failed:"
        tail -n 5 "$out/render.log"
        exit 1
    }
    rm -f "$figs"/*.svg
    for fig in $FIGS; do
        [ -f "$figs/$fig.png" ] || { echo "make paper: plots/render.sh drew no $fig.png"; exit 1; }
    done
    echo "  FIGS   $figs: $(echo "$FIGS" | wc -w) PNGs (plots/render.sh)"
fi

# ---- tables and numbers ---------------------------------------------------
rm -f "$out"/tab-*.tex "$out/macros.tex"
sh "$here/tables.sh" "$ratelab" "$out" results 2> "$out/tables.log" || {
    echo "make paper: paper/tables.sh failed:"
    cat "$out/tables.log"
    exit 1
}
sed 's/^/  /' "$out/tables.log"
sh "$here/check_tables.sh" "$out" "$here/ratelab.tex" || exit 1

# ---- LaTeX ----------------------------------------------------------------
cd "$here"
if ! latexmk -g -pdf -interaction=nonstopmode -halt-on-error -file-line-error -outdir=out ratelab.tex \
    > out/latexmk.log 2>&1; then
    echo "make paper: LaTeX failed (paper/out/ratelab.log):"
    grep -E -A4 '^(\./|.*\.tex:[0-9]+:|!)' out/ratelab.log 2>/dev/null | head -n 20 ||
        tail -n 20 out/latexmk.log
    exit 1
fi
cp out/ratelab.pdf ratelab.pdf
log=out/ratelab.log
missing_keys=$(grep -o "No number for key \`[^']*'" "$log" | sort -u | sed "s/.*\`//; s/'\$//" | tr '\n' ' ' || true)
[ -z "$missing_keys" ] || echo "paper: numbers missing from the CSVs (printed as ??): $missing_keys"
grep -q 'There were undefined references\|Citation .* undefined' "$log" && echo "paper: undefined references or citations (paper/out/ratelab.log)"
overfull=$(grep -c '^Overfull' "$log" || true)
[ "$overfull" -eq 0 ] || echo "paper: $overfull overfull boxes (paper/out/ratelab.log)"
pages=$(sed -n 's/^Output written on .* (\([0-9]*\) pages.*/\1/p' "$log" | tail -n 1)
echo "  PDF    paper/ratelab.pdf: ${pages:-?} pages, $(wc -c < ratelab.pdf) bytes"
# Every command copyable from the PDF; then the PDF's provenance for make
# reference-check: the CSVs its tables and figures read and its sources.
sh "$here/check_commands.sh" ratelab.pdf "$root/docs/commands.md"
cd "$root"
# shellcheck disable=SC2086,SC2046 # paths without spaces
sh tests/provenance.sh record paper/ratelab.pdf paper/ratelab.pdf.src $csvs results/reference/claims.csv \
    $(ls results/conformance.csv results/conformance-speed.csv 2>/dev/null) \
    -- paper/ratelab.tex paper/ratelab.bib paper/tables.sh paper/lib.awk paper/check_tables.sh paper/build.sh results/README.md \
    plots/render.sh plots/*.gp plots/*.awk
