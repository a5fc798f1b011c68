#!/usr/bin/env bash
# Issue 19's throughput ratios on the bench ops, measured op by op (each
# op's engine, Python and campaign runs follow each other, so that a drift
# of this machine's speed moves one op's row, not one column):
#  - campaign: the curated spec the engine bench uses (FindCuratedOp: not
#    the nested spec or the other overloads that --op=sum also selects),
#    one worker, forward only (dpfuzz --jobs=1 --grad=false
#    --python_check=false --reduce=false --alias=false --seeds=), cases/s
#    from its --summary_json, its start (a second or so: two processes
#    load LibTorch) included;
#  - steady: the same campaign's cases/s once started, as it reports it
#    (steady_cases_per_second: from a worker's first result to its last);
#  - engine: the same draws built and run in process (dpfuzz_engine_bench
#    BM_CampaignDraws);
#  - engine/raw: BM_RunCase's time per case over BM_RawCalls' (the two
#    ATen calls a case makes, on tensors made beforehand), and its floor:
#    BM_FreshTensors' over BM_RawCalls' (the same calls on tensors made
#    per call, as any differential check must);
#  - Python: the plain loop a user would write instead (python_loop.py).
# Prints a Markdown table and the geometric means of campaign/Python.
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

# campaign OP SECONDS JSON: one forward-only, one-worker campaign.
campaign() {
  rm -rf "$dir/f"
  "$build/fuzz/dpfuzz" --op="${op_name[$1]}" --max_time="$2" --jobs=1 \
    --grad=false --python_check=false --reduce=false --alias=false --seeds= \
    --progress=false --findings="$dir/f" --summary_json="$3" \
    >"$dir/campaign.log" 2>&1 || [ $? = 1 ]  # 1: findings.
}

for op in "${ops[@]}"; do
  "$build/bench/dpfuzz_engine_bench" --benchmark_format=json \
    --benchmark_min_time="$seconds" \
    --benchmark_filter="BM_(CampaignDraws|RunCase|RawCalls|FreshTensors)/$op\$" \
    >"$dir/engine-$op.json" 2>/dev/null
  "$python" bench/python_loop.py --seconds="$seconds" --ops="$op" \
    >"$dir/python-$op.txt" 2>/dev/null
  campaign "$op" "$seconds" "$dir/$op.json"
done

python3 - "$dir" "${ops[@]}" <<'PY'
import json, math, re, sys
d, ops = sys.argv[1], sys.argv[2:]
print("| op | campaign | steady | engine | campaign/engine | steady/engine | "
      "engine/raw calls | floor/raw calls | Python loop | campaign/Python | steady/Python |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
ratios, steady_ratios = [], []
for op in ops:
    bench = {b["name"]: b["items_per_second"]
             for b in json.load(open(f"{d}/engine-{op}.json"))["benchmarks"]}
    loop = float(re.search(r"cases_per_s=([0-9.]+)",
                           open(f"{d}/python-{op}.txt").read()).group(1))
    summary = json.load(open(f"{d}/{op}.json"))
    campaign = summary["cases"] / summary["seconds"]
    steady = summary["steady_cases_per_second"]
    engine = bench[f"BM_CampaignDraws/{op}"]
    run, raw = bench[f"BM_RunCase/{op}"], bench[f"BM_RawCalls/{op}"]
    fresh = bench[f"BM_FreshTensors/{op}"]
    ratios.append(campaign / loop)
    steady_ratios.append(steady / loop)
    print(f"| {op} | {campaign:.0f} | {steady:.0f} | {engine:.0f} | "
          f"{campaign / engine:.2f} | {steady / engine:.2f} | {raw / run:.2f} | "
          f"{raw / fresh:.2f} | {loop:.0f} | {campaign / loop:.2f} | "
          f"{steady / loop:.2f} |")
def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))
print(f"\ngeometric mean of campaign/Python: {geomean(ratios):.2f}, "
      f"steady/Python: {geomean(steady_ratios):.2f}")
PY
