#!/usr/bin/env bash
# Nested tensors end to end through the dpfuzz command line:
#   nested_test.sh DPFUZZ_PLANTED DPFUZZ PLANTED_OPS_LIBRARY
# planted_nested::buffer_relu (a nested kernel that reads the buffer as if
# its components were dense) is found, reduced and reported as one bug
# (whatever nested feature blame names) whose case file keeps the
# components, replays, and has a Python repro that builds the nested
# argument; planted_nested::good_relu gives none. The same through the
# schema-driven path: dpfuzz with the ops' library loaded (--load), which
# has no spec of them, only their NestedTensorCPU kernels. LibTorch's own
# nested kernels run without an error of dpfuzz's.
set -u
planted="$1"
dpfuzz="$2"
library="$3"
source "$(dirname "$0")/test_lib.sh"

"$planted" --op='nested:planted_nested::*' --runs=600 --seed=3 \
  --python_check=false --findings="$dir/f" --summary_json="$dir/s.json" \
  >"$dir/out" 2>&1
status=$?
[ "$status" = 1 ] || die "exit $status, expected 1 (a new bug)"
[ "$(grep -c '^BUG: ' "$dir/out")" = 1 ] ||
  die "expected exactly one BUG line: $(grep '^BUG: ' "$dir/out")"
grep -q '^BUG: .*planted_nested::buffer_relu' "$dir/out" ||
  die "the bug is not buffer_relu's"
grep -q 'good_relu' "$dir/s.json" "$dir/f"/*/finding.json 2>/dev/null &&
  die "good_relu has a finding"
[ "$(json "$dir/s.json" "j['bugs']")" = 1 ] || die "summary bugs != 1"
finding=$(ls -d "$dir/f/"*-buffer_relu-* 2>/dev/null | head -1)
[ -n "$finding" ] || die "no finding directory for buffer_relu"
if [ -n "$finding" ]; then
  grep -q '"components"' "$finding/case.json" ||
    die "case.json has no nested components"
  [ "$(json "$finding/finding.json" "j.get('feature', '').startswith('nested_')")" = True ] ||
    die "blame did not name a nested feature: $(cat "$finding/finding.json")"
  "$planted" replay "$finding" >"$dir/replay" 2>&1
  grep -q '^REPRODUCES: ' "$dir/replay" || die "replay: $(cat "$dir/replay")"
  grep -q '= nested_view(' "$finding/repro.py" ||
    die "repro.py does not build a nested view"
  grep -q '= nested_dense(' "$finding/repro.py" ||
    die "repro.py has no nested baseline"
fi
# The schema-driven path: a loaded library's nested kernels.
"$dpfuzz" --load="$library" --op='nested:planted_nested::*' --runs=600 \
  --seed=3 --python_check=false --findings="$dir/g" >"$dir/gout" 2>&1
status=$?
[ "$status" = 1 ] || die "schema path: exit $status, expected 1"
"$dpfuzz" list-ops --load="$library" --op='nested:planted_nested::*' \
  --findings="$dir/g" >"$dir/glist" 2>&1
grep -qE '^nested:planted_nested::good_relu	generic	nested	functional	[^	]*	[1-9][0-9]*/' \
  "$dir/glist" || die "schema path: good_relu had no valid case: $(cat "$dir/glist")"
# One bug, or on 2.x two (reordered and gapped components), all
# buffer_relu's, as above.
bugs=$(grep -c '^BUG: ' "$dir/gout")
{ [ "$bugs" = 1 ] || [ "$bugs" = 2 ]; } &&
  [ "$(grep -c '^BUG: .*planted_nested::buffer_relu' "$dir/gout")" = "$bugs" ] ||
  die "schema path: expected buffer_relu's bug alone: $(grep '^BUG: ' "$dir/gout")"

# LibTorch's nested kernels, schema-driven and curated: cases judged, and
# no error of dpfuzz's own.
"$dpfuzz" --op='nested:*' --runs=3000 --seed=1 --python_check=false \
  --reduce=false --findings="$dir/n" --summary_json="$dir/n.json" >"$dir/nout" 2>&1
[ "$(json "$dir/n.json" "j['errors']")" = 0 ] ||
  die "nested:* campaign: $(grep -E '^(ERROR|SUMMARY)' "$dir/nout" | head -5)"
[ "$(json "$dir/n.json" "j['verdicts']['agree'] > 0")" = True ] ||
  die "nested:* campaign judged no case: $(grep '^SUMMARY' "$dir/nout")"
[ "$fail" = 0 ] && echo "nested_test: OK"
exit "$fail"
