#!/bin/sh
# build.sh — make asm: compile the hot path of every memory-order variant for
# five targets (x86-64; AArch64 without LSE, with LSE, and ARMv8.3 with
# RCpc's ldapr; POWER), pull each function's atomic and fence instructions out of
# `objdump -d`, and write the table to build/asm/table.md (also printed).
# Nothing in the table is typed by hand; tests/asm/check.sh asserts on the
# same extracted files. Run from the repository root.
set -eu

OUT=${1:-build/asm}
CFLAGS="-O2 -c -std=c11 -D_GNU_SOURCE -I."

# Sources and the functions of interest in each, with the orders they use.
SRCS="algorithms/windows/fw_cas.c algorithms/windows/fw_cas_acqrel.c algorithms/buckets/tb_cas.c algorithms/buckets/tb_cas_relaxed.c tests/asm/orders.c"
ROWS="fw_cas_acquire|count: seq_cst fetch-add, seq_cst reset store
fw_cas_acqrel_acquire|count: acq_rel fetch-add, release reset store
tb_cas_acquire|acquire load, acq_rel/acquire CAS
tb_cas_relaxed_acquire|relaxed load, relaxed/relaxed CAS
faa_relaxed|fetch-add relaxed
faa_acquire|fetch-add acquire
faa_release|fetch-add release
faa_acq_rel|fetch-add acq_rel
faa_seq_cst|fetch-add seq_cst
store_release|store release
store_seq_cst|store seq_cst
load_acquire|load acquire
load_seq_cst|load seq_cst"

# target|compiler|flags|objdump|column title
TARGETS="x86-64|gcc||objdump|x86-64 (gcc)
aarch64-lse|aarch64-linux-gnu-gcc|-march=armv8.1-a|aarch64-linux-gnu-objdump|AArch64 LSE (armv8.1-a)
aarch64-nolse|aarch64-linux-gnu-gcc|-march=armv8-a -mno-outline-atomics|aarch64-linux-gnu-objdump|AArch64 no-LSE (armv8-a)
aarch64-v83|aarch64-linux-gnu-gcc|-march=armv8.3-a|aarch64-linux-gnu-objdump|AArch64 RCpc (armv8.3-a)
power|powerpc64le-linux-gnu-gcc||powerpc64le-linux-gnu-objdump|POWER (ppc64le)"

# The cross tools and their C library headers (the sources include
# <stdint.h> and friends), installed when missing (Debian package names).
missing=
for t in aarch64-linux-gnu-gcc aarch64-linux-gnu-objdump powerpc64le-linux-gnu-gcc powerpc64le-linux-gnu-objdump; do
    command -v "$t" >/dev/null 2>&1 || missing=yes
done
for h in /usr/aarch64-linux-gnu/include/stdint.h /usr/powerpc64le-linux-gnu/include/stdint.h; do
    [ -f "$h" ] || missing=yes
done
if [ -n "$missing" ]; then
    SUDO=
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "asm: installing cross compilers and headers (gcc-aarch64-linux-gnu, gcc-powerpc64le-linux-gnu," \
        "libc6-dev-arm64-cross, libc6-dev-ppc64el-cross)" >&2
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-aarch64-linux-gnu \
        gcc-powerpc64le-linux-gnu binutils-aarch64-linux-gnu binutils-powerpc64le-linux-gnu \
        libc6-dev-arm64-cross libc6-dev-ppc64el-cross >&2
fi

# Prints the instruction text (mnemonic and operands) of function $2 in the
# `objdump -d --no-show-raw-insn` output $1, one per line.
body() {
    awk -v fn="$2" '
        $0 ~ "^[0-9a-f]+ <" fn ">:$" { on = 1; next }
        on && /^$/ { on = 0 }
        on && /^ *[0-9a-f]+:\t/ {
            n = split($0, f, "\t")
            if (n >= 2) { s = f[2]; for (i = 3; i <= n; i++) s = s " " f[i]; print s }
        }' "$1"
}

# Filters body() lines down to the atomic and fence instructions of target $1.
atomics() {
    case $1 in
    x86-64)
        # lock-prefixed RMWs, xchg with memory (implicitly locked), fences
        awk '/^lock / { print $1 " " $2; next }
             /^xchg / && /\(/ { print "xchg"; next }
             /^(mfence|lfence|sfence)/ { print $1 }' ;;
    aarch64-*)
        awk '$1 ~ /^(ldadd|ldclr|ldeor|ldset|ldsmax|ldsmin|ldumax|ldumin|swp|cas)(a|l|al)?[bh]?$/ ||
             $1 ~ /^(ld(a)?xr|st(l)?xr|ld(a)?xp|st(l)?xp)[bh]?$/ ||
             $1 ~ /^(stlr|ldar|ldapr|stllr|ldlar)[bh]?$/ { print $1; next }
             $1 == "dmb" || $1 == "dsb" { print $1 " " $2 }' ;;
    power)
        awk '$1 ~ /^(lwsync|hwsync|sync|isync|eieio)$/ ||
             $1 ~ /^l[bhwdq]arx$/ || $1 ~ /^st[bhwdq]cx\.$/ { print $1 }' ;;
    esac
}

mkdir -p "$OUT"
echo "$TARGETS" | while IFS='|' read -r t cc flags od title; do
    mkdir -p "$OUT/$t"
    for src in $SRCS; do
        o="$OUT/$t/$(basename "$src" .c).o"
        # shellcheck disable=SC2086
        $cc $CFLAGS $flags "$src" -o "$o"
        $od -d --no-show-raw-insn "$o" >"$o.dis"
    done
    cat "$OUT/$t"/*.o.dis >"$OUT/$t/all.dis"
    echo "$ROWS" | while IFS='|' read -r fn _; do
        body "$OUT/$t/all.dis" "$fn" >"$OUT/$t/$fn.s"
        if [ ! -s "$OUT/$t/$fn.s" ]; then
            echo "asm: $fn not found in the $t disassembly" >&2
            exit 1
        fi
        atomics "$t" <"$OUT/$t/$fn.s" >"$OUT/$t/$fn.atomics"
    done
done

# The table: one row per function × order, one column per target; each cell
# is the function's atomic/fence instructions in program (address) order.
{
    printf '| function | orders |'
    echo "$TARGETS" | while IFS='|' read -r _ _ _ _ title; do printf ' %s |' "$title"; done
    printf '\n|---|---|'
    echo "$TARGETS" | while IFS='|' read -r _ _ _ _ _; do printf -- '---|'; done
    printf '\n'
    echo "$ROWS" | while IFS='|' read -r fn what; do
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf '| `%s` | %s |' "$fn" "$what"
        echo "$TARGETS" | while IFS='|' read -r t _ _ _ _; do
            if [ -s "$OUT/$t/$fn.atomics" ]; then
                # shellcheck disable=SC2016 # the backquotes are Markdown
                printf ' %s |' "$(sed 's/.*/`&`/' "$OUT/$t/$fn.atomics" | paste -sd' ' -)"
            else
                printf ' — |'
            fi
        done
        printf '\n'
    done
    printf '\n— : no atomic or fence instruction, only plain loads and stores. '
    printf 'Cells list instructions in address order (all paths of the function). '
    printf 'Flags: -O2 -c -std=c11 -D_GNU_SOURCE plus the target'"'"'s -march. Compilers:'
    echo "$TARGETS" | while IFS='|' read -r t cc flags _ _; do
        echo "$cc $($cc -dumpfullversion 2>/dev/null || $cc -dumpversion)"
    done | awk '!seen[$0]++' | paste -sd';' - | sed 's/;/; /g; s/^/ /; s/$/./'
    # ARMv8.3's RCpc acquire load (ldapr) is what the armv8.3-a column is
    # for; say which instruction this compiler chose, read off the table.
    acq=$(paste -sd' ' - <"$OUT/aarch64-v83/load_acquire.atomics")
    if [ "$acq" = ldapr ]; then
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf '\nAArch64 armv8.3-a: an acquire load compiles to RCpc `ldapr` (a seq_cst load stays `%s`).\n' \
            "$(paste -sd' ' - <"$OUT/aarch64-v83/load_seq_cst.atomics")"
    else
        same=$(echo "$ROWS" | while IFS='|' read -r fn _; do
            cmp -s "$OUT/aarch64-v83/$fn.atomics" "$OUT/aarch64-lse/$fn.atomics" || echo "$fn"
        done)
        if [ -z "$same" ]; then same='every cell matches armv8.1-a'; else same="cells differing from armv8.1-a: $(echo "$same" | paste -sd' ' -)"; fi
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf '\nAArch64 armv8.3-a: this compiler emits `%s` for an acquire load, not RCpc `ldapr`; %s.\n' \
            "${acq:-—}" "$same"
    fi
} >"$OUT/table.md"
cat "$OUT/table.md"
