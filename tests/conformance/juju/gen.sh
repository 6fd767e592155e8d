#!/bin/sh
# gen.sh RATELAB OUT COUNT SEED — the shapers' traces with a per-attempt max
# wait, shared with x/time/rate's shaper (../go_wait/gen.sh says how).
exec sh "$(cd "$(dirname "$0")" && pwd)/../go_wait/gen.sh" "$@"
