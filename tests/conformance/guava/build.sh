#!/bin/sh
# build.sh OUT — compiles the Guava driver against Debian's Guava into OUT
# and writes OUT/driver, a wrapper that runs it (README.md beside this file).
# On failure: one line saying why, and a non-zero status.
set -u
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: build.sh OUT" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
jar=/usr/share/java/guava.jar
fail() {
    echo "guava build: $*"
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
    "$here/src/com/google/common/util/concurrent/RatelabGuavaDriver.java" >"$out/javac.log" 2>&1; then
    fail "javac failed: $(head -n 1 "$out/javac.log")"
fi
# The driver's class must share a class loader with Guava's to reach its
# package-private stopwatch and SmoothBursty: both go on one class path.
# Trace modes are short runs, where the first JIT tier alone starts fastest;
# bench measures steady state, so it gets the JVM's default tiers.
# Conformance compares like with like: every key's Guava limiter is created
# at the epoch (stopwatch 0), as ratelab's keyed state is (README.md,
# "Creation"); the driver alone, without the wrapper, defaults to first-seen.
cat >"$out/driver.tmp" <<WRAP || fail "cannot write $out/driver"
#!/bin/sh
cp='$out/classes:$jar'
main=com.google.common.util.concurrent.RatelabGuavaDriver
case " \$* " in
*" --mode bench "*) exec java -cp "\$cp" "\$main" "\$@" ;;
*) exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -cp "\$cp" "\$main" --created-at epoch "\$@" ;;
esac
WRAP
chmod +x "$out/driver.tmp" && mv "$out/driver.tmp" "$out/driver" || fail "cannot write $out/driver"
