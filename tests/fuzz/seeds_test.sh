#!/usr/bin/env bash
# The build's seed corpus (scripts/harvest_seeds.py, Note [Seeds at build
# time]) makes a constrained op valid:
#   seeds_test.sh PATH_TO_DPFUZZ
# multi_margin_loss (its target must hold class indices below C, its weight
# C elements) gets no valid case from its schema alone and valid seeded
# cases with the seeds; list-ops shows the counts. An op with an argument
# only seeds give is fuzzed from them alone.
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"
stats() {  # "valid seeded-valid tried seeded-tried" of op $2 (multi_margin_loss) in $1
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["ops"].get(sys.argv[2], {})
a, d = s.get("all", [0, 0]), s.get("seeded", [0, 0])
print(a[1], d[1], a[0], d[0])' "$1/op_stats.json" "${2:-aten::multi_margin_loss}"
}
run() {  # run DIR FLAGS...
  local out="$1"; shift
  "$dpfuzz" --op=aten::multi_margin_loss --runs=400 --seed=5 --jobs=1 \
    --python_check=false --reduce=false --progress=false --findings="$out" \
    "$@" >"$out.log" 2>&1
}
run "$dir/none" --seeds=
read -r valid seeded _ < <(stats "$dir/none")
[ "$valid" = 0 ] && [ "$seeded" = 0 ] ||
  die "without seeds: $valid valid, $seeded seeded (expected none)"
run "$dir/seeded"
grep -q "^INFO: seeds: [0-9]* overloads" "$dir/seeded.log" || die "no seeds found: $(head -5 "$dir/seeded.log")"
read -r valid seeded _ < <(stats "$dir/seeded")
[ "$seeded" -gt 50 ] && [ "$valid" = "$seeded" ] ||
  die "with seeds: $valid valid, $seeded seeded (expected > 50, all seeded)"
"$dpfuzz" list-ops --op=aten::multi_margin_loss --findings="$dir/seeded" >"$dir/list" 2>&1
grep -q "^aten::multi_margin_loss	generic	.*	$valid/[0-9]*	$seeded/[0-9]*	[0-9.]*%	[1-9]" "$dir/list" ||
  die "list-ops: $(cat "$dir/list")"

# An op with an argument only seeds give (_linalg_check_errors' str
# api_name) is fuzzed from its seeds alone; named when there are none, it
# is a usage error that says why.
# (Its internal assert on a non-contiguous `infos` may be found: exit 1.)
op=aten::_linalg_check_errors
"$dpfuzz" --op=$op --runs=100 --seed=5 --jobs=1 --python_check=false \
  --reduce=false --progress=false --findings="$dir/str" >"$dir/str.log" 2>&1
status=$?
[ "$status" -le 1 ] || die "$op: exit $status: $(tail -3 "$dir/str.log")"
read -r valid seeded tried seeded_tried < <(stats "$dir/str" $op)
[ "$valid" -gt 0 ] && [ "$tried" = "$seeded_tried" ] ||
  die "$op: $valid valid, $seeded seeded valid of $tried tried, $seeded_tried seeded (expected all seeded, some valid)"
"$dpfuzz" list-ops --op=$op >"$dir/list" 2>&1
grep -q "^$op	generic	generic, from seeds only: argument api_name of type str" "$dir/list" ||
  die "list-ops: $(cat "$dir/list")"
"$dpfuzz" --op=$op --seeds= --runs=10 >"$dir/err" 2>&1
[ $? = 2 ] && grep -q "take arguments only recorded seeds give (argument api_name of type str is not generated), and --seeds is empty" "$dir/err" ||
  die "$op without seeds: $(cat "$dir/err")"
# An op no test database calls (scripts/seed_workloads.py's packed
# sequences): its grad must have as many rows as batch_sizes sums to, and
# input_size must fit them; the workloads' seed makes it valid, its schema
# alone almost never does.
op=aten::_pack_padded_sequence_backward
workload() {  # workload DIR FLAGS...
  local out="$1"; shift
  "$dpfuzz" --op=$op --runs=200 --seed=5 --jobs=1 --python_check=false \
    --reduce=false --progress=false --findings="$out" "$@" >"$out.log" 2>&1
}
workload "$dir/workload"
read -r valid seeded tried _ < <(stats "$dir/workload" $op)
[ "$seeded" -ge 150 ] || die "$op: $seeded seeded valid of $tried tried (expected >= 150)"
workload "$dir/workload-none" --seeds=
read -r valid _ tried _ < <(stats "$dir/workload-none" $op)
[ $((valid * 100)) -lt "$tried" ] || die "$op without seeds: $valid valid of $tried (expected < 1%)"

[ "$fail" = 0 ] && echo "seeds: all checks passed"
exit $fail
