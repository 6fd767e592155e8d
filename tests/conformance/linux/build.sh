#!/bin/sh
# build.sh OUT — builds OUT/driver: lib/ratelimit.c of Debian's
# linux-source-6.1, compiled in user space with the shims in shim/, plus
# driver.c. Kernel files are extracted under OUT/kernel at build time and
# never kept in the repository. One line and non-zero on failure.
set -u
fail() { echo "linux/build.sh: $*" >&2; exit 1; }
# The first error line of a compiler's output, else its first line.
first() {
    m=$(printf '%s\n' "$1" | grep -m1 'error' || true)
    [ -n "$m" ] || m=$(printf '%s\n' "$1" | head -n 1)
    echo "${m:-failed without a message}"
}
[ $# -eq 1 ] || { echo "usage: build.sh OUT" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "$0")" && pwd) || fail "cannot find my folder"
tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] || fail "$tarball missing (apt-get install linux-source-6.1)"
command -v xz >/dev/null 2>&1 || fail "xz missing (apt-get install xz-utils)"
mkdir -p "$out" || fail "cannot create $out"
out=$(cd "$out" && pwd) || fail "cannot enter OUT"
k=$out/kernel
src=$k/linux-source-6.1
members="linux-source-6.1/lib/ratelimit.c
linux-source-6.1/include/linux/ratelimit.h
linux-source-6.1/include/linux/ratelimit_types.h
linux-source-6.1/include/linux/jiffies.h"
# The stamp records which tarball (size and time) the extraction came from.
stamp=$(stat -L -c '%s %Y' "$tarball") || fail "cannot stat $tarball"
if [ ! -f "$k/stamp" ] || [ "$(cat "$k/stamp")" != "$stamp" ]; then
    rm -rf "$k" || fail "cannot remove $k"
    mkdir -p "$k" || fail "cannot create $k"
    # shellcheck disable=SC2086 # the member names are one per word
    err=$(tar -xJf "$tarball" -C "$k" $members 2>&1) ||
        fail "extracting lib/ratelimit.c from $tarball: $(first "$err")"
    echo "$stamp" >"$k/stamp" || fail "cannot write $k/stamp"
fi
# The shim's time_after must be the kernel's: check the extracted jiffies.h.
if ! grep -q 'define time_is_before_jiffies(a) time_after(jiffies, a)' "$src/include/linux/jiffies.h" ||
    ! grep -q '((long)((b) - (a)) < 0))' "$src/include/linux/jiffies.h"; then
    fail "include/linux/jiffies.h no longer defines time_after as shim/kshim.h does"
fi
# jiffies.h itself stays out of the include path: shim/ supplies it.
inc=$out/include/linux
mkdir -p "$inc" || fail "cannot create $inc"
cp "$src/include/linux/ratelimit.h" "$src/include/linux/ratelimit_types.h" "$inc/" ||
    fail "cannot copy the ratelimit headers"
cc=${CC:-cc}
# The kernel's own code-generation flags that matter in user space.
kflags="-std=gnu11 -O2 -fno-strict-aliasing -fno-strict-overflow -fno-delete-null-pointer-checks"
# shellcheck disable=SC2086 # $cc and $kflags are words
err=$($cc $kflags -Wall -Werror -I"$here/shim" -I"$out/include" -c "$src/lib/ratelimit.c" \
    -o "$out/ratelimit.o" 2>&1) || fail "compiling lib/ratelimit.c with $cc: $(first "$err")"
# shellcheck disable=SC2086
err=$($cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$here/shim" -I"$out/include" \
    -c "$here/driver.c" -o "$out/driver.o" 2>&1) ||
    fail "compiling driver.c with $cc: $(first "$err")"
# shellcheck disable=SC2086
err=$($cc "$out/driver.o" "$out/ratelimit.o" -o "$out/driver" 2>&1) ||
    fail "linking with $cc: $(first "$err")"
