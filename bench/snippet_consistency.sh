#!/usr/bin/env bash
# How consistent the reducer is, measured as shrinkers are: each bug is
# found from SEEDS campaign seeds, and the snippets of its issue.md (the
# lead finding's, reduced) are compared. For each bug: how many seeds
# found it, how many distinct snippets came out, and the share of seeds
# whose snippet is the canonical one: the minimal by the reducer's order
# as far as a snippet shows it (fewest lines, then fewest elements in the
# lead's case, then the shortest text, then byte order). The bugs: planted ones (found by the
# planted binary) and known findings of LibTorch, each identified by op,
# variant and verdict family in report.json.
#
#   bench/snippet_consistency.sh [BUILD_DIR] [SEEDS] [SECONDS] [OPS...]
#   bench/snippet_consistency.sh build/default 20 15
#   SNIPPETS=/tmp/s bench/snippet_consistency.sh build/default 10 10 masked_scatter
#
# OPS picks targets by op name; SNIPPETS names a directory that keeps each
# seed's snippet (op-variant-sSEED.py), to read the ones that differ.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
seeds="${2:-20}"
seconds="${3:-15}"
shift $(($# < 3 ? $# : 3))
picked=("$@")
dpfuzz="$build/tests/planted/dpfuzz_planted"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# op  variant  family
targets=(
  "planted_class::contig_out_neg out wrong_values"
  "planted_class::memory_order_neg functional wrong_values"
  "planted::flat_neg functional wrong_values"
  "aten::narrow_copy out wrong_values"
  "aten::replication_pad2d out wrong_values"
  "aten::masked_scatter inplace wrong_values"
)
echo "| bug | found by | distinct snippets | canonical share |"
echo "|---|---|---|---|"
for target in "${targets[@]}"; do
  read -r op variant family <<<"$target"
  if ((${#picked[@]})) && ! printf '%s\n' "${picked[@]}" | grep -qx "${op#*::}"; then
    continue
  fi
  rm -rf "$work"/s*
  for seed in $(seq 1 "$seeds"); do
    "$dpfuzz" --op="${op#aten::}" --jobs=1 --max_time="$seconds" --seed="$seed" \
      --findings="$work/s$seed" >/dev/null 2>&1 || true
    # What the campaign's time left unreduced is reduced to the end, as a
    # user finishes a campaign's triage.
    "$dpfuzz" triage "$work/s$seed" >/dev/null 2>&1 || true
  done
  python3 - "$work" "$seeds" "$op" "$variant" "$family" <<'PY'
import json, math, os, sys
work, seeds, op, variant, family = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
snippets = []
for s in range(1, seeds + 1):
    d = os.path.join(work, f"s{s}")
    try:
        r = json.load(open(os.path.join(d, "report.json")))
    except OSError:
        continue
    bugs = [b for b in r["bugs"] if b["op"] == op and b["variant"] == variant
            and b["family"] == family and b["confidence"] == "high"]
    if bugs and bugs[0].get("snippet"):
        case = json.load(open(os.path.join(d, os.path.basename(bugs[0]["findings"][0]), "case.json")))
        tensors = [a["tensor"] for a in case["args"] if "tensor" in a]
        tensors += [t for a in case["args"] for t in a.get("tensors", [])]
        tensors += case.get("grad_outputs", [])
        elements = sum(math.prod(t.get("sizes", [])) for t in tensors)
        snippets.append((bugs[0]["snippet"], elements))
        if os.environ.get("SNIPPETS"):
            os.makedirs(os.environ["SNIPPETS"], exist_ok=True)
            name = f"{op.split('::')[1]}-{variant}-s{s}.py"
            with open(os.path.join(os.environ["SNIPPETS"], name), "w") as f:
                f.write(bugs[0]["snippet"])
if not snippets:
    print(f"| {op} {variant} | 0 of {seeds} | - | - |")
    sys.exit(0)
canonical = min(snippets, key=lambda s: (s[0].count("\n"), s[1], len(s[0]), s[0]))
share = sum(t == canonical[0] for t, _ in snippets) / len(snippets)
print(f"| {op} {variant} | {len(snippets)} of {seeds} | "
      f"{len(set(t for t, _ in snippets))} | {share:.0%} |")
PY
done
