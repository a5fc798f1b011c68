#!/usr/bin/env bash
# The build's seed corpus (scripts/harvest_seeds.py, Note [Seeds at build
# time]) makes a constrained op valid:
#   seeds_test.sh PATH_TO_DPFUZZ
# multi_margin_loss (its target must hold class indices below C, its weight
# C elements) gets no valid case from its schema alone and valid seeded
# cases with the seeds; list-ops shows the counts.
set -u
dpfuzz="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
stats() {  # valid seeded-valid of multi_margin_loss in $1/op_stats.json
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["ops"].get("aten::multi_margin_loss", {})
print(s.get("all", [0, 0])[1], s.get("seeded", [0, 0])[1])' "$1/op_stats.json"
}
run() {  # run DIR FLAGS...
  local out="$1"; shift
  "$dpfuzz" --op=aten::multi_margin_loss --runs=400 --seed=5 --jobs=1 \
    --python_check=false --reduce=false --progress=false --findings="$out" \
    "$@" >"$out.log" 2>&1
}
run "$dir/none" --seeds=
read -r valid seeded < <(stats "$dir/none")
[ "$valid" = 0 ] && [ "$seeded" = 0 ] ||
  die "without seeds: $valid valid, $seeded seeded (expected none)"
run "$dir/seeded"
grep -q "^INFO: seeds: [0-9]* overloads" "$dir/seeded.log" || die "no seeds found: $(head -5 "$dir/seeded.log")"
read -r valid seeded < <(stats "$dir/seeded")
[ "$seeded" -gt 50 ] && [ "$valid" = "$seeded" ] ||
  die "with seeds: $valid valid, $seeded seeded (expected > 50, all seeded)"
"$dpfuzz" list-ops --op=aten::multi_margin_loss --findings="$dir/seeded" >"$dir/list" 2>&1
grep -q "^aten::multi_margin_loss	generic	.*	$valid/[0-9]*	$seeded/[0-9]*	[0-9.]*%	[1-9]" "$dir/list" ||
  die "list-ops: $(cat "$dir/list")"
[ "$fail" = 0 ] && echo "seeds: all checks passed"
exit $fail
