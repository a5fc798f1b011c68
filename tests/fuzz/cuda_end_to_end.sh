#!/usr/bin/env bash
# dpfuzz --device=cuda end to end, on the planted ops wrong only on CUDA:
# device_skew is a device_mismatch finding with a repro.py that places its
# tensors on cuda; device_assert_neg's device-side assert on strided inputs
# kills its worker in the variant's call (Note [Sticky device errors]) and is
# a layout-bug crash finding whose evidence is the CUDA error, while the
# campaign goes on in fresh workers.
# Exits 77 (skipped) where --device=cuda is refused: no CUDA device.
#   cuda_end_to_end.sh PATH_TO_DPFUZZ_PLANTED
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"
run() {  # run NAME ARGS...: a short CUDA campaign into $dir/NAME
  local name=$1; shift
  "$dpfuzz" --device=cuda --seed=5 --findings="$dir/$name" --python_check=false \
    --reduce=false --max_time=120 "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  echo $?
}
status=$(run probe --op=planted::good_neg --runs=1)
if [ "$status" = 2 ] && grep -qF "flag --device=cuda" "$dir/probe.err"; then
  echo "SKIPPED: $(cat "$dir/probe.err")"
  exit 77
fi
[ "$status" = 0 ] || { echo "FAIL: good_neg on cuda: exit $status"; cat "$dir/probe.out" "$dir/probe.err"; fail=1; }

status=$(run skew --op=planted::device_skew --runs=50)
finding=$(ls -d "$dir"/skew/device_mismatch-* 2>/dev/null | head -1)
if [ "$status" != 1 ] || [ -z "$finding" ]; then
  echo "FAIL: device_skew: exit $status, no device_mismatch finding"; cat "$dir/skew.out"; fail=1
else
  grep -q 'device="cuda"' "$finding/repro.py" || { echo "FAIL: repro.py places nothing on cuda"; fail=1; }
  grep -q 'on_cpu(variant)' "$finding/repro.py" || { echo "FAIL: repro.py lacks the CPU side"; fail=1; }
fi

status=$(run assert --op=planted::device_assert_neg --runs=12)
finding=$(ls -d "$dir"/assert/crash-* 2>/dev/null | head -1)
if [ "$status" != 1 ] || [ -z "$finding" ]; then
  echo "FAIL: device_assert_neg: exit $status, no crash finding"; cat "$dir/assert.out"; fail=1
else
  grep -q "device error" "$finding/finding.json" || { echo "FAIL: crash evidence lacks the device error"; cat "$finding/finding.json"; fail=1; }
  grep -q '"kind": "layout_bug"' "$finding/finding.json" || { echo "FAIL: the device assert of a strided input is no layout bug"; cat "$finding/finding.json"; fail=1; }
  grep -q "SUMMARY:.*cases=12" "$dir/assert.out" || { echo "FAIL: the campaign did not go on after the crash"; cat "$dir/assert.out"; fail=1; }
fi
exit $fail
