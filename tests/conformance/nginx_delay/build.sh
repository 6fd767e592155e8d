#!/bin/sh
# build.sh OUT — builds ../nginx's driver into OUT/driver.bin and writes
# OUT/driver, which runs it with --shaped yes: limit_req burst= delay=,
# releases observed (README.md beside this file).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
case "$out" in *"'"*) echo "nginx_delay build: OUT must not contain a single quote"; exit 1 ;; esac
sh "$here/../nginx/build.sh" "$out/bin"
mv "$out/bin/driver" "$out/driver.bin"
rmdir "$out/bin" 2>/dev/null || true # empty now
printf '#!/bin/sh\nexec %s --shaped yes "$@"\n' "'$out/driver.bin'" >"$out/driver.tmp"
chmod +x "$out/driver.tmp" && mv "$out/driver.tmp" "$out/driver"
