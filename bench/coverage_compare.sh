#!/usr/bin/env bash
# Layout coverage after equal budgets: uniform random generation against
# coverage guidance, with the libFuzzer target (fuzz/libfuzzer_target.cc)
# of .clusterfuzzlite/build.sh (scripts/fuzz_build.sh puts it in
# build/fuzz/out). Each mode runs RUNS inputs from an empty corpus, on the
# same ops, with gradients; the count is of layout-coverage cells
# (oracles/layout_coverage.h) reached. Findings do not stop a run
# (DPFUZZ_NO_STOP), and ASan's memcpy checks are off (replace_intrin=0):
# index_select.out with an out= sharing self's storage memcpys
# overlapping rows on LibTorch 1.13, which would end the run.
#   bench/coverage_compare.sh [RUNS] [OPS]
#   bench/coverage_compare.sh 3000 aten::add.Tensor,aten::masked_select
set -u
runs="${1:-3000}"
ops="${2:-aten::add.Tensor,aten::masked_select,aten::sum.dim_IntList,aten::index_select}"
out="$(cd "$(dirname "$0")/.." && pwd)/build/fuzz/out"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for mode in uniform guided; do
  mkdir -p "$dir/$mode"
  start=$SECONDS
  DPFUZZ_OPS="$ops" DPFUZZ_UNIFORM=$([ $mode = uniform ] && echo 1 || echo 0) \
    DPFUZZ_CELLS="$dir/$mode.cells" \
    DPFUZZ_NO_STOP=1 ASAN_OPTIONS=replace_intrin=0 "$out/dpfuzz_fuzzer" -detect_leaks=0 -max_len=65536 -seed=1 -runs="$runs" \
    "$dir/$mode" >"$dir/$mode.log" 2>&1
  status=$?
  features=$(grep -o "ft: [0-9]*" "$dir/$mode.log" | tail -1)
  echo "$mode: exit $status, $runs inputs in $((SECONDS - start)) s: $(wc -l <"$dir/$mode.cells") cells ($features libFuzzer features)"
  for kind in "set=" "verdict="; do
    echo "  cells of kind ${kind%=}: $(grep -c " $kind" "$dir/$mode.cells")"
  done
done
echo "only guided: $(comm -13 "$dir/uniform.cells" "$dir/guided.cells" | wc -l) cells; only uniform: $(comm -23 "$dir/uniform.cells" "$dir/guided.cells" | wc -l)"
