#!/bin/sh
# build.sh OUT — builds OUT/driver from driver.go with the local Go toolchain
# (Debian's golang-go) against Debian's github.com/juju/ratelimit source
# (golang-github-juju-ratelimit-dev, under /usr/share/gocode). Offline:
# GOPATH mode, no module proxy; the build cache lives under OUT. Quiet; on
# failure one line on stderr and a non-zero exit.
set -u
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: build.sh OUT" >&2
    exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)
gocode=/usr/share/gocode
command -v go >/dev/null 2>&1 || { echo "go build: no go toolchain (install golang-go)" >&2; exit 1; }
[ -f "$gocode/src/github.com/juju/ratelimit/ratelimit.go" ] ||
    { echo "go build: $gocode/src/github.com/juju/ratelimit missing (install golang-github-juju-ratelimit-dev)" >&2; exit 1; }
mkdir -p "$out" || { echo "go build: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
log=$out/.build.log
if ! env GO111MODULE=off GOPATH="$out/.gopath:$gocode" GOFLAGS= GOCACHE="$out/.gocache" \
        GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 \
        go build -trimpath -o "$out/driver" "$here/driver.go" >"$log" 2>&1; then
    echo "go build failed: $(grep -v '^#' "$log" | head -n 1)" >&2
    exit 1
fi
rm -f "$log"
