#!/bin/sh
# gen.sh — the traces Linux's conformance runs on (run.sh calls it instead of
# gen_traces.sh):
#   tests/conformance/linux/gen.sh RATELAB OUT COUNT SEED
# the shared generator's traces with every cost 1: ___ratelimit decides one
# event a call, so a trace with n > 1 is outside what it can express, and
# the driver would skip it (exit 3), which fails the run. Every interval the
# shared generator draws is whole milliseconds, whole jiffies at HZ 1000.
set -eu
exec sh "$(dirname "$0")/../gen_traces.sh" "$1" "$2" "$3" "$4" --unit-cost
