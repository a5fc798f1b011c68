#!/usr/bin/env bash
# Instructions per case of the engine bench's benchmarks, under callgrind:
# steadier than times on a shared machine, so engine/raw and engine/floor
# can be compared across commits.
#
#   bench/instructions.sh [BUILD_DIR] [OP ...]
#
# One valgrind run of dpfuzz_engine_bench with every benchmark at a fixed
# iteration count (DPFUZZ_BENCH_ITERATIONS): the bench dumps each
# benchmark's loop as a callgrind part of its own (its setup left out),
# and a part's instructions over the iterations are one case's. The
# iterations cycle through the bench's 512 cases once.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
shift || true
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(masked_select add sum index_select)
iterations=512
command -v valgrind >/dev/null || {
  echo "instructions.sh: needs valgrind" >&2
  exit 2
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
filter="^BM_(RawCalls|FreshTensors|RunCase|BuildAndRunCase)/($(
  IFS='|'
  echo "${ops[*]}"
))/"
DPFUZZ_BENCH_ITERATIONS=$iterations valgrind --tool=callgrind \
  --callgrind-out-file="$dir/out" \
  "$build/bench/dpfuzz_engine_bench" --benchmark_filter="$filter" \
  >"$dir/log" 2>&1 || {
  tail -20 "$dir/log" >&2
  exit 1
}

python3 - "$dir" "$iterations" "${ops[@]}" <<'EOF'
import glob, re, sys
d, iterations, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
per_case = {}  # (benchmark, op) -> thousands of instructions per case
for path in glob.glob(f"{d}/out.*"):
    text = open(path, errors="replace").read()
    trigger = re.search(r"^desc: Trigger: Client Request: (BM_\w+)/(\w+)/", text, re.M)
    summary = re.search(r"^summary: (\d+)", text, re.M)
    if trigger and summary:
        per_case[trigger.groups()] = int(summary.group(1)) / iterations / 1000
print("| op | raw calls | floor | engine (RunCase) | build + run "
      "| floor/raw | engine/raw | engine/floor |")
print("|---|---|---|---|---|---|---|---|")
for op in ops:
    raw, floor, engine, both = (per_case[(b, op)] for b in (
        "BM_RawCalls", "BM_FreshTensors", "BM_RunCase", "BM_BuildAndRunCase"))
    print(f"| {op} | {raw:.1f} | {floor:.1f} | {engine:.1f} | {both:.1f} "
          f"| {floor / raw:.2f} | {engine / raw:.2f} | {engine / floor:.2f} |")
print(f"(thousands of instructions per case, callgrind, {iterations} cases)")
EOF
