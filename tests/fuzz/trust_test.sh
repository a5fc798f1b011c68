#!/usr/bin/env bash
# dpfuzz never blames LibTorch for its own failures, and its supervisor
# never dies:
#   trust_test.sh PATH_TO_DPFUZZ_PLANTED PATH_TO_DPFUZZ
# 1. Planted ops whose results make dpfuzz's own code fail outside the op
#    call (a result on the meta device, whose values the oracles read; a
#    result over unowned memory, which kills the worker in dpfuzz's code whatever the
#    layouts): internal errors (ERROR: lines, errors= in the summary, their
#    cases under findings/errors/), no finding, no bug, exit 0.
# 2. An op whose out= is right unless out shares memory with self
#    (correct::reverse_neg writes out while it reads self): its findings
#    are overlap findings (overlap= in the summary, "dismissal": "overlap"
#    in finding.json), never bugs; exit 0.
# 3. The case that killed the supervisor (a worker restart during a
#    reduction left an empty worker slot that was used):
#    fractional_max_pool2d_backward with seed 11 ends with a SUMMARY.
set -u
planted="$1"
dpfuzz="$2"
source "$(dirname "$0")/test_lib.sh"

"$planted" --op=planted::meta_neg,planted::dangling_neg --runs=30 --seed=4 \
  --python_check=false --findings="$dir/f" --summary_json="$dir/s.json" \
  >"$dir/out" 2>&1
status=$?
[ "$status" = 0 ] || die "internal errors made the campaign exit $status, expected 0"
ls -d "$dir/f/"*-meta_neg-* "$dir/f/"*-dangling_neg-* >/dev/null 2>&1 &&
  die "an internal error was stored as a finding: $(ls "$dir/f")"
grep -q "^BUG: " "$dir/out" && die "an internal error was reported as a bug"
for op in meta_neg dangling_neg; do
  ls "$dir/f/errors/$op"-*/case.json >/dev/null 2>&1 ||
    die "no case kept under errors/ for $op"
done
grep -q "^ERROR: .*internal error: dpfuzz's own call threw" "$dir/out" ||
  die "no ERROR line for the exception in dpfuzz's own call"
grep -q "^ERROR: .*internal error: a worker running .* in dpfuzz's own code" "$dir/out" ||
  die "no ERROR line for the worker that died in dpfuzz's own code"
[ "$(json "$dir/s.json" "j['errors'] > 0 and j['bugs'] == 0 and j['findings'] == 0")" = True ] ||
  die "summary: $(cat "$dir/s.json")"
[ "$fail" = 0 ] || cat "$dir/out"

"$planted" --op=correct::reverse_neg --runs=600 --seed=5 --python_check=false \
  --findings="$dir/h" --summary_json="$dir/h.json" >"$dir/out3" 2>&1
status=$?
[ "$status" = 0 ] || die "overlap findings made the campaign exit $status, expected 0"
grep -q "^BUG: " "$dir/out3" && die "an overlap finding was reported as a bug"
grep -q "^OVERLAP: " "$dir/out3" || die "no OVERLAP line"
[ "$(json "$dir/h.json" "j['overlap'] > 0 and j['bugs'] == 0")" = True ] ||
  die "summary: $(cat "$dir/h.json")"
overlaps=$(python3 -c 'import glob,json,sys
print(sum(json.load(open(p)).get("dismissal") == "overlap"
          for p in glob.glob(sys.argv[1] + "/*/finding.json")))' "$dir/h")
[ "$overlaps" -gt 0 ] || die "no finding.json with dismissal overlap"
[ "$fail" = 0 ] || cat "$dir/out3"

"$dpfuzz" --op=fractional_max_pool2d_backward --max_time=20 --seed=11 \
  --findings="$dir/g" >"$dir/out2" 2>&1
status=$?
case "$status" in
  0 | 1) ;;
  *) die "the supervisor died (exit $status)" ;;
esac
grep -q "^SUMMARY: " "$dir/out2" || { die "no SUMMARY line"; tail -20 "$dir/out2"; }

[ "$fail" = 0 ] && echo "trust: all checks passed"
exit $fail
