#!/usr/bin/env bash
# Issue 19's throughput ratios, measured in one run on the bench ops:
#  - campaign: the curated spec the engine bench uses (FindCuratedOp: not
#    the nested spec or the other overloads that --op=sum also selects),
#    one worker, forward only (dpfuzz --jobs=1 --grad=false
#    --python_check=false --reduce=false --alias=false --seeds=), cases/s
#    from its --summary_json (its start, about a second, included);
#  - engine: the same draws built and run in process (dpfuzz_engine_bench
#    BM_CampaignDraws);
#  - engine/raw: BM_RunCase's time per case over BM_RawCalls' (the two
#    ATen calls a case makes, on tensors made beforehand), and its floor:
#    BM_FreshTensors' over BM_RawCalls' (the same calls on tensors made
#    per call, as any differential check must);
#  - Python: the plain loop a user would write instead (python_loop.py).
# Prints a Markdown table and the geometric mean of campaign/Python.
#
#   bench/throughput.sh [BUILD_DIR] [SECONDS] [PYTHON]
#   bench/throughput.sh build/default 10 /usr/bin/python3
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
seconds="${2:-10}"
python="${3:-/usr/bin/python3}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
declare -A op_name=([masked_select]=aten::masked_select [add]=aten::add.Tensor
                    [sum]=aten::sum.dim_IntList [index_select]=aten::index_select)
ops=(masked_select add sum index_select)

"$build/bench/dpfuzz_engine_bench" --benchmark_format=json \
  --benchmark_min_time="$seconds" \
  --benchmark_filter='BM_(CampaignDraws|RunCase|RawCalls|FreshTensors)/' >"$dir/engine.json" 2>/dev/null
"$python" bench/python_loop.py --seconds="$seconds" --ops="$(IFS=,; echo "${ops[*]}")" \
  >"$dir/python.txt" 2>/dev/null
for op in "${ops[@]}"; do
  "$build/fuzz/dpfuzz" --op="${op_name[$op]}" --max_time="$seconds" --jobs=1 \
    --grad=false --python_check=false --reduce=false --alias=false --seeds= \
    --progress=false --findings="$dir/f-$op" --summary_json="$dir/$op.json" \
    >"$dir/$op.log" 2>&1 || [ $? = 1 ]  # 1: findings.
done

python3 - "$dir" "${ops[@]}" <<'PY'
import json, math, re, sys
d, ops = sys.argv[1], sys.argv[2:]
bench = {b["name"]: b for b in json.load(open(f"{d}/engine.json"))["benchmarks"]}
loop = {}
for line in open(f"{d}/python.txt"):
    m = re.match(r"python_loop (\S+) .*cases_per_s=([0-9.]+)", line)
    if m:
        loop[m.group(1)] = float(m.group(2))
print("| op | campaign | engine | campaign/engine | engine/raw calls | floor/raw calls | Python loop | campaign/Python |")
print("|---|---|---|---|---|---|---|---|")
ratios = []
for op in ops:
    s = json.load(open(f"{d}/{op}.json"))
    campaign = s["cases"] / s["seconds"]
    engine = bench[f"BM_CampaignDraws/{op}"]["items_per_second"]
    run = bench[f"BM_RunCase/{op}"]["items_per_second"]
    raw = bench[f"BM_RawCalls/{op}"]["items_per_second"]
    fresh = bench[f"BM_FreshTensors/{op}"]["items_per_second"]
    ratios.append(campaign / loop[op])
    print(f"| {op} | {campaign:.0f} | {engine:.0f} | {campaign / engine:.2f} | "
          f"{raw / run:.2f} | {raw / fresh:.2f} | {loop[op]:.0f} | "
          f"{campaign / loop[op]:.2f} |")
print(f"\ngeometric mean of campaign/Python: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")
PY
