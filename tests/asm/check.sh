#!/bin/sh
# check.sh — asserts the instructions each memory order must compile to, on
# the files tests/asm/build.sh extracted from `objdump -d` (build/asm/<target>/
# <function>.atomics: atomic and fence instructions in address order;
# <function>.s: the whole function). Fails, naming each miss, otherwise.
set -eu

OUT=${1:-build/asm}
fails=0

# The atomics of $1/$2 on one line; POWER's `sync` and `hwsync` are one
# instruction that objdump versions spell differently.
seq_of() {
    f="$OUT/$1/$2.atomics"
    [ -f "$f" ] || { echo "missing $f (run tests/asm/build.sh)" >&2; exit 1; }
    sed 's/^sync$/hwsync/' "$f" | paste -sd' ' -
}

bad() {
    echo "asm check FAILED: $*" >&2
    fails=$((fails + 1))
}

# expect TARGET FUNCTION "exact sequence" ("" for none)
expect() {
    got=$(seq_of "$1" "$2")
    [ "$got" = "$3" ] || bad "$1 $2: expected '${3:-<none>}', got '${got:-<none>}'"
}

# same TARGET F G: F and G compile to the same atomic instructions
same() {
    [ "$(seq_of "$1" "$2")" = "$(seq_of "$1" "$3")" ] || bad "$1: $2 and $3 differ"
}

# differ TARGET F G
differ() {
    [ "$(seq_of "$1" "$2")" != "$(seq_of "$1" "$3")" ] || bad "$1: $2 and $3 are the same"
}

# count TARGET F INSN: how many times INSN occurs in F's atomics
count() {
    seq_of "$1" "$2" | tr ' ' '\n' | grep -cx "$3" || true
}

# has_plain TARGET F REGEX: the whole function has a line matching REGEX
has_plain() {
    grep -Eq "$3" "$OUT/$1/$2.s" || bad "$1 $2: no instruction matching /$3/"
}

# ---- x86-64: every RMW is one lock xadd; only the seq_cst store differs.
t=x86-64
for o in relaxed acquire release acq_rel seq_cst; do expect $t faa_$o "lock xadd"; done
expect $t store_seq_cst "xchg"
expect $t store_release ""
has_plain $t store_release '^mov +%[a-z0-9]+,\('
expect $t load_seq_cst ""
expect $t load_acquire ""
has_plain $t load_seq_cst '^mov +\(%[a-z0-9]+\),%'
has_plain $t load_acquire '^mov +\(%[a-z0-9]+\),%'
[ "$(count $t fw_cas_acquire xchg)" -eq 1 ] || bad "$t fw_cas_acquire: expected one xchg (seq_cst reset store)"
[ "$(count $t fw_cas_acqrel_acquire xchg)" -eq 0 ] || bad "$t fw_cas_acqrel_acquire: release reset store should be a plain mov"
same $t tb_cas_acquire tb_cas_relaxed_acquire

# ---- AArch64 with LSE: one ldadd{,a,l,al}; acq_rel and seq_cst are both ldaddal.
t=aarch64-lse
expect $t faa_relaxed "ldadd"
expect $t faa_acquire "ldadda"
expect $t faa_release "ldaddl"
expect $t faa_acq_rel "ldaddal"
expect $t faa_seq_cst "ldaddal"
expect $t store_release "stlr"
expect $t store_seq_cst "stlr"
expect $t load_acquire "ldar"
expect $t load_seq_cst "ldar"
same $t fw_cas_acquire fw_cas_acqrel_acquire
expect $t tb_cas_relaxed_acquire "cas"
expect $t tb_cas_acquire "ldar casal"

# ---- AArch64 without LSE: LL/SC loops; the order picks ldxr/ldaxr, stxr/stlxr.
t=aarch64-nolse
expect $t faa_relaxed "ldxr stxr"
expect $t faa_acquire "ldaxr stxr"
expect $t faa_release "ldxr stlxr"
expect $t faa_acq_rel "ldaxr stlxr"
expect $t faa_seq_cst "ldaxr stlxr"
expect $t store_release "stlr"
expect $t store_seq_cst "stlr"
expect $t load_acquire "ldar"
expect $t load_seq_cst "ldar"
same $t fw_cas_acquire fw_cas_acqrel_acquire
expect $t tb_cas_relaxed_acquire "ldxr stxr"
expect $t tb_cas_acquire "ldar ldaxr stlxr"

# ---- AArch64 v8.3 (RCpc): an acquire load may be the weaker `ldapr`
# (release consistency, processor-consistent); a seq_cst load must stay
# `ldar`. gcc 12.2 does not use ldapr even here (checked: -march=armv8.3-a
# and armv8.2-a+rcpc both give ldar), so with gcc <= 12 the column must
# match armv8.1-a exactly; a later gcc may emit ldapr for the acquire load,
# and then only there.
t=aarch64-v83
for f in faa_relaxed faa_acquire faa_release faa_acq_rel faa_seq_cst store_release store_seq_cst \
    load_seq_cst fw_cas_acqrel_acquire tb_cas_relaxed_acquire; do
    expect $t $f "$(seq_of aarch64-lse $f)"
done
expect $t load_seq_cst "ldar"
same $t fw_cas_acquire fw_cas_acqrel_acquire
major=$(aarch64-linux-gnu-gcc -dumpversion | cut -d. -f1)
if [ "$major" -le 12 ]; then
    expect $t load_acquire "ldar"
    expect $t tb_cas_acquire "ldar casal"
else
    case $(seq_of $t load_acquire) in
    ldar | ldapr) ;;
    *) bad "$t load_acquire: expected ldapr or ldar, got '$(seq_of $t load_acquire)'" ;;
    esac
fi

# ---- POWER: release is lwsync, seq_cst is hwsync (sync), acquire is isync.
t=power
expect $t faa_relaxed "ldarx stdcx."
expect $t faa_acquire "ldarx stdcx. isync"
expect $t faa_release "lwsync ldarx stdcx."
expect $t faa_acq_rel "lwsync ldarx stdcx. isync"
expect $t faa_seq_cst "hwsync ldarx stdcx. isync"
expect $t store_release "lwsync"
expect $t store_seq_cst "hwsync"
has_plain $t store_release '^std '
has_plain $t store_seq_cst '^std '
expect $t load_acquire "isync"
expect $t load_seq_cst "hwsync isync"
differ $t fw_cas_acquire fw_cas_acqrel_acquire
seq_hw=$(count $t fw_cas_acquire hwsync)
acq_hw=$(count $t fw_cas_acqrel_acquire hwsync)
[ "$acq_hw" -lt "$seq_hw" ] || bad "$t: fw_cas_acqrel_acquire should have fewer hwsync than fw_cas_acquire ($acq_hw vs $seq_hw)"
[ "$(count $t fw_cas_acqrel_acquire lwsync)" -ge 2 ] || bad "$t fw_cas_acqrel_acquire: expected lwsync for its acq_rel/release count"
expect $t tb_cas_relaxed_acquire "ldarx stdcx."
expect $t tb_cas_acquire "isync lwsync ldarx stdcx. isync"

if [ "$fails" -ne 0 ]; then
    echo "asm check: $fails assertion(s) failed" >&2
    exit 1
fi
echo "asm check: every order compiles to the expected instructions on all five targets"
