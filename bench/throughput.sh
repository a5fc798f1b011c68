#!/usr/bin/env bash
# Throughput ratios on the bench ops. This machine's speed moves
# by a third or more from minute to minute, so every ratio is taken between
# runs made back to back (one op's engine, Python and campaign runs follow
# each other), ROUNDS times over, and the table gives each ratio's median
# over the rounds with its range:
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
#    ATen calls a case makes, on tensors made beforehand); floor/raw:
#    BM_FreshTensors' over BM_RawCalls' (the same calls on tensors made
#    per call, as any differential check must); engine/floor: what the
#    engine costs over that floor;
#  - Python: the plain loop a user would write instead (python_loop.py).
# Prints a Markdown table and the geometric means over the ops of the
# median campaign/Python and steady/Python.
#
#   bench/throughput.sh [BUILD_DIR] [SECONDS] [PYTHON] [ROUNDS]
#   bench/throughput.sh build/default 10 /usr/bin/python3 3
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
seconds="${2:-10}"
python="${3:-/usr/bin/python3}"
rounds="${4:-3}"
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

for round in $(seq "$rounds"); do
  for op in "${ops[@]}"; do
    echo "round $round/$rounds: $op" >&2
    "$build/bench/dpfuzz_engine_bench" --benchmark_format=json \
      --benchmark_min_time="$seconds" \
      --benchmark_filter="BM_(CampaignDraws|RunCase|RawCalls|FreshTensors)/$op\$" \
      >"$dir/engine-$op-$round.json" 2>/dev/null
    "$python" bench/python_loop.py --seconds="$seconds" --ops="$op" \
      >"$dir/python-$op-$round.txt" 2>/dev/null
    campaign "$op" "$seconds" "$dir/campaign-$op-$round.json"
  done
done

python3 - "$dir" "$rounds" "${ops[@]}" <<'PY'
import json, math, re, statistics, sys
d, rounds, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def measure(op, r):
    bench = {b["name"]: b["items_per_second"]
             for b in json.load(open(f"{d}/engine-{op}-{r}.json"))["benchmarks"]}
    loop = float(re.search(r"cases_per_s=([0-9.]+)",
                           open(f"{d}/python-{op}-{r}.txt").read()).group(1))
    summary = json.load(open(f"{d}/campaign-{op}-{r}.json"))
    campaign = summary["cases"] / summary["seconds"]
    steady = summary["steady_cases_per_second"]
    engine = bench[f"BM_CampaignDraws/{op}"]
    run, raw = bench[f"BM_RunCase/{op}"], bench[f"BM_RawCalls/{op}"]
    fresh = bench[f"BM_FreshTensors/{op}"]
    return {"campaign": campaign, "steady": steady, "engine": engine,
            "loop": loop, "campaign/engine": campaign / engine,
            "steady/engine": steady / engine, "engine/raw": raw / run,
            "floor/raw": raw / fresh, "engine/floor": fresh / run,
            "campaign/Python": campaign / loop, "steady/Python": steady / loop}

columns = ["campaign", "steady", "engine", "loop", "campaign/engine",
           "steady/engine", "engine/raw", "floor/raw", "engine/floor",
           "campaign/Python", "steady/Python"]
print(f"medians over {rounds} rounds (ratios: median [lowest-highest]), cases/s:\n")
print("| op | " + " | ".join(c.replace("loop", "Python loop") for c in columns) + " |")
print("|---" * (len(columns) + 1) + "|")
medians = {"campaign/Python": [], "steady/Python": []}
for op in ops:
    rows = [measure(op, r) for r in range(1, rounds + 1)]
    cells = []
    for c in columns:
        values = [row[c] for row in rows]
        m = statistics.median(values)
        if c in medians:
            medians[c].append(m)
        if "/" in c:
            cells.append(f"{m:.2f} [{min(values):.2f}-{max(values):.2f}]")
        else:
            cells.append(f"{m:.0f}")
    print(f"| {op} | " + " | ".join(cells) + " |")

def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))
print(f"\ngeometric mean over the ops of the median campaign/Python: "
      f"{geomean(medians['campaign/Python']):.2f}, steady/Python: "
      f"{geomean(medians['steady/Python']):.2f}")
PY
