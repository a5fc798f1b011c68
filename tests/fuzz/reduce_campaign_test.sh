#!/usr/bin/env bash
# Campaigns reduce new findings before storing them (--reduce, the default):
#   reduce_campaign_test.sh PATH_TO_DPFUZZ_PLANTED
# Planted ops with a value bug (sneaky_neg) and a crash (abort_neg): each
# finding directory holds the reduced case.json, minimal for its bug, and
# the case it was found with as original.json; the repro is the reduced
# one; with --reduce=false the found case is stored as it is.
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"
py() { python3 -c "$1" "${@:2}"; }
# Sizes, strides and storage offset of the case's first tensor argument.
layout='import json,sys
t=json.load(open(sys.argv[1]))["args"][0]["tensor"]
print(t["sizes"], t["strides"], t["storage_offset"])'
elements='import json,sys,math
print(sum(math.prod(a["tensor"]["sizes"]) for a in json.load(open(sys.argv[1]))["args"] if "tensor" in a))'

"$dpfuzz" --op=planted::sneaky_neg,planted::abort_neg --jobs=1 --max_time=30 \
  --timeout=2 --seed=3 --findings="$dir/f" --summary_json="$dir/s.json" >"$dir/out" 2>&1
status=$?
[ "$status" = 1 ] || die "campaign exit $status, expected 1"
grep -q "^INFO: reduced planted::sneaky_neg" "$dir/out" || die "no reduction line for sneaky_neg"
grep -q "^INFO: reduced planted::abort_neg" "$dir/out" || die "no reduction line for abort_neg"
for op in sneaky_neg abort_neg; do
  d=$(ls -d "$dir/f/"*-"$op"-* 2>/dev/null | head -1)
  [ -n "$d" ] || { die "no finding for $op"; continue; }
  [ -f "$d/original.json" ] || die "$op: no original.json beside the reduced case"
  before=$(py "$elements" "$d/original.json")
  after=$(py "$elements" "$d/case.json")
  [ "$after" -le "$before" ] || die "$op: reduced case has $after elements, the original $before"
done
# Time to bug: each bug says when the campaign first saw it, in the summary
# and in the report (through the reduced case that replaced the first).
[ "$(json "$dir/s.json" "all(0 <= b['first_seen_seconds'] <= j['seconds'] for b in j['bug_list']) and len(j['bug_list']) == 2")" = True ] ||
  die "summary bug_list lacks first_seen_seconds: $(json "$dir/s.json" "j['bug_list']")"
"$dpfuzz" report "$dir/f" --format=json --out="$dir/report.json" 2>/dev/null
[ "$(json "$dir/report.json" "all(isinstance(b['first_seen_seconds'], float) for b in j['bugs']) and len(j['bugs']) == 2")" = True ] ||
  die "report.json bugs lack first_seen_seconds"
# The minimal layouts (as tests/reducers/planted_reduction_test.cc states):
# sneaky_neg rewrites any non-contiguous input: 2 elements with a gap (a
# stride-0 dim would need less storage but costs more: Note [Natural
# triggers]);
# abort_neg needs a storage offset: a 0-dim tensor at offset 1.
[ "$(py "$layout" "$dir/f/"*-sneaky_neg-*/case.json)" = "[2] [2] 0" ] ||
  die "sneaky_neg not reduced to [2] [2] 0: $(py "$layout" "$dir/f/"*-sneaky_neg-*/case.json)"
[ "$(py "$layout" "$dir/f/"crash-abort_neg-*/case.json)" = "[] [] 1" ] ||
  die "abort_neg not reduced to [] [] 1: $(py "$layout" "$dir/f/"crash-abort_neg-*/case.json)"
# finding.json and the repro describe the reduced case.
grep -q '"self: f32 cpu \[2\]@\[2\]+0' "$dir/f/"*-sneaky_neg-*/finding.json ||
  die "sneaky_neg finding.json does not describe the reduced case"
grep -q 'view(self_storage, (2,), (2,), 0)' "$dir/f/"*-sneaky_neg-*/repro.py ||
  die "sneaky_neg repro.py does not build the reduced case"

# --reduce=false: the case as found, no original.json.
"$dpfuzz" --op=planted::sneaky_neg --max_time=10 --seed=3 --reduce=false \
  --findings="$dir/g" >"$dir/out2" 2>&1
[ $? = 1 ] || die "--reduce=false campaign found nothing"
ls "$dir/g/"*/original.json >/dev/null 2>&1 && die "--reduce=false stored an original.json"
grep -q "^INFO: reduced" "$dir/out2" && die "--reduce=false reduced"
# Smaller cases replace the stored one as they come, and each is checked
# with Python again; the log says a finding's check result once.
said_twice=$(grep -o '^INFO: .*/repro.py: .*' "$dir/out2" | sort | uniq -d)
[ -z "$said_twice" ] || die "a repro check said more than once: $said_twice"

[ "$fail" = 0 ] && echo "reduce campaign: all checks passed" || cat "$dir/out"
exit $fail
