#!/usr/bin/env bash
# --corpus: a campaign keeps the cases that reached new layout coverage as
# case files, the next campaign starts from them (mutating them), and the
# report shows the coverage map.
#   corpus_test.sh PATH_TO_DPFUZZ
set -u
dpfuzz="$1"
source "$(dirname "$0")/test_lib.sh"
args=(--op=aten::add.Tensor,aten::sum.dim_IntList --jobs=2 --python_check=false
      --progress=false --corpus="$dir/corpus" --findings="$dir/f")
cells() { sed -n 's/^INFO: corpus: \([0-9]*\) case(s), \([0-9]*\) layout-coverage cell(s).*/\2/p' "$1"; }

"$dpfuzz" "${args[@]}" --runs=300 --seed=3 >"$dir/first.out" 2>&1
first=$(cells "$dir/first.out")
[ -n "$first" ] && [ "$first" -gt 50 ] || die "first run: no corpus line or few cells ($first)"
n_cases=$(ls "$dir/corpus"/*.json 2>/dev/null | wc -l)
[ "$n_cases" -gt 5 ] || die "first run kept $n_cases cases"
head -c1 "$(ls "$dir/corpus"/*.json | head -1)" | grep -q "{" || die "a corpus file is not a case file"
[ -s "$dir/corpus/coverage.cells" ] || die "no merged coverage.cells"
[ -z "$(ls "$dir/corpus/cells" 2>/dev/null)" ] || die "worker cell files left after the merge"
grep -q "Layout coverage" "$dir/f/report.md" || die "report.md has no coverage map"
grep -q "aten::add.Tensor" "$dir/f/report.md" || die "the coverage map does not name add"

# The second campaign starts from the corpus: it mutates its cases, and
# the queue of mutated cases is empty when it ends.
"$dpfuzz" "${args[@]}" --runs=300 --seed=4 --summary_json="$dir/second.json" \
  >"$dir/second.out" 2>&1
second=$(cells "$dir/second.out")
[ -n "$second" ] && [ "$second" -ge "$first" ] || die "second run lost cells ($first -> $second)"
[ -z "$(ls "$dir/corpus/.queue" 2>/dev/null)" ] || die "mutated cases left in the queue"
grep -q "^SUMMARY: .* cases=300 " "$dir/second.out" || die "second run: $(grep SUMMARY "$dir/second.out")"
[ "$(json "$dir/second.json" "j['errors']")" = 0 ] || die "corpus draws made errors: $(grep -E 'ERROR' "$dir/second.out" | head -3)"

[ "$fail" = 0 ] || tail -5 "$dir/first.out" "$dir/second.out"
exit $fail
