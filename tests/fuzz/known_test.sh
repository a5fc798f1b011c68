#!/usr/bin/env bash
# --known with directories of cases (fuzz/known_cases.h): a bug found once
# is known on the next run, from the first run's findings directory, and
# nothing else is:
#   known_test.sh PATH_TO_DPFUZZ_PLANTED
# 1. A campaign on two planted ops stores their bugs (exit 1).
# 2. The same ops and a third, with --known=<the first findings>: the two
#    ops' bugs are KNOWN (in any dtypes, the summary's known list notes the
#    case directories), the third's is reported; an op of --known's cases
#    that is not fuzzed is not run.
# 3. A known-issues file and a directory together (comma-separated): all
#    three known, exit 0.
# 4. A directory without case files is a usage error (exit 2).
set -u
planted="$1"
source "$(dirname "$0")/test_lib.sh"
run() {  # run NAME ARGS...: a 300-case campaign, seed 3, into $dir/NAME.
  local name="$1"
  shift
  "$planted" --runs=300 --seed=3 --python_check=false --reduce=false \
    --findings="$dir/$name" --summary_json="$dir/$name.json" "$@" \
    >"$dir/$name.out" 2>&1
}

run first --op=planted::flat_neg,planted::picky_neg
[ $? = 1 ] || die "first campaign: expected exit 1 (bugs)"
[ "$(json "$dir/first.json" "sorted({b['id'].split('-')[0] for b in j['bug_list']})")" = \
  "['flat_neg', 'picky_neg']" ] ||
  die "first campaign's bugs: $(json "$dir/first.json" "j['bug_list']")"

run second --op=planted::flat_neg,planted::cl_scramble --seed=5 --known="$dir/first"
[ $? = 1 ] || die "second campaign: expected exit 1 (cl_scramble's bug)"
cases=$(ls -d "$dir"/first/*/case.json | wc -l)
flat=$(ls -d "$dir"/first/*flat_neg*/case.json | wc -l)
grep -q "^INFO: known cases in $dir/first: $flat of $cases are of these ops; $flat show a finding here" \
  "$dir/second.out" || die "no INFO line for $flat of $cases known cases: $(grep INFO "$dir/second.out")"
grep -q "^KNOWN: planted::flat_neg|" "$dir/second.out" || die "no KNOWN line for flat_neg"
[ "$(json "$dir/second.json" "sorted({b['id'].split('-')[0] for b in j['bug_list']})")" = \
  "['cl_scramble']" ] ||
  die "second campaign's bugs: $(json "$dir/second.json" "j['bug_list']")"
[ "$(json "$dir/second.json" "all(k['note'].startswith('$dir/first/') and k['hits'] > 0 for k in j['known'])")" = True ] ||
  die "second campaign's known list: $(json "$dir/second.json" "j['known']")"
ls "$dir"/second/*flat_neg* >/dev/null 2>&1 && die "a known finding was stored"

echo "planted::cl_scramble|*  planted for the test" >"$dir/known.txt"
run third --op=planted::flat_neg,planted::picky_neg,planted::cl_scramble \
  --seed=7 --known="$dir/known.txt,$dir/first"
[ $? = 0 ] || die "third campaign: expected exit 0 (all known): $(grep -E '^(BUG|KNOWN|ERROR)' "$dir/third.out")"
[ "$(json "$dir/third.json" "len(j['bug_list'])")" = 0 ] || die "third campaign reported bugs"
grep -q "^KNOWN: planted::cl_scramble|.*planted for the test" "$dir/third.out" ||
  die "no KNOWN line from the file"

mkdir "$dir/empty"
"$planted" --op=planted::flat_neg --runs=10 --known="$dir/empty" >"$dir/empty.out" 2>&1
[ $? = 2 ] && grep -q "flag --known: $dir/empty" "$dir/empty.out" ||
  die "a directory without cases: $(cat "$dir/empty.out")"

[ "$fail" = 0 ] || tail -n 30 "$dir"/*.out
[ "$fail" = 0 ] && echo "known: all checks passed"
exit $fail
