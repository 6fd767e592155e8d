#!/bin/sh
# build.sh OUT — builds the nginx limit_req driver into OUT/driver (README.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
[ -x /usr/sbin/nginx ] || { echo "nginx build: /usr/sbin/nginx missing (deps.txt: nginx-light)"; exit 1; }
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -o "$out/driver.tmp" "$here/driver.c" ||
    { echo "nginx build: cc failed on driver.c"; exit 1; }
mv "$out/driver.tmp" "$out/driver"
