#!/bin/sh
# provenance.sh — which results each committed artefact was made from, and
# whether it still is (make reference-check, part of make test).
#
#   sh tests/provenance.sh manifest ROOT
#       results/reference/MANIFEST: one line a reference CSV (the suites'
#       files and results/conformance*.csv, which the paper reads): path,
#       sha256, its git_rev values, hosts and first..last date.
#   sh tests/provenance.sh record ARTEFACT|- SRCFILE CSV... [-- SOURCE...]
#       SRCFILE (ARTEFACT.src beside an artefact): the artefact's sha256
#       (none for "-": a generated docs block inside a page that also has
#       prose), the revisions its CSVs name, each CSV's sha256 and each
#       source script's. plots/render.sh and paper/build.sh call it; a docs
#       generator calls it with "-" and its page's block.
#   sh tests/provenance.sh check ROOT
#       fails when a CSV differs from the MANIFEST (or is not in it), when
#       paper/ratelab.pdf or a plots/reference/*.png has no .src, or when a
#       .src names an artefact, CSV or source whose sha256 is not today's or
#       revisions other than its CSVs' in the MANIFEST.
#   sh tests/provenance.sh revisions ROOT
#       fails unless every CSV in the MANIFEST names one and the same clean
#       revision (no -dirty): true right after make reference.
#
# Hashes, not file times: git does not keep times, a checkout sets them all.
set -eu
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../paper/lib.awk

sha() { sha256sum "$1" | cut -d' ' -f1; }

# path relative to the repository: from its results/, paper/, plots/ or
# docs/ on (render.sh and build.sh pass absolute paths or scratch copies)
rel() {
    case $1 in
    */results/* | results/*) echo "results/${1#*results/}" ;;
    */paper/* | paper/*) echo "paper/${1##*paper/}" ;;
    */plots/* | plots/*) echo "plots/${1##*plots/}" ;;
    *) echo "$1" ;;
    esac
}

# the distinct values of COLUMN in a CSV, sorted, joined by commas ("-" none)
values() {
    awk -v want="$2" -f "$lib" -f /dev/stdin "$1" <<'EOF'
NR == 1 { n = csv_split($0, F); header(F, n); next }
{ n = csv_split($0, F); v = get(F, want); if (v != "" && !(v in seen)) { seen[v] = 1; out[++k] = v } }
END {
    for (i = 2; i <= k; i++) for (j = i; j > 1 && out[j - 1] > out[j]; j--) { t = out[j]; out[j] = out[j - 1]; out[j - 1] = t }
    s = ""; for (i = 1; i <= k; i++) s = s (i > 1 ? "," : "") out[i]
    print (s == "" ? "-" : s)
}
EOF
}

reference_csvs() { # the files the MANIFEST covers, under ROOT
    for f in "$1"/results/reference/*.csv "$1"/results/conformance.csv "$1"/results/conformance-speed.csv; do
        [ -f "$f" ] && echo "$f"
    done
    return 0
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
manifest)
    root=$1
    tmp=$root/results/reference/MANIFEST.tmp
    {
        echo "# results/reference/MANIFEST (tests/provenance.sh manifest; make reference writes it)"
        echo "# path sha256 revisions hosts first-date..last-date"
        for f in $(reference_csvs "$root"); do
            dates=$(values "$f" date)
            echo "$(rel "$f") $(sha "$f") $(values "$f" git_rev) $(values "$f" host) ${dates%%,*}..${dates##*,}"
        done
    } > "$tmp"
    mv "$tmp" "$root/results/reference/MANIFEST"
    ;;
record)
    [ $# -ge 2 ] || { echo "usage: provenance.sh record ARTEFACT|- SRCFILE CSV... [-- SOURCE...]" >&2; exit 2; }
    artefact=$1 src=$2
    shift 2
    revs="" csvs="" sources="" in_sources=no
    for f in "$@"; do
        if [ "$f" = -- ]; then in_sources=yes; continue; fi
        [ -f "$f" ] || { echo "provenance: $f: no such file" >&2; exit 2; }
        if [ $in_sources = yes ]; then
            sources="${sources}source $(sha "$f") $(rel "$f")
"
        else
            csvs="${csvs}csv $(sha "$f") $(rel "$f")
"
            revs="$revs $(values "$f" git_rev | tr , ' ')"
        fi
    done
    {
        echo "# provenance of $(basename "$src" .src) (tests/provenance.sh record; make reference-check reads it)"
        [ "$artefact" = - ] || echo "artefact $(sha "$artefact")"
        # shellcheck disable=SC2086 # one word a revision
        echo "revisions $(printf '%s\n' $revs | grep -v '^-$' | sort -u | tr '\n' ' ' | sed 's/ $//')"
        printf '%s%s' "$csvs" "$sources"
    } > "$src.tmp"
    mv "$src.tmp" "$src"
    ;;
check)
    root=$1
    manifest=$root/results/reference/MANIFEST
    fail=0
    bad() { echo "reference-check: $*"; fail=1; }
    [ -f "$manifest" ] || { echo "reference-check: no results/reference/MANIFEST (make reference-manifest writes it)"; exit 1; }
    for f in $(reference_csvs "$root"); do
        r=$(rel "$f")
        line=$(awk -v p="$r" '$1 == p' "$manifest")
        if [ -z "$line" ]; then
            bad "$r is not in results/reference/MANIFEST"
        elif [ "$(echo "$line" | cut -d' ' -f2)" != "$(sha "$f")" ]; then
            bad "$r differs from the MANIFEST (results changed: make reference, or make reference-manifest for files committed on purpose)"
        fi
    done
    awk '!/^#/ { print $1 }' "$manifest" | while read -r r; do
        [ -f "$root/$r" ] || echo "reference-check: $r is in the MANIFEST but missing"
    done | grep . && fail=1
    srcs=$( (
        [ -f "$root/paper/ratelab.pdf" ] && echo "$root/paper/ratelab.pdf.src"
        for p in "$root"/plots/reference/*.png; do [ -f "$p" ] && echo "$p.src"; done
        find "$root" -name '*.src' -not -path "$root/build/*" -not -path '*/out/*' -not -path '*/.git/*'
    ) | sort -u)
    n=0
    for s in $srcs; do
        a=${s%.src}
        [ -f "$s" ] || { bad "$(rel "$a") has no $(basename "$s") (it was not made by plots/render.sh or paper/build.sh)"; continue; }
        n=$((n + 1))
        want_art=$(awk '$1 == "artefact" { print $2 }' "$s")
        if [ -n "$want_art" ]; then
            if [ ! -f "$a" ]; then
                bad "$(rel "$s") names a missing $(rel "$a")"
            elif [ "$want_art" != "$(sha "$a")" ]; then
                bad "$(rel "$a") is not the file $(basename "$s") records (made by hand, or its .src is stale)"
            fi
        fi
        revs_from_manifest=""
        while read -r kind h p; do
            case $kind in csv | source) ;; *) continue ;; esac
            if [ ! -f "$root/$p" ]; then
                bad "$(rel "$s"): $p is gone"
                continue
            fi
            [ "$h" = "$(sha "$root/$p")" ] ||
                bad "$(rel "$a") is older than $p (remake it: make reference-plots / make paper / make docs)"
            if [ "$kind" = csv ]; then
                m=$(awk -v p="$p" '$1 == p { print $3 }' "$manifest")
                [ -n "$m" ] || bad "$(rel "$s"): $p is not in the MANIFEST"
                [ "$m" = - ] || revs_from_manifest="$revs_from_manifest $(echo "$m" | tr , ' ')"
            fi
        done < "$s"
        # shellcheck disable=SC2086 # one word a revision
        want=$(printf '%s\n' $revs_from_manifest | grep . | sort -u | tr '\n' ' ' | sed 's/ $//')
        got=$(awk '$1 == "revisions" { $1 = ""; sub(/^ /, ""); print }' "$s")
        [ "$got" = "$want" ] || bad "$(rel "$a") names revision(s) '$got', its results '$want'"
    done
    [ $fail -eq 0 ] || exit 1
    echo "reference-check: $(grep -vc '^#' "$manifest") CSVs as the MANIFEST says; $n artefacts made from them as they are"
    ;;
revisions)
    root=$1
    manifest=$root/results/reference/MANIFEST
    [ -f "$manifest" ] || { echo "reference-revision-check: no results/reference/MANIFEST"; exit 1; }
    # A file without a git_rev column (its revisions "-": a side file such
    # as a floor-*.csv written before it carried one) is checked by its hash
    # only, and named here.
    unnamed=$(awk '!/^#/ && $3 == "-" { sub(/.*\//, "", $1); printf "%s ", $1 }' "$manifest")
    [ -z "$unnamed" ] || echo "reference-revision-check: no revision column (hash only): $unnamed"
    revs=$(awk '!/^#/ && $3 != "-" { n = split($3, r, ","); for (i = 1; i <= n; i++) print r[i] }' "$manifest" | sort -u)
    if [ "$(echo "$revs" | grep -c .)" -ne 1 ] || echo "$revs" | grep -q -- '-dirty$\|^-$'; then
        echo "reference-revision-check: the reference CSVs name $(echo "$revs" | grep -c .) revisions, not one clean one; rerun:"
        for r in $revs; do
            files=$(awk -v r="$r" '!/^#/ && ("," $3 ",") ~ ("," r ",") { sub(/.*\//, "", $1); printf "%s ", $1 }' "$manifest")
            echo "  $r: $files"
        done
        echo "(make reference, on a committed tree, reruns them all at one revision)"
        exit 1
    fi
    echo "reference-revision-check: every reference CSV at $revs"
    ;;
*)
    echo "usage: provenance.sh manifest|record|check|revisions ..." >&2
    exit 2
    ;;
esac
