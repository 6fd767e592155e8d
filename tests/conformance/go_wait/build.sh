#!/bin/sh
# build.sh OUT — builds OUT/driver (driver.go, cancel_table.go) with the
# local Go toolchain (Debian's golang-go) against Debian's
# golang.org/x/time/rate (golang-golang-x-time-dev) in GOPATH mode, offline,
# the build cache under OUT; then runs cancel_table.csv through the real
# package (CancelAt's conformance: traces carry no cancellations yet), so a
# package that does not meet the table fails the build. Quiet; on failure
# one line on stderr and a non-zero exit.
set -u
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: build.sh OUT" >&2
    exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)
gocode=/usr/share/gocode
command -v go >/dev/null 2>&1 || { echo "go build: no go toolchain (install golang-go)" >&2; exit 1; }
[ -f "$gocode/src/golang.org/x/time/rate/rate.go" ] ||
    { echo "go build: $gocode/src/golang.org/x/time/rate missing (install golang-golang-x-time-dev)" >&2; exit 1; }
mkdir -p "$out" || { echo "go build: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
log=$out/.build.log
if ! env GO111MODULE=off GOPATH="$out/.gopath:$gocode" GOFLAGS= GOCACHE="$out/.gocache" \
        GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 \
        go build -trimpath -o "$out/driver" "$here/driver.go" "$here/cancel_table.go" >"$log" 2>&1; then
    echo "go build failed: $(grep -v '^#' "$log" | head -n 1)" >&2
    exit 1
fi
if ! "$out/driver" --mode cancel-table "$here/cancel_table.csv" >"$log" 2>&1; then
    echo "cancel table: $(head -n 1 "$log")" >&2
    exit 1
fi
rm -f "$log"
