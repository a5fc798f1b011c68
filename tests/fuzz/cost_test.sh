#!/usr/bin/env bash
# The resource oracles end to end, over the planted_cost ops
# (tests/planted/cost_ops.cc). With --oracles=all a campaign reports each
# of the three wrong ops as one bug with its verdict (leak,
# memory_amplification, perf_cliff) and nothing for the four right ones;
# without --oracles it reports nothing (their values are right). A stored
# leak finding replays without --oracles: it turns on the oracle that
# found it.
#   cost_test.sh PATH_TO_DPFUZZ_PLANTED
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"
ops='planted_cost::*'

"$dpfuzz" --op="$ops" --oracles=all --jobs=1 --max_time=30 --seed=3 \
  --findings="$dir/on" >"$dir/on.out" 2>&1
status=$?
[ "$status" = 1 ] || { die "--oracles=all: exit $status, expected 1"; tail -5 "$dir/on.out"; }
got=$(json "$dir/on/report.json" \
  '" ".join(sorted(b["op"].split("::")[1] + ":" + b["verdict"] for b in j["bugs"]))')
want="bloated_neg:memory_amplification leaky_neg:leak slow_strided_neg:perf_cliff"
[ "$got" = "$want" ] || die "--oracles=all: bugs \"$got\", expected \"$want\""

"$dpfuzz" --op="$ops" --jobs=1 --max_time=10 --seed=3 \
  --findings="$dir/off" >"$dir/off.out" 2>&1
status=$?
[ "$status" = 0 ] || { die "no --oracles: exit $status, expected 0"; tail -5 "$dir/off.out"; }

leak=$(ls -d "$dir"/on/leak-* 2>/dev/null | head -1)
if [ -z "$leak" ]; then
  die "no stored leak finding"
else
  "$dpfuzz" replay "$leak" >"$dir/replay.out" 2>&1
  status=$?
  [ "$status" = 1 ] || { die "replay of the leak finding: exit $status, expected 1"; tail -5 "$dir/replay.out"; }
fi

"$dpfuzz" --op="$ops" --oracles=leak,speed --max_time=1 >"$dir/bad.out" 2>&1
status=$?
[ "$status" = 2 ] || die "--oracles=leak,speed: exit $status, expected 2"
grep -q '"speed"' "$dir/bad.out" || die "--oracles=leak,speed: the error does not name \"speed\""
exit $fail
