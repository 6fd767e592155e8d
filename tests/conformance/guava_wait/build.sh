#!/bin/sh
# build.sh OUT — compiles the Guava shaper driver (with ../guava's driver,
# whose rate and burst mapping it shares) against Debian's Guava into OUT
# and writes OUT/driver, a wrapper that runs it (README.md beside this
# file). On failure: one line saying why, and a non-zero status.
set -u
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: build.sh OUT" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
jar=/usr/share/java/guava.jar
pkg=src/com/google/common/util/concurrent
fail() {
    echo "guava_wait build: $*"
    exit 1
}
command -v javac >/dev/null 2>&1 || fail "javac not found (Debian package default-jdk-headless)"
command -v java >/dev/null 2>&1 || fail "java not found (Debian package default-jdk-headless)"
[ -r "$jar" ] || fail "$jar not found (Debian package libguava-java)"
mkdir -p "$1" 2>/dev/null || fail "cannot create $1"
out=$(cd "$1" 2>/dev/null && pwd) || fail "cannot enter $1"
case "$out" in *"'"*) fail "OUT must not contain a single quote: $out" ;; esac
rm -rf "$out/classes"
mkdir -p "$out/classes" 2>/dev/null || fail "cannot create $out/classes"
if ! javac -nowarn -encoding UTF-8 -d "$out/classes" -cp "$jar" \
    "$here/$pkg/RatelabGuavaShapeDriver.java" "$here/../guava/$pkg/RatelabGuavaDriver.java" \
    >"$out/javac.log" 2>&1; then
    fail "javac failed: $(head -n 1 "$out/javac.log")"
fi
# One class path: the driver reaches Guava's package-private doors. Short
# runs: the first JIT tier alone starts fastest. The algorithm comes from
# CONFORMANCE_ALGO (run.sh sets it) or --algo.
cat >"$out/driver.tmp" <<WRAP || fail "cannot write $out/driver"
#!/bin/sh
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -cp '$out/classes:$jar' \
    com.google.common.util.concurrent.RatelabGuavaShapeDriver "\$@"
WRAP
chmod +x "$out/driver.tmp" && mv "$out/driver.tmp" "$out/driver" || fail "cannot write $out/driver"
