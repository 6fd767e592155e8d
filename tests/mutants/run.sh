#!/bin/sh
# run.sh — make mutants: every seeded bug in tests/mutants/mutants.list is
# applied, one at a time, to a scratch copy of the tracked tree
# (build/mutants/src), rebuilt, and run against the make test steps named as
# its killers, in the order listed; a mutant is killed when one of them
# fails. The unmutated copy must first pass every named step, so a kill is
# the mutant's doing. Prints a table (mutant, file, killed by, result) and
# fails when any mutant survives, a patch does not apply, or the baseline
# fails. Run from the repository root:
#
#   sh tests/mutants/run.sh [NAME...]     (default: every mutant in the list)
#
# Killers (tests/mutants/README.md):
#   unit:SUITE   build/ratelab-tests SUITE (as make check-unit runs it)
#   tsan:SUITE   the ThreadSanitizer build's suite (as make check-tsan)
#   make:TARGET  make TARGET in the copy (e.g. orders-check)
set -eu

# MUTANTS_LIST: another list (e.g. to try a mutant against other killers)
LIST=${MUTANTS_LIST:-tests/mutants/mutants.list}
DIR=tests/mutants
SCRATCH=build/mutants
SRC=$SCRATCH/src
LOGS=$SCRATCH/logs
JOBS=$(nproc 2>/dev/null || echo 2)
# A mutant that makes a suite hang is killed by the timeout, not waited on.
STEP_TIMEOUT=${MUTANT_STEP_TIMEOUT:-300}
start=$(date +%s)

[ -f "$LIST" ] || {
    echo "mutants: $LIST not found (run from the repository root)" >&2
    exit 2
}
# The list without comments and blank lines: name | killers | why
entries() { grep -v '^[[:space:]]*\(#\|$\)' "$LIST"; }
field() { echo "$1" | awk -F'|' -v i="$2" '{ gsub(/^[ \t]+|[ \t]+$/, "", $i); print $i }'; }

if [ $# -gt 0 ]; then
    for n in "$@"; do
        entries | awk -F'|' -v n="$n" '{ gsub(/[ \t]/, "", $1) } $1 == n { f = 1 } END { exit !f }' ||
            {
                echo "mutants: no mutant named '$n' in $LIST" >&2
                exit 2
            }
    done
fi
selected() {
    entries | while IFS= read -r line; do
        name=$(field "$line" 1)
        if [ $# -eq 0 ]; then
            echo "$line"
        else
            for n in "$@"; do
                if [ "$n" = "$name" ]; then echo "$line"; fi
            done
        fi
    done
}
mkdir -p build
selected "$@" >"$SCRATCH.selected"

# ---- the scratch copy: the tracked files as they are now -----------------
rm -rf "$SCRATCH"
mkdir -p "$SRC" "$LOGS"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$SRC"
echo "mutants: $(wc -l <"$SCRATCH.selected") mutant(s), copy of the tracked tree in $SRC"

# What a step needs built in the copy, then the step itself (status: 0 pass).
build_for() {
    case $1 in
    unit:*) make -C "$SRC" --no-print-directory -j"$JOBS" build/ratelab build/ratelab-tests ;;
    tsan:*) make -C "$SRC" --no-print-directory -j"$JOBS" SAN=thread build/san-thread/ratelab-tests ;;
    make:*) true ;;
    *)
        echo "mutants: unknown killer '$1' (unit:, tsan: or make:)" >&2
        exit 2
        ;;
    esac
}
run_step() {
    case $1 in
    unit:*)
        (cd "$SRC" && RATELAB_BIN=build/ratelab RATELAB_TSAN_BIN=build/san-thread/ratelab \
            timeout "$STEP_TIMEOUT" build/ratelab-tests "${1#unit:}") ;;
    tsan:*)
        (cd "$SRC" && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
            timeout "$STEP_TIMEOUT" build/san-thread/ratelab-tests "${1#tsan:}") ;;
    make:*) timeout "$STEP_TIMEOUT" make -C "$SRC" --no-print-directory "${1#make:}" ;;
    esac
}

# ---- the baseline: every named step passes on the unmutated copy ---------
steps=$(while IFS= read -r line; do field "$line" 2 | tr ' ' '\n'; done <"$SCRATCH.selected" |
    awk 'NF && !seen[$0]++')
for s in $steps; do
    log="$LOGS/baseline-$(echo "$s" | tr ':/' '__').log"
    if ! { build_for "$s" && run_step "$s"; } >"$log" 2>&1; then
        tail -20 "$log" >&2
        echo "mutants FAILED: the unmutated copy fails $s ($log): a kill would prove nothing" >&2
        exit 1
    fi
    echo "mutants: baseline passes $s"
done

# ---- each mutant ----------------------------------------------------------
survivors=0
table="$SCRATCH/table.md"
printf '| mutant | file | killed by | result |\n|---|---|---|---|\n' >"$table"
while IFS= read -r line; do
    name=$(field "$line" 1)
    killers=$(field "$line" 2)
    patch="$DIR/$name.patch"
    file=$(sed -n 's|^+++ b/||p' "$patch" 2>/dev/null | head -1)
    log="$LOGS/$name.log"
    if ! patch -d "$SRC" -p1 --dry-run --forward <"$patch" >"$log" 2>&1; then
        printf '| %s | %s | — | PATCH DOES NOT APPLY |\n' "$name" "${file:-?}" >>"$table"
        survivors=$((survivors + 1))
        continue
    fi
    patch -d "$SRC" -p1 --forward --quiet <"$patch"
    killed_by=
    for s in $killers; do
        if ! build_for "$s" >>"$log" 2>&1; then
            killed_by="$s (build fails)"
            break
        fi
        if ! run_step "$s" >>"$log" 2>&1; then
            killed_by=$s
            break
        fi
    done
    # restored, and newer than the mutant's objects, so the next build redoes them
    patch -d "$SRC" -p1 -R --quiet <"$patch"
    touch "$SRC/$file"
    if [ -n "$killed_by" ]; then
        printf '| %s | %s | %s | killed |\n' "$name" "$file" "$killed_by" >>"$table"
    else
        printf '| %s | %s | — (%s) | SURVIVED |\n' "$name" "$file" "$killers" >>"$table"
        survivors=$((survivors + 1))
    fi
    tail -1 "$table"
done <"$SCRATCH.selected"

echo
cat "$table"
total=$(wc -l <"$SCRATCH.selected")
echo
echo "mutants: $((total - survivors)) of $total killed in $(($(date +%s) - start)) s (logs in $LOGS)"
if [ "$survivors" -ne 0 ]; then
    echo "mutants FAILED: $survivors mutant(s) survived or did not apply" >&2
    exit 1
fi
