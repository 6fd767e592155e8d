#!/bin/sh
# selftest.sh — shows that run.sh fails where a conformance run compares too
# little or excuses too much, with a fake peer (no real peer, a few seconds):
#   tests/conformance/selftest.sh RATELAB
# The fake peer's driver decides through `ratelab sim` itself; FAKE_DRIVER
# picks how it misbehaves and FAKE_TRACES how many traces its generator
# writes. Each case runs run.sh and checks its exit status and the line that
# names the reason; a second fake peer checks release_tolerance.txt.
# Exits 1 naming each case that did not go as expected.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
FAKE_RATELAB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export FAKE_RATELAB
work=$(pwd)/build/conformance-selftest
rm -rf "$work"
peer=$work/peers/fake
mkdir -p "$peer"

# caps.txt: for a run of 2 traces, at least 2 traces and 100 attempts, and
# at most 10 % of them excused. Each fake trace has 60 attempts.
echo "fake 2 2 100 10" >"$work/peers/caps.txt"
echo "# none" >"$peer/deps.txt"
echo "tb_mutex" >"$peer/pairs.txt"
cat >"$peer/gen.sh" <<'GEN'
#!/bin/sh
# FAKE_TRACES traces (default COUNT) of 60 attempts, 50 µs apart, on one key.
set -eu
out=$2 n=${FAKE_TRACES:-$3}
mkdir -p "$out"
i=1
while [ "$i" -le "$n" ]; do
    # FAKE_SHAPE=1: a shaper's trace, each attempt's max wait in a 4th column
    awk -v shape="${FAKE_SHAPE:-0}" 'BEGIN {print "t_ns,key,n" (shape ? ",max_wait_ns" : "")
        for (j = 0; j < 60; j++) printf "%d,k,1%s\n", j * 50000, shape ? "," (j % 3 ? j * 2000 : "") : ""}' \
        >"$out/t00$i.csv"
    echo "10 1000000 10 sorted" >"$out/t00$i.cfg"
    i=$((i + 1))
done
GEN
cat >"$peer/build.sh" <<'BUILD'
#!/bin/sh
# The driver: ratelab's own decisions, bent as FAKE_DRIVER says:
#   ok        every mode decides as ratelab
#   skip      exit 3, as a peer that cannot express the trace
#   excused   real and port-rounded flip every 5th decision (20 %), port-exact
#             decides as ratelab: mismatches the ports bracket
#   semantic  real flips every 5th decision, the ports decide as ratelab
#   late      (a shaper's trace) real releases every 5th admit 1 ns late
# A trace with max_wait_ns is a shaper's: gcra_spacer decides, and the
# driver writes release_ns as a shaper's peer does.
cat >"$1/driver" <<'DRIVER'
#!/bin/sh
set -eu
mode=$2 limit=$4 interval=$6 burst=$8 trace=$9
if [ "${FAKE_DRIVER:-ok}" = skip ]; then echo "skipped: fake" >&2; exit 3; fi
algo=tb_mutex shape=0
head -n 1 "$trace" | grep -q max_wait_ns && algo=gcra_spacer shape=1
tmp=$(mktemp)
"$FAKE_RATELAB" sim --algo $algo --trace "$trace" --unsorted --limit "$limit" \
    --interval "${interval}ns" --burst "$burst" --decisions "$tmp" --format csv >/dev/null
flip=0 late=0
case "${FAKE_DRIVER:-ok}:$mode" in excused:real | excused:port-rounded | semantic:real) flip=1 ;; late:real) late=1 ;; esac
awk -F, -v OFS=, -v flip="$flip" -v late="$late" -v shape="$shape" '
    NR == 1 {print "t_ns,key,n,admitted" (shape ? ",release_ns" : ""); next}
    {if (flip && NR % 5 == 0) $4 = 1 - $4
     if (late && NR % 5 == 0 && $4 == 1) $6 += 1
     if (shape) print $1, $2, $3, $4, $6; else print $1, $2, $3, $4}' "$tmp"
rm -f "$tmp"
DRIVER
chmod +x "$1/driver"
BUILD
chmod +x "$peer/gen.sh" "$peer/build.sh"

failures=0
# expect CASE STATUS TEXT [VAR=VALUE...]: run.sh with the fake peer, 2 traces;
# its exit status must be STATUS and its output must hold TEXT.
expect() {
    name=$1 want=$2 text=$3
    shift 3
    rc=0
    env "$@" CONFORMANCE_PEERS_DIR="$work/peers" CONFORMANCE_WORK="$work/run" \
        sh "$here/run.sh" "$FAKE_RATELAB" "$work/out.csv" 2 1 "${selftest_peer:-fake}" \
        >"$work/$name.log" 2>&1 || rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -q -- "$text" "$work/$name.log"; then
        echo "conformance-selftest: $name: exit $rc (wanted $want), output ${text:+without \"$text\"} in $work/$name.log:"
        tail -n 5 "$work/$name.log" | sed 's/^/    /'
        failures=$((failures + 1))
    else
        echo "conformance-selftest: $name: exit $rc, \"$text\""
    fi
}
expect agreeing-peer-passes 0 "passed, every peer compared: fake/tb_mutex 2 traces 120 attempts"
expect skipped-trace-fails 1 "2 of 2 traces skipped by the driver (exit 3)" FAKE_DRIVER=skip
expect no-trace-fails 1 "its generator wrote no trace" FAKE_TRACES=0
expect too-few-traces-fail 1 "compared 1 traces, fewer than the 2 caps.txt requires" FAKE_TRACES=1
expect excused-over-cap-fails 1 "above the cap of 10 %" FAKE_DRIVER=excused
expect semantic-fails 1 "semantic mismatches" FAKE_DRIVER=semantic
echo "fake 2 2 100 25" >"$work/peers/caps.txt"
expect excused-under-cap-passes 0 "passed, every peer compared" FAKE_DRIVER=excused
echo "fake 2 2 1000 25" >"$work/peers/caps.txt"
expect too-few-attempts-fail 1 "compared 120 attempts, fewer than the 1000 caps.txt requires"
# A run size caps.txt has no row for: one trace and one attempt a trace
# required, the peer's loosest cap (25 % here) applied, and said so.
echo "fake 40 40 9000 25" >"$work/peers/caps.txt"
expect no-row-says-so 0 "caps.txt has no row for 2 traces: at least 1 trace, 1 attempt a trace, excused ≤ 25 %" FAKE_DRIVER=excused
echo "fake 40 40 9000 5" >"$work/peers/caps.txt"
expect no-row-loosest-cap-fails 1 "above the cap of 5 %" FAKE_DRIVER=excused
# A shaper's peer: its release times are compared as its decisions are.
echo "fake 2 2 100 10" >"$work/peers/caps.txt"
echo "gcra_spacer" >"$peer/pairs.txt"
expect shaper-agreeing-passes 0 "passed, every peer compared: fake/gcra_spacer 2 traces 120 attempts" FAKE_SHAPE=1
expect shaper-late-release-fails 1 "semantic mismatches" FAKE_SHAPE=1 FAKE_DRIVER=late

# A peer timed on a real clock (README.md, "Shapers"): a second fake peer
# whose driver is the sim of the algorithm CONFORMANCE_ALGO names, with
# FAKE_DRIVER late/early moving every 5th delayed release of `real` 1 µs
# later/earlier. Within its release_tolerance.txt a release apart is timing
# noise and passes, counted; outside it (earlier) it still fails.
shaper=$work/peers/fakeshape
mkdir -p "$shaper"
echo "# none" >"$shaper/deps.txt"
echo "gcra_spacer" >"$shaper/pairs.txt"
echo "0 2000" >"$shaper/release_tolerance.txt"
echo "fakeshape 2 2 100 10" >"$work/peers/caps.txt"
cat >"$shaper/gen.sh" <<'GEN'
#!/bin/sh
# 2 traces of 60 attempts 50 µs apart, each waiting as long as it takes.
set -eu
out=$2
mkdir -p "$out"
for i in 1 2; do
    awk 'BEGIN {print "t_ns,key,n,max_wait_ns"; for (j = 0; j < 60; j++) printf "%d,k,1,\n", j * 50000}' \
        >"$out/t00$i.csv"
    echo "10 1000000 2 sorted" >"$out/t00$i.cfg"
done
GEN
cat >"$shaper/build.sh" <<'BUILD'
#!/bin/sh
cat >"$1/driver" <<'DRIVER'
#!/bin/sh
set -eu
mode=$2 limit=$4 interval=$6 burst=$8 trace=$9
tmp=$(mktemp)
"$FAKE_RATELAB" sim --algo "$CONFORMANCE_ALGO" --trace "$trace" --unsorted --limit "$limit" \
    --interval "${interval}ns" --burst "$burst" --decisions "$tmp" --format csv >/dev/null
move=0
case "${FAKE_DRIVER:-ok}:$mode" in late:real) move=1000 ;; early:real) move=-1000 ;; esac
awk -F, -v OFS=, -v move="$move" 'NR == 1 {print "t_ns,key,n,admitted,release_ns"; next}
    {r = $6; if (move && r != "" && r != $1 && NR % 5 == 0) r += move; print $1, $2, $3, $4, r}' "$tmp"
rm -f "$tmp"
DRIVER
chmod +x "$1/driver"
BUILD
chmod +x "$shaper/gen.sh" "$shaper/build.sh"
selftest_peer=fakeshape
expect tolerance-agreeing-passes 0 "passed, every peer compared: fakeshape/gcra_spacer 2 traces 120 attempts"
expect tolerance-within-passes 0 "24 of 120 identical have a release apart within the tolerance \[0 2000\] ns" FAKE_DRIVER=late
expect tolerance-early-fails 1 "semantic mismatches" FAKE_DRIVER=early
rm -rf "$work/peers" "$work/run"
[ "$failures" -eq 0 ] || { echo "conformance-selftest: $failures cases failed"; exit 1; }
echo "conformance-selftest: every case as expected"
