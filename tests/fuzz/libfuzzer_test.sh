#!/usr/bin/env bash
# The libFuzzer target as an engine runs it, from what .clusterfuzzlite/
# build.sh put in OUT:
#   libfuzzer_test.sh OUT_DIR PATH_TO_DPFUZZ PATH_TO_LIBDPFUZZ_CUSTOM_OPS
#  1. a bounded run (-runs) on ops without known bugs, from the seed corpus
#     build.sh ships (theirs only), ends cleanly, grows the corpus with case
#     files, and the extra counters (layout coverage) show as features;
#  2. a planted layout bug of a loaded library (dpfuzz_custom::scaled_add,
#     tests/custom_ops) stops the target with its bug identity, and the
#     crash input libFuzzer writes replays through `dpfuzz replay`.
set -u
out="$(cd "$1" && pwd)"
dpfuzz="$2"
lib="$3"
source "$(dirname "$0")/test_lib.sh"
fuzzer="$out/dpfuzz_fuzzer"
[ -x "$fuzzer" ] || { echo "FAIL: no $fuzzer"; exit 1; }
# LibTorch's lazily built caches live to the end of the process: leaks in
# LeakSanitizer's eyes, not the op's.
flags=(-detect_leaks=0 -max_len=65536 -timeout=60 -seed=1)

# 1. A bounded run from the shipped seeds of three ops.
mkdir -p "$dir/seeds" "$dir/corpus"
(cd "$dir/seeds" && python3 -m zipfile -e "$out/dpfuzz_fuzzer_seed_corpus.zip" .) ||
  die "the seed corpus does not unzip"
n_seeds=$(ls "$dir/seeds" | wc -l)
[ "$n_seeds" -gt 100 ] || die "only $n_seeds seed inputs shipped"
for op in aten__add.Tensor aten__index_select aten__sum.dim_IntList; do
  cp "$dir/seeds/$op"-*.json "$dir/corpus/" 2>/dev/null || die "no seed for $op"
done
before=$(ls "$dir/corpus" | wc -l)
DPFUZZ_OPS=aten::add.Tensor,aten::index_select,aten::sum.dim_IntList DPFUZZ_GRAD=0 \
  "$fuzzer" "${flags[@]}" -runs=400 "$dir/corpus" >"$dir/run.log" 2>&1
status=$?
[ "$status" = 0 ] || die "bounded run exit $status"
grep -q "^INFO: dpfuzz_fuzzer: .* ops on cpu" "$dir/run.log" || die "no INFO line naming the ops"
grep -q "^Done 400 runs" "$dir/run.log" || die "the run did not do its 400 inputs"
after=$(ls "$dir/corpus" | wc -l)
[ "$after" -gt "$before" ] || die "the corpus did not grow ($before -> $after)"
new=$(ls -t "$dir/corpus" | head -1)
head -c1 "$dir/corpus/$new" | grep -q "{" || die "a kept input is not a case file: $new"
"$dpfuzz" replay "$dir/corpus/$new" >"$dir/replay0.log" 2>&1
grep -q "^FIXED: " "$dir/replay0.log" ||
  die "dpfuzz replay of a kept input (no finding): $(cat "$dir/replay0.log")"
[ "$fail" = 0 ] || tail -30 "$dir/run.log"

# 2. The planted bug: found, named, replayed.
mkdir -p "$dir/planted" "$dir/artifacts"
DPFUZZ_LOAD="$lib" DPFUZZ_OPS=dpfuzz_custom::scaled_add DPFUZZ_GRAD=0 \
  "$fuzzer" "${flags[@]}" -runs=5000 -artifact_prefix="$dir/artifacts/" \
  "$dir/planted" >"$dir/planted.log" 2>&1
status=$?
[ "$status" != 0 ] || die "the planted bug was not found in 5000 runs"
grep -q "^dpfuzz: FINDING: bug=[^ ]* verdict=[a-z_]* op=dpfuzz_custom::scaled_add" "$dir/planted.log" ||
  die "no FINDING line naming the bug"
crash=$(ls "$dir/artifacts"/crash-* 2>/dev/null | head -1)
[ -n "$crash" ] || die "no crash input written"
if [ -n "$crash" ]; then
  "$dpfuzz" replay --load="$lib" "$crash" >"$dir/replay.log" 2>&1
  grep -q "^REPRODUCES" "$dir/replay.log" || die "the crash input does not reproduce: $(cat "$dir/replay.log")"
fi
[ "$fail" = 0 ] || tail -30 "$dir/planted.log"
exit $fail
