#!/usr/bin/env bash
# The dpfuzz binary end to end: exit statuses and the stable output lines.
#   dpfuzz_cli_test.sh PATH_TO_DPFUZZ LIBTORCH_RELEASE
set -u
dpfuzz="$1"
libtorch="$2"  # e.g. 1.13.0: which known findings show (found_in, fixed_in).
source "$(dirname "$0")/test_lib.sh"
expect() {  # expect STATUS DESCRIPTION -- ARGS...
  local want=$1 what=$2; shift 3
  "$dpfuzz" "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; cat "$dir/out" "$dir/err"; fail=1
  fi
}
# Bad usage: exit 2 and exactly one line on stderr, naming the problem.
usage_error() {  # usage_error DESCRIPTION NEEDLE -- ARGS...
  local what=$1 needle=$2; shift 2
  expect 2 "$what" "$@"
  if [ "$(wc -l <"$dir/err")" != 1 ] || ! grep -qF -- "$needle" "$dir/err"; then
    echo "FAIL: $what: expected one error line with \"$needle\", got:"; cat "$dir/err"; fail=1
  fi
}
expect 0 "help" -- --help
grep -q "dpfuzz repro PATH" "$dir/out" || { echo "FAIL: help lacks repro"; fail=1; }
touch "$dir/file"
echo '{"format": "dpfuzz-case", "version": 1, "op": "aten::add"' >"$dir/bad.json"
mkdir -p "$dir/empty" "$dir/two/a" "$dir/two/b"
cp "$(dirname "$0")/../../known_findings/tril-out-gapped-writes-outside-view/case.json" "$dir/two/a/"
cp "$dir/two/a/case.json" "$dir/two/b/"
echo "not a pattern" >"$dir/known.txt"
usage_error "unknown flag" "unknown flag --bogus" -- --bogus
usage_error "flag without value" "--jobs needs a value" -- --op=add --jobs
usage_error "no op" "no op given" --
usage_error "unknown op" 'no op "no_such_op"' -- --op=no_such_op
usage_error "positional" 'unexpected argument "extra"' -- --op=add extra
usage_error "findings is a file" "$dir/file" -- --op=add --findings="$dir/file"
usage_error "runs < 0" "--runs=-1" -- --op=add --runs=-1
usage_error "bad max_time" "--max_time=soon" -- --op=add --max_time=soon
usage_error "bad device" 'flag --device=tpu: unknown device' -- --op=add --device=tpu
if [ ! -e /dev/nvidia0 ]; then  # No GPU: refused before any worker starts.
  usage_error "cuda without a GPU" "flag --device=cuda: " -- --op=add --device=cuda
fi
usage_error "negative max_time" "--max_time=-3" -- --op=add --max_time=-3
usage_error "bad timeout" "--timeout=x" -- --op=add --timeout=x
usage_error "jobs 0" "--jobs=0" -- --op=add --jobs=0
usage_error "jobs not a number" "--jobs=two" -- --op=add --jobs=two
usage_error "rss limit < 0" "--rss_limit_mb=-5" -- --op=add --rss_limit_mb=-5
usage_error "bad dtype" "--dtypes" -- --op=add --dtypes=f99
usage_error "bad seed" "--seed=abc" -- --op=add --seed=abc
usage_error "missing known file" "$dir/nothing.txt" -- --op=add --known="$dir/nothing.txt"
usage_error "malformed known file" "$dir/known.txt:1" -- --op=add --known="$dir/known.txt"
usage_error "list-ops extra" 'unexpected argument "list-ops"' -- list-ops extra
usage_error "replay nothing" "replay: name case files" -- replay
usage_error "replay missing" "$dir/nothing.json: no such file" -- replay "$dir/nothing.json"
usage_error "replay malformed" "$dir/bad.json" -- replay "$dir/bad.json"
usage_error "replay empty dir" "no case.json below it" -- replay "$dir/empty"
usage_error "replay bad jobs" "--jobs=0" -- replay "$dir/two" --jobs=0
usage_error "repro nothing" "repro: name one case file" -- repro
usage_error "repro missing" "$dir/nothing.json: no such file" -- repro "$dir/nothing.json"
usage_error "repro malformed" "$dir/bad.json" -- repro "$dir/bad.json"
usage_error "repro two cases" "holds 2 cases" -- repro "$dir/two"
usage_error "repro bad format" "--format=rust" -- repro "$dir/two/a" --format=rust
usage_error "repro out is a directory" "--out=$dir/empty is a directory" -- repro "$dir/two/a" --out="$dir/empty"
mkdir -p "$dir/proj"; echo "project(mine)" >"$dir/proj/CMakeLists.txt"
usage_error "repro keeps a project's CMakeLists.txt" "is not a dpfuzz repro's" -- \
  repro "$dir/two/a" --format=cpp --out="$dir/proj/repro.cc"
grep -q "project(mine)" "$dir/proj/CMakeLists.txt" || { echo "FAIL: CMakeLists.txt overwritten"; fail=1; }
usage_error "reduce nothing" "reduce: name one case file" -- reduce
usage_error "reduce missing" "$dir/nothing.json: no such file" -- reduce "$dir/nothing.json"
if [ "$(id -u)" != 0 ]; then  # root reads everything
  cp "$dir/two/a/case.json" "$dir/locked.json"; chmod 000 "$dir/locked.json"
  usage_error "replay unreadable" "$dir/locked.json" -- replay "$dir/locked.json"
fi
# repro of a case without finding.json runs it first to learn its verdict.
expect 0 "repro of a bare case" -- repro "$dir/two/a/case.json"
grep -q "verdict outside_write" "$dir/out" || { echo "FAIL: bare case repro"; fail=1; }
# --out in a folder that does not exist yet: made, as mkdir -p would.
expect 0 "repro into a new folder" -- repro "$dir/two/a/case.json" --format=cpp --out="$dir/new/r/repro.cc"
[ -f "$dir/new/r/repro.cc" ] && [ -f "$dir/new/r/CMakeLists.txt" ] ||
  { echo "FAIL: repro --out in a new folder wrote nothing"; fail=1; }
touch "$dir/afile"
usage_error "repro out under a file" "--out folder $dir/afile exists and is not a directory" -- \
  repro "$dir/two/a/case.json" --out="$dir/afile/repro.py"
# A short campaign on a correct-looking op: SUMMARY line and summary JSON.
expect_status() { "$dpfuzz" "$@" >"$dir/out" 2>&1; echo $?; }
status=$(expect_status --op=flip --runs=300 --seed=3 --findings="$dir/f" --summary_json="$dir/s.json")
case "$status" in 0|1) ;; *) echo "FAIL: campaign exit $status"; cat "$dir/out"; fail=1 ;; esac
grep -q "^SUMMARY: .* cases=300 " "$dir/out" || { echo "FAIL: no SUMMARY line"; cat "$dir/out"; fail=1; }
grep -q '"cases": 300' "$dir/s.json" || { echo "FAIL: summary JSON"; fail=1; }
# Its start (until a worker's first result) and its rate after it.
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (0 < j["start_seconds"] < j["seconds"] and j["steady_cases_per_second"] > 0 and j["ops"] == j["ops_with_cases"] == 1))' "$dir/s.json" ||
  { echo "FAIL: start_seconds, steady_cases_per_second or ops"; cat "$dir/s.json"; fail=1; }
# reduce: the gapped tril.out case shrinks and still shows outside_write.
expect 0 "reduce a known finding" -- reduce "$(dirname "$0")/../../known_findings/tril-out-gapped-writes-outside-view" --out="$dir/reduced.json"
grep -q '"op": "aten::tril"' "$dir/reduced.json" || { echo "FAIL: no reduced case"; fail=1; }
grep -q "^INFO: reduced aten::tril|out|outside_write" "$dir/err" || { echo "FAIL: no reduction line"; cat "$dir/err"; fail=1; }
# The regression gate: every known LibTorch finding reproduces, but on a
# LibTorch before the release in its found_in or at or past the one in its
# fixed_in (known_findings/README.md).
src="$(dirname "$0")/../.."
expect 1 "replay known findings" -- replay "$src/known_findings" --jobs=2
at_least() {  # at_least RELEASE: the LibTorch under test is RELEASE or newer.
  [ "$(printf '%s\n' "$1" "$libtorch" | sort -V | head -n1)" = "$1" ]
}
for finding in "$src"/known_findings/*/; do
  want=REPRODUCES
  [ -f "$finding/found_in" ] && ! at_least "$(cat "$finding/found_in")" && want=FIXED
  [ -f "$finding/fixed_in" ] && at_least "$(cat "$finding/fixed_in")" && want=FIXED
  grep -qxF "$want: ${finding}case.json" <(cut -d' ' -f1,2 "$dir/out") ||
    { echo "FAIL: $finding: no $want line on LibTorch $libtorch"; cat "$dir/out"; fail=1; }
done
[ "$fail" = 0 ] && echo "dpfuzz CLI: all checks passed"
exit $fail
